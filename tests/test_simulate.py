"""The simulation runner: complete games, reproducible, the same with any number of workers."""

from __future__ import annotations

import pytest
from event_checker import check_events

from game.core.ruleset_ids import RULESET_IDS
from game.play.simulate import SimConfig, game_seed, play_game, simulate, start_method


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_the_presses_tallied_are_the_hit_events_of_the_log(ruleset: str) -> None:
    """``hits`` and ``cards_launched`` come from the table's presser, not from the event log."""
    config = SimConfig(ruleset=ruleset, players=2, games=2, seed=4, keep_events=True)
    for index in range(2):
        result = play_game(config, index)
        hits = [event for event in result.events if event["type"] == "hit"]
        assert result.hits == len(hits) > 0
        assert result.cards_launched == sum(len(event["cards"]) for event in hits)


def test_games_are_complete_and_every_log_accounts_for_every_card() -> None:
    config = SimConfig(
        ruleset="attack", players=3, games=3, seed=2, keep_events=True, bots=("greedy",)
    )
    for index in range(3):
        result = play_game(config, index)
        checker = check_events(result.events)
        assert checker.finished and max(result.scores) >= 500
        assert result.hits == checker.hits and result.cards_launched == checker.cards_launched


def test_summary_counts_add_up() -> None:
    summary = simulate(
        SimConfig(ruleset="attack", players=4, games=4, seed=3, bots=("random", "greedy"))
    )
    assert summary["games"] == 4 and sum(s["wins"] for s in summary["seats"]) == 4
    assert summary["mean_cards_per_hit"] == summary["cards_launched"] / summary["hits"]
    assert summary["turns_per_round"] == summary["turns"] / summary["rounds"]
    assert [b["bot"] for b in summary["bots_summary"]] == ["random", "greedy"]
    assert summary["bots_summary"][1]["seats"] == [1, 3]


def test_the_same_seed_gives_the_same_summary_and_another_seed_does_not() -> None:
    config = SimConfig(ruleset="classic", players=3, games=3, seed=9, bots=("greedy",))
    first = simulate(config)
    assert simulate(config) == first
    assert first != simulate(
        SimConfig(ruleset="classic", players=3, games=3, seed=10, bots=("greedy",))
    )


def test_two_workers_give_the_same_results_as_one() -> None:
    config = SimConfig(ruleset="pocket", players=3, games=6, seed=5, bots=("greedy", "random"))
    assert simulate(config, workers=2) == simulate(config, workers=1)


def test_game_seeds_do_not_depend_on_the_other_games() -> None:
    config = SimConfig(ruleset="attack", players=2, games=1, seed=1)
    assert play_game(config, 7).seed == game_seed(1, 7)
    assert (
        play_game(config, 7).scores
        == play_game(SimConfig(ruleset="attack", players=2, games=9, seed=1), 7).scores
    )


def test_workers_are_forked_only_while_no_other_thread_runs() -> None:
    """Forking a process with threads can deadlock: then workers are spawned instead."""
    import multiprocessing
    import threading

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this platform cannot fork")
    others = threading.active_count() > 1  # e.g. a plug-in's thread in this test process
    assert start_method() == ("spawn" if others else "fork")
    release = threading.Event()
    waiter = threading.Thread(target=release.wait)
    waiter.start()
    try:
        assert start_method() == "spawn"
    finally:
        release.set()
        waiter.join()


def test_a_long_bot_spec_keeps_the_summary_columns_apart() -> None:
    """``casual:forget_uno=0.5`` must not run into the seats column ("...=0.50" read as 0.50)."""
    from game.play.simulate import format_summary

    bots = ("casual:forget_uno=0.5", "greedy")
    summary = simulate(SimConfig(ruleset="classic", players=2, games=1, seed=3, bots=bots))
    text = format_summary(summary)
    rows = [line.split() for line in text.splitlines() if line.strip().startswith("casual:")]
    assert rows and all(row[0] == "casual:forget_uno=0.5" for row in rows)
    assert rows[-1][1] == "0"  # the bot table: its seats column on its own
