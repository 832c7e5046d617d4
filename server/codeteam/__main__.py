"""``python -m codeteam``: the same as the ``codeteam`` command."""

from codeteam.cli import main

raise SystemExit(main())
