"""Dataset loaders: what is public (the task a pipeline sees) and what is hidden (scoring only).
No execution here."""

from __future__ import annotations

import ast
import gzip
import json

import pytest

from codeteam.bench.datasets import (
    SHARED_DATA,
    DatasetError,
    humaneval_path,
    load_dataset,
    mbpp_task,
    read_records,
)


def public_part(item) -> str:
    """Everything of a task that may reach a model: its module text and its public tests."""
    task = item.task
    return "\n".join([task.module_source, task.stub, task.docstring or ""]
                     + [t.source for t in task.public_tests])


def test_humaneval_public_doctests_and_one_hidden_check():
    data = load_dataset("humaneval")
    assert data.name == "humaneval" and len(data.tasks) == 164
    item = data.tasks[0]
    record = read_records(humaneval_path())[0]
    assert item.task_id == "HumanEval/0" and item.task.name == "has_close_elements"
    assert item.task.module_source == record["prompt"]
    assert [t.source for t in item.task.public_tests] == [
        "has_close_elements([1.0, 2.0, 3.0], 0.5)",
        "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)",
    ]
    assert all(t.origin == "public" for t in item.task.public_tests)
    [hidden] = item.hidden_tests
    assert hidden.origin == "hidden" and "def check(candidate)" in hidden.source
    assert hidden.source.rstrip().endswith("check(has_close_elements)")
    assert "from solution import *" in hidden.setup
    ast.parse(hidden.source)
    # The reference program is prompt + canonical solution.
    assert item.reference.text == record["prompt"] + record["canonical_solution"]


def test_humaneval_et_has_one_hidden_test_per_extended_assert():
    data = load_dataset("humaneval-et")
    records = read_records(SHARED_DATA / "HumanEval-ET.jsonl.gz")
    for item, record in zip(data.tasks, records):
        assert [t.source for t in item.hidden_tests] == [a.strip() for a in record["test_case_list"]]
    first = data.tasks[0].hidden_tests[0]
    assert first.call == "has_close_elements([4.88, 7.89, 3.67, 5.68, 4.88], 2.06)"
    assert first.expected == "True"


def test_humaneval_plus_hidden_tests_cover_base_and_plus_inputs():
    data = load_dataset("humaneval-plus")
    assert data.score_timeout_s >= 30
    [item] = data.select(ids=["HumanEval/32"])
    assert item.task.name == "find_zero"
    assert [t.id for t in item.hidden_tests] == ["hidden:base", "hidden:plus"]
    for test in item.hidden_tests:
        ast.parse(test.source)
        assert "_bench_check(find_zero" in test.source and ", poly)" in test.source
    [truncate] = data.select(ids=["HumanEval/2"])
    assert "1e-06" in truncate.hidden_tests[0].source


def test_mbpp_stub_from_reference_def_and_prompt_first_assert_public():
    data = load_dataset("mbpp")
    assert len(data.tasks) == 20
    item = next(t for t in data.tasks if t.task_id == "Mbpp/6")
    # The reference defines a helper first; the function under test is the one the asserts call.
    assert item.task.name == "differ_At_One_Bit_Pos"
    assert item.task.signature == "def differ_At_One_Bit_Pos(a, b)"
    doc = item.task.docstring
    assert doc.startswith("Write a python function to check whether the two numbers differ")
    assert "assert differ_At_One_Bit_Pos(13,9) == True" in doc
    assert [t.source for t in item.task.public_tests] == ["assert differ_At_One_Bit_Pos(13,9) == True"]
    assert len(item.hidden_tests) == 6  # all asserts, the public one included
    assert item.hidden_tests[0].source == "assert differ_At_One_Bit_Pos(13,9) == True"
    assert "is_Power_Of_Two" not in item.task.module_source  # no reference code leaks
    assert "is_Power_Of_Two" in item.reference.text


