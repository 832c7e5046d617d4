"""Project context: the definitions of the project a target function is likely to need,
found with jedi and :mod:`ast` (never by importing the user's code) and fitted into a token
budget, for the analyst's, coder's and tester's prompts (``prompts/project_context.jinja``)."""

from codeteam.project_context.build import (
    DEFAULT_BUDGET,
    build_project_context,
    project_context_for,
)
from codeteam.project_context.context_models import (
    ContextDefinition,
    ContextFile,
    LeftOut,
    ProjectContext,
    estimate_tokens,
)

__all__ = [
    "DEFAULT_BUDGET",
    "ContextDefinition",
    "ContextFile",
    "LeftOut",
    "ProjectContext",
    "build_project_context",
    "estimate_tokens",
    "project_context_for",
]
