"""Instructions per part of a classic hand (valgrind callgrind): where the engine's time goes.

    python bench/engine_parts.py [--tree .] [--runs 200] [--base 0] [--only TEXT]

Each part runs ``--runs`` times in a fresh ``python`` under ``valgrind --tool=callgrind``, and
once more with ``--base`` runs (default 0); the difference divided by the runs between is its
count per run, the same whatever the load on the machine (imports and start-up cancel).
``PYTHONHASHSEED=0``. ``--base 100 --runs 300`` leaves the first runs' one-off work (the
interpreter specialising new code, caches filling) out of the count as well.
The parts: ``Game.new`` of a 2- and a 4-player classic hand (compiled ruleset, chance
presses), one 112-card shuffle (``game.core.chance.shuffle``), seeding a ``random.Random``, the
first dealer pick (``game.core.table.first_dealer``, 2 and 4 players), and one number-card
turn of the benchmark's loop on a set position (``is_round_over``, ``pending``,
``legal_moves``, the pick, ``play``), measured as ``copy()`` + turn minus ``copy()``.
Figures go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

SETUP = """
import random
from game import Card, Game, load_ruleset
from game.core.cards import parse_cards
from game.core.chance import shuffle
from game.core.table import first_dealer
rules = load_ruleset("classic")
base = Game.new(rules, 2, seed=3)
base.set_position([parse_cards("R1 R2 B3 G4 Y5 R6 B7"), parse_cards("R3 B1 G2 Y8 R9 B5 G6")],
                  Card.parse("R0"))
pick = random.Random(1).randrange
chance, deck = random.Random(1), list(rules.deck)
"""

TURN = "g.is_round_over(); g.pending; m = g.legal_moves(); m.pop(); g.play(m[pick(len(m))])"
PARTS = {
    "Game.new (2 players, classic)": "Game.new(rules, 2, seed=i)",
    "Game.new (4 players, classic)": "Game.new(rules, 4, seed=i)",
    "one 112-card shuffle": "shuffle(chance, list(deck))",
    "random.Random(seed)": "random.Random(i)",
    "first dealer pick, 2 players": "first_dealer(rules.deck, chance, 2)",
    "first dealer pick, 4 players": "first_dealer(rules.deck, chance, 4)",
    "copy() of a game": "g = base.copy()",
    "copy() + one number-card turn": f"g = base.copy(); {TURN}",
}


def instructions(tree: Path, statement: str, runs: int) -> int:
    """Instructions executed by a python process that runs ``statement`` ``runs`` times."""
    code = f"import sys\nsys.path.insert(0, {str(tree)!r})\n{SETUP}\nfor i in range({runs}):\n"
    return callgrind_count(code + f"    {statement}\n", "engine_parts")


def callgrind_count(code: str, who: str) -> int:
    """Instructions a fresh ``python -c code`` executes (``PYTHONHASHSEED=0``), by callgrind."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        + [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"{who}: no callgrind count in:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--base", type=int, default=0, help="runs subtracted (default 0)")
    parser.add_argument("--only", default="", help="the parts whose name contains this")
    args = parser.parse_args()
    empty = instructions(args.tree, "pass", 0)
    counts = {}
    for name, statement in PARTS.items():
        if args.only not in name:
            continue
        base = instructions(args.tree, statement, args.base) if args.base else empty
        counts[name] = (instructions(args.tree, statement, args.runs) - base) // (
            args.runs - args.base
        )
        print(f"{counts[name]:>12,} instructions  {name}")
    if "copy() of a game" in counts and "copy() + one number-card turn" in counts:
        turn = counts["copy() + one number-card turn"] - counts["copy() of a game"]
        print(f"{turn:>12,} instructions  one number-card turn (the difference of the last two)")


if __name__ == "__main__":
    main()
