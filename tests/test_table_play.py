"""The table in-process: typing anything never breaks a game; a crash at any byte resumes.

The "person" answers from a seeded choice of menu numbers, codes, typos, help and
calls, made from what is on the screen only, so a resumed game gets the same
answers at the same screens. Every ruleset, people and bots mixed.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.cli import main
from game.play.driver import Table
from game.play.journal import read_journal

SCREEN_START = re.compile(r"Round \d+ · ")
NOISE = [
    "",
    "?",
    "? skip",
    "uno",
    "hti",
    "R7",
    "WAA",
    "draw",
    "color:G",
    "catch:0@1",
    "1 uno",
    "target:1",
    "pass",
    "challenge",
    "accept",
    "take",
    "give:R7",
    "99",
    "-3",
    "red",
    "press",
    "y",
    "n",
]


class Screen(io.StringIO):
    """stdout that also keeps its last few thousand characters cheaply (what is on screen)."""

    def __init__(self) -> None:
        super().__init__()
        self.recent = ""

    def write(self, text: str) -> int:
        self.recent = (self.recent + text)[-6000:]
        return super().write(text)


def person(seed: int, limit: int = 2500) -> tuple[Screen, object]:
    """A stdout buffer and an ``input`` replacement answering from the screen and ``seed``."""
    out = Screen()
    asked = [0]

    def read(prompt: str) -> str:
        key = SCREEN_START.split(out.recent)[-1]
        out.write(prompt)
        asked[0] += 1
        if asked[0] > limit:
            return "quit"
        if "Pass the terminal" in prompt:
            return ""
        rng = random.Random(zlib.crc32(f"{seed}|{prompt}|{key}".encode()))
        options = re.findall(r"^\s+(\d+)\) ", key.rsplit("Your moves", 1)[-1], re.MULTILINE)
        if options and rng.random() < 0.85:
            return rng.choice(options) + (" uno" if rng.random() < 0.5 else "")
        return rng.choice(NOISE)

    return out, read


def run(args: list[str], seed: int, monkeypatch: pytest.MonkeyPatch) -> str:
    out, read = person(seed)
    monkeypatch.setattr("builtins.input", read)
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


def final(text: str) -> str:
    found = re.search(r"Final: [^\n]*", text)
    assert found, text[-2000:]
    return found.group(0)


SEATINGS = {
    "attack": "Ann,Bob,bot:greedy",
    "attack-original": "Ann,bot:random,bot:greedy,Kim",
    "attack-mega-hit": "Ann,bot:random",
    "classic": "Ann,Bob,bot:random",
    "pocket": "Ann,bot:greedy,bot:random",
}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ruleset=st.sampled_from(sorted(SEATINGS)),
    seed=st.integers(0, 10_000),
    cut=st.floats(0.05, 0.95),
)
def test_any_typing_plays_a_round_and_a_crash_anywhere_resumes_to_the_same_end(
    ruleset: str,
    seed: int,
    cut: float,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path_factory.mktemp("game")
    whole, crashed = folder / "whole.jsonl", folder / "crashed.jsonl"
    game = [
        "play",
        "--ruleset",
        ruleset,
        "--seats",
        SEATINGS[ruleset],
        "--seed",
        str(seed),
        "--rounds",
        "1",
        "--delay",
        "0",
        "--option",
        "round_turn_limit=150",
    ]
    uninterrupted = run([*game, "--journal", str(whole)], seed, monkeypatch)
    if "Game saved" in uninterrupted:  # the person gave up (typed quit by chance): fine too
        return
    data = whole.read_bytes()
    header = data.index(b"\n") + 1
    crashed.write_bytes(data[: header + int((len(data) - header) * cut)])
    resumed = run(["play", "--resume", str(crashed), "--delay", "0"], seed, monkeypatch)
    assert final(resumed) == final(uninterrupted)
    assert read_journal(crashed).decisions == read_journal(whole).decisions

    replayed = io.StringIO()
    with contextlib.redirect_stdout(replayed):
        assert main(["replay", str(whole)]) == 0
    assert final(replayed.getvalue()).split("digest")[1] == final(uninterrupted).split("digest")[1]


def test_every_decision_kind_can_be_reached_and_is_labelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over a few games, people meet colour, drawn-card, launcher and UNO decisions."""
    seen = ""
    for seed, ruleset in [(1, "classic"), (2, "attack"), (3, "pocket"), (4, "attack-original")]:
        seen += run(
            [
                "play",
                "--ruleset",
                ruleset,
                "--seats",
                "Ann,Bob",
                "--seed",
                str(seed),
                "--rounds",
                "1",
                "--delay",
                "0",
            ],
            seed,
            monkeypatch,
        )
    for label in ("choose red", "press the launcher", "draw a card", "call UNO"):
        assert label in seen, label
    assert "Choose the colour to play next." in seen


def test_the_replay_command_reveals_hands_and_press_contents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "g.jsonl"
    run(
        [
            "play",
            "--seats",
            "Ann,bot:greedy",
            "--seed",
            "5",
            "--rounds",
            "1",
            "--delay",
            "0",
            "--journal",
            str(journal),
        ],
        5,
        monkeypatch,
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["replay", str(journal)])
    text = out.getvalue()
    assert re.search(r"^   Ann: (\w+\+?\w* ){6}\w+", text, re.MULTILINE)  # the dealt hand
    assert re.search(r"💥 .* flew out!\n     \(", text)  # what a press shot


