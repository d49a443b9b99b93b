"""``python -m game`` does what the ``uno-attack`` console script does."""

import sys

from game.cli import main

sys.exit(main())
