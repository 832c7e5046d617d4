"""codeteam's settings: one pydantic-settings model shared by the CLI and the language server.

The same keys are read from (lowest to highest precedence):

1. defaults below;
2. environment variables ``CODETEAM_<KEY>`` (``CODETEAM_BASE_URL``, ``CODETEAM_MODELS`` as JSON,
   ...); the API key is also read from ``OPENAI_API_KEY``;
3. the LSP ``initializationOptions`` (a dict with these keys, optionally nested under
   ``"codeteam"``);
4. the client's ``workspace/configuration`` section ``codeteam``.

A value that does not validate is dropped (the default, or the lower layer's value, stays)
and described in a message for the user: :func:`load_settings` never raises on bad input.
The API key is a :class:`pydantic.SecretStr`: it prints as ``**********`` and is never logged.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

from codeteam.redaction import mask_url, register_secret
from codeteam.settings_messages import (
    name_shown,
    possible_secret,
    role_names,
    safe_value,
    shown_kept_value,
)

if TYPE_CHECKING:
    from codeteam.execution.sandbox_policy import SandboxPolicy

log = logging.getLogger(__name__)

ROLES = ("analyst", "planner", "coder", "tester")
"""Role names that ``models`` may override (``{"coder": "gpt-4o"}``)."""

EMBEDDED_DEFAULTS: dict[str, Any] = {"ai_tests": 0, "candidates": 4, "plan_candidate": False}
"""The embedded model's own defaults: the one mechanism for every default that depends on the
model. Used when no ``base_url`` is set and the key is not given in any layer (environment,
``initializationOptions``, ``workspace/configuration``, ``--set``: a value given anywhere
wins); an endpoint (``base_url``) keeps the field defaults. Measured with the shipped prompts
(docs/benchmarks.md):

- ``ai_tests`` 0 and ``candidates`` 4 ("The embedded model writes no usable AI tests"): the
  tester's reply held a usable assert in 29 of 164 HumanEval tasks, 0 of 20 MBPP tasks and 0 of
  8 boltons functions (it writes the function instead), flow's YAML AI tests parsed in 0 of 164
  and 0 of 20; samples are what solved the tasks direct did not, so the tester's call goes to
  one more sample;
