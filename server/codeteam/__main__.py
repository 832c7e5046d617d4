"""``python -m codeteam``: the same as the ``codeteam`` command."""

from codeteam.cli import main

if __name__ == "__main__":  # not when a worker process (multiprocessing spawn) imports it
    raise SystemExit(main())
