"""The harness against the runner's project contract: the target imported by its dotted name
inside its package (``module``, ``sys_path``, ``program_file``), here a small package laid into
/sandbox through run_sandboxed's ``files``."""

from __future__ import annotations

import json
import marshal

import pytest

from codeteam.execution.models import TestCase
from codeteam.execution.runner import (
    CODEC_NAME,
    HARNESS_PYC,
    SPEC_FILE,
    SUBJECT_NAME,
    _outcomes,
    _sibling_bytecode,
    harness_bytecode,
)
from codeteam.execution.sandbox import (
    SandboxPolicy,
    python_argv,
    run_sandboxed,
    sandbox_site_packages,
)

pytestmark = pytest.mark.sandbox

MOD = '''from .units import FACTOR


def scale(x):
    return x * FACTOR


def broken(x):
    return x / 0
'''


async def _run(tests: list[TestCase], policy: SandboxPolicy):
    spec = {
        "module": "pkg.sub.mod",
        "sys_path": ["/sandbox", *sandbox_site_packages()],
        "program_file": "/sandbox/pkg/sub/mod.py",
        "function_span": [4, 5],
        "tests": [t.model_dump(include={"id", "kind", "source", "expected", "setup"})
                  for t in tests],
        "test_timeout": 2.0,
    }
    files = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/units.py": "FACTOR = 3\n",
        "pkg/sub/mod.py": MOD,
        HARNESS_PYC: harness_bytecode(),
        CODEC_NAME + ".pyc": _sibling_bytecode(CODEC_NAME),
        SUBJECT_NAME + ".pyc": _sibling_bytecode(SUBJECT_NAME),
        SPEC_FILE: marshal.dumps(spec),
    }
    result = await run_sandboxed(files, python_argv(HARNESS_PYC, SPEC_FILE), policy)
    return _outcomes(tests, result, policy, "mod"), result


async def test_a_module_inside_its_package(policy):
    tests = [
        TestCase(id="doc", kind="doctest", origin="public", source="scale(2)", expected="6"),
        TestCase(id="from", kind="assert", origin="ai",
                 source="from pkg.sub.mod import scale as s\nassert s(1) == 3"),
        TestCase(id="bad", kind="assert", origin="ai", source="assert broken(1) == 1"),
        TestCase(id="fail", kind="assert", origin="ai", source="assert scale(1) == 4"),
    ]
    outcomes, result = await _run(tests, policy)
    doc, from_, bad, fail = outcomes
    assert (doc.status, doc.actual) == ("passed", "6"), (doc, result.stderr)
    assert from_.status == "passed" and from_.trusted  # the judge bound the proxy
    assert bad.status == "error" and bad.exception_type == "ZeroDivisionError"
    assert bad.program_line == 9
    assert 'File "pkg/sub/mod.py", line 9' in bad.traceback
    assert (fail.status, fail.expected, fail.actual) == ("failed", "4", "3")
    assert all(o.trusted for o in outcomes)
    events = [json.loads(line) for line in result.results.splitlines()]
    assert events[-1] == {"event": "done"}


async def test_the_spec_is_gone_before_the_code_runs(policy):
    probe = TestCase(id="ls", kind="assert", origin="ai",
                     source="import os\nassert os.path.exists('_codeteam_spec.marshal')")
    (outcome,), _ = await _run([probe], policy)
    assert outcome.status == "failed" and not outcome.trusted
