"""Keeping secrets out of what codeteam shows: messages, logs, transcripts, reports.

Three tools, used by the settings, the LLM client, the CLI and the editor:

- :func:`mask_url`: a URL with its userinfo (``https://user:pass@host``) replaced by ``***``;
- :func:`describe_value`: what an invalid setting value *is* (its type and size) without the
  value itself when it is a string (a key pasted into the wrong setting must not be echoed);
  numbers, booleans and null are shown as they are;
- :func:`redact`: a text with every registered secret (the configured API key, passwords of
  URL userinfo; :func:`register_secret`) replaced by ``**********`` and any URL userinfo
  masked. :class:`RedactingFilter` applies it to every log record;
- :func:`holds_secret`: whether a text holds a registered secret (code that must never be
  written to a file).

The registry is process-wide and only grows: a key seen once stays masked even after the
settings change.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "**********"
"""What a secret is replaced with."""

MIN_SECRET_CHARS = 4
"""Shorter values are not registered (masking every "ab" would garble messages)."""

_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@?#]+)@")

_secrets: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Mask ``value`` (an API key, a password) in everything :func:`redact` sees from now on.
    Also registers its URL-quoted and unquoted forms, and the value in base64 (standard and
    URL-safe, without padding), base32 and hex, as code that encodes it would show it."""
    if not value or len(value) < MIN_SECRET_CHARS:
        return
    raw = value.encode("utf-8")
    encoded = (base64.b64encode(raw).decode().rstrip("="),
               base64.urlsafe_b64encode(raw).decode().rstrip("="),
               base64.b32encode(raw).decode().rstrip("="), raw.hex(), raw.hex().upper())
    with _lock:
        _secrets.add(value)
        for form in (unquote(value), value.strip(), *encoded):
            if len(form) >= MIN_SECRET_CHARS:
                _secrets.add(form)


def mask_url(url: str) -> str:
    """``url`` with its userinfo replaced by ``***`` (``https://***@host/v1``); the password in
    it is also registered as a secret. A string that is not a URL is returned as is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _URL_USERINFO.sub(lambda m: f"{m['scheme']}***@", url)
    if "@" not in parts.netloc:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    _user, _, password = userinfo.partition(":")
    register_secret(password)
    register_secret(userinfo)
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


def describe_value(value: Any) -> str:
    """A description of ``value`` that never contains a string from it: ``120`` for numbers,
    ``true``/``false``, ``null``, ``a text of 51 characters``, ``an object with 2 keys``,
    ``a list of 3 items``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return f"a text of {len(value)} character{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"an object with {len(value)} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    return f"a value of type {type(value).__name__}"


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by :data:`MASK` and URL userinfo by
    ``***``."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    if "@" in text:
        text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}***@", text)
    return text


def holds_secret(text: str, min_chars: int = 8) -> bool:
    """True when ``text`` holds a registered secret (an API key from any settings layer, a
    password of URL userinfo) of at least ``min_chars`` characters: a shorter one is a
    placeholder (``ollama``, ``none``) that ordinary code may hold."""
    if not text:
        return False
    with _lock:
        secrets = [secret for secret in _secrets if len(secret) >= min_chars]
    return any(secret in text for secret in secrets)


class RedactingFilter(logging.Filter):
    """A logging filter that :func:`redact`\\ s each record's message (arguments merged in)
    and its exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is logging's problem
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Add a :class:`RedactingFilter` to every handler of ``logger`` (the root logger by
    default) that has none yet. Call after adding handlers."""
    logger = logger or logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
