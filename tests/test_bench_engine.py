"""The fair bench's loop (bench/bench_engine.py) makes RLCard's choices in our engine.

RLCard plays a drawn card that fits and never challenges a Wild Draw Four; the bench's
loop takes those moves by their place in the offer (``drawn``: the card, then ``pass``;
``challenge``: ``challenge``, then ``accept``). If the offers ever change order, the bench
would quietly measure different games: these tests say so instead.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from scripts import load_script

from game import Decision, Game, Move
from game.core.moves import MoveKind

ROOT = Path(__file__).resolve().parent.parent


def _bench_module() -> ModuleType:
    return load_script(ROOT / "bench" / "bench_engine.py", "bench_engine")


def _offers(decision: Decision, games: int) -> list[list[Move]]:
    """The offers of ``decision`` met in ``games`` random classic hands at 2 and 4 players."""
    rng = random.Random(5)
    seen = []
    for seed in range(games):
        game = Game.new("classic", 2 + 2 * (seed % 2), seed=seed)
        while not game.is_round_over():
            if game.is_chance_node():
                game.play(Move.fired(1 if game.pile else 0))
                continue
            moves = game.legal_moves()
            if game.pending is decision:
                seen.append(moves)
            game.play(moves[rng.randrange(len(moves))])
    return seen


def test_a_drawn_offer_is_the_drawn_card_then_pass() -> None:
    offers = _offers(Decision.DRAWN, 60)
    assert len(offers) > 50
    for moves in offers:
        assert [m.kind for m in moves] == [MoveKind.PLAY, MoveKind.PASS]


def test_a_classic_challenge_offer_is_challenge_then_accept() -> None:
    offers = _offers(Decision.CHALLENGE, 200)
    assert len(offers) > 20
    for moves in offers:
        assert [m.kind for m in moves] == [MoveKind.CHALLENGE, MoveKind.ACCEPT]


@pytest.mark.parametrize("players", [2, 4])
def test_the_bench_loop_plays_whole_hands(
    players: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its JSON line counts turn steps: about 46 a hand at 2 players, 51 at 4 (many hands)."""
    code = _bench_module().OURS.replace("ROOT)", f"{str(ROOT)!r})", 1)
    monkeypatch.setattr(sys, "argv", ["bench", str(players), "40", "3", "chance", "2"])
    exec(compile(code, "bench_engine.OURS", "exec"), {"__name__": "__main__"})
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["hands"] == 40
    assert 25 * 40 < result["steps"] < 80 * 40
    assert result["seconds"] > 0
