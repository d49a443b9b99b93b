"""scipy's ``stats``, ``optimize`` and ``special``, imported on first use.

Importing ``scipy.stats`` costs about 0.7 s, and the CLI imports every command module
to build its parser: without this, every ``uno-attack`` start would pay for it, even
``uno-attack play``. Attribute access loads the real module once.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)


stats: Any = _LazyModule("scipy.stats")
optimize: Any = _LazyModule("scipy.optimize")
special: Any = _LazyModule("scipy.special")
