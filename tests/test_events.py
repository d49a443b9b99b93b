"""Every event of real games fits its typed schema (game.events): no field missing or unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from game import Decision, Game, Move
from game.play.driver import Table
from game.play.events import EVENT_TYPES, SCHEMAS, schema_problem

SETUPS = [
    ("attack", {}),
    ("attack-original", {"suggestion_penalty": 4}),
    ("attack-mega-hit", {"scoring": "elimination"}),
    ("classic", {"stack_draws": True, "seven_zero": True, "jump_in": True}),
    ("pocket", {"draw_until_playable": True}),
]


def test_every_event_type_has_a_schema() -> None:
    assert set(EVENT_TYPES) == set(SCHEMAS)


@pytest.mark.parametrize(("ruleset", "options"), SETUPS)
def test_events_of_real_games_fit_their_schema(ruleset: str, options: dict[str, object]) -> None:
    for seed in range(3):
        game = Table.new(ruleset, 4, seed=seed, options={"target": 100, **options})
        while not game.is_game_over() and game.round_number < 3:
            if game.is_round_over():
                game.start_next_round()
                continue
            table = game.table_moves()
            game.play(table[0] if table and seed % 2 else game.legal_moves()[-1])
        problems = {schema_problem(e) for e in game.events} - {None}
        assert not problems, problems


def test_a_custom_card_header_fits(tmp_path: Path) -> None:
    path = tmp_path / "card.toml"
    path.write_text('effects = ["everyone_hits n=1"]\n')
    game = Game.new("attack", 3, seed=1, options={"custom": str(path)})
    while game.pending is Decision.PRESS:
        game.play(Move.fired(0))
    assert schema_problem(game.events[0]) is None and "custom_file" in game.events[0]


def test_a_missing_field_is_named() -> None:
    assert "missing ['counted']" in (
        schema_problem({"type": "hit", "player": 0, "reason": "x", "cards": []}) or ""
    )