- ``plan_candidate`` False: code written from its plans solved 1 of 164 HumanEval tasks to the
  direct answer's 4, none that direct did not, and its analyst often wrote no usable plan, so
  the analyst's two calls buy nothing on it (a plan written into the docstring is still
  followed)."""


class Settings(BaseSettings):
    """All of codeteam's settings. Units: seconds for ``*_s``, tokens for ``max_tokens``."""

    model_config = SettingsConfigDict(
        env_prefix="CODETEAM_",
        extra="ignore",
        validate_default=True,
        populate_by_name=True,
    )

    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or "
        "http://127.0.0.1:11434/v1 (Ollama). Empty: the embedded model.",
    )
    model: str | None = Field(
        default=None,
        description="Model name sent to the endpoint (e.g. gpt-4o-mini, qwen2.5-coder:7b). "
        "Ignored for the embedded model.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="API key for base_url. Never logged. Also read from OPENAI_API_KEY.",
    )
    models: dict[str, str] = Field(
        default_factory=dict,
        description="Per-role model overrides, keys among analyst, planner, coder, tester.",
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    seed: int = Field(
        default=1234, ge=0, le=2**31 - 1, description="Seed sent with every request (repeatability)."
    )
    max_tokens: int = Field(
        default=1024, ge=16, le=32768, description="Completion token limit per LLM call."
    )
    max_rounds: int = Field(
        default=3, ge=1, le=20, description="Coder/tester rounds of the team pipeline."
    )
    timeout_s: float = Field(
        default=120.0, gt=0, le=3600, description="Seconds allowed for one LLM call."
    )
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of an LLM call on 429, 5xx and timeouts."
    )
    sandbox: Literal["bwrap", "none"] = Field(
        default="bwrap",
        description='How generated code runs: "bwrap" (bubblewrap, required unless you opt '
        'out) or "none" (plain subprocess with rlimits; only if you accept the risk).',
    )
    test_timeout_s: float = Field(
        default=10.0, gt=0, le=600, description="Wall-clock seconds for one sandboxed test run."
    )
    sandbox_niceness: int = Field(
        default=10, ge=0, le=19,
        description="Highest niceness of a sandbox's scheduling group (0-19, as nice(1)). "
        "One run's sandboxes stay at 0 (their full share of a busy machine); with more in "
        "flight each group's niceness rises so that together they weigh about as much as two "
        "terminal sessions (10 for 8 runs), up to this value: the editor stays quick while "
        "runs compute. 0 turns it off (each sandbox weighs as much as a whole terminal "
        "session).",
    )
    generate_pipeline: Literal["team", "flow"] = Field(
        default="team",
        description='Pipeline behind "Generate with team": "team" (self-collaboration) or '
        '"flow" (AlphaCodium-style test-driven flow).',
    )
    ai_tests: int = Field(
        default=5, ge=0, le=30,
        description="How many AI tests the tester writes (the embedded model: 0, see "
        "EMBEDDED_DEFAULTS).",
    )
    max_calls: int = Field(
        default=15, ge=1, le=100, description="LLM call budget of one flow run."
    )
    preview: Literal["auto", "always", "never"] = Field(
        default="auto",
        description='How "Generate with team", "Plan this docstring" and "Fix with team" '
        'offer their edit: "auto" as a preview the user accepts or discards where the editor '
        "can show one (workspace.workspaceEdit.changeAnnotationSupport), else applied; "
        '"always" as a preview, else not applied (kept, with codeteam.apply to apply it); '
        '"never" applied without a preview. Code that fails its tests is never applied '
        "without a preview: without one it is kept and its failures shown.",
    )
    apply_timeout_s: float = Field(
        default=30.0, gt=0, le=600,
        description="Seconds the editor may take to answer an edit (workspace/applyEdit); "
        "then codeteam stops waiting and keeps the result (codeteam.transcript).",
    )
    candidates: int = Field(
        default=3, ge=0, le=20,
        description="Sampled alternatives (temperature 0.5, one seed each) that team and flow "
        "write when the first answer fails a test; chosen by execution (0: none; the "
        "embedded model: 4, see EMBEDDED_DEFAULTS).",
    )
    prompts_dir: str | None = Field(
        default=None, description="A folder of prompt files that override the shipped ones."
    )
    python: str | None = Field(
        default=None,
        description="The interpreter whose packages the project's tests need (a path, e.g. "
        "/home/me/proj/.venv/bin/python; relative: from the project root); default the "
        "project's .venv/venv interpreter, else the one running codeteam.",
    )
    context_tokens: int = Field(
        default=1500, ge=0, le=50_000,
        description="Tokens (estimated as characters / 4) of project context in each role's "
        "prompt: the definitions the function likely uses, nearest first; 0 sends none.",
    )
    prices: dict[str, tuple[Annotated[float, Field(ge=0)], Annotated[float, Field(ge=0)]]] = Field(
        default_factory=dict,
        description="USD per million prompt and completion tokens by model name, e.g. "
        '{"gpt-4o": [2.5, 10]}: each action\'s cost then includes its money (models without a '
        "price are named). Empty: tokens only.",
    )
    token_budget: int = Field(
        default=0, ge=0, le=100_000_000,
        description="Prompt + completion tokens one action may use (0: no limit). Checked before "
        "each LLM call: once the calls so far used it, no further call is made and the run "
        "ends with the best code so far and a note.",
    )
    plan_candidate: bool = Field(
        default=True,
        description="Whether team calls the analyst when the first answer fails a test, and one "
        "of the sampled candidates is the coder's answer following its plan (self-collaboration's "
        "analyst -> coder -> tester, arXiv 2304.07590); the plan then guides the revisions. "
        "The embedded model: false, see EMBEDDED_DEFAULTS.",
    )

    @model_validator(mode="before")
    @classmethod
    def _embedded_defaults(cls, data: Any) -> Any:
        """:data:`EMBEDDED_DEFAULTS` for the keys not given, when no ``base_url`` is."""
        if not isinstance(data, dict):
            return data
        base_url = data.get("base_url")
        if isinstance(base_url, str) and base_url.strip():
            return data
        missing = {k: v for k, v in EMBEDDED_DEFAULTS.items() if data.get(k) is None}
        return {**data, **missing} if missing else data

    @field_validator("base_url", "model", "prompts_dir", "python", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError as error:  # its text quotes the value: not shown
            raise ValueError("not a URL (a bad host or port)") from error
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("expected an http:// or https:// URL such as http://127.0.0.1:11434/v1")
        return value

    @field_validator("prompts_dir")
    @classmethod
    def _existing_folder(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).expanduser().is_dir():
            raise ValueError("no such folder")
        return value

    @field_validator(
        "max_tokens", "max_rounds", "max_retries", "ai_tests", "max_calls", "seed",
        "context_tokens", "candidates", "token_budget", mode="before"
    )
    @classmethod
    def _no_booleans(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("expected a whole number, not true/false")  # noqa: TRY004 - pydantic wants ValueError
        return value

    @field_validator("models", mode="before")
    @classmethod
    def _models_from_json(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = json.loads(value) if value.strip() else {}
        return value

    @field_validator("prices", mode="before")
    @classmethod
    def _price_pairs(cls, value: Any) -> Any:
        if isinstance(value, str):  # an environment variable: JSON
            value = json.loads(value) if value.strip() else {}
        if not isinstance(value, dict):
            return value
        for price in value.values():
            if not (isinstance(price, (list, tuple)) and len(price) == 2
                    and all(isinstance(p, (int, float)) and not isinstance(p, bool)
                            for p in price)):
                raise ValueError(
                    'each model\'s price is [prompt, completion] in USD per million tokens, '
                    'e.g. {"gpt-4o": [2.5, 10]}'
                )
        return value

    @field_validator("models")
    @classmethod
    def _known_roles(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(ROLES))
        if unknown:
            raise ValueError(
                f"unknown role(s) {role_names(unknown)}; expected some of {list(ROLES)}"
            )
        return value

    @field_validator("api_key", mode="before")
    @classmethod
    def _strip_key(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip()
        return value

    @field_validator("api_key")
    @classmethod
    def _header_safe_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not (
            value.get_secret_value().isascii() and value.get_secret_value().isprintable()
        ):
            raise ValueError(
                "it holds characters an HTTP header cannot carry (only printable ASCII)"
            )
        return value

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, *args, **kwargs):  # type: ignore[override]
        """Only explicit values: :func:`load_settings` reads the environment itself, key by
        key, so that one bad variable costs only its own key."""
        return (init_settings,)

    def sandbox_policy(self) -> SandboxPolicy:
        """The sandbox's limits these settings ask for (``sandbox``, ``test_timeout_s``,
        ``sandbox_niceness``; the rest are :class:`SandboxPolicy`'s defaults)."""
        from codeteam.execution.sandbox_policy import SandboxPolicy

        return SandboxPolicy(mode=self.sandbox, timeout_s=self.test_timeout_s,
                             niceness=self.sandbox_niceness, niceness_shared=True)

    @property
    def uses_embedded_model(self) -> bool:
        """True when no ``base_url`` is set: the embedded SmolLM2 model serves every call."""
        return self.base_url is None

    def model_for(self, role: str) -> str:
        """The model name to send for ``role`` (override, else ``model``, else "default")."""
        return self.models.get(role) or self.model or "default"

    def redacted(self) -> dict[str, Any]:
        """The settings as a dict that is safe to log or show (the API key and base_url's
        userinfo masked)."""
        data = self.model_dump(mode="json")
        data["api_key"] = "**********" if self.api_key else None
        if self.base_url:
            data["base_url"] = mask_url(self.base_url)
        return data


def _flatten(options: Any) -> dict[str, Any]:
    """Accept ``{"codeteam": {...}}`` or ``{...}``; anything else counts as empty."""
    if not isinstance(options, dict):
        return {}
    inner = options.get("codeteam")
    if isinstance(inner, dict):
        return dict(inner)
    return dict(options)


def environment_layer() -> dict[str, Any]:
    """Settings read from ``CODETEAM_*`` env vars (and ``OPENAI_API_KEY``) by pydantic-settings.

    Values are not validated here, so that one bad variable costs only its own key.
    """
    try:
        layer = dict(EnvSettingsSource(Settings)())
    except (SettingsError, ValueError):
        # A complex value (``CODETEAM_MODELS``) that is not JSON: read the rest raw.
        layer = {
            name: os.environ[f"CODETEAM_{name.upper()}"]
            for name in Settings.model_fields
            if f"CODETEAM_{name.upper()}" in os.environ
        }
    if "api_key" not in layer and os.environ.get("OPENAI_API_KEY"):
        layer["api_key"] = os.environ["OPENAI_API_KEY"]
    register_secret(os.environ.get("OPENAI_API_KEY"))
    return layer


OTHER_VARIABLES = frozenset({
    "CODETEAM_BENCH_DATA", "CODETEAM_EMBEDDED_GGUF", "CODETEAM_PARSE_IN_THREAD",
    "CODETEAM_STDIN_THREAD", "CODETEAM_NVIM_SPEC",
    # set by codeteam for the sandboxed processes (codeteam.execution), not by users
    "CODETEAM_FILES_DIR", "CODETEAM_PROJECT_ROOT", "CODETEAM_RESULTS_FD", "CODETEAM_SUBJECT_FD",
    "CODETEAM_MAX_PROCESSES", "CODETEAM_PRIVATE_PIDNS",
})
"""``CODETEAM_*`` environment variables that are not settings but are read elsewhere (the
benchmark's data, the embedded model's file, test switches, the sandbox's own variables)."""

_warned_variables: set[str] = set()


def _nearest_setting(key: str) -> str | None:
    """The setting a key probably means: itself in another spelling (``MAX_ROUNDS``,
    ``max-rounds``, ``CODETEAM_MAX_ROUNDS``, VS Code's camelCase ``maxRounds``) or the closest
    name (a typo: ``max_roundz``); None when nothing is close."""
    key = str(key).strip()
    if key.upper().startswith("CODETEAM_"):
        key = key[len("CODETEAM_"):]
    key = key.replace("-", "_")
    if not any(c.islower() for c in key):
        snake = key.lower()
    else:
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key).lstrip("_")
    if snake in Settings.model_fields:
        return snake
    close = difflib.get_close_matches(snake, list(Settings.model_fields), n=1, cutoff=0.75)
    return close[0] if close else None


def _spelling_of(key: Any) -> bool:
    """Whether ``key`` is a setting's name in another spelling (``MAX_ROUNDS``, ...): safe to
    show as it is, however long."""
    if not isinstance(key, str):
        return False
    plain = key.strip().lower()
    plain = plain.removeprefix("codeteam_").replace("-", "").replace("_", "")
    return any(plain == name.replace("_", "") for name in Settings.model_fields)


def _did_you_mean(key: str) -> str:
    """``"; did you mean max_rounds?"`` for a key close to a setting's name (a typo, another
    spelling: see :func:`_nearest_setting`), else ""."""
    nearest = _nearest_setting(key)
    return f"; did you mean {nearest}?" if nearest else ""


def unknown_environment_variables(environ: dict[str, str] | None = None) -> list[str]:
    """One message per ``CODETEAM_*`` environment variable that names no setting (and is not
    one of :data:`OTHER_VARIABLES`), with the nearest setting's variable: pydantic-settings
    ignores them, so a typo (``CODETEAM_MAX_ROUNDZ``) would otherwise go unnoticed. Names only:
    never a value."""
    environ = os.environ if environ is None else environ
    messages = []
    for name in sorted(environ):
        if not name.upper().startswith("CODETEAM_") or name.upper() in OTHER_VARIABLES:
            continue
        if name[len("CODETEAM_"):].lower() in Settings.model_fields:
            continue
        nearest = _nearest_setting(name)
        hint = f"; did you mean CODETEAM_{nearest.upper()}?" if nearest else ""
        shown = name if name.isidentifier() else name_shown(name)  # a name, not a value
        messages.append(f"environment variable {shown}: not a codeteam setting "
                        f"(ignored){hint}")
    return messages


def _warn_unknown_environment_variables() -> None:
    """Log :func:`unknown_environment_variables` as warnings, each once per process (the
    editor reloads its settings at every configuration change)."""
    for message in unknown_environment_variables():
        if message not in _warned_variables:
            _warned_variables.add(message)
            log.warning("%s", message)


def _variable_of(key: str) -> str:
    """The environment variable a setting's value was read from."""
    if key == "api_key" and f"CODETEAM_{key.upper()}" not in os.environ:
        return "OPENAI_API_KEY"
    return f"CODETEAM_{key.upper()}"


def _error_text(item: dict[str, Any]) -> str:
    """One validation error's message, preceded by the part of the value it is about when it
    is inside the value (``coder: Input should be a valid string`` for ``models``); a part
    that is not a short identifier is described, never shown (it may be a pasted key)."""
    inner = item["loc"][1:]
    where = ".".join(str(part) if isinstance(part, int) else name_shown(part) for part in inner)
    return f"{where}: {item['msg']}" if where else item["msg"]


def load_settings(
    *layers: Any, env: bool = True, fallback: bool = True
) -> tuple[Settings, list[str]]:
    """Build :class:`Settings` from env vars plus ``layers`` (later layers win).

    Each layer is a dict of settings keys (``initializationOptions``, a
    ``workspace/configuration`` answer, CLI overrides), optionally nested under ``"codeteam"``.
    ``None`` values in a layer are ignored. Returns the settings and a list of human-readable
    problems ("timeout_s: Input should be greater than 0; the default is used"); an invalid
    value is dropped and the value from the layer below (or the default) is kept. Never raises
    on bad values. ``fallback=False`` leaves out of the messages what is kept instead
    ("(ignored)", "kept 3"), for a caller that stops on any problem (``codeteam run``).
    """
    if env:
        _warn_unknown_environment_variables()
    stack = ([environment_layer()] if env else []) + [_flatten(layer) for layer in layers]
    problems: list[str] = []
    merged: dict[str, Any] = {}
    for number, layer in enumerate(stack):
        from_environment = env and number == 0
        for key, value in layer.items():
            if value is None:
                continue
            if key == "api_key" and isinstance(value, str):
                register_secret(value.strip())
            if key not in Settings.model_fields:
                ignored = " (ignored)" if fallback else ""
                shown = key if _spelling_of(key) else name_shown(key)
                problems.append(f"{shown}: not a codeteam setting{ignored}"
                                f"{_did_you_mean(key)}")
                continue
            try:
                Settings(**{**merged, key: value})
            except ValidationError as error:
                messages = "; ".join(
                    _error_text(item) for item in error.errors() if item["loc"][:1] == (key,)
                )
                if messages:
                    # Never the value itself when it is text: it may be a pasted key.
                    if possible_secret(value):
                        register_secret(value)
                    shown = "the API key" if key == "api_key" else safe_value(value)
                    source = f" (from {_variable_of(key)})" if from_environment else ""
                    kept = f"; kept {_shown_value(key, merged)}" if fallback else ""
                    problems.append(f"{key}: {shown} is not valid ({messages}){source}{kept}")
                    continue
            merged[key] = value
    return Settings(**merged), problems


def _shown_value(key: str, merged: dict[str, Any]) -> str:
    if key == "api_key":
        return "the previous key" if key in merged else "no key"
    if key in merged:
        return shown_kept_value(key, getattr(Settings(**merged), key))
    # The default in effect: the field's, or the embedded model's (EMBEDDED_DEFAULTS).
    return f"the default {shown_kept_value(key, getattr(Settings(**merged), key))}"


def parse_overrides(pairs: list[str]) -> dict[str, object]:
    """``--set KEY=VALUE`` pairs (CLI and bench) as a settings mapping: each value is read as
    JSON when it parses (``3``, ``true``, ``{"coder": "m"}``), else kept as the string.

    Raises ``ValueError`` for a pair without ``=``: the message names the argument when it is
    a setting's name (``--set max_rounds has no '='; it takes KEY=VALUE: --set
    max_rounds=VALUE``), else only its position and the setting it is closest to, never its
    text (it may be a pasted API key)."""
    values: dict[str, object] = {}
    for position, pair in enumerate(pairs, start=1):
        key, sep, raw = pair.partition("=")
        if not sep:
            name = pair.strip()
            if name in Settings.model_fields:
                raise ValueError(f"--set {name} has no '='; it takes KEY=VALUE: "
                                 f"--set {name}=VALUE")
            nearest = _nearest_setting(name)
            hint = f" (did you mean --set {nearest}=VALUE?)" if nearest else ""
            raise ValueError(f"--set number {position} has no '='; it takes KEY=VALUE{hint}")
        try:
            values[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            values[key.strip()] = raw
    return values
