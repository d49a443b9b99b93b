"""Architecture rules that keep the four packages honest.

Dependencies point one way, hardware <- firmware_bridge <- launcher <- game, and the
firmware's shared codec stays importable by MicroPython (checked in its own tests).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["hardware", "firmware_bridge", "launcher", "game"]


def _imported_top_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_imports_from_a_layer_above(layer: str) -> None:
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_top_packages(path) & above)
        for path in (ROOT / layer).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_engine_core_never_touches_global_randomness_or_io() -> None:
    """The rules engine takes its chance source and launcher from outside (OpenSpiel style)."""
    core = [ROOT / "game" / name for name in ("engine.py", "effects.py", "rulesets.py", "cards.py")]
    for path in (p for p in core if p.exists()):
        imported = _imported_top_packages(path)
        assert not imported & {"random", "numpy", "serial", "gpiozero", "socket", "subprocess"}, (
            path
        )


def test_every_package_is_typed() -> None:
    for layer in LAYERS:
        assert (ROOT / layer / "py.typed").exists(), layer
