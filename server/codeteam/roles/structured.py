"""Structured replies: YAML parsed into pydantic models, with bounded repair and retry.

Following AlphaCodium (Ridnik et al., arXiv 2401.08500, section 4 "YAML structured output"):
stages answer in YAML, code in block scalars (``|``). Models break YAML in a few usual ways;
:func:`repair_yaml` mends them (fences and prose around the YAML, a multi-line value without
``|``, tabs, ragged indentation of block scalars). When the repaired text still does not parse
or validate, :func:`ask_structured` shows the model its parse error and asks once more; after
that it raises :class:`StructuredReplyError`. Never a silent empty result.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from codeteam.llm.client import ChatMessage
from codeteam.roles.conversation import Conversation

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*(?:ya?ml|YAML)?[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w ]*?):(\s*)(.*)$")


class StructuredReplyError(ValueError):
    """The reply could not be parsed into the expected structure, even after repair and a
    retry. ``reply`` holds the last reply text."""

    def __init__(self, message: str, reply: str = ""):
        super().__init__(message)
        self.reply = reply


def _strip_fences(text: str) -> str:
    blocks = _FENCE.findall(text)
    if blocks:
        return max(blocks, key=len)
    return text


def _strip_prose(text: str, keys: list[str]) -> str:
    """Drop lines before the first top-level expected key (or list item) and trailing prose."""
    lines = text.splitlines()
    starts = [
        i
        for i, line in enumerate(lines)
        if any(line.startswith(f"{k}:") for k in keys) or (not keys and _KEY.match(line))
    ]
    if not starts and keys:
        starts = [i for i, line in enumerate(lines) if line.startswith("- ")]
    if starts:
        lines = lines[starts[0] :]
    return "\n".join(lines)


def _add_block_scalars(text: str) -> str:
    """``code:`` followed by more-indented lines that are not YAML, or a value that continues
    on the next lines: make it a ``|`` block scalar."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _KEY.match(line)
        if match and match.group(5).strip() == "":
            indent = len(match.group(1)) + len(match.group(2) or "")
            j = i + 1
            block: list[str] = []
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
                block.append(lines[j])
                j += 1
            if block and not _looks_like_yaml(block):
                out.append(line.rstrip() + " |")
                inner = indent + 2
                min_indent = min((_indent(b) for b in block if b.strip()), default=inner)
                shift = max(inner - min_indent, 0)
                out.extend((" " * shift + b) if b.strip() else "" for b in block)
                i = j
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _looks_like_yaml(block: list[str]) -> bool:
    """True when the indented lines are YAML structure (a mapping or a list), not prose/code."""
    first = next((b for b in block if b.strip()), "")
    stripped = first.strip()
    if stripped.startswith("- "):
        return True
    match = _KEY.match(first)
    return bool(match) and " " not in match.group(3).strip() and not stripped.startswith(
        ("def ", "return ", "for ", "if ", "while ", "import ", "from ", "class ")
    )


def repair_yaml(text: str, keys: list[str] | None = None) -> str:
    """Mend the usual breakages of model-written YAML (see the module docstring). ``keys`` are
    the expected top-level keys, used to cut prose before the YAML."""
    text = text.replace("\t", "    ").replace("\r\n", "\n")
    text = _strip_fences(text)
    text = _strip_prose(text, keys or [])
    text = _add_block_scalars(text)
    return text.strip() + "\n"


def parse_structured(text: str, model: type[T]) -> T:
    """Parse ``text`` as YAML (repairing it if the plain parse fails) and validate it into
    ``model``. Raises :class:`StructuredReplyError` with the parse or validation error."""
    keys = list(model.model_fields)
    errors: list[str] = []
    for candidate in (_strip_fences(text), repair_yaml(text, keys)):
        try:
            data: Any = yaml.safe_load(candidate)
        except (yaml.YAMLError, RecursionError, ValueError) as error:
            # RecursionError: a degenerate reply such as "[[[[..." nests past the limit.
            errors.append(f"YAML error: {_short(str(error)) or type(error).__name__}")
            continue
        if isinstance(data, list) and len(keys) == 1:
            data = {keys[0]: data}
        if not isinstance(data, dict):
            errors.append(f"expected a YAML mapping with keys {keys}, got {type(data).__name__}")
            continue
        try:
            return model.model_validate(data)
        except ValidationError as error:
            errors.append(_validation_summary(error))
    raise StructuredReplyError("; ".join(dict.fromkeys(errors)), text)


def _validation_summary(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "(top)"
        parts.append(f"{where}: {item['msg']}")
    return "schema error: " + "; ".join(parts)


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def ask_structured(
    conversation: Conversation,
    role: str,
    stage: str,
    prompt: str,
    model: type[T],
    *,
    retries: int = 1,
    **variables: Any,
) -> T:
    """Ask ``role`` with prompt file ``prompt`` and parse the reply into ``model``.

    On a parse or schema error the model is shown its reply and the error and asked again, at
    most ``retries`` times (each retry is one more LLM call). Raises
    :class:`StructuredReplyError` when no reply parses, and whatever
    :meth:`Conversation.ask` raises.
    """
    history: list[ChatMessage] = []
    last_error = ""
    reply = ""
    for attempt in range(retries + 1):
        reply = await conversation.ask(role, stage, prompt, history=history, **variables)
        try:
            return parse_structured(reply, model)
        except StructuredReplyError as error:
            last_error = str(error)
            if attempt == retries:
                break
            history = [
                ChatMessage(role="assistant", content=reply),
                conversation.prompts.followup(
                    "reask_structured", error=last_error, keys=list(model.model_fields)
                ),
            ]
            conversation.report(f"{role}: repairing its reply")
    raise StructuredReplyError(
        f"{role} ({stage}) gave no parseable reply after {retries + 1} attempt(s): {last_error}",
        reply,
    )
