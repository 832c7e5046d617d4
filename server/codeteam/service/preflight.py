"""Checks made before the first model call, so that no model call is spent on a run whose
result could not be used: can the generated code be tested here?

The CLI and the editor ask :func:`untestable_reason` first (through the service, before the
project's tests are even looked for); when it answers, they say so and make no call (the CLI
runs anyway only when asked explicitly, ``--allow-untested``). The endpoint is not probed
beforehand: the LLM client stops at its first connection failure
(:attr:`codeteam.llm.client.LLMClient.unreachable`) and the caller reports that one failure.
"""

from __future__ import annotations

import os
import pwd
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codeteam.project import Project
    from codeteam.settings import Settings

TESTED_PIPELINES = frozenset({"direct", "plan", "team", "flow", "fix", "review"})
"""Pipelines whose result depends on running tests in the sandbox (``plan_docstring`` runs
none)."""


def untestable_reason(
    settings: Settings, pipeline: str, project: Project | None = None
) -> str | None:
    """Why pipeline ``pipeline`` could not run its tests with ``settings`` (the sandbox is
    missing or broken, or it could not read ``project``: :func:`unreadable_reason`), or None.
    Blocking (the first check starts bwrap once, ~30 ms; the project is walked once, cached):
    call it off the event loop."""
    if pipeline not in TESTED_PIPELINES:
        return None
    from codeteam.execution.sandbox import sandbox_problem

    problem = sandbox_problem(settings.sandbox)
    if problem is None and project is not None:
        problem = unreadable_reason(project, settings.sandbox)
    return problem


def unreadable_reason(project: Project, mode: str) -> str | None:
    """Why the sandbox cannot read ``project`` (issue 25 item 6), or None. Only under bwrap
    with the server as root: the tests then run as an unprivileged uid of their own, which
    reads the project as "other". A folder others cannot list and enter, or a file they cannot
    read (not one of the hidden paths), anywhere in the project (:func:`codeteam.project.project_tree`),
    or one of the interpreter's folders, would fail correct code: the answer names the first,
    its mode and owner, and what to do: ``chmod o+rX`` of the paths named, never of the whole
    project (``-R`` would open every file kept private on purpose to every user), or running
    codeteam as the project's owner."""
    if mode != "bwrap" or os.geteuid() != 0 or project.lone:
        return None
    from codeteam.project import project_tree

    hidden = [path.rstrip("/") for path in project.hidden]
    closed = [
        path for path in project_tree(project.root).closed
        if not any(path == secret or path.startswith(secret + "/") for secret in hidden)
    ]  # fmt: skip
    for path in (*project.read_only_paths(), project.python):
        try:
            if os.stat(path).st_mode & 0o005 != 0o005:
                closed.append(path)
        except OSError:
            continue
    if not closed:
        return None
    first = closed[0]
    try:
        info = os.stat(first)
        owner = _user(info.st_uid)
        what = f"{first} (mode {info.st_mode & 0o7777:04o}, owner {owner})"
    except OSError:
        what = first
    more = f" and {len(closed) - 1} more" if len(closed) > 1 else ""
    named = " ".join(shlex.quote(path) for path in closed[:3]) + (" ..." if len(closed) > 3
                                                                  else "")
    return (
        f"the sandbox cannot read the project {project.root}: {what}{more} cannot be read by "
        "other users, and codeteam runs as root, so the tests run as an unprivileged user of "
        "their own; correct code would fail. Make what the tests need readable by others "
        f"(chmod o+rX {named}), or, for files kept private on purpose, run codeteam as the "
        "project's owner instead of root"
    )


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)
