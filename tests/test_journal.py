"""The journal survives crashes: cut-off tails dropped, resumes append cleanly, presses replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.chance import derive_seed
from game.core.errors import JournalError
from game.core.rulesets import load_ruleset
from game.play.driver import Presser
from game.play.journal import (
    JOURNAL_VERSION,
    JournalWriter,
    encode,
    read_journal,
)
from hardware.errors import LauncherJam
from launcher.base import ScriptedLauncher
from launcher.sim import SimLauncher

HEADER = {
    "mode": "play",
    "ruleset": "attack",
    "seed": 7,
    "seats": [{"name": "Ann", "bot": None}, {"name": "GreedyBot2", "bot": "greedy"}],
    "launcher": "sim://",
}


class CountingLauncher(ScriptedLauncher[int]):
    """A scripted launcher that jams on chosen presses (1-based), like a card catching."""

    def __init__(self, counts: list[int], jam_on: tuple[int, ...] = ()) -> None:
        super().__init__(counts)
        self.jam_on = set(jam_on)
        self.attempts = 0
        self.cleared = 0

    def _press(self, loaded: int) -> int:
        self.attempts += 1
        if self.attempts in self.jam_on:
            raise LauncherJam("card stuck in the throat")
        return super()._press(loaded)

    def clear_fault(self) -> None:
        self.cleared += 1


def write_journal(path: Path, moves: list[str]) -> None:
    with JournalWriter.create(path, HEADER) as writer:
        for index, move in enumerate(moves):
            writer.append({"type": "press", "counted": index % 3})
            writer.append({"type": "move", "seat": index % 2, "moves": [move]})


def test_round_trip_keeps_header_and_records_in_order(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7", "hit", "uno"])
    journal = read_journal(path)
    assert journal.header["seed"] == 7 and journal.header["version"] == JOURNAL_VERSION
    assert [record["moves"][0] for record in journal.decisions] == ["play:R7", "hit", "uno"]
    assert journal.press_counts == [0, 1, 2]
    assert not journal.dropped_tail


@settings(max_examples=60, deadline=None)
@given(
    moves=st.lists(
        st.sampled_from(["play:R7", "hit", "uno", "color:blue"]), min_size=1, max_size=8
    ),
    data=st.data(),
)
def test_a_crash_at_any_byte_loses_at_most_the_line_being_written(
    tmp_path_factory: pytest.TempPathFactory, moves: list[str], data: st.DataObject
) -> None:
    path = tmp_path_factory.mktemp("cut") / "game.jsonl"
    write_journal(path, moves)
    full = path.read_bytes()
    header_length = full.index(b"\n") + 1
    cut = data.draw(st.integers(min_value=header_length, max_value=len(full)))
    path.write_bytes(full[:cut])
    journal = read_journal(path)
    whole_lines = full[:cut].count(b"\n") - 1
    assert len(journal.records) == whole_lines
    assert journal.dropped_tail == (not full[:cut].endswith(b"\n"))


def test_resume_cuts_the_torn_tail_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7", "hit"])
    path.write_bytes(path.read_bytes() + b'{"type":"move","se')
    journal = read_journal(path)
    assert journal.dropped_tail
    with JournalWriter.reopen(journal) as writer:
        writer.append({"type": "move", "seat": 0, "moves": ["draw"]})
    again = read_journal(path)
    assert [record["moves"][0] for record in again.decisions] == ["play:R7", "hit", "draw"]
    assert not again.dropped_tail


def test_a_resume_that_writes_nothing_leaves_the_torn_tail_in_place(tmp_path: Path) -> None:
    """A resume refused while replaying must not have changed the file (issue 17)."""
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7"])
    torn = path.read_bytes() + b'{"type":"move","se'
    path.write_bytes(torn)
    with JournalWriter.reopen(read_journal(path)):
        pass
    assert path.read_bytes() == torn


def test_a_bad_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7", "hit"])
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"garbage"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 3"):
        read_journal(path)


FULL = {**HEADER, "type": "header", "version": 1}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b'{"type":"move"}\n', "header"),
        (b'{"type":"header","version":99}\n', "version"),
        (encode(FULL) + b'{"type":"dance"}\n', "field type: expected one of"),
        (encode(FULL) + b'{"type":["move"]}\n', "field type: expected one of"),
        (encode({**FULL, "mode": []}), "field mode: expected"),
        (encode(FULL) + b'{"type":"press","counted":-1}\n', "field counted"),
        (encode(FULL) + b'{"type":"entry","op":"play"}\n', "field type"),
        (b'{"type":"hea', "cut off"),
    ],
)
def test_unusable_journals_are_explained(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=message):
        read_journal(path)


def test_missing_journal_is_a_journal_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="cannot read"):
        read_journal(tmp_path / "nope.jsonl")


def test_create_refuses_to_overwrite_a_game(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["hit"])
    with pytest.raises(JournalError, match="already exists") as caught:
        JournalWriter.create(path, HEADER)
    assert "--resume" in caught.value.hint


# -- the press driver (game.play.driver.Presser) replays journaled counts and handles jams ---------
def _pile(cards: int) -> list[int]:
    return list(range(cards))


def counts_of(presser: Presser, presses: int, pile: list[int]) -> list[int]:
    """Press ``presses`` times against a caller's pile model (what the engine does)."""

    def sync() -> None:
        if presser.launcher.remaining != len(pile):
            presser.launcher.unload()
            presser.launcher.load(pile)

    got = []
    for _ in range(presses):
        count = presser.next_count(sync)
        del pile[:count]
        got.append(count)
    return got


