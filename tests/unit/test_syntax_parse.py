"""codeteam.pysource.syntax.parse_tree: trees built from several threads at once (CPython
gh-106905: on 3.11 two threads building AST objects at once share one recursion counter,
and one of them fails with "SystemError: AST constructor recursion depth mismatch"; seen
as a failed "Generate with team" while eight runs parsed their modules in threads)."""

from __future__ import annotations

import ast
import gc
import threading
import time
from pathlib import Path

import codeteam.execution.pytest_codec as big_module
from codeteam.pysource.syntax import parse_tree

SOURCE = Path(big_module.__file__).read_text(encoding="utf-8")  # 1,500 lines


def _switch_inside_collections():
    """A collection during a parse lets another thread run (a gc callback that sleeps)."""
    def callback(phase, _info):
        if phase == "start":
            time.sleep(0.0005)
    old = gc.get_threshold()
    gc.set_threshold(50)
    gc.callbacks.append(callback)
    return lambda: (gc.callbacks.remove(callback), gc.set_threshold(*old))


def test_three_threads_parse_a_large_module_at_once():
    restore = _switch_inside_collections()
    errors: list[BaseException] = []
    trees: list[ast.AST] = []

    def work():
        for _ in range(6):
            try:
                trees.append(parse_tree(SOURCE))
            except BaseException as error:  # noqa: BLE001 - the test reports any
                errors.append(error)
                return

    try:
        threads = [threading.Thread(target=work) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        restore()
    assert errors == []
    assert len(trees) == 18 and all(isinstance(t, ast.Module) for t in trees)


def test_parse_tree_raises_what_ast_parse_raises():
    assert isinstance(parse_tree("1 + 2", mode="eval"), ast.Expression)
    for bad in ("def f(:\n", "x = 1\x00"):
        try:
            ast.parse(bad)
        except (SyntaxError, ValueError) as expected:
            kind = type(expected)
        try:
            parse_tree(bad)
        except (SyntaxError, ValueError) as got:
            assert type(got) is kind
        else:
            raise AssertionError(f"{bad!r} parsed")


def test_the_server_process_parses_only_through_parse_tree():
    """No ``ast.parse(`` in the server's modules but syntax.py (the sandbox side is apart: its
    processes do not run codeteam's threads)."""
    package = Path(parse_tree.__code__.co_filename).parents[1]
    sandbox_side = {"pytest_plugin.py", "pytest_subject.py", "pytest_codec.py"}
    offenders = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py") if path.name not in sandbox_side | {"syntax.py"}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "ast.parse(" in line and "``ast.parse(" not in line
    ]
    assert offenders == []


def test_a_parse_beside_a_librarys_own_ast_parse_in_another_thread():
    """Libraries parse without codeteam's lock: in the server's imports thread pydantic builds
    its models through ``inspect.signature``, whose ``_signature_fromstr`` calls ``ast.parse``
    on a short text (at another stack depth), while the loop parses for a codeAction, which
    then failed with gh-106905's SystemError. parse_tree lets no other thread build a tree in
    the middle of its own."""
    restore = _switch_inside_collections()
    errors: list[BaseException] = []
    trees: list[ast.AST] = []
    started = threading.Event()
    done = threading.Event()

    def library(depth: int = 30):
        if depth:
            return library(depth - 1)
        started.set()
        while not done.is_set():
            try:
                ast.parse("def f(a, b=1, *c, d, **e): pass")
            except SystemError:
                pass  # the library's own parse: not what is tested

    def ours():
        started.wait()
        for _ in range(8):
            try:
                trees.append(parse_tree(SOURCE))
            except BaseException as error:  # noqa: BLE001 - the test reports any
                errors.append(error)

    try:
        threads = [threading.Thread(target=library), threading.Thread(target=ours)]
        for thread in threads:
            thread.start()
        threads[1].join()
        done.set()
        threads[0].join()
    finally:
        restore()
    assert errors == []
    assert len(trees) == 8 and all(isinstance(t, ast.Module) for t in trees)
