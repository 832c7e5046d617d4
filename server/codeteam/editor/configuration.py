"""Settings from the editor: ``initializationOptions`` and the ``workspace/configuration``
section ``codeteam`` (over the ``CODETEAM_*`` environment), through
:func:`codeteam.settings.load_settings`. Bad values keep their defaults and come back as
problems for the user; the API key is never logged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codeteam.settings import Settings

SECTION = "codeteam"


class SettingsState:
    """The current settings and the layers they came from.

    pydantic-settings is imported on first use, after the ``initialize`` answer, so that the
    server answers ``initialize`` sooner.
    """

    def __init__(self) -> None:
        self.init_options: Any = None
        self.workspace_config: Any = None
        self._settings: Settings | None = None
        self.problems: list[str] = []
        self._shown: set[str] = set()

    @property
    def settings(self) -> Settings:
        """The current settings (the environment's, before the first :meth:`reload`)."""
        if self._settings is None:
            self.reload()
        assert self._settings is not None
        return self._settings

    def reload(self) -> Settings:
        """Rebuild the settings from the layers (problems in :attr:`problems`)."""
        from codeteam.settings import load_settings

        self._settings, self.problems = load_settings(self.init_options, self.workspace_config)
        return self._settings

    def unreported(self) -> list[str]:
        """The current problems not already reported after the previous reload (so an
        unchanged bad value is not shown again each time the configuration is pulled)."""
        fresh = [problem for problem in self.problems if problem not in self._shown]
        self._shown = set(self.problems)
        return fresh


def pushed_section(settings: Any) -> Any:
    """The ``codeteam`` section of a ``workspace/didChangeConfiguration`` payload (clients
    that push settings), or None."""
    if isinstance(settings, dict):
        inner = settings.get(SECTION)
        if isinstance(inner, dict):
            return inner
    return None
