"""Fixtures of the CLI suite: ``codeteam run`` as a subprocess, against the scripted model
(``scripted``, from tests/conftest.py) or a raw HTTP server on 127.0.0.1."""
