"""Attacks on what crosses between judge and subject since the second verdict survey
(docs/bench-runs/verdict-survey/survey2.md): the code under test, in its own process, writing
what it likes on its channel, against the judge's mirror of module state, its rebuilt
values and its "not judged". Each builds a small project and asserts the verdict plain
pytest would give the wrong code, or "not judged", never a pass."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox


# A project module holds `re` (a library module the judge now watches, for the test's
# patches). The code, in its process, reports a "change" of re's private cache: the judge
# took it over, and its own re.fullmatch(r"\d{2}", ...) then ran the code's pattern.
CACHED = {
    "pyproject.toml": "[project]\nname = 'digits'\nversion = '0'\n",
    "digits/__init__.py": "",
    "digits/core.py": '''\
        import re


        def two_digits(text):
            """The first two digits of ``text``."""
            return "".join(re.findall(r"[0-9]", text))[:2]
        ''',
    "tests/test_core.py": '''\
        import re

        from digits.core import two_digits


        def test_two_digits():
            assert re.fullmatch(r"\\d{2}", two_digits("a1b2c3"))
        ''',
}

POISON = '''\
def two_digits(text):
    import gc, re
    subject = next(o for o in gc.get_objects() if type(o).__name__ == "Subject")
    honest = subject.changed_state
    poisoned = {(str, r"\\d{2}", 0): re.compile(".*")}
    subject.changed_state = lambda before: honest(before) + [["re", None, "_cache", poisoned, re]]
    return "no digits"
'''


async def test_the_code_cannot_change_a_library_module_of_the_judge(tmp_path):
    """The judge mirrors what a call changed in the project's modules; the library modules
    they hold are watched for the test's patches, never the code's to change."""
    root = make(tmp_path / "digits", CACHED)
    _, run = await review(root, "digits/core.py", "two_digits")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "digits/core.py", "two_digits", POISON)
    assert by_name(run)["test_two_digits"].status == "failed", run.outcomes
