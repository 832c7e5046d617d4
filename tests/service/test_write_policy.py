"""codeteam.service.write_policy's key rule without a run: which texts count as holding the
configured key (issue 25, item 4)."""

from __future__ import annotations

import base64

import pytest

from codeteam.redaction import register_secret
from codeteam.service.write_policy import holds_key
from codeteam.settings import load_settings


def test_the_configured_key_and_registered_secrets_are_found_placeholders_are_not():
    settings, _ = load_settings({"api_key": "sk-live-0123456789abcdef"}, env=False)
    assert holds_key('TOKEN = "sk-live-0123456789abcdef"\n', settings)
    register_secret("pa55-from-another-layer")  # e.g. OPENAI_API_KEY under a --set key
    assert holds_key("password = 'pa55-from-another-layer'", settings)
    placeholder, _ = load_settings({"api_key": "ollama"}, env=False)
    assert not holds_key('client = "ollama"  # the local server', placeholder)
    assert not holds_key("return 2 * x", settings)


# --- found by attacking issue 25's work (helper break25) ------------------------------------
KEY = "sk-live-0123456789abcdef"


@pytest.mark.parametrize("code", [
    f'token = ("{KEY[:9]}"\n         "{KEY[9:]}")',  # split across lines
    f'token = "{KEY[:9]}" + "{KEY[9:]}"',
    f'head = "{KEY[:5]}"\ntail = "{KEY[5:]}"\ntoken = head + tail',
    f'token = f"{KEY[:9]}{{x}}" and "{KEY[9:]}"',
    "token = '" + "".join(f"\\x{ord(c):02x}" for c in KEY) + "'",  # escapes
    f'token = "{KEY[:9]}\\\n{KEY[9:]}"',  # a backslash-newline inside the string
    f'token = "{KEY[::-1]}"[::-1]',
    f'token = base64.b64decode("{base64.b64encode(KEY.encode()).decode()}")',
    f'token = base64.b64decode(b"{base64.b64encode(b"Bearer " + KEY.encode()).decode()}")',
    f'token = base64.urlsafe_b64decode("{base64.urlsafe_b64encode(KEY.encode()).decode()}")',
    f'token = bytes.fromhex("{KEY.encode().hex()}")',
    f'token = base64.b32decode("{base64.b32encode(KEY.encode()).decode()}")',
    f'def f(:\n    token = ("{KEY[:9]}" "{KEY[9:]}")',  # code that does not parse
])
def test_the_key_is_found_however_the_code_spells_it(code):
    # Before: only the key's own characters in the code's text counted; each of these was
    # written to the user's file by run --write.
    settings, _ = load_settings({"api_key": KEY}, env=False)
    assert holds_key(code, settings)


def test_ordinary_code_does_not_hold_the_key():
    settings, _ = load_settings({"api_key": KEY}, env=False)
    assert not holds_key('import base64\nDATA = base64.b64decode("aGVsbG8gd29ybGQ=")\n'
                         'HEX = bytes.fromhex("deadbeef")\nreturn "sk-" + "live"', settings)


def test_the_key_in_base64_or_hex_is_masked_in_what_is_shown():
    from codeteam.redaction import MASK, redact

    secret = "pa55-shown-as-base64-7f3e"
    register_secret(secret)
    for form in (base64.b64encode(secret.encode()).decode(), secret.encode().hex(),
                 base64.urlsafe_b64encode(secret.encode()).decode().rstrip("=")):
        shown = redact(f'token = b64decode("{form}")')
        assert form.rstrip("=") not in shown and MASK in shown