def test_journaled_presses_replay_without_pressing_the_real_launcher() -> None:
    inner = CountingLauncher([5])
    outcomes: list[str] = []
    presser = Presser(inner, replay=[2, 0, 1], on_outcome=lambda move: outcomes.append(str(move)))
    assert counts_of(presser, 3, _pile(20)) == [2, 0, 1] and inner.attempts == 0
    assert counts_of(presser, 1, _pile(17)) == [5] and inner.attempts == 1
    assert outcomes == ["fired:5"]  # replayed counts are in the journal already


def test_a_jam_is_reported_and_the_presser_gets_what_was_pulled_out() -> None:
    inner = CountingLauncher([0, 3], jam_on=(2,))
    faults: list[str] = []

    def person_clears_jam(fault: Exception) -> int:
        faults.append(str(fault))
        return 1

    presser = Presser(inner, on_fault=person_clears_jam)
    assert counts_of(presser, 3, _pile(10)) == [0, 1, 3]
    assert faults == ["card stuck in the throat"] and inner.cleared == 1


def test_a_jam_with_nothing_pulled_out_presses_again() -> None:
    inner = CountingLauncher([4], jam_on=(1,))
    presser = Presser(inner, on_fault=lambda fault: None)
    assert counts_of(presser, 1, _pile(10)) == [4]
    assert inner.attempts == 2 and len(presser.faults) == 1


def test_without_a_fault_handler_the_jam_propagates() -> None:
    presser = Presser(CountingLauncher([1], jam_on=(1,)))
    with pytest.raises(LauncherJam):
        counts_of(presser, 1, _pile(3))


def test_a_seeded_launcher_is_pressed_again_on_replay_so_its_stream_continues() -> None:
    from launcher.sim import SimLauncher

    uninterrupted = counts_of(Presser(SimLauncher("web-game", seed=3)), 12, _pile(80))
    pile = _pile(80)
    crashed = Presser(SimLauncher("web-game", seed=3), replay=uninterrupted[:5])
    assert counts_of(crashed, 12, pile) == uninterrupted


def test_a_resumed_play_game_equals_the_uninterrupted_one() -> None:
    from game import Table

    def run(
        moves: int, replay: list[int] | None = None
    ) -> tuple[list[dict[str, object]], list[int]]:
        launcher: Any = SimLauncher("web-game", seed=derive_seed(4, "launcher"))
        counts: list[int] = []
        presser = Presser(
            launcher, replay=replay or (), on_outcome=lambda m: counts.append(m.count or 0)
        )
        game = Table.start(presser, load_ruleset("attack"), 3, 4)
        for _ in range(moves):
            if game.is_round_over():
                break
            game.play(game.legal_moves()[0])
        return game.events, counts

    full, _ = run(60)
    _, journaled = run(20)
    resumed, _ = run(60, replay=journaled)
    assert resumed == full


class JamsAfterCounting(ScriptedLauncher[int]):
    """The first press counts ``before`` cards and then jams (a card stuck behind them)."""

    def __init__(self, before: int) -> None:
        super().__init__([1])
        self.before = before
        self.jammed = False

    def _press(self, loaded: int) -> int:
        if not self.jammed:
            self.jammed = True
            error = LauncherJam("card stuck in the throat")
            error.counted = self.before
            raise error
        return super()._press(loaded)


@pytest.mark.parametrize(("before", "pulled", "outcome"), [(2, 1, 3), (2, None, 2), (0, 1, 1)])
def test_after_a_jam_the_presser_gets_the_counted_and_the_pulled_out_cards(
    before: int, pulled: int | None, outcome: int
) -> None:
    presser = Presser(JamsAfterCounting(before), on_fault=lambda fault: pulled)
    assert counts_of(presser, 1, _pile(10)) == [outcome]


def test_after_a_jam_with_nothing_out_at_all_the_press_is_made_again() -> None:
    launcher = JamsAfterCounting(0)
    presser = Presser(launcher, on_fault=lambda fault: None)
    assert counts_of(presser, 1, _pile(10)) == [1] and launcher.presses == 2
