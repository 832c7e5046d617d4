"""Setting names as users mistype them: an unknown ``CODETEAM_*`` variable is warned about
with the nearest setting's variable (pydantic-settings ignores it silently), a key in another
spelling (``MAX_ROUNDS``, ``max-rounds``) is shown and the setting named, and a bad value's
message names the setting, the part of the value that is wrong and the variable it came from."""

from __future__ import annotations

import logging

import pytest

from codeteam import settings as settings_module
from codeteam.settings import load_settings, unknown_environment_variables

KEY = "sk-proj-Zx81kQmW0pAsecretKEY4711"


def test_unknown_codeteam_variables_are_named_with_the_nearest_setting():
    messages = unknown_environment_variables({
        "CODETEAM_MAX_ROUNDZ": "3", "CODETEAM_TIMEOUT": "30", "CODETEAM_COLOUR": KEY,
        "CODETEAM_MAX_ROUNDS": "2", "CODETEAM_BENCH_DATA": "/data", "CODETEAM_RESULTS_FD": "3",
        "PATH": "/bin"})  # fmt: skip
    assert messages == [
        "environment variable CODETEAM_COLOUR: not a codeteam setting (ignored)",
        ("environment variable CODETEAM_MAX_ROUNDZ: not a codeteam setting (ignored); "
        "did you mean CODETEAM_MAX_ROUNDS?"),
        ("environment variable CODETEAM_TIMEOUT: not a codeteam setting (ignored); "
        "did you mean CODETEAM_TIMEOUT_S?"),
    ]
    assert KEY not in "".join(messages)


def test_an_unknown_variable_is_logged_once(monkeypatch, caplog):
    monkeypatch.setattr(settings_module, "_warned_variables", set())
    monkeypatch.setenv("CODETEAM_MAX_ROUNDZ", "3")
    with caplog.at_level(logging.WARNING, logger="codeteam.settings"):
        settings, problems = load_settings()
        load_settings()
    warned = [r.getMessage() for r in caplog.records if "CODETEAM_MAX_ROUNDZ" in r.getMessage()]
    assert warned == [("environment variable CODETEAM_MAX_ROUNDZ: not a codeteam setting "
                      "(ignored); did you mean CODETEAM_MAX_ROUNDS?")]
    assert problems == [] and settings.max_rounds == settings_module.Settings().max_rounds


@pytest.mark.parametrize("key", ["MAX_ROUNDS", "max-rounds", "maxRounds", "CODETEAM_MAX_ROUNDS",
                                 "max_roundz", "Max_Rounds"])
def test_a_key_in_another_spelling_names_the_setting(key):
    _, problems = load_settings({key: 2}, env=False)
    assert problems == [f"{key}: not a codeteam setting (ignored); did you mean max_rounds?"]


def test_a_long_unknown_key_is_still_not_shown():
    _, problems = load_settings({KEY: 2}, env=False)
    assert problems == ["a text of 32 characters: not a codeteam setting (ignored)"]


def test_a_bad_part_of_a_value_is_named():
    _, problems = load_settings({"models": {"coder": 5, "tester": "m"}}, env=False)
    assert problems == [("models: an object with 2 keys is not valid "
                        "(coder: Input should be a valid string); kept the default {}")]
    _, problems = load_settings({"models": {KEY: 5}}, env=False)
    assert len(problems) == 1 and KEY not in problems[0]


def test_a_bad_value_from_the_environment_names_its_variable(monkeypatch):
    monkeypatch.setenv("CODETEAM_MAX_ROUNDS", "abcdefghij")
    _, problems = load_settings({"timeout_s": "abc"})
    assert problems[0].startswith("max_rounds: a text of 10 characters is not valid (")
    assert "(from CODETEAM_MAX_ROUNDS)" in problems[0]
    assert problems[1].startswith("timeout_s: a text of 3 characters is not valid (")
    assert "from CODETEAM" not in problems[1]
