"""The ``codeteam`` command: ``serve`` (the language server), ``run`` (one pipeline on one
function of a file), ``bench`` (benchmarks). It translates: the run itself is
:mod:`codeteam.service.runs`. Exit codes of ``run``: 0 the code passed its tests or there were
none to run; 1 no usable code, or tests still fail, or some passed only in the code's own
process ("not judged": such a pass does not count; the best code is still printed), the model
endpoint failed, or ``--write`` did not write; 2 usage, settings or input errors, or the
sandbox cannot run tests here (nothing is run then, no model call, unless ``--allow-untested``
or ``--write-untested``).

``--write`` writes what :func:`codeteam.service.write_policy.write_decision` allows (code that
passed; untested code with ``--write-untested``; code that did not pass with
``--write-failing``, never over a function that passes more public tests; never code holding
the API key), atomically (:mod:`codeteam.atomic_write`), and only when the file is as it was
read and not read-only (no write bit: the rename would replace it all the same).

Everything ``run`` prints passes through :func:`codeteam.redaction.redact` (the API key and
URL userinfo masked); a failure is one line, not a traceback (``-v`` adds it to the log)."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import logging
import sys
import time
from pathlib import Path

from codeteam.pipelines import GENERATION_PIPELINES

log = logging.getLogger("codeteam")



def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codeteam",
        description="An analyst, a coder and a tester (LLM roles) plus real test execution, "
        "for Python functions: as a language server or from the command line.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    # -v also after the subcommand (codeteam run ... -v); SUPPRESS: a subcommand without it
    # leaves the value given before the subcommand
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                         help="log to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", parents=[verbose],
                           help="start the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--log-file", metavar="PATH", help="also write the log to PATH")

    run = sub.add_parser("run", parents=[verbose],
                         help="run a pipeline on one function of a file")
    run.add_argument("file", type=Path)
    run.add_argument("--function", required=True, metavar="NAME",
                     help="function name, or Class.method")
    run.add_argument("--pipeline", default="team",
                     choices=[*GENERATION_PIPELINES, "review", "plan-docstring"])
    run.add_argument("--write", action="store_true", help="apply the new function to FILE")
    run.add_argument("--diff", action="store_true", help="print a unified diff, not the function")
    run.add_argument("--json", action="store_true", help="print the whole result as JSON")
    run.add_argument("--workspace", type=Path, default=None,
                     help="the project root (default: found from the file: the nearest "
                     "folder up with pyproject.toml, setup.cfg, setup.py, pytest.ini, tox.ini "
                     "or .git)")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a setting, e.g. --set max_rounds=2 (repeatable)")
    run.add_argument("--allow-untested", action="store_true",
                     help="run even when the sandbox cannot run tests here (the code is "
                     "printed untested; --write does not write it)")
    run.add_argument("--write-untested", action="store_true",
                     help="like --allow-untested, and --write writes the untested code")
    run.add_argument("--write-failing", action="store_true",
                     help="with --write, also write code that did not pass its tests (never "
                     "over a function that passes more of the public tests)")

    from codeteam.bench.bench_cli import add_bench_parser

    add_bench_parser(sub, parents=[verbose])
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat("%(asctime)s %(levelname)s %(name)s: %(message)s",
                                    said=args.command in ("run", "bench")))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        handlers=[handler])
    if args.command == "serve":
        from codeteam.editor.app import serve

        return serve(tcp=args.tcp, log_file=args.log_file)
    if args.command == "run":
        from codeteam.redaction import install_log_redaction

        install_log_redaction()
        sys.stdout, sys.stderr = _Redacting(sys.stdout), _Redacting(sys.stderr)
        try:
            code = _run_interruptibly(args)
        except KeyboardInterrupt:  # before the run's loop took over SIGINT
            code = _failed(args, "interrupted", 130)
        except Exception as error:
            log.debug("codeteam run failed", exc_info=True)
            code = _failed(args, f"the run failed: {type(error).__name__}: {error}"
                           " (-v shows the traceback in the log)", 1)
            if args.verbose:
                log.exception("codeteam run failed")
    elif args.command == "bench":
        from codeteam.bench.bench_cli import run_bench_command

        code = run_bench_command(args)
    else:
        return 2
    from codeteam.service.clients import exit_now_if_stop_stuck

    exit_now_if_stop_stuck(code)
    return code


class _LogFormat(logging.Formatter):
    """The log's format; with ``said`` (``run``, ``bench``) a settings warning (an unknown
    ``CODETEAM_*`` variable) is a ``codeteam: ...`` line like the others said to the user."""

    def __init__(self, fmt: str, *, said: bool) -> None:
        super().__init__(fmt)
        self.said = said

    def format(self, record: logging.LogRecord) -> str:
        if self.said and record.name == "codeteam.settings" and record.levelno >= logging.WARNING:
            return f"codeteam: {record.getMessage()}"
        return super().format(record)


class _Redacting:
    """A text stream that masks secrets and URL userinfo in what is written to it."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from codeteam.redaction import redact

        return self._stream.write(redact(text))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


