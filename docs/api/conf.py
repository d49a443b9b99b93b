"""Sphinx configuration of the API reference (built by tests/test_api_docs.py with -W).

Build it by hand with ``python -m sphinx -W -b html docs/api docs/api/_build``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

project = "uno-attack"
author = "the uno-attack developers"
extensions = ["sphinx.ext.autodoc"]
exclude_patterns = ["_build"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
# Names in signatures that live where autodoc cannot resolve them are shown as written.
nitpicky = False
html_theme = "alabaster"
# game.core.engine re-exports Move, Color, ... from game.core.moves and game.core.cards, and both
# pages document
# them: a bare ``Move`` in a bot's signature then has two targets, which are one class.
suppress_warnings = ["ref.python"]
