"""The engine's shape (issue 9): one round state, effects through the context protocol only,
modules small enough to read."""

from __future__ import annotations

import ast
from pathlib import Path

from game import Game
from game.round import RoundState

GAME = Path(__file__).resolve().parent.parent / "game"
ENGINE_MODULES = ("engine", "history", "round", "legal", "table", "turns", "effects", "moves")


def test_the_round_state_lives_in_one_object_and_the_game_shows_it() -> None:
    game = Game.new("attack", 3, seed=4)
    assert isinstance(game.round, RoundState)
    assert game.hands is game.round.hands and game.pile is game.round.pile
    game.pos = 2
    assert game.round.pos == 2


def test_a_copy_shares_no_round_state_with_its_original() -> None:
    game = Game.new("classic", 2, seed=9)
    other = game.copy()
    other.hands[0].clear()
    other.discard.append(other.discard[-1])
    assert game.hands[0] and len(game.discard) == 1
    assert other.round is not game.round


def test_effect_blocks_touch_no_private_member() -> None:
    tree = ast.parse((GAME / "effects.py").read_text(encoding="utf-8"))
    private = [
        f"line {node.lineno}: {node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_")
    ]
    assert private == []


# -- imports: one direction inside game/, no device below the rules (issue 24) ---------------
#: The rules core: the pure state machine and what it is made of.
CORE = (
    "engine",
    "turns",
    "table",
    "history",
    "observe",
    "explain",
    "round",
    "moves",
    "legal",
    "effects",
    "steps",
    "blocks",
    "cards",
    "chance",
)
DEVICE_LAYERS = ("launcher", "firmware_bridge", "hardware")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(GAME.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported(path: Path, modules: set[str]) -> set[str]:
    """Every module ``path`` imports, at any level and under ``TYPE_CHECKING`` too.

    ``from game import legal`` counts as ``game.legal``; a package's own ``__init__`` is a
    facade that imports lazily, so importing it is not counted as a cycle's edge.
    """
    package = module_name(path) if path.name == "__init__.py" else module_name(path)
    package = package if path.name == "__init__.py" else package.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            subs = {f"{base}.{a.name}" for a in node.names} & modules
            found.update(subs or {base})
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in GAME.rglob("*.py")}
    modules = set(paths)
    return {
        name: set()
        if path.name == "__init__.py"
        else {m for m in imported(path, modules) if m in modules and m != name}
        for name, path in paths.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_module_of_game_imports_in_a_circle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_check_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_rules_core_imports_no_device_layer_and_nothing_above_it() -> None:
    modules = set(import_graph())
    wrong = {}
    for name in CORE:
        found = imported(GAME / f"{name}.py", modules)
        bad = sorted(
            m
            for m in found
            if m.split(".")[0] in DEVICE_LAYERS
            or (m.startswith("game.") and m.removeprefix("game.") not in CORE + SHARED)
        )
        if bad:
            wrong[name] = bad
    assert wrong == {}


#: Shared modules the core may use: errors (rooted in hardware.errors, the one exception
#: hierarchy; no device), the ruleset loader and its ids, the custom-card reader.
SHARED = ("errors", "rulesets", "ruleset_ids", "custom")
