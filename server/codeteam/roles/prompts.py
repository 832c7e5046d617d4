"""Prompt files: one YAML file per role or stage in ``prompts/``, rendered with Jinja2.

A prompt file holds::

    description: what the stage does (and the paper section it follows)
    temperature: 0.2        # optional; absent: the user's ``temperature`` setting
    max_tokens: 768         # optional; absent: the user's ``max_tokens`` setting
    system: |
      You are the coder ...  (Jinja2)
    user: |
      {{ task.stub }} ...    (Jinja2)

Templates render in Jinja's :class:`~jinja2.sandbox.SandboxedEnvironment` with
``StrictUndefined`` (a missing variable is an error, not an empty string). The shipped prompts
are found in the installed package (``codeteam/prompts``) or, in a source checkout, in the
repository's ``prompts/`` folder; a user's ``prompts_dir`` setting overrides file by file.
Blocks shared by several prompts are ``.jinja`` files in the same folders, included by name
(``{% include "project_context.jinja" %}``: the project context every role sees).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2
import yaml
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ValidationError

from codeteam.llm.client import ChatMessage


class PromptError(Exception):
    """A prompt file is missing, malformed, or fails to render."""


class PromptFile(BaseModel):
    """A parsed prompt file (see the module docstring)."""

    name: str
    description: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    system: str = ""
    user: str


class RenderedPrompt(BaseModel):
    """A prompt ready to send: its messages plus the file's sampling settings."""

    name: str
    messages: list[ChatMessage]
    temperature: float | None = None
    max_tokens: int | None = None


def shipped_prompts_dir() -> Path:
    """The folder of the prompts that ship with codeteam."""
    package_dir = Path(__file__).resolve().parent.parent
    installed = package_dir / "prompts"
    if installed.is_dir():
        return installed
    checkout = package_dir.parent.parent / "prompts"  # server/codeteam -> repo root
    if checkout.is_dir():
        return checkout
    raise PromptError(f"no prompts folder next to {package_dir}")


@functools.lru_cache(maxsize=16)
def _environment(dirs: tuple[Path, ...]) -> SandboxedEnvironment:
    """The Jinja environment for prompt folders ``dirs`` (one per set of folders: Jinja
    checks the included files' modification times itself)."""
    env = SandboxedEnvironment(
        # Shared blocks (``{% include "project_context.jinja" %}``) come from the same folders.
        loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )
    env.filters["numbered"] = lambda items: "\n".join(
        f"{i}. {item}" for i, item in enumerate(items, 1)
    )
    env.filters["indent_block"] = lambda text, prefix="    ": "\n".join(
        prefix + line if line.strip() else line for line in str(text).splitlines()
    )
    return env


@functools.lru_cache(maxsize=256)
def _parsed(path: Path, stamp: tuple[int, int], name: str) -> PromptFile:
    """Prompt file ``path`` parsed, for its modification time and size ``stamp`` (an edited
    file is read again). Raises :class:`PromptError`."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return PromptFile(name=name, **data)
    except (yaml.YAMLError, TypeError, ValidationError) as error:
        raise PromptError(f"prompt file {path} is malformed: {error}") from error


@functools.lru_cache(maxsize=256)
def _template(dirs: tuple[Path, ...], source: str) -> jinja2.Template:
    """``source`` compiled once per process (compiling a prompt's template took milliseconds
    of the server's event loop at every call)."""
    return _environment(dirs).from_string(source)


class PromptLibrary:
    """Loads and renders prompt files. ``override_dir`` (the ``prompts_dir`` setting) is
    searched before the shipped folder. Parsed files and compiled templates are shared by
    every library of the process (a file edited since is read again)."""

    def __init__(self, override_dir: str | Path | None = None) -> None:
        self.dirs = [Path(override_dir)] if override_dir else []
        self.dirs.append(shipped_prompts_dir())
        self._dirs = tuple(self.dirs)

    def names(self) -> list[str]:
        """All prompt names available (file stems)."""
        found: set[str] = set()
        for folder in self.dirs:
            if folder.is_dir():
                found.update(p.stem for p in folder.glob("*.yaml"))
        return sorted(found)

    def load(self, name: str) -> PromptFile:
        """Parse prompt ``name``. Raises :class:`PromptError`."""
        for folder in self.dirs:
            path = folder / f"{name}.yaml"
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.is_file():
                return _parsed(path, (stat.st_mtime_ns, stat.st_size), name)
        raise PromptError(f"no prompt named {name!r} in {[str(d) for d in self.dirs]}")

    def render(self, name: str, **variables: Any) -> RenderedPrompt:
        """Render prompt ``name`` with ``variables``. Raises :class:`PromptError` when a
        variable is missing or the template is broken."""
        prompt = self.load(name)
        try:
            system = _template(self._dirs, prompt.system).render(**variables).strip()
            user = _template(self._dirs, prompt.user).render(**variables).strip()
        except jinja2.TemplateError as error:
            raise PromptError(f"prompt {name!r} failed to render: {error}") from error
        return RenderedPrompt(
            name=name,
            messages=[
                ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=user),
            ],
            temperature=prompt.temperature,
            max_tokens=prompt.max_tokens,
        )

    def followup(self, name: str, **variables: Any) -> ChatMessage:
        """The user message of prompt ``name`` alone, for a follow-up inside a conversation
        (a re-ask after an unusable reply): such files have a ``user`` template and an empty
        ``system``. Raises :class:`PromptError` like :meth:`render`."""
        prompt = self.load(name)
        try:
            text = _template(self._dirs, prompt.user).render(**variables).strip()
        except jinja2.TemplateError as error:
            raise PromptError(f"prompt {name!r} failed to render: {error}") from error
        return ChatMessage(role="user", content=text)
