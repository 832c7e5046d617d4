"""codeteam.service.write_policy's key rule without a run: which texts count as holding the
configured key (issue 25, item 4)."""

from __future__ import annotations

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
