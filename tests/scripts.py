"""Load a script of the repository that is not a package module (bench/, docs/images/)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str, register: bool = False) -> ModuleType:
    """Run ``path`` as the module ``name``; ``register`` puts it in ``sys.modules`` first
    (needed when the script's dataclasses or pickles look their module up by name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
