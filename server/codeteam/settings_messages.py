"""How the settings' problem messages show values: never a text the user may have pasted a
key into (see :mod:`codeteam.redaction`). Numbers, booleans and null are shown; a text is
shown only when it is a plain number ("-1" from an environment variable); otherwise its
type and length."""

from __future__ import annotations

import re
from typing import Any

from codeteam.redaction import describe_value, mask_url

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

SHOWN_TEXT_SETTINGS = ("sandbox", "generate_pipeline")
"""Settings whose valid values are a few fixed words (safe to show once validated)."""


def safe_value(value: Any) -> str:
    """``value`` for a message: numbers as they are, a text only when it is a plain number,
    else a description without its content (:func:`~codeteam.redaction.describe_value`)."""
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return repr(value.strip())
    return describe_value(value)


def possible_secret(value: Any) -> bool:
    """True for an invalid value that looks like a token (20+ characters, no spaces): masked
    in every later message and log as if it were the key."""
    return isinstance(value, str) and len(value) >= 20 and not any(c.isspace() for c in value)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def name_shown(name: Any) -> str:
    """An unknown setting or role name for a message: a short name as it is (a typo such as
    ``colour``, ``max-rounds``), anything else described."""
    if isinstance(name, str) and _NAME.fullmatch(name) and len(name) <= 24:
        return name
    return describe_value(name)


def role_names(names: list[str]) -> str:
    """Unknown role names for a message (see :func:`name_shown`)."""
    return "[" + ", ".join(
        repr(name) if name_shown(name) == name else name_shown(name) for name in names
    ) + "]"


def shown_kept_value(key: str, value: Any) -> str:
    """A valid value that was kept, for a message: a URL with its userinfo masked, the fixed
    words of :data:`SHOWN_TEXT_SETTINGS`, numbers; other texts described."""
    if isinstance(value, str):
        if key == "base_url":
            return repr(mask_url(value))
        if key in SHOWN_TEXT_SETTINGS:
            return repr(value)
        return describe_value(value)
    if isinstance(value, dict | list):
        return describe_value(value) if value else repr(value)
    return repr(value)
