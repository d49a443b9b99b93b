"""Architecture rules that keep the packages and game/'s rooms honest (docs/architecture.md).

Dependencies point one way, hardware <- firmware_bridge <- launcher <- game; inside game/, each
room imports only the rooms its rule allows, the rules core none, and no module of game/ is part
of an import cycle. The firmware's shared codec stays importable by MicroPython (checked in its
own tests).
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["hardware", "firmware_bridge", "launcher", "game"]

#: What each room of game/ may import from game/ besides itself (docs/architecture.md).
ROOMS: dict[str, set[str]] = {
    "core": set(),
    "bots": {"core"},
    "play": {"core", "bots"},
    "referee": {"core", "play"},
    "tables": {"core", "play", "bots", "referee"},
    "experiment": {"core", "play", "bots"},
    "rl": {"core", "bots", "play"},
    "testing": {"core", "play", "bots"},
    "cli": {"core", "play", "bots", "referee", "tables", "experiment", "testing"},
}
#: The modules at game/'s top: the package's lazy public names, `python -m game`, and the
#: documented import names of the learning-framework adapters (thin re-exports of game.rl).
TOP = {"__init__", "__main__", "openspiel", "pettingzoo"}
#: What the rules core may import from the layers below: the root of the one exception
#: hierarchy and the bounded user-file reader (a custom card's TOML). No device, no launcher.
CORE_MAY_IMPORT = {"hardware.errors", "hardware.files"}
#: The core's only users of ``random``: the chance source seeded from the game's seed, and the
#: resampling of the hidden cards a seat cannot see (with the caller's generator).
CORE_MAY_USE_RANDOM = {"game.core.chance", "game.core.infostate"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports at run time (at module level or inside a function).

    Imports under ``if TYPE_CHECKING:`` are for the type checker only and do not count.
    ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if _is_module(full) else node.module)
    return names


@cache
def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _game_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / "game").rglob("*.py")}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_imports_from_a_layer_above(layer: str) -> None:
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    offenders = {
        str(path.relative_to(ROOT)): sorted({n.split(".")[0] for n in _imports(path)} & above)
        for path in (ROOT / layer).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_game_has_only_its_rooms_and_top_modules() -> None:
    """A new module goes into a room (docs/architecture.md says which), not at game/'s top."""
    top = {p.stem for p in (ROOT / "game").glob("*.py")}
    rooms = {p.name for p in (ROOT / "game").iterdir() if (p / "__init__.py").exists()}
    assert top <= TOP, sorted(top - TOP)
    assert rooms == set(ROOMS), sorted(rooms ^ set(ROOMS))


def test_each_room_imports_only_what_its_rule_allows() -> None:
    broken = {}
    for module, path in _game_modules().items():
        room = _room(module)
        if room not in ROOMS:
            continue
        allowed = ROOMS[room] | {room}
        bad = sorted(
            name
            for name in _imports(path)
            if name.startswith("game.") and _room(name) not in allowed and name != "game"
        )
        if bad:
            broken[module] = bad
    assert broken == {}


def test_the_rules_core_holds_no_device() -> None:
    """The core imports no launcher, firmware or hardware module (but the exception root and the
    user-file reader), no I/O or thread module, and ``random`` only where it is the game's chance
    source or a caller's generator (CORE_MAY_USE_RANDOM)."""
    forbidden = re.compile(
        r"^(launcher|firmware_bridge|numpy|serial|gpiozero|socket|subprocess|threading"
        r"|asyncio|multiprocessing)(\.|$)"
    )
    offenders = {}
    for module, path in _game_modules().items():
        if _room(module) != "core":
            continue
        names = _imports(path)
        bad = {n for n in names if forbidden.match(n)}
        bad |= {n for n in names if n.startswith("hardware") and n not in CORE_MAY_IMPORT}
        if module not in CORE_MAY_USE_RANDOM:
            bad |= {n for n in names if n == "random" or n.startswith("random.")}
        if bad:
            offenders[module] = sorted(bad)
    assert offenders == {}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _game_graph() -> dict[str, set[str]]:
    modules = _game_modules()
    return {
        name: {n for n in _imports(path) if n in modules and n != name}
        for name, path in modules.items()
    }


def test_no_import_cycle_inside_game() -> None:
    assert _cycles(_game_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_architecture_page_lists_every_room_with_its_rule() -> None:
    """docs/architecture.md's room table is the rule this file enforces."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `game/(\w+)/` \| [^|]+ \| ([^|]+) \|", text, re.M))
    documented = {
        room: set(re.findall(r"`(\w+)`", may)) - {"nothing"} for room, may in rows.items()
    }
    assert documented == ROOMS


def test_every_package_is_typed() -> None:
    for layer in LAYERS:
        assert (ROOT / layer / "py.typed").exists(), layer