INTERRUPT_GRACE_S = 1.5
"""Seconds a run may take to stop after Ctrl-C before the process ends without waiting."""


class _Interrupt:
    """Ctrl-C during ``codeteam run``: the first SIGINT cancels the run (its model calls and
    test processes are stopped; ``--write`` writes nothing from then on), prints one line and
    ends the process with 130 at most :data:`INTERRUPT_GRACE_S` seconds later (a watchdog
    process sends the default SIGINT then; it holds none of the run's files, so a pipe
    reading the output ends with the run); a second SIGINT ends it at once. A SIGINT while
    ``--write`` replaces the file lets that write end (it is atomic and short), then says
    whether the file was written and exits 130. Sandboxed
    processes die with it (``bwrap --die-with-parent``). The handler runs when Python gets
    the GIL back: during the embedded model's start (a C call of about a second) it runs
    after that call."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.at: float | None = None
        self.written = False
        """Whether --write had replaced the file before the interrupt."""
        self.writing = False
        """Whether --write is replacing the file now: an interrupt then lets the write end
        (a second one still ends the process at once) and the write says the line."""
        self.reported = False
        """Whether ``--json`` printed the run's result (an interrupt then prints no error
        object after it)."""
        self._task: asyncio.Task | None = None

    def line(self) -> str:
        if not self.args.write:
            return "codeteam: interrupted"
        if self.written:
            return f"codeteam: interrupted after {self.args.file} was written"
        return f"codeteam: interrupted; {self.args.file} was not changed"

    def install(self) -> None:
        """Take SIGINT for the running task (a Python signal handler, which runs even while
        the event loop is busy in a blocking call)."""
        import signal

        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        signal.signal(signal.SIGINT, self._interrupted)

    def _interrupted(self, signum=None, frame=None) -> None:
        import signal

        if self.at is not None:
            self._exit_now()
        self.at = time.monotonic()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C ends it at once
        if self.writing:  # the write ends first (atomic, short), then says the line
            return
        self.say()
        self._watchdog()
        if self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)

    def say(self) -> None:
        """Print :meth:`line` and, with ``--json``, the error object :func:`_failed` prints
        (``exit_code`` 130) on stdout (with ``os.write``: safe inside a signal handler)."""
        import os

        line = self.line()
        os.write(2, (line + "\n").encode())
        if getattr(self.args, "json", False) and not self.reported:
            os.write(1, (_error_json(line.removeprefix("codeteam: "), 130) + "\n").encode())

    @staticmethod
    def _watchdog() -> None:
        """A child process that sends this one SIGINT (now its default action: the process
        ends, status 130 to a shell) :data:`INTERRUPT_GRACE_S` seconds from now if it is still
        there: no thread of this process can be counted on, since the embedded model's C code
        may hold the GIL while it stops."""
        import os
        import signal

        parent = os.getpid()
        try:
            child = os.fork()
        except OSError:
            return
        if child == 0:
            try:
                # Hold none of the run's files: a caller reading its output to the end (a
                # pipe to tee) must not wait for the watchdog once the run has exited.
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                time.sleep(INTERRUPT_GRACE_S)
                if os.getppid() == parent:
                    os.kill(parent, signal.SIGINT)
            finally:
                os._exit(0)

    @staticmethod
    def _exit_now() -> None:
        import os

        sys.stderr.flush()
        os._exit(130)


_interrupt: _Interrupt | None = None


def _run_interruptibly(args: argparse.Namespace) -> int:
    """``_run(args)`` on an event loop whose SIGINT is :class:`_Interrupt`'s; 130 when it was
    interrupted."""
    global _interrupt
    _interrupt = _Interrupt(args)

    async def main() -> int:
        assert _interrupt is not None
        _interrupt.install()
        try:
            return await _run(args)
        except asyncio.CancelledError:
            if _interrupt.at is None:
                raise
            return 130

    code = asyncio.run(main())
    if _interrupt.at is not None:
        _interrupt._exit_now()  # do not wait for the model's stop or worker threads
    return code


def _progress(stage: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {stage}", file=sys.stderr, flush=True)


BOM = "\ufeff"


async def _run(args: argparse.Namespace) -> int:
    from codeteam.service import runs as service
    from codeteam.service.clients import OneClient, model_label
    from codeteam.settings import load_settings, parse_overrides

    try:
        overrides = parse_overrides(args.set)
    except ValueError as error:
        return _failed(args, str(error), 2)
    settings, problems = load_settings(overrides, fallback=False)  # the run stops on any
    if problems:
        for problem in problems:
            print(f"codeteam: setting {problem}", file=sys.stderr)
        where = "listed in problems" if args.json else "above"  # stdout's JSON: below
        return _failed(args, f"nothing was run; fix the settings {where} (--set, CODETEAM_* "
                       "variables) and run again", 2, problems=[str(p) for p in problems])
    path: Path = args.file
    try:
        raw = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return _failed(args, f"cannot read {path}: {error}", 2)
    if args.workspace is not None and not args.workspace.is_dir():
        return _failed(args, f"--workspace {args.workspace} is not a folder", 2)
    if args.workspace is not None and not path.resolve().is_relative_to(
            args.workspace.resolve()):
        return _failed(args, f"{path} is not inside --workspace {args.workspace}", 2)
    bom = BOM if raw.startswith(BOM) else ""
    text = raw[len(bom):]
    pipeline = {"plan-docstring": "plan_docstring"}.get(args.pipeline, args.pipeline)
    request = service.RunRequest(
        text=text, settings=settings, pipeline=pipeline, qualname=args.function,
        path=path.resolve(), workspace_root=args.workspace or path.resolve().parent,
        project_root=args.workspace,
        allow_untested=args.allow_untested or args.write_untested,
    )

    def on_note(note: str) -> None:  # the python setting unusable, no pytest
        print(f"codeteam: {note}", file=sys.stderr)

    def on_task(task) -> None:
        project = task.project
        if project is not None and not project.lone:
            _progress(f"testing {project.module} in the project {project.root} "
                      f"with {project.python}")
        _progress(f"{args.pipeline} on {task.qualname} ({len(task.public_tests)} public tests); "
                  f"model: {model_label(settings)}")

    clients = OneClient()
    try:
        outcome = await service.run(request, clients, progress=_progress, on_note=on_note,
                                    on_task=on_task)
    except service.TargetError as error:
        return _failed(args, f"{path}: {error}", 2)
    except service.Untestable as error:
        print(f"codeteam: the code cannot be tested here: {error.reason}", file=sys.stderr)
        return _failed(args, "nothing was run (no model call). Fix the sandbox, set sandbox = "
                       '"none" (no isolation), or pass --allow-untested (print untested code) '
                       "or --write-untested (also write it)", 2, untested=error.reason)
    except service.ModelUnavailable as error:
        return _failed(args, str(error), 2)
    except service.ServiceError as error:
        return _failed(args, str(error), 1)
    finally:
        await clients.close()

    result, new_text = outcome.result, outcome.new_text
    if args.json:
        print(result.model_dump_json(indent=2), flush=True)
        if _interrupt is not None:
            _interrupt.reported = True
    elif new_text is not None and args.diff:
        sys.stdout.writelines(difflib.unified_diff(
            text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            fromfile=str(path), tofile=str(path),
        ))
    elif new_text is not None or (result.code is not None and pipeline == "review"):
        print(result.code, end="" if result.code.endswith("\n") else "\n")
    print(file=sys.stderr)
    print(f"# {result.summary()}", file=sys.stderr)
    if result.plan:
        print("# plan:", file=sys.stderr)
        for i, step in enumerate(result.plan, 1):
            print(f"#   {i}. {step}", file=sys.stderr)
    if result.last_report:
        for line in result.last_report.summary.splitlines():
            print(f"# {line}", file=sys.stderr)
    for note in result.notes:
        print(f"# note: {note}", file=sys.stderr)

    if args.write and new_text is not None:
        written = await _write(args, path, raw, bom + new_text, outcome, settings)
        if written is not None:
            return written
    return 1 if result.status in ("error", "failed", "not judged") else 0


def _failed(args: argparse.Namespace, message: str, code: int, **extra: object) -> int:
    """A run that ended without a result: ``message`` as one ``codeteam:`` line on stderr and,
    with ``--json``, ``{"status": "error", "error": message, "exit_code": code, **extra}`` on
    stdout (for scripts). Returns ``code``."""
    print(f"codeteam: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print(_error_json(message, code, **extra))
    return code


def _error_json(message: str, code: int, **extra: object) -> str:
    """The ``--json`` object of a run that ended without a result (see :func:`_failed`)."""
    import json

    return json.dumps({"status": "error", "error": message, "exit_code": code, **extra},
                      indent=2)


WRITE_HINTS = {
    "untested": "; pass --write-untested to write untested code",
    "failing": "; pass --write-failing to write code that did not pass",
}


async def _write(args, path: Path, raw: str, new_raw: str, outcome, settings) -> int | None:
    """``--write``: the new text written to ``path`` atomically when
    :func:`~codeteam.service.write_policy.write_decision` allows it and the file is as it was
    read (``raw``). Returns the exit code when the file was not written (1), else None (the
    run's own code stands)."""
    from codeteam.atomic_write import AtomicWriteError, write_atomic
    from codeteam.service.write_policy import write_decision

    decision = await write_decision(outcome, settings, allow_untested=args.write_untested,
                                    allow_failing=args.write_failing)
    if decision.action != "write":
        print(f"# not written: {decision.reason}{WRITE_HINTS.get(decision.kind, '')}",
              file=sys.stderr)
        return 1
    try:
        now = path.read_bytes().decode("utf-8", errors="replace")
        mode = path.stat().st_mode & 0o7777
    except OSError as error:  # deleted, or a folder now
        print(f"codeteam: {path} cannot be read any more ({error.strerror}); not written",
              file=sys.stderr)
        return 1
    if now != raw:
        print(f"codeteam: {path} changed while the pipeline ran; not written", file=sys.stderr)
        return 1
    if not mode & 0o222:  # the rename would replace it all the same (it needs the folder)
        print(f"codeteam: {path} is read-only (mode {mode:04o}); not written", file=sys.stderr)
        return 1
    if _interrupt is not None and _interrupt.at is not None:
        return 130  # Ctrl-C came while the decision was made: nothing is written
    if _interrupt is not None:
        _interrupt.writing = True
    try:
        write_atomic(path, new_raw.encode("utf-8"))
    except AtomicWriteError as error:
        if _interrupt is not None and _interrupt.at is not None:
            _interrupt.say()  # "... was not changed"
            return 130
        print(f"codeteam: {error}", file=sys.stderr)
        return 1
    finally:
        if _interrupt is not None:
            _interrupt.writing = False
    if _interrupt is not None:
        _interrupt.written = True
        if _interrupt.at is not None:  # Ctrl-C during the write, which was let finish
            _interrupt.say()
            return 130
    if decision.kind == "failing":
        print(f"# wrote {path} though {decision.reason} (--write-failing)", file=sys.stderr)
    else:
        print(f"# wrote {path}", file=sys.stderr)
    return None
