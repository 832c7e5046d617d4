"""The application service: the one orchestration from a run request to its outcome
(:mod:`codeteam.service.runs`), and where runs get their model client
(:mod:`codeteam.service.clients`). The editor, the CLI and the benchmark call it; it knows
neither LSP nor the command line. Kept empty so that importing :mod:`.clients` at the
editor's start-up does not load the pipelines and the openai SDK."""
