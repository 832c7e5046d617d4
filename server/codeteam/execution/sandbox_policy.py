"""What a sandboxed run is given and what it gives back (data only, no process is started
here): :class:`SandboxPolicy` (limits), :class:`ProjectMount` (the project a run sees),
:class:`SubjectLaunch` (how a run's subject sandboxes start), :class:`ProcessResult`, and the
names of the environment variables a sandboxed command reads. How these are used is
:mod:`codeteam.execution.sandbox`'s docstring.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

SANDBOX_DIR = "/sandbox"
"""The working directory inside bwrap: holds the run's files; writable (a tmpfs)."""

SANDBOX_UID = 65534
"""uid and gid the sandboxed code runs as (nobody/nogroup)."""

RESULTS_FD_ENV = "CODETEAM_RESULTS_FD"
"""Environment variable naming the results pipe's descriptor number inside the sandbox."""

PRIVATE_PIDNS_ENV = "CODETEAM_PRIVATE_PIDNS"
"""Set to "root" for "none" as root (no process limit applies: the subject's codec guards
forks itself), absent otherwise."""

RUN_UID_BASE = 1 << 30
RUN_UID_SLOTS = 512
"""A root server runs each concurrent sandbox as a uid of its own (see :class:`_RunUids`):
``RUN_UID_BASE + pid * RUN_UID_SLOTS + slot``, unique across this machine's live servers (pids
are below 2**22, so every uid stays below 2**32 - 1)."""

NPROC_ENV = "CODETEAM_MAX_PROCESSES"
"""``max_processes`` of the policy, for the judge's last-resort fork guard
(:func:`codeteam.execution.pytest_codec.guard_forks`)."""

RESULTS_LIMIT_BYTES = 32 * 1024 * 1024
"""At most this much of the results channel is kept."""


class SandboxPolicy(BaseModel):
    """How generated code runs.

    - ``mode``: ``"bwrap"`` (bubblewrap isolation, the default) or ``"none"`` (a plain
      subprocess with the same limits; not isolation: only when the user opts in).
    - ``timeout_s``: wall-clock seconds for a whole run (process start to exit), not
      counting the time it waited for a CPU (its judge's and its code's), up to
      ``BACKSTOP_STRETCH`` (4) times it in all (:mod:`codeteam.execution.sandbox`); then
      the process group, and under bwrap the whole pid namespace, is killed.
    - ``per_test_timeout_s``: seconds one test may take inside a run (enforced by the judge's
      pytest plugin: a CPU-time limit checked on ``SIGALRM`` and a wall-clock backstop that
      leaves out CPU waits, :class:`codeteam.execution.pytest_plugin.Judge`; capped at
      ``timeout_s``).
    - ``cpu_s``: CPU seconds per process (``RLIMIT_CPU``; SIGXCPU, then SIGKILL 1 s later).
    - ``memory_mb``: memory in MiB for *everything a run starts together* (the judge, its
      subjects and all their children: :mod:`codeteam.execution.run_budget`, a cgroup where
      the machine allows it, else a watcher of their resident memory); a run that goes beyond
      is ended (:attr:`ProcessResult.memory_exceeded`). Each process also has it as its
      address-space limit (``RLIMIT_AS``), so one allocation larger than that fails at once
      (``MemoryError`` in Python).
    - ``file_size_mb``: largest file a process may write, in MiB (``RLIMIT_FSIZE``).
    - ``max_processes``: processes plus threads the command may run at once
      (``RLIMIT_NPROC``, see the module docstring for how it is made per-run).
    - ``output_limit_bytes``: bytes kept of stdout and of stderr, each.
    - ``scratch_mb``: size in MiB of each writable tmpfs under bwrap (``/sandbox``, ``/tmp``,
      ``/dev/shm``); they live in RAM.
    - ``import_timeout_s``: wall-clock seconds the judge waits for the code under test's
      module to be imported in its own process; an import that does not end by then is an
      error for every test of the run.
    - ``niceness``: 0-19, the niceness of each bwrap sandbox's scheduling group. A sandbox is
      a session of its own (``--new-session``), and where Linux groups tasks by session
      (``CONFIG_SCHED_AUTOGROUP``, on by default in desktop kernels) each session shares the
      CPU as one task would: 8 runs' judges and subjects then weigh as much as 16 terminals,
      and the editor's server (one session) waits behind them. Written to the sandbox's
      ``/proc/self/autogroup`` before the command starts (a process's own niceness would
      only order it within its one-task group); without autogroups, nothing changes.
    - ``niceness_shared``: ``niceness`` is a ceiling: each sandbox's group gets the lowest
      niceness at which this process's open sandboxes together weigh about as much as two
      sessions (:func:`codeteam.execution.sandbox_command.shared_niceness`: 0 for one run's
      judge and subject, 10 for 8 runs in flight), so a single run keeps its share of a busy
      machine and many runs do not crowd out the editor's server (the setting
      ``sandbox_niceness``).
    """

    mode: Literal["bwrap", "none"] = "bwrap"
    timeout_s: float = Field(default=10.0, gt=0)
    per_test_timeout_s: float = Field(default=5.0, gt=0)
    cpu_s: int = Field(default=10, ge=1)
    memory_mb: int = Field(default=1024, ge=64)
    file_size_mb: int = Field(default=16, ge=1)
    max_processes: int = Field(default=64, ge=1)
    output_limit_bytes: int = Field(default=1_000_000, ge=1024)
    scratch_mb: int = Field(default=64, ge=1)
    import_timeout_s: float = Field(default=60.0, gt=0)
    niceness: int = Field(default=0, ge=0, le=19)
    niceness_shared: bool = False


