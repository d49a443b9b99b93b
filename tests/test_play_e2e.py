"""The real `uno-attack play` in a real terminal (pexpect): the view, mistakes, UNO, crashes.

Every wait is pexpect waiting for output (with a timeout); nothing sleeps. Seeds are fixed.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest

UNO_ATTACK = Path(sys.executable).with_name("uno-attack")
PROMPT = r"Ann> "
MENU_LINE = re.compile(r"^\s+(\d+)\) (.*)$", re.MULTILINE)
SEATS = "Ann,bot:greedy,bot:random"

pytestmark = pytest.mark.skipif(
    not UNO_ATTACK.exists(), reason=f"console script {UNO_ATTACK} not installed"
)


def spawn(*args: str, colour: bool = False) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    if not colour:
        env["NO_COLOR"] = "1"
    env.pop("UNO_ATTACK_LAUNCHER", None)
    child = pexpect.spawn(
        str(UNO_ATTACK), list(args), encoding="utf-8", timeout=30, env=env, dimensions=(100, 200)
    )
    child.delaybeforesend = None
    return child


def menu(screen: str) -> dict[int, str]:
    """The numbered moves on the last screen shown."""
    block = screen.rsplit("Your moves", 1)[-1]
    return {int(number): label.strip() for number, label in MENU_LINE.findall(block)}


def answer(screen: str, *, catch: bool = False) -> str:
    """A fixed policy that depends only on what is on screen, so a resumed game answers alike."""
    options = menu(screen)
    if catch:
        for number, label in options.items():
            if label.startswith("catch "):
                return str(number)
    if "Two cards left" in screen:
        return "1 uno"
    return "1"


CATCH_PROMPT = r"Ann, \w+ has one card and did not call UNO\. Catch\? \[y/n\] "


def play_to_end(
    child: pexpect.spawn, *, catch: bool = False, limit: int = 400
) -> tuple[str, list[str]]:
    """Answer every prompt with :func:`answer` until the final line; (transcript, answers)."""
    transcript: list[str] = []
    answers: list[str] = []
    for _ in range(limit):
        index = child.expect([PROMPT, CATCH_PROMPT, r"Final: [^\r\n]*"])
        transcript.append(child.before + child.after)
        if index == 2:
            return "".join(transcript), answers
        reply = answer(child.before, catch=catch) if index == 0 else ("y" if catch else "n")
        answers.append(reply)
        child.sendline(reply)
    raise AssertionError("the game did not end within the prompt limit")


def test_a_full_round_against_bots_shows_what_a_player_needs(tmp_path: Path) -> None:
    child = spawn(
        "play", "--seats", SEATS, "--seed", "3", "--rounds", "1", "--delay", "0", colour=True
    )
    transcript, answers = play_to_end(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", transcript)
    assert "\x1b[1;" in transcript  # colours on a terminal
    assert "▶ Ann" in plain and "GreedyBot2" in plain and "RandomBot3" in plain
    assert re.search(r"GreedyBot2\s+\d+ cards?\s+score", plain)  # opponents' counts
    assert "Top card:" in plain and "active colour:" in plain and "play goes" in plain
    assert "Ann's hand (" in plain and "press the launcher" in plain
    assert re.search(r"💥 \w+ presses the launcher \(\w+", plain)  # presses shown as they happen
    assert re.search(r"wins round 1\. Points this round", plain)
    assert "Final: " in plain and len(answers) > 3


def test_a_typo_and_an_illegal_card_are_answered_with_reasons_and_the_same_prompt() -> None:
    child = spawn("play", "--seats", SEATS, "--seed", "3", "--rounds", "1", "--delay", "0")
    child.expect(PROMPT)
    screen = child.before
    hand = re.search(r"Ann's hand \(\d+\): ([^\r\n]*)", screen)
    assert hand is not None
    playable = {
        re.search(r"\((\w+\+?\w*)\)$", label).group(1)  # type: ignore[union-attr]
        for label in menu(screen).values()
        if label.endswith(")")
    }
    stuck = next(code for code in hand.group(1).split() if code not in playable)

    child.sendline("prss the launchr")
    child.expect(
        r"✗ 'prss the launchr' is not a move you can choose here\. "
        r"Did you mean 'press the launcher'\?"
    )
    child.expect(PROMPT)
    child.sendline(stuck)
    child.expect(
        rf"✗ Ann cannot play {re.escape(stuck)}: it matches neither the colour \w+ nor the"
    )
    child.expect(PROMPT)
    child.sendline("42")
    child.expect(r"✗ 42 is out of range: choose a number from 1 to \d+")
    child.expect(PROMPT)
    child.sendline("? hit2")
    child.expect("presses the launcher twice")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Game abandoned")
    child.expect(pexpect.EOF)


def test_a_missed_uno_is_caught_and_costs_two_presses() -> None:
    child = spawn(
        "play", "--seats", "Ann,bot:random", "--seed", "6", "--rounds", "1", "--delay", "0"
    )
    transcript, _ = play_to_end(child, catch=True)
    caught = re.search(
        r"Ann catches RandomBot2, who did not call UNO!\s+"
        r"💥 RandomBot2 presses the launcher \(uno-penalty\)[^\r\n]*\s+"
        r"💥 RandomBot2 presses the launcher \(uno-penalty\)",
        transcript,
    )
    assert caught, "the catch (and its two penalty presses) did not happen"
    assert "catch RandomBot2 (did not call UNO)" in transcript


def test_kill_9_mid_game_then_resume_reaches_the_same_end_as_an_uninterrupted_game(
    tmp_path: Path,
) -> None:
    game = ("play", "--seats", SEATS, "--seed", "11", "--rounds", "1", "--delay", "0")
    uninterrupted = spawn(*game)
    whole, answers = play_to_end(uninterrupted)
    final = re.search(r"Final: [^\r\n]*", whole).group(0)  # type: ignore[union-attr]
    assert len(answers) >= 6, "the game is too short to be interrupted in the middle"

    journal = tmp_path / "game.jsonl"
    crashed = spawn(*game, "--journal", str(journal))
    for reply in answers[: len(answers) // 2]:
        crashed.expect([PROMPT, CATCH_PROMPT])
        crashed.sendline(reply)
    crashed.expect([PROMPT, CATCH_PROMPT])
    crashed.kill(signal.SIGKILL)
    crashed.expect(pexpect.EOF)
    crashed.close()
    assert crashed.signalstatus == signal.SIGKILL
    with journal.open("ab") as handle:  # the crash also tore the line being written
        handle.write(b'{"moves":["R')

    resumed = spawn("play", "--resume", str(journal), "--delay", "0")
    resumed.expect(r"Resuming .*: replaying \d+ moves \(a cut-off last line was dropped\)")
    rest, _ = play_to_end(resumed)
    assert re.search(r"Final: [^\r\n]*", rest).group(0) == final  # type: ignore[union-attr]


def test_hot_seat_hides_the_last_hand_until_the_next_person_sits_down() -> None:
    child = spawn(
        "play", "--seats", "Ann,Bob,bot:random", "--seed", "5", "--rounds", "1", "--delay", "0"
    )
    for _ in range(20):
        index = child.expect(
            [
                r"Ann> ",
                r"Pass the terminal to Ann\. Ann, press Enter when you are ready: ",
                r"Pass the terminal to Bob\. Bob, press Enter when you are ready: ",
                HIDE_PROMPT,
            ]
        )
        if index == 2:
            break
        child.sendline("1" if index == 0 else "")
    else:
        pytest.fail("Bob was never asked to take the seat")
    child.sendline("")
    child.expect(r"Bob> ")
    bob_screen = child.before
    assert "Bob's hand" in bob_screen and "Ann's hand" not in bob_screen
    child.sendline("quit")
    child.expect(pexpect.EOF)


HIDE_PROMPT = r"\w+, press Enter to hide your hand \(the terminal goes to \w+\): "
PRESS_LINE = re.compile(
    r"💥 Ann presses the launcher \(draw\) (?:(\d+) cards? flew out!|nothing came out\.)"
    r"(?: Yours: ([A-Z0-9 ]+))?\r?\n"
)
CLEARED = "=" * 60  # what the screen clear is without a terminal's colours (NO_COLOR)


def ann_presses_at_the_hot_seat(child: pexpect.spawn) -> str:
    """Ann plays "1" until the launcher is offered, then types ``press``; the text after it."""
    for _ in range(40):
        index = child.expect([r"Ann> ", r"press Enter when you are ready: ", HIDE_PROMPT])
        if index == 0 and "press the launcher" in "".join(menu(child.before).values()):
            child.sendline("press")
            child.expect(HIDE_PROMPT)
            return child.before
        child.sendline("1" if index == 0 else "")
    raise AssertionError("Ann was never offered the launcher")


def test_hot_seat_keeps_your_press_on_screen_and_recaps_it_for_the_next_person(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "night.jsonl"
    child = spawn(
        "play", "--seats", "Ann,Bob,bot:random", "--seed", "5", "--delay", "0",
        "--journal", str(journal),
    )  # fmt: skip
    after_press = ann_presses_at_the_hot_seat(child)
    # Ann's own result (how many, and which cards are hers) stays until she presses Enter
    press = PRESS_LINE.search(after_press)
    assert press, after_press
    assert CLEARED not in after_press[press.start() :]
    counted = int(press.group(1) or 0)
    mine = (press.group(2) or "").split()
    assert len(mine) == counted
    child.sendline("")
    child.expect(r"Pass the terminal to Bob\. Bob, press Enter when you are ready: ")
    handover = child.before.rsplit(CLEARED, 1)[-1]
    # the cleared screen: the journal line again, then Bob's recap (public facts only)
    assert f"Journal: {journal}" in handover
    assert "Bob, since the start:" in handover
    got = f"{counted} card{'s' * (counted != 1)}" if counted else "nothing"
    assert f"· Ann presses the launcher (draw): {got}." in handover
    assert "· RandomBot3 is skipped." in handover  # a skip is part of the story
    assert "Yours:" not in handover and "Ann's hand" not in handover
    child.sendline("")
    child.expect(r"Bob> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_the_next_recap_starts_at_your_own_last_turn() -> None:
    child = spawn("play", "--seats", "Ann,Bob", "--seed", "5", "--delay", "0")
    recaps: list[str] = []
    for _ in range(40):
        index = child.expect([r"(?:Ann|Bob)> ", r"press Enter when you are ready: ", HIDE_PROMPT])
        if index == 1:
            recaps.append(child.before.rsplit(CLEARED, 1)[-1])
        if index == 0 and len(recaps) >= 4:
            break
        child.sendline("1" if index == 0 else "")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    heads = [re.search(r"(\w+), since (the start|your last turn):", r) for r in recaps]
    seen: set[str] = set()
    for head, recap in zip(heads, recaps, strict=True):
        assert head, recap
        name, since = head.groups()
        # a person's first recap starts at the deal; every later one at their own last turn
        assert since == ("your last turn" if name in seen else "the start"), recap
        assert ("deals first" in recap) == (name not in seen), recap
        seen.add(name)
    assert seen == {"Ann", "Bob"}


def test_a_game_without_a_journal_says_at_the_start_that_it_is_not_saved() -> None:
    child = spawn("play", "--seats", SEATS, "--seed", "3", "--delay", "0")
    child.expect(PROMPT)
    assert "Not saved: this game has no --journal FILE" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_bad_options_are_errors_not_tracebacks() -> None:
    child = spawn("play", "--seats", "Ann,bot:smart")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "uno-attack: error: --seats: unknown bot 'smart'" in child.before
    assert "Traceback" not in child.before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "Ann"], "1 seat"),
        (["--ruleset", "chess"], "unknown ruleset 'chess'"),
        (["--option", "hit_fire_cap=lots"], "hit_fire_cap"),
        (["--resume", "missing.jsonl"], "cannot read journal"),
        (["--resume", "x.jsonl", "--seed", "3"], "--seed cannot be changed"),
    ],
)
def test_bad_input_in_process(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from game.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.jsonl").write_text(
        '{"type":"header","version":1,"mode":"play","ruleset":"attack","seed":1,'
        '"seats":[{"name":"A","bot":null},{"name":"B","bot":"greedy"}],"launcher":"sim://"}\n'
    )
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-attack: error:") and message in err
