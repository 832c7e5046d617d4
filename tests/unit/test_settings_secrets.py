"""Settings problems never echo a value that may be the API key; URL userinfo is masked
(issue 13, item 3); a key an HTTP header cannot carry is a settings problem (item 4)."""

import logging

import pytest

from codeteam.redaction import RedactingFilter, mask_url, redact, register_secret
from codeteam.settings import load_settings

KEY = "sk-proj-Zx81kQmW0pAsecretKEY4711"


@pytest.mark.parametrize("setting", ["timeout_s", "max_retries", "models", "base_url",
                                     "seed", "sandbox", "prompts_dir", "temperature"])
def test_a_key_pasted_into_another_setting_is_not_echoed(setting, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _, problems = load_settings({setting: KEY}, env=False)
    assert problems and problems[0].startswith(f"{setting}: a text of {len(KEY)} characters")
    assert all(KEY not in p and "Zx81" not in p for p in problems), problems
    monkeypatch.setenv(f"CODETEAM_{setting.upper()}", KEY)
    _, problems = load_settings()
    assert problems and all(KEY not in p for p in problems), problems
    # Having been seen as a possible key, it is masked wherever it shows up later.
    assert KEY not in redact(f"model call failed: {KEY}")


def test_a_key_as_a_role_name_is_not_echoed():
    _, problems = load_settings({"models": {KEY: "gpt-4o", "reviewer": "x"}}, env=False)
    assert len(problems) == 1 and KEY not in problems[0]
    assert "'reviewer'" in problems[0]


def test_numbers_out_of_range_are_still_shown(monkeypatch):
    monkeypatch.setenv("CODETEAM_TIMEOUT_S", "-1")
    _, problems = load_settings({"max_rounds": 99})
    assert any(p.startswith("timeout_s: '-1' is not valid") for p in problems), problems
    assert any(p.startswith("max_rounds: 99 is not valid") for p in problems), problems


def test_url_userinfo_is_masked_in_the_kept_value():
    _, problems = load_settings(
        {"base_url": "https://alice:pa55word-xyz@llm.example.org/v1"},
        {"base_url": "not a url"},
        env=False,
    )
    assert problems == [
        ("base_url: a text of 9 characters is not valid (Value error, expected an http:// or "
        "https:// URL such as http://127.0.0.1:11434/v1); kept 'https://***@llm.example.org/v1'")
    ]


def test_a_non_ascii_or_multi_line_key_is_a_settings_problem(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for bad in ("sk-ключ-0042", "sk-one\nsk-two"):
        settings, problems = load_settings({"api_key": bad}, env=False)
        assert settings.api_key is None
        assert len(problems) == 1 and problems[0].startswith("api_key: the API key is not valid")
        assert "only printable ASCII" in problems[0] and "ключ" not in problems[0]
    settings, problems = load_settings({"api_key": "  sk-pasted-with-a-newline\n"}, env=False)
    assert problems == [] and settings.api_key.get_secret_value() == "sk-pasted-with-a-newline"


def test_redact_masks_registered_secrets_and_userinfo(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-1")
    load_settings(env=True)
    text = redact("key sk-from-the-environment-1 at http://bob:s3cr3t@127.0.0.1:9/v1 ok")
    assert text == "key ********** at http://***@127.0.0.1:9/v1 ok"
    assert mask_url("https://u:p-4711@host/v1") == "https://***@host/v1"
    assert redact("p-4711 again") == "********** again"  # the URL's password is registered
    register_secret("abc")  # too short to mask
    assert redact("abc") == "abc"


def test_the_log_filter_redacts_messages_and_arguments(caplog):
    register_secret("sk-logged-secret-99")
    logger = logging.getLogger("codeteam.test_redaction")
    caplog.handler.addFilter(RedactingFilter())
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info("calling %s with %s", "http://u:pw@h/v1", "sk-logged-secret-99")
    assert caplog.records[0].getMessage() == "calling http://***@h/v1 with **********"


def test_redacted_settings_mask_the_key_and_the_userinfo():
    settings, _ = load_settings(
        {"base_url": "https://bob:hunter2-pw@llm.example.org/v1", "api_key": KEY}, env=False)
    shown = str(settings.redacted())
    assert KEY not in shown and "hunter2-pw" not in shown
    assert "https://***@llm.example.org/v1" in shown
