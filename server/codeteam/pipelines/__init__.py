"""The pipelines: async functions from a task to a result (no LSP types here). Only the names
live at the package level, so that the CLI can list them without loading the pipelines and
the openai SDK (:mod:`codeteam.pipelines.registry` holds the functions)."""

GENERATION_PIPELINES = ("direct", "plan", "team", "flow")
"""The generation pipelines by name, in the order shown to users (``codeteam run --pipeline``,
``codeteam bench --pipelines``); :data:`codeteam.pipelines.registry.PIPELINES` is keyed by
exactly these."""