TIMEOUT_SETTING = "test_timeout_s"
"""The user's setting that becomes a run's ``timeout_s`` (and so raises its wall-clock limit,
:func:`codeteam.execution.suite.session_policy`); messages about that limit name it."""

CPU_LIMIT_FIXED = "a fixed limit per test: no setting raises it"
"""Said of a test's CPU limit (``per_test_timeout_s``), which is not a setting."""


def raise_run_limit(limit_s: float) -> str:
    """How to give a run more wall-clock time than the ``limit_s`` it had."""
    return f"the setting {TIMEOUT_SETTING} raises it (set it above {limit_s:g})"


FileContent = str | bytes | Callable[[str], str | bytes]
"""A file for the run: text (written as UTF-8), bytes, or (project runs) a callable given where
the project root is in the run, returning text or bytes."""


class ProjectMount(BaseModel):
    """A project the command runs in, instead of only the run's files (see :func:`run_sandboxed`).

    All paths are absolute host paths (resolved: no symlinks in them).

    - ``root``: the project's folder, mounted read-only at its own path (the code under test
      cannot write into it; pytest's cache and bytecode are not written there either).
    - ``overlays``: absolute path -> text; each an existing file under ``root`` that the run
      sees with this text instead (the candidate version of the target's module); the rest of
      the project is untouched.
    - ``hidden``: absolute paths under ``root`` that the run must not see (``.git``, ``.env*``
      files, other dotfiles): a directory shows as an empty read-only folder, a file as an empty
      read-only file; in a copy-on-write view (``writable``) a directory as an empty writable
      one (pytest writes ``.pytest_cache``) and a file as no file at all (as in a fresh clone:
      pytest-cov erases and writes ``.coverage``); paths that do not exist are ignored.
    - ``python``: the interpreter to run (for :func:`python_argv`'s ``python``); its
      virtualenv (or ``bin/`` folder) and the folder of the binary it links to are mounted
      read-only too.
    - ``workdir``: the command's working directory, ``root`` or a folder under it.
    - ``extra_ro``: more folders mounted read-only at their own paths: the interpreter's
      prefix, base prefix and site-packages (a project ``.venv`` with its dependencies and
      pytest plugins, even under ``$HOME``); paths that do not exist are ignored.
    - ``writable``: under bwrap, the run sees the root *copy-on-write* instead of read-only
      (overlayfs over the project, the writes going to a tmpfs of ``scratch_mb`` private to
      each sandbox of the run): tests create and change files anywhere in the project
      (coverage data, caches, files next to a test) and the project on disk stays as it was;
      the overlays and ``extra_ro`` folders stay read-only, the hidden paths hidden (see
      ``hidden``). Mode "none" always runs in a copy.

    Besides ``hidden``, every sandbox hides the project's secrets at any depth
    (:func:`codeteam.project.project_tree`: ``.env*``, ``*.env``, ``*.pem``, ssh keys,
    ``.netrc``, ``.pypirc``, ``.npmrc`` files and folders, ``.git`` folders, hard links to
    such files and the files links so named point to).
    """

    root: str
    overlays: dict[str, str] = Field(default_factory=dict)
    hidden: list[str] = Field(default_factory=list)
    python: str
    workdir: str
    extra_ro: list[str] = Field(default_factory=list)
    writable: bool = False

    def hidden_files(self) -> list[str]:
        """The hidden paths that are files (not folders) in the root, relative to it (symlinks
        resolved): what a copy-on-write view of the root has removed."""
        found = []
        for path in self.hidden:
            real = os.path.realpath(path)
            if os.path.lexists(path) and not os.path.isdir(real) and _under(real, [self.root]):
                found.append(os.path.relpath(real, self.root))
        return sorted(set(found))

    def check(self) -> None:
        """Raise ``ValueError`` unless the paths are usable (see the field descriptions)."""
        if not os.path.isabs(self.root) or not os.path.isdir(self.root):
            raise ValueError(f"project root is not an absolute path of a folder: {self.root!r}")
        paths = [*self.overlays, *self.hidden, self.workdir]
        for path in paths:
            if not os.path.isabs(path) or not _under(os.path.normpath(path), [self.root]):
                raise ValueError(f"not an absolute path under the project root: {path!r}")
        for path in self.overlays:
            if not os.path.isfile(path):
                raise ValueError(f"an overlay must replace an existing file: {path!r}")
        if not os.path.isdir(self.workdir):
            raise ValueError(f"the working directory is not a folder: {self.workdir!r}")
        for path in (self.python, *self.extra_ro):
            if not os.path.isabs(path):
                raise ValueError(f"not an absolute path: {path!r}")