def test_a_jammed_launcher_stops_the_game_until_the_person_clears_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`play` on the emulated launcher: the first card sticks, the table is told, play goes on."""
    out, read = person(9)

    def clear_jam_then_play(prompt: str) -> str:
        if "Cards pulled out" in prompt:
            out.write(prompt)
            return "1"
        return read(prompt)  # type: ignore[operator]

    monkeypatch.setattr("builtins.input", clear_jam_then_play)
    with contextlib.redirect_stdout(out):
        code = main(
            [
                "play",
                "--seats",
                "Ann,bot:greedy",
                "--seed",
                "9",
                "--rounds",
                "1",
                "--delay",
                "0",
                "--launcher",
                "emu://?fast=1&seed=1&faults=jam@0s",
            ]
        )
    text = out.getvalue()
    assert code == 0
    assert "⚠ The launcher stopped" in text and "Cards pulled out by hand for GreedyBot2" in text
    assert re.search(r"1 card flew out!", text.split("Cards pulled out", 1)[1])
    assert "Final: " in text


def test_a_person_who_is_not_next_is_asked_to_catch_a_missed_uno(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.StringIO()

    def at_the_table(prompt: str) -> str:
        out.write(prompt)
        return "y" if "Catch?" in prompt else "" if "Pass the terminal" in prompt else "1"

    journal = tmp_path / "g.jsonl"
    monkeypatch.setattr("builtins.input", at_the_table)
    with contextlib.redirect_stdout(out):
        main(
            [
                "play",
                "--seats",
                "Ann,bot:random,Kim",
                "--seed",
                "1",  # RandomBot2 forgets UNO with Kim not next (re-picked for issue 27's stream)
                "--rounds",
                "1",
                "--delay",
                "0",
                "--journal",
                str(journal),
            ]
        )
    played = out.getvalue()
    assert "Kim, RandomBot2 has one card and did not call UNO. Catch? [y/n] " in played
    assert re.search(r"Kim catches RandomBot2, who did not call UNO!\n.*\(uno-penalty\)", played)
    assert any(r.get("table") and r["seat"] == 2 for r in read_journal(journal).decisions)

    replayed = io.StringIO()
    with contextlib.redirect_stdout(replayed):
        main(["replay", str(journal)])
    assert "Kim catches RandomBot2" in replayed.getvalue()
    assert final(replayed.getvalue()) == final(played)


@pytest.mark.parametrize(
    "ruleset", ["attack", "attack-original", "attack-mega-hit", "classic", "pocket"]
)
def test_the_narrator_tells_every_event_of_real_games(ruleset: str) -> None:
    """A missing field raises (no KeyError is swallowed); every event of real games narrates."""
    import io

    from game.tables.terminal import Console, Narrator, PlaySeat
    from game.tables.tui import Painter, PressAnimator

    out = io.StringIO()
    painter = Painter(enabled=False)
    console = Console(out, input, painter, PressAnimator(out, painter, delay=0.0))
    narrator = Narrator(console, [PlaySeat(f"P{i}", None) for i in range(3)], reveal=True)
    options = {"target": 60, "stack_draws": True} if ruleset in ("classic", "pocket") else {}
    game = Table.new(ruleset, 3, seed=2, options=options, on_event=narrator)
    while not game.is_game_over():
        if game.is_round_over():
            game.start_next_round()
        else:
            game.play(game.legal_moves()[0])
    assert "Game over" in out.getvalue()
    with pytest.raises(KeyError):
        narrator({"type": "take", "player": 0})


PRIVATE_FIELDS = {"hit": "cards", "deal": "hands", "challenge": "hand", "give": "card"}


def _private_cards(event: dict) -> set[str]:
    raw = event.get(PRIVATE_FIELDS.get(event["type"], ""), [])
    codes = [raw] if isinstance(raw, str) else raw
    return {c for item in codes for c in ([item] if isinstance(item, str) else item)}


@pytest.mark.parametrize("ruleset", ["attack", "classic"])
def test_the_hot_seat_recap_never_names_a_card_only_its_holder_saw(ruleset: str) -> None:
    """What a press brought, a passed card, a dealt hand: never in the next person's recap."""
    from game.core.cards import Card
    from game.play.driver import Table
    from game.tables.terminal import Console, Narrator, PlaySeat
    from game.tables.tui import Painter, PressAnimator

    out = io.StringIO()
    console = Console(out, input, Painter(), PressAnimator(out, Painter()))
    words = Narrator(console, [PlaySeat(f"P{i}") for i in range(3)])
    options = {"target": 60} if ruleset == "classic" else {}
    game = Table.new(ruleset, 3, seed=2, options=options)
    while not game.is_game_over():
        if game.is_round_over():
            game.start_next_round()
        else:
            game.play(game.legal_moves()[0])
    checked = 0
    for event in game.events:
        public = {event.get("card"), event.get("starter")}
        for code in _private_cards(event) - public:
            line = words.public_line(event)
            assert code not in line.split() and Card.parse(code).title not in line, (event, line)
            checked += 1
    assert checked > 20
