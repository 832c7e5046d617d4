"""codeteam.settings: layers, validation and the API key."""

import json

from codeteam.settings import load_settings


def test_defaults_without_configuration(monkeypatch):
    for name in ("CODETEAM_BASE_URL", "CODETEAM_MODEL", "OPENAI_API_KEY", "CODETEAM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings, problems = load_settings()
    assert problems == []
    assert settings.uses_embedded_model
    assert (settings.max_rounds, settings.sandbox, settings.temperature) == (3, "bwrap", 0.0)


def test_later_layers_win_and_nesting_under_codeteam(monkeypatch):
    monkeypatch.setenv("CODETEAM_MAX_ROUNDS", "5")
    monkeypatch.setenv("CODETEAM_MODEL", "from-env")
    settings, problems = load_settings(
        {"codeteam": {"max_rounds": 4, "base_url": "http://127.0.0.1:9/v1"}},
        {"max_rounds": 2},
    )
    assert problems == []
    assert settings.max_rounds == 2
    assert settings.model == "from-env"
    assert settings.base_url == "http://127.0.0.1:9/v1"


def test_bad_values_are_dropped_with_a_message_and_the_lower_value_kept(monkeypatch):
    monkeypatch.setenv("CODETEAM_TIMEOUT_S", "30")
    settings, problems = load_settings(
        {"timeout_s": -1, "temperature": "hot", "sandbox": "docker", "colour": "blue",
         "models": {"reviewer": "x"}, "max_rounds": 2}
    )
    assert settings.timeout_s == 30.0  # from the environment, not the bad layer
    assert settings.temperature == 0.0 and settings.sandbox == "bwrap" and settings.models == {}
    assert settings.max_rounds == 2  # good keys of the same layer still apply
    text = "\n".join(problems)
    for key in ("timeout_s", "temperature", "sandbox", "colour", "models"):
        assert key in text
    assert "kept 30.0" in text


def test_bad_environment_variable_costs_only_its_key(monkeypatch):
    monkeypatch.setenv("CODETEAM_MODELS", "{not json")
    monkeypatch.setenv("CODETEAM_MAX_ROUNDS", "4")
    settings, problems = load_settings()
    assert settings.max_rounds == 4 and settings.models == {}
    assert any(p.startswith("models") for p in problems)


def test_api_key_from_openai_env_is_never_shown(monkeypatch):
    monkeypatch.delenv("CODETEAM_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    settings, problems = load_settings({"api_key": 12})
    assert settings.api_key.get_secret_value() == "sk-secret-123"
    assert "sk-secret-123" not in repr(settings) and "sk-secret-123" not in str(settings.redacted())
    assert all("12" not in p for p in problems)


def test_per_role_models():
    settings, _ = load_settings({"model": "base", "models": {"coder": "big"}}, env=False)
    assert settings.model_for("coder") == "big"
    assert settings.model_for("tester") == "base"


def test_urls_folders_and_whole_numbers_are_checked(tmp_path):
    settings, problems = load_settings(
        {"base_url": "http://[::1:8080/v1", "prompts_dir": str(tmp_path / "missing"),
         "max_rounds": True, "seed": -1}, env=False)
    assert settings.base_url is None and settings.prompts_dir is None
    assert settings.max_rounds == 3 and settings.seed == 1234
    text = "\n".join(problems)
    for key in ("base_url", "prompts_dir", "max_rounds", "seed"):
        assert key in text
    settings, problems = load_settings(
        {"base_url": "ftp://example.org", "prompts_dir": str(tmp_path)}, env=False)
    assert settings.base_url is None and "http:// or https://" in problems[0]
    assert settings.prompts_dir == str(tmp_path)
    settings, problems = load_settings({"base_url": "https://api.openai.com/v1"}, env=False)
    assert problems == [] and settings.base_url == "https://api.openai.com/v1"


def test_a_misspelled_or_camelcase_key_gets_a_did_you_mean():
    from codeteam.settings import load_settings

    _, problems = load_settings({"max_roundz": 2, "baseUrl": "http://127.0.0.1:1/v1",
                                 "nonsense": 1}, env=False)
    assert any("max_roundz" in p and "did you mean max_rounds?" in p for p in problems)
    assert any("baseUrl" in p and "did you mean base_url?" in p for p in problems)
    assert any("nonsense" in p and "did you mean" not in p for p in problems)


def _clean_env(monkeypatch):
    from codeteam.settings import EMBEDDED_DEFAULTS

    for name in ("base_url", *EMBEDDED_DEFAULTS):
        monkeypatch.delenv(f"CODETEAM_{name.upper()}", raising=False)


def test_the_embedded_model_has_its_own_defaults_for_ai_tests_and_candidates(monkeypatch):
    _clean_env(monkeypatch)
    embedded, _ = load_settings()
    assert (embedded.ai_tests, embedded.candidates) == (0, 4)
    assert embedded.plan_candidate is False
    # an empty base_url is the embedded model too
    assert load_settings({"base_url": " "})[0].candidates == 4
    endpoint, problems = load_settings({"base_url": "http://127.0.0.1:9/v1"})
    assert problems == []
    assert (endpoint.ai_tests, endpoint.candidates) == (5, 3)
    assert endpoint.plan_candidate is True


def test_every_model_dependent_default_follows_the_model_and_yields_to_every_layer(monkeypatch):
    """EMBEDDED_DEFAULTS is the one mechanism: each key has the embedded value without a
    base_url and the field default with one, and a value given in any layer (environment,
    initializationOptions, workspace/configuration, --set) wins over both."""
    from codeteam.settings import EMBEDDED_DEFAULTS, Settings

    _clean_env(monkeypatch)
    endpoint = {"base_url": "http://127.0.0.1:9/v1"}
    for key, embedded_value in EMBEDDED_DEFAULTS.items():
        field_default = Settings.model_fields[key].default
        assert field_default != embedded_value, key
        assert getattr(load_settings(env=False)[0], key) == embedded_value, key
        assert getattr(load_settings(endpoint, env=False)[0], key) == field_default, key
        for layers in ([{key: field_default}], [{}, {key: field_default}],
                       [{}, {}, {key: field_default}]):
            settings, problems = load_settings(*layers, env=False)
            assert problems == [] and getattr(settings, key) == field_default, (key, layers)
        settings, problems = load_settings(endpoint, {key: embedded_value}, env=False)
        assert problems == [] and getattr(settings, key) == embedded_value, key
        monkeypatch.setenv(f"CODETEAM_{key.upper()}", json.dumps(field_default))
        assert getattr(load_settings()[0], key) == field_default, key
        monkeypatch.delenv(f"CODETEAM_{key.upper()}")


def test_readme_lists_every_model_dependent_default():
    """README's settings table names each key's default with an endpoint and with the
    embedded model."""
    from pathlib import Path

    from codeteam.settings import EMBEDDED_DEFAULTS, Settings

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): line for line in readme.splitlines()
            if line.startswith("| `")}
    for key, embedded_value in EMBEDDED_DEFAULTS.items():
        row = rows[key]
        field_default = json.dumps(Settings.model_fields[key].default)
        assert f"`{field_default}`; `{json.dumps(embedded_value)}` with the embedded model" in row, row