def test_mbpp_test_imports_are_setup_and_backslashes_stay_raw():
    first = r"assert digits('a\n1') == ['1']"
    record = {
        "task_id": 99, "prompt": "Write a function to find digits with a regex.",
        "code": "import re\ndef digits(s):\n    return re.findall(r'\\d', s)\n",
        "test_imports": ["import math"],
        "test_list": [first, "assert digits('a1b2') == ['1', '2']"],
    }
    item = mbpp_task(record)
    assert item.task_id == "Mbpp/99" and item.task.signature == "def digits(s)"
    assert all(t.setup.startswith("import math\n") for t in item.hidden_tests)
    assert item.task.public_tests[0].setup.startswith("import math")
    # The example is shown exactly as the test writes it (a raw docstring).
    assert 'r"""' in item.task.module_source and first in item.task.module_source
    assert first in ast.get_docstring(ast.parse(item.task.module_source).body[0])
    assert "a1b2" not in item.task.module_source


def test_mbpp_record_without_a_called_function_is_an_error():
    with pytest.raises(DatasetError):
        mbpp_task({"task_id": 1, "prompt": "x", "code": "def f():\n    return 1\n",
                   "test_list": ["assert g() == 1"]})


@pytest.mark.parametrize("name", ["humaneval", "humaneval-et", "humaneval-plus", "mbpp"])
def test_no_hidden_test_is_in_the_public_part(name):
    data = load_dataset(name)
    for item in data.tasks:
        public = public_part(item)
        public_ids = {t.source: t.id for t in item.task.public_tests}
        for test in item.hidden_tests:
            if test.source in public_ids:
                # MBPP's first assert is public by convention; HumanEval-ET's hidden tests
                # include the docstring's own prose examples, which are public tests too
                # ("example:N"): both are in the prompt anyway.
                assert ((name == "mbpp" and test.id == "hidden:mbpp:1")
                        or (name == "humaneval-et"
                            and public_ids[test.source].startswith("example:"))), (
                    item.task_id, test.id, public_ids[test.source])
                continue
            assert test.source not in public, (item.task_id, test.id)


def test_data_file_styles_are_chosen_per_record(tmp_path):
    prompt = 'def inc(x):\n    """Add one.\n    >>> inc(1)\n    2\n    """\n'
    records = [
        {"task_id": "T/0", "prompt": prompt, "entry_point": "inc",
         "canonical_solution": "    return x + 1\n",
         "test": "def check(candidate):\n    assert candidate(2) == 3\n"},
        {"task_id": "T/1", "prompt": prompt, "entry_point": "inc",
         "canonical_solution": "    return x + 1\n", "test": "",
         "test_case_list": ["assert inc(5) == 6", "assert inc(0) == 1"]},
    ]
    path = tmp_path / "tiny.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in records) + "\n")
    data = load_dataset(None, path)
    assert data.name == "data:tiny.jsonl.gz"
    assert [t.id for t in data.tasks[0].hidden_tests] == ["hidden:check"]
    assert [t.id for t in data.tasks[1].hidden_tests] == ["hidden:et:1", "hidden:et:2"]
    assert data.tasks[0].task.public_tests[0].expected == "2"


def test_select_by_limit_and_ids():
    data = load_dataset("humaneval")
    assert [t.task_id for t in data.select(limit=2)] == ["HumanEval/0", "HumanEval/1"]
    chosen = data.select(ids=["HumanEval/5", "3"])
    assert [t.task_id for t in chosen] == ["HumanEval/3", "HumanEval/5"]
    with pytest.raises(DatasetError, match="HumanEval/999"):
        data.select(ids=["HumanEval/999"])


def test_unknown_dataset_and_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="unknown dataset"):
        load_dataset("apps")
    with pytest.raises(DatasetError, match="no such data file"):
        load_dataset(None, tmp_path / "missing.jsonl")


def test_data_file_of_mbpp_records_is_read_like_mbpp(tmp_path):
    records = read_records(SHARED_DATA / "mbpp-sanitized-sample20.json")[:3]
    path = tmp_path / "sanitized-mbpp.json"
    path.write_text(json.dumps(records))
    data = load_dataset(None, path)
    assert [t.task_id for t in data.tasks] == ["Mbpp/2", "Mbpp/3", "Mbpp/4"]
    assert data.tasks[1].task.public_tests[0].source == "assert is_not_prime(2) == False"
