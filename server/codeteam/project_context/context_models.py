"""What the project context holds: the definitions sent with a prompt, and those left out.

Plain data (pydantic), made by :func:`~codeteam.project_context.build.build_project_context`,
carried by :class:`~codeteam.task.Task` and rendered by ``prompts/project_context.jinja``.
Paths are relative to the project root, with ``/``; lines are 0-based; sizes are tokens as
estimated by :func:`estimate_tokens`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

CHARS_PER_TOKEN = 4
"""The estimate of :func:`estimate_tokens`: about four characters of English or code per
token (OpenAI's rule of thumb for its BPE tokenizers; code with much indentation is a little
cheaper). The endpoint's own count comes back in the usage of each call."""


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` costs in a prompt, estimated as ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


Kind = Literal["function", "method", "class", "constant", "imports"]


class ContextDefinition(BaseModel):
    """One definition sent with the prompt.

    ``qualname`` is the name in its module (``Cache.get``), ``path`` the module's file,
    ``line`` the 0-based line of its ``def``/``class``/assignment, ``container`` the class a
    method is shown inside (its own class, for a method target). ``reason`` says why it is
    there and ``pulled_by`` which name of the target pulled it in (None: it is simply part of
    the function's module or of what the module imports). ``text`` is what the model sees:
    the signature and docstring summary (a class: its header, fields and method signatures),
    a short body only for a short function the target names.
    """

    qualname: str
    kind: Kind
    path: str
    line: int
    container: str | None = None
    reason: str
    pulled_by: str | None = None
    text: str
    tokens: int


class LeftOut(BaseModel):
    """A definition that did not fit in the budget: where it is and why it was wanted."""

    qualname: str
    path: str
    reason: str
    pulled_by: str | None = None


class ContextFile(BaseModel):
    """The definitions of one file, in the order the prompt shows them, as one text."""

    path: str
    own: bool = False
    text: str


class ProjectContext(BaseModel):
    """The project definitions a target function is likely to need, within ``budget``.

    ``root`` is the project root (absolute), ``path`` the target's module relative to it
    (None: a module with no file, e.g. a benchmark prompt), ``files`` the rendered groups,
    nearest first (the target's own class and module, then the modules it imports),
    ``definitions`` each definition sent, ``left_out`` those that did not fit, ``problems``
    modules that could not be read (a syntax error: what parses of them is still used).
    ``tokens`` is the estimate of the whole block, ``seconds`` what building it took.
    """

    root: str | None = None
    path: str | None = None
    budget: int
    tokens: int = 0
    files: list[ContextFile] = Field(default_factory=list)
    definitions: list[ContextDefinition] = Field(default_factory=list)
    left_out: list[LeftOut] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def empty(self) -> bool:
        return not self.files

    @property
    def left_out_names(self) -> str:
        """The left-out definitions, named in one line for the prompt (at most 12 names)."""
        names = [item.qualname for item in self.left_out]
        shown = ", ".join(names[:12])
        return shown + (f" and {len(names) - 12} more" if len(names) > 12 else "")

    def describe(self) -> str:
        """For the transcript: each definition sent and why, then those left out."""
        head = (
            f"project context: {len(self.definitions)} definitions, about {self.tokens} of "
            f"{self.budget} tokens ({self.seconds * 1000:.0f} ms)"
        )
        lines = [head]
        for item in self.definitions:
            why = f"{item.reason}" + (f" (`{item.pulled_by}`)" if item.pulled_by else "")
            lines.append(f"- sent {item.qualname} from {item.path}:{item.line + 1}: {why}")
        for item in self.left_out:
            why = f"{item.reason}" + (f" (`{item.pulled_by}`)" if item.pulled_by else "")
            lines.append(f"- left out for the budget: {item.qualname} from {item.path}: {why}")
        lines += [f"- not read: {problem}" for problem in self.problems]
        return "\n".join(lines)