def test_a_value_given_in_any_layer_beats_the_embedded_default(monkeypatch):
    _clean_env(monkeypatch)
    monkeypatch.setenv("CODETEAM_AI_TESTS", "2")
    settings, problems = load_settings({"candidates": 1})
    assert problems == []
    assert (settings.ai_tests, settings.candidates) == (2, 1)
    settings, _ = load_settings({"ai_tests": 5, "candidates": 3})  # the field defaults, explicit
    assert (settings.ai_tests, settings.candidates) == (5, 3)


def test_a_bad_value_keeps_the_default_in_effect(monkeypatch):
    _clean_env(monkeypatch)
    _, problems = load_settings({"candidates": -1})
    assert problems and problems[0].endswith("kept the default 4")
    _, problems = load_settings({"base_url": "http://127.0.0.1:9/v1", "candidates": -1})
    assert problems and problems[0].endswith("kept the default 3")


def test_the_sandbox_policy_follows_the_settings(monkeypatch):
    monkeypatch.setenv("CODETEAM_SANDBOX_NICENESS", "7")
    settings, problems = load_settings({"test_timeout_s": 30, "sandbox_niceness": 40})
    assert problems and "sandbox_niceness" in "\n".join(problems)  # 0-19, as nice(1)
    policy = settings.sandbox_policy()
    assert (policy.mode, policy.timeout_s, policy.niceness) == ("bwrap", 30.0, 7)
    monkeypatch.delenv("CODETEAM_SANDBOX_NICENESS")
    # At most 10 by default, shared by load: one run's sandboxes keep 0, 8 runs' yield to the
    # editor and to the user's other programs (docs/benchmarks.md, "The sandboxes' niceness
    # shared by load")
    policy = load_settings()[0].sandbox_policy()
    assert (policy.niceness, policy.niceness_shared) == (10, True)
