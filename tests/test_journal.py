"""The journal survives crashes: cut-off tails dropped, resumes append cleanly, presses replay."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.errors import JournalError
from game.journal import (
    JOURNAL_VERSION,
    JournaledLauncher,
    JournalWriter,
    encode,
    read_journal,
)
from hardware.errors import LauncherJam
from launcher.base import ScriptedLauncher

HEADER = {"mode": "play", "ruleset": "attack", "seed": 7, "seats": ["Ann", "bot:greedy"]}


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
            writer.append({"type": "move", "seat": index % 2, "move": move})


def test_round_trip_keeps_header_and_records_in_order(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7", "hit", "uno"])
    journal = read_journal(path)
    assert journal.header["seed"] == 7 and journal.header["version"] == JOURNAL_VERSION
    assert [record["move"] for record in journal.decisions] == ["play:R7", "hit", "uno"]
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
        writer.append({"type": "move", "seat": 0, "move": "draw"})
    again = read_journal(path)
    assert [record["move"] for record in again.decisions] == ["play:R7", "hit", "draw"]
    assert not again.dropped_tail


def test_a_bad_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_journal(path, ["play:R7", "hit"])
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"garbage"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 3"):
        read_journal(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b'{"type":"move"}\n', "header"),
        (b'{"type":"header","version":99}\n', "version"),
        (encode({"type": "header", "version": 1}) + b'{"type":"dance"}\n', "unknown record type"),
        (encode({"type": "header", "version": 1}) + b'{"type":"press","counted":-1}\n', "counted"),
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


def test_journaled_presses_replay_without_pressing_the_real_launcher() -> None:
    inner = CountingLauncher([5])
    pressed: list[int] = []
    launcher = JournaledLauncher(inner, replay=[2, 0, 1], on_press=pressed.append)
    launcher.load(range(20))
    replayed = [launcher.hit() for _ in range(3)]
    assert [volley.cards for volley in replayed] == [(0, 1), (), (2,)]
    assert inner.attempts == 0
    live = launcher.hit()
    assert live.cards == (3, 4, 5, 6, 7) and inner.attempts == 1
    # the inner hopper model was brought in line before the live press
    assert inner.peek_hopper() == launcher.peek_hopper()
    assert pressed == [5]  # replayed presses are in the journal already


def test_a_jam_is_reported_and_the_presser_gets_what_was_pulled_out() -> None:
    inner = CountingLauncher([0, 3], jam_on=(2,))
    faults: list[str] = []

    def person_clears_jam(fault: Exception) -> int:
        faults.append(str(fault))
        return 1

    launcher = JournaledLauncher(inner, on_fault=person_clears_jam)
    launcher.load(range(10))
    assert launcher.hit().cards == ()
    assert launcher.hit().cards == (0,)
    assert faults == ["card stuck in the throat"] and inner.cleared == 1
    assert inner.peek_hopper() == launcher.peek_hopper()
    assert launcher.hit().cards == (1, 2, 3)


def test_a_jam_with_nothing_pulled_out_presses_again() -> None:
    inner = CountingLauncher([4], jam_on=(1,))
    launcher = JournaledLauncher(inner, on_fault=lambda fault: None)
    launcher.load(range(10))
    assert launcher.hit().cards == (0, 1, 2, 3)
    assert inner.attempts == 2 and len(launcher.faults) == 1


def test_without_a_fault_handler_the_jam_propagates() -> None:
    launcher = JournaledLauncher(CountingLauncher([1], jam_on=(1,)))
    launcher.load(range(3))
    with pytest.raises(LauncherJam):
        launcher.hit()


def test_a_seeded_launcher_is_pressed_again_on_replay_so_its_stream_continues() -> None:
    from launcher.sim import SimLauncher

    def run(presses: int, launcher: SimLauncher[int] | JournaledLauncher) -> list[int]:
        launcher.load(range(80))
        return [launcher.hit().counted for _ in range(presses)]

    uninterrupted = run(12, SimLauncher("web-game", seed=3))
    crashed = JournaledLauncher(
        SimLauncher("web-game", seed=3), repress=True, replay=uninterrupted[:5]
    )
    assert run(12, crashed) == uninterrupted
    assert crashed.divergences == []


def test_a_repress_that_disagrees_with_the_journal_is_recorded_and_the_journal_wins() -> None:
    launcher = JournaledLauncher(CountingLauncher([1]), repress=True, replay=[2])
    launcher.load(range(10))
    assert launcher.hit().cards == (0, 1)
    assert launcher.divergences == [(1, 2, 1)]
    launcher.hit()
    assert launcher.inner.peek_hopper() == launcher.peek_hopper()