PROJECT_ROOT_ENV = "CODETEAM_PROJECT_ROOT"
"""Set when a :class:`ProjectMount` is given: where the project root is in this run (its own
path under bwrap; the copy in mode "none")."""

FILES_DIR_ENV = "CODETEAM_FILES_DIR"
"""Set when a :class:`ProjectMount` is given: the folder holding the run's ``files``
(``/sandbox`` under bwrap; a folder of the run's temporary directory in mode "none")."""

NOT_COPIED = frozenset({".tox", ".nox", "node_modules", "__pycache__", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache"})  # fmt: skip
"""Folders left out of the project's copy in mode "none" (besides hidden paths and any folder
holding a ``pyvenv.cfg``, i.e. a virtualenv)."""


MEMORY_NOTE = "the run used more than {mib} MiB in all (memory_mb is one budget for the whole run)"
"""What a run ended for memory says (:attr:`ProcessResult.memory_note`)."""

SUBJECT_FD_ENV = "CODETEAM_SUBJECT_FD"
"""Set in the judge's environment when :func:`~codeteam.execution.sandbox.run_sandboxed` is
given a :class:`SubjectLaunch`: the descriptor number of the judge's end of the subject
protocol's socket (see :mod:`codeteam.execution.sandbox`)."""

CHANNEL_PLACEHOLDER = "{channel}"
"""Replaced in each element of :attr:`SubjectLaunch.argv` by the descriptor number of the
subject's end of its channel."""


class SubjectLaunch(BaseModel):
    """How the run's *subject* sandboxes start: the processes that run the code under test,
    apart from the judge (the run's command), each in a sandbox of its own, started when the
    judge asks (the protocol is in :mod:`codeteam.execution.sandbox`'s docstring).

    - ``argv``: the subject's command line (e.g. :func:`~codeteam.execution.sandbox.python_argv`
      with ``python=`` the project's interpreter); :data:`CHANNEL_PLACEHOLDER` in any element is
      replaced by the descriptor number of the subject's end of its channel (an ``AF_UNIX``
      stream socket whose other end the judge receives). As for the run's command, relative
      paths refer to the working directory (the subject's ``/sandbox`` without a project), and
      with a project an element equal to a key of ``files`` is replaced by that file's path.
    - ``files``: relative path -> content (as the run's ``files``: text, bytes, or with a
      project a callable given the project root's place), copied into the subject's own
      ``/sandbox`` (its working directory without a project); the judge's files are not there.
    - ``overlays``: absolute path -> text, for a run with a project: files of the project the
      subject sees with this text (the candidate module) instead of the judge's overlays;
      the project's hidden paths, interpreter and read-only folders are the judge's.
    - ``max_starts``: subjects one run may start (each request after that is refused).
    """

    argv: list[str] = Field(min_length=1)
    files: dict[str, FileContent] = Field(default_factory=dict)
    overlays: dict[str, str] = Field(default_factory=dict)
    max_starts: int = Field(default=64, ge=0)


class ProcessResult(BaseModel):
    """What one sandboxed process did.

    ``exit_code`` is the command's exit status, negative when a signal ended it (-9: SIGKILL;
    under bwrap an exit status 129..192 of the command is reported as that signal, since bwrap
    reports deaths by signal that way); None if it never started. ``stdout`` and ``stderr``
    are the first ``output_limit_bytes`` of each (UTF-8, undecodable bytes replaced), with a
    note appended when more was written, saying how much (``stdout_bytes``: stdout's total).
    ``results`` is the text the command wrote to the results channel (``$CODETEAM_RESULTS_FD``).
    ``killed`` is True when the wall-clock timeout ended the run; ``seconds`` is the wall-clock
    time from start to exit. ``subjects``: how many subject sandboxes the run started
    (:class:`SubjectLaunch`); ``subject_output``: what they wrote to their stdout and stderr,
    together (the first ``output_limit_bytes``, a note appended when more was written).
    ``memory_exceeded``: the run was ended because everything it started used more than
    ``memory_budget_mb`` MiB together (:attr:`memory_note` says so in words); ``memory_peak_bytes``
    the most it used at once (the cgroup's peak, page cache included, or the watcher's largest
    sum), None when unknown; ``budget`` how the budget was kept (``"cgroup"`` or
    ``"watcher"``). ``cpu_seconds``: the CPU time (user + system, seconds) the run's processes
    used, None when unknown: a run cut by the wall clock (``killed``) whose ``cpu_seconds`` is
    well below its ``seconds`` was held up by a busy machine, not by its own code.
    """

    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    results: str = ""
    killed: bool = False
    seconds: float = 0.0
    sandbox: Literal["bwrap", "none"] = "bwrap"
    subjects: int = 0
    subject_output: str = ""
    memory_exceeded: bool = False
    memory_budget_mb: int = 0
    memory_peak_bytes: int | None = None
    budget: Literal["cgroup", "watcher"] = "watcher"
    cpu_seconds: float | None = None

    @property
    def memory_note(self) -> str | None:
        """"the run used more than N MiB in all ..." when the run was ended for memory."""
        if not self.memory_exceeded:
            return None
        return MEMORY_NOTE.format(mib=self.memory_budget_mb)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)
