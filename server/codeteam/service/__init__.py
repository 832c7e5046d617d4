"""The application service: the one orchestration from a run request to its outcome
(:mod:`codeteam.service.runs`: ``run`` for a request, ``run_task`` for a task already built),
which function a run is on (:mod:`codeteam.service.locate`), the task and its tests
(:mod:`codeteam.service.documents`), whether the sandbox can test it
(:mod:`codeteam.service.preflight`), where runs get their model client
(:mod:`codeteam.service.clients`) and what may be written (:mod:`codeteam.service.write_policy`).
The editor, the CLI and the benchmark call it; it knows neither LSP nor the command line. Kept
empty so that importing :mod:`.clients` or :mod:`.locate` at the editor's start-up does not
load the pipelines and the openai SDK."""
