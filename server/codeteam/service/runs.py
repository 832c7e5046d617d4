"""The one orchestration from a request to an outcome, used by the editor, the CLI and the
benchmark's callers alike: read the module leniently, locate the function, build the task with
its public tests, get a model client, run the pipeline, note what was left out, and check that
the new code parses in place.

Callers translate: the editor turns a :class:`RunOutcome` into a WorkspaceEdit, diagnostics
and messages, the CLI into stdout, stderr and an exit code. Errors are the service's own
(:class:`ServiceError` and its subclasses, each with a message for the user;
:class:`TargetError` is :func:`~codeteam.service.locate.locate_target`'s); nothing here knows
LSP or the command line. Lines are 0-based.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from codeteam.execution.suite import Offload
from codeteam.llm.client import LLMClient, LLMError
from codeteam.llm.embedded import EmbeddedModelError
from codeteam.pipelines.registry import ACTIONS, PIPELINES, run_pipeline
from codeteam.pipelines.result import Result
from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionInfo,
    FunctionNotFound,
    SourceError,
    new_module_text,
)
from codeteam.pysource.tolerant import ParseableModule, parseable_module
from codeteam.roles.conversation import ProgressCallback
from codeteam.service.documents import task_for_args
from codeteam.service.locate import ServiceError, TargetError, locate_target
from codeteam.service.preflight import untestable_reason
from codeteam.settings import Settings
from codeteam.task import Task

REPORTING_ONLY = frozenset({"review"})
"""Pipelines whose result does not replace the function (the tester's report only); every
other pipeline's code (a new function, or the function with its plan) replaces it."""


class ModelUnavailable(ServiceError):
    """No model client could be had (the embedded model did not start, the endpoint refused)."""


class ModelFailed(ServiceError):
    """The model failed during the run in a way the pipeline could not degrade around (the
    endpoint could not be reached: the client stops at its first connection failure)."""


class Untestable(ServiceError):
    """The run's result depends on tests and the sandbox cannot run them here; no model call
    was made (:func:`codeteam.service.preflight.untestable_reason`). ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the code cannot be tested here, so no model call was made: {reason}")
        self.reason = reason


class ClientSource(Protocol):
    """Where runs get their model client: :class:`~codeteam.service.clients.LLMSession` (shared
    by the editor's runs) or :class:`OneClient` (one run of the CLI)."""

    async def acquire(self, settings: Settings) -> LLMClient: ...

    async def release(self, client: LLMClient) -> None: ...


@dataclass
class RunRequest:
    """One run: ``text`` is the module as the run sees it (a document or a file, LF or CRLF,
    without a BOM); the function is ``info`` (already located by the caller in
    :attr:`readable`) or ``qualname`` (``Class.method`` for a method). ``pipeline`` is a key of
    :data:`~codeteam.pipelines.registry.PIPELINES` or ``ACTIONS``, or None for the settings'
    ``generate_pipeline``. ``path`` is the file on disk (None for an unsaved document) and
    ``workspace_root`` the folder whose tests are searched for a file outside any project;
    ``project_root`` the root the user chose for the file's project (``--workspace``, the
    editor's workspace folder holding the file), None to find it from the file
    (:func:`~codeteam.project.project_for`)."""

    text: str
    settings: Settings
    pipeline: str | None = None
    qualname: str | None = None
    info: FunctionInfo | None = None
    readable: ParseableModule | None = None
    path: Path | None = None
    workspace_root: Path | None = None
    project_root: Path | None = None
    allow_untested: bool = False
    """Run even when the sandbox cannot test the result (the outcome's ``untested`` says
    why); otherwise such a run raises :class:`Untestable` before any model call."""
    offload: Offload | None = None
    """Where the parsing work of building the task runs (the editor's parse worker process);
    None: a worker thread."""


@dataclass
class RunOutcome:
    """What a run gave. ``result`` is the pipeline's result (its notes include what was left
    out of the run); ``new_text`` the request's text with the function replaced by
    ``result.code`` in its place (its line endings kept), None when the pipeline only
    reports (review), gave no code, or the code does not parse in place (then ``result.status`` is
    "error" and a note says why); ``applicable`` whether there is a ``new_text`` (whether it
    may be written is :func:`codeteam.service.write_policy.write_decision`'s)."""

    result: Result
    task: Task
    readable: ParseableModule
    new_text: str | None = None
    untested: str | None = None
    """Why no test could run (the request allowed it), or None."""
    pipeline: str = ""
    """The pipeline that ran (a key of PIPELINES or ACTIONS)."""

    @property
    def applicable(self) -> bool:
        return self.new_text is not None


def pipeline_name(requested: str | None, settings: Settings) -> tuple[str, str | None]:
    """The pipeline to run and, when the settings' ``generate_pipeline`` is not available, the
    note saying which one ran instead."""
    if requested is not None:
        if requested not in PIPELINES and requested not in ACTIONS:
            raise ServiceError(
                f"unknown pipeline {requested!r}; choose from {sorted(PIPELINES | ACTIONS)}"
            )
        return requested, None
    name = settings.generate_pipeline
    if name in PIPELINES:
        return name, None
    return "team", f'the "{name}" pipeline is not available here; used "team" instead'


async def build_task(
    request: RunRequest, progress: ProgressCallback | None = None
) -> tuple[ParseableModule, Task]:
    """The module as the run reads it and the task with its public tests, in the project the
    file lives in (``task.project``; its ``notes`` say what the user should hear once: an
    unusable ``python`` setting, no pytest in the project's interpreter). Collected off the
    event loop. Raises :class:`TargetError`."""
    from codeteam.project import project_for

    readable, info = request.readable, request.info
    if info is None:
        if request.qualname is None:
            raise ServiceError("a run needs the function: give qualname or info")
        readable, info = await asyncio.to_thread(locate_target, request.text, request.qualname)
    elif readable is None:
        readable = await asyncio.to_thread(parseable_module, request.text)
    assert readable is not None
    project = None
    if request.path is not None:
        project = await asyncio.to_thread(
            project_for, request.path, request.project_root, request.settings.python
        )
    offload = request.offload or asyncio.to_thread
    try:
        task = await offload(
            task_for_args, readable.text, info, request.path, request.workspace_root, project,
            request.settings.context_tokens,
        )
    except (FunctionNotFound, AmbiguousFunction, SourceError) as error:
        raise TargetError(str(error)) from error
    name, _ = pipeline_name(request.pipeline, request.settings)
    if name != "plan_docstring" and not (
        project is not None
        and await asyncio.to_thread(untestable_reason, request.settings, name, project)
    ):  # a project the sandbox cannot read runs nothing: run() says why
        task = await _with_project_tests(request, task, progress)
    return readable, task


async def _with_project_tests(
    request: RunRequest, task: Task, progress: ProgressCallback | None
) -> Task:
    """The task with the project's pytest tests that call the function (found by running
    them, :func:`~codeteam.service.documents.with_project_tests`); as it was, with the reason as a
    progress line, when the sandbox cannot run them (the pipeline's tester then says why)."""
    from codeteam.execution.outcomes import SandboxUnavailable
    from codeteam.service.documents import with_project_tests

    settings = request.settings
    policy = settings.sandbox_policy()
    try:
        return await with_project_tests(
            task, path=request.path, root=request.project_root, policy=policy,
            python=settings.python or None, progress=progress,
        )
    except SandboxUnavailable as error:
        if progress is not None:
            progress(f"the project's pytest tests were not looked for: {error}")
        return task


async def run(
    request: RunRequest,
    clients: ClientSource,
    *,
    progress: ProgressCallback | None = None,
    on_note: Callable[[str], None] | None = None,
    on_task: Callable[[Task], None] | None = None,
) -> RunOutcome:
    """Run ``request`` to its outcome: the one run sequence of the editor and the CLI. Build
    the task (:func:`build_task`), hand each of its project's notes to ``on_note`` (an
    unusable ``python`` setting, no pytest in the project's interpreter: for the user to
    hear), call ``on_task`` with the task (what the caller says about it before any model
    call), check the sandbox, then run the pipeline. ``progress`` receives stage labels
    ("collecting the public tests", "reading the function" for ``plan_docstring``, which
    runs no test; then the pipeline's, "starting the model" at its first
    model call). The result's ``seconds`` (and its cost's) are the whole action's wall clock,
    from this call to its result: collecting and selecting the project's tests included.

    The model client is acquired at the pipeline's first model call (:class:`RunClient`): a
    run that makes none (a review without AI tests) never starts the embedded model. The
    run's first connection failure or timeout stops its model calls; the notes then name it
    once.

    Raises :class:`TargetError`, :class:`Untestable` (before any model call),
    :class:`ModelUnavailable` (no model: the first call could not be made, nothing was
    produced), :class:`ModelFailed`; cancellation propagates (LLM calls and test processes
    are stopped). Model, sandbox and prompt problems that the pipeline can degrade around are
    notes on the result, not errors."""
    started = time.monotonic()
    report = progress = _Stages(progress)
    name, fallback_note = pipeline_name(request.pipeline, request.settings)
    # "Plan this docstring" runs no test: it collects none (build_task)
    report("reading the function" if name == "plan_docstring" else "collecting the public tests")
    readable, task = await build_task(request, progress)
    if on_note is not None and task.project is not None:
        for note in task.project.notes:
            on_note(note)
    if on_task is not None:
        on_task(task)
    settings = request.settings
    report("checking the sandbox")
    untested = await asyncio.to_thread(untestable_reason, settings, name, task.project)
    if untested and not request.allow_untested:
        raise Untestable(untested)
    client = RunClient(clients, settings, report)
    report.stopped = lambda: client.unreachable is not None
    try:
        result = await run_task(task, name, settings=settings, client=client, progress=progress,
                                offload=request.offload)
    except LLMError as error:
        raise ModelFailed(f"the model failed: {error}") from error
    finally:
        await client.release()
    result.seconds = time.monotonic() - started
    result.cost = result.usage.cost(result.seconds, dict(settings.prices))
    if client.unavailable is not None and result.code is None:
        raise ModelUnavailable(client.unavailable)
    stopped = client.unreachable
    if stopped is not None and result.code is None:
        raise ModelFailed(f"{stopped}; nothing was produced")
    if stopped is not None:
        result.notes = _stopped_once(result.notes, str(stopped))
    if readable.left_out:
        result.notes.insert(0, readable.run_note())
    if fallback_note:
        result.notes.insert(0, fallback_note)
    outcome = RunOutcome(result=result, task=task, readable=readable, untested=untested,
                         pipeline=name)
    if name not in REPORTING_ONLY and result.code is not None:
        # Compiling the whole module holds the GIL (tens of ms for a big one): elsewhere.
        offload = request.offload or asyncio.to_thread
        new_text, problem = await offload(
            new_module_text, request.text, readable.text, task.start_line, task.end_line,
            task.indent, result.code, str(request.path or "<document>"),
        )
        if problem is not None:
            where = request.path or "the document"
            result.notes.append(f"the new code does not parse in {where} ({problem}); not used")
            result.status = "error"
        outcome.new_text = new_text
    return outcome


async def run_task(
    task: Task,
    pipeline: str,
    *,
    settings: Settings,
    client: LLMClient | RunClient,
    progress: ProgressCallback | None = None,
    offload: Offload | None = None,
) -> Result:
    """Run ``pipeline`` (a key of :data:`PIPELINES` or :data:`ACTIONS`) on ``task``, a task
    already built (``offload``: where the test runs' parsing happens, see
    :data:`codeteam.execution.suite.Offload`): :func:`run`'s for the editor and the CLI, a
    benchmark's (its public tests its own) for ``codeteam bench``. ``client`` is this run's
    own client: a :class:`RunClient`, or an :class:`~codeteam.llm.client.LLMClient`'s
    :meth:`~codeteam.llm.client.LLMClient.session` view (its first connection failure or
    timeout stops this run's calls only, not those of other runs on the same client).

    Raises :class:`KeyError` for an unknown pipeline; cancellation propagates after the
    model calls and test processes are stopped. Model, sandbox and prompt-file failures do
    not raise: they are notes on the result, status "error" when there is no code."""
    return await run_pipeline(pipeline, task, settings=settings, client=client,
                              progress=progress, offload=offload)


async def start_model(clients: ClientSource, settings: Settings) -> LLMClient:
    """A model client for ``settings`` from ``clients`` (the embedded model started if the
    settings need it); pair with ``clients.release``. Raises :class:`ModelUnavailable` with
    the message for the user when none can be had (the embedded model cannot start: what to
    install; the endpoint refused)."""
    try:
        return await clients.acquire(settings)
    except EmbeddedModelError as error:
        raise ModelUnavailable(str(error)) from error
    except LLMError as error:
        raise ModelUnavailable(f"the model is not available: {error}") from error


class _Stages:
    """A run's progress callback that remembers the last stage it reported (:attr:`last`), so
    the model's start can hand the stage back to the call it interrupted. Once
    :attr:`stopped` returns True (the run's model calls were stopped by a connection failure
    or a timeout) no later stage is reported: each would fail at once without a request."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self._progress = progress
        self.last: str | None = None
        self.stopped: Callable[[], bool] = lambda: False

    def __call__(self, stage: str) -> None:
        if self.stopped():
            return
        self.last = stage
        if self._progress is not None:
            self._progress(stage)


def connection_failure(client: Any) -> LLMError | None:
    """The failure every later call would meet too (nothing listens, DNS, TLS:
    :class:`~codeteam.llm.client.LLMUnavailable`; a refused API key:
    :class:`~codeteam.llm.client.LLMAuthError`) that stopped ``client``'s calls (an
    :class:`~codeteam.llm.client.LLMClient`, its session view or a :class:`RunClient`), or
    None: not stopped, or stopped by a timeout (which may be one slow task's)."""
    from codeteam.llm.client import LLMAuthError, LLMUnavailable

    stopped = getattr(client, "unreachable", None)
    return stopped if isinstance(stopped, LLMUnavailable | LLMAuthError) else None


class RunClient:
    """One run's model client, acquired from ``clients`` at the first :meth:`chat` (the
    progress says "starting the model" or "connecting" then, and once the client is had, the
    stage of that call again), as the acquired client's
    :meth:`~codeteam.llm.client.LLMClient.session` view: it stops at the run's first
    connection failure or timeout. When no client can be had, every call raises
    :class:`~codeteam.llm.client.LLMUnavailable` and :attr:`unavailable` says why."""

    def __init__(self, clients: ClientSource, settings: Settings,
                 report: Callable[[str], None]) -> None:
        self._clients, self._settings, self._report = clients, settings, report
        self._shared: LLMClient | None = None
        self._session: LLMClient | None = None
        self._lock = asyncio.Lock()
        self.unavailable: str | None = None
        """Why no client could be had (the embedded model did not start), or None."""

    @property
    def unreachable(self):
        """The failure that stopped the run's calls (see ``LLMClient.unreachable``)."""
        return self._session.unreachable if self._session is not None else None

    async def _client(self) -> LLMClient:
        from codeteam.llm.client import LLMUnavailable

        async with self._lock:
            if self._session is None and self.unavailable is None:
                interrupted = getattr(self._report, "last", None)
                self._report("starting the model" if self._settings.uses_embedded_model
                             else "connecting")
                try:
                    self._shared = await start_model(self._clients, self._settings)
                except ModelUnavailable as error:
                    self.unavailable = str(error)
                else:
                    self._session = self._shared.session()
                    if interrupted:  # the stage whose call this is, again
                        self._report(interrupted)
            if self._session is None:
                raise LLMUnavailable(self.unavailable or "no model client", requests=0)
            return self._session

    async def chat(self, *args: Any, **kwargs: Any):
        """:meth:`codeteam.llm.client.LLMClient.chat` on the run's client."""
        return await (await self._client()).chat(*args, **kwargs)

    async def release(self) -> None:
        """Give the acquired client back (nothing when none was acquired)."""
        if self._shared is not None:
            shared, self._shared = self._shared, None
            await self._clients.release(shared)


def _stopped_once(notes: list[str], failure: str) -> list[str]:
    """``notes`` with the failure that stopped the run's model calls named once: the later
    stages that could not call the model say nothing more."""
    seen = False
    kept = []
    for note in notes:
        if failure in note:
            if seen:
                continue
            seen = True
            note = f"the model calls stopped at the first failure: {failure}"
        kept.append(note)
    return kept
