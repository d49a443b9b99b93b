"""The real `uno-attack referee` program with the emulated launcher (real firmware logic on a pty).

A refereed game from the first card to the final score, with a card stuck in the
launcher in the middle of a Wild Hit-Fire (the emulator's fault plan ``jam@0s``
makes the first card fed catch in the mouth): the table is told, the card is
pulled out, the game goes on. Then ``kill -9`` and ``--resume``: the journaled
presses are not pressed again. pexpect waits on output; nothing sleeps.
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
JAMMING_EMU = "emu://?fast=1&seed=1&faults=jam@0s"

pytestmark = pytest.mark.skipif(
    not UNO_ATTACK.exists(), reason=f"console script {UNO_ATTACK} not installed"
)


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("UNO_ATTACK_LAUNCHER", None)
    child = pexpect.spawn(
        str(UNO_ATTACK),
        ["referee", *args],
        encoding="utf-8",
        timeout=30,
        env=env,
        dimensions=(100, 200),
    )
    child.delaybeforesend = None
    return child


def start(journal: Path) -> pexpect.spawn:
    child = spawn(
        "--ruleset",
        "attack-original",
        "--players",
        "Ann,Sam,Kim",
        "--launcher",
        JAMMING_EMU,
        "--option",
        "target=50",
        "--delay",
        "0",
        "--journal",
        str(journal),
    )
    child.expect(
        r"Ann deals 7 cards each, turns one card up and loads the rest \(90\) into the launcher"
    )
    child.expect("card turned up> ")
    child.sendline("red 7")
    child.expect("Sam's turn")
    return child


def jam_mid_hit_fire(child: pexpect.spawn) -> int:
    """Sam plays a Wild Hit-Fire; Kim presses until cards fly; a card sticks; 1 is pulled out."""
    child.expect("Sam> ")
    child.sendline("blue 5")  # wrong colour first
    child.expect(r"✗ blue 5 does not match the top card red 7")
    child.expect("Sam> ")
    child.sendline("wild hit-fire")
    child.expect(r"Colour chosen for the Wild Hit-Fire\? ")
    child.sendline("blu")
    child.expect(r"💥 Kim presses the launcher \(hit-fire, press 1\)")
    child.expect(r"⚠ The launcher stopped: .*\(beam_blocked\)\.")
    # issue #12: the cards counted before the jam are Kim's too, with those pulled out by hand
    child.expect(r"(\d+) card\(s\) came out before it stopped: they are Kim's\.")
    before = int(child.match.group(1))
    child.expect(r"Cards pulled out by hand for Kim \(they keep them; Enter = none\): ")
    child.sendline("one")
    child.expect(r"✗ 'one' is not a number of cards")
    child.expect(r"Cards pulled out by hand for Kim")
    child.sendline("1")
    child.expect(
        rf"💥 Kim presses the launcher \(hit-fire, press \d+\) {before + 1} cards? flew out!"
    )
    child.expect("Kim is skipped.")
    child.expect("Ann> ")
    return before


def test_a_refereed_game_from_the_first_card_to_scoring_survives_a_jam(tmp_path: Path) -> None:
    child = start(tmp_path / "night.jsonl")
    before = jam_mid_hit_fire(child)
    child.sendline("status")
    child.expect(rf"Kim\s+{8 + before} cards")  # 7 dealt + the cards counted + the one pulled out
    child.expect("Ann> ")
    child.sendline("fix Ann 2")
    child.expect("Ann> ")
    child.sendline("blue 3")  # down to one card, no UNO called
    child.expect("Sam> ")
    child.sendline("catch Ann")
    child.expect("Ann was caught without calling UNO!")
    child.expect(r"💥 Ann presses the launcher \(uno-penalty, press 2\)")
    child.expect("Sam> ")
    child.sendline("fix Sam 1")
    child.expect("Sam> ")
    child.sendline("blue hit2 uno")  # Sam goes out; Kim still presses twice
    child.expect(r"💥 Kim presses the launcher \(hit2, press 2\)")
    child.expect("Sam goes out and wins round 1!")
    child.expect(r"Points left in Ann's hand \(a number, or the cards: R7 BS W\)\? ")
    child.sendline("R7 BS")
    child.expect(r"= 27 points")
    child.expect(r"Points left in Kim's hand")
    child.sendline("40")
    child.expect(r"Scores: Ann 0, Sam 67, Kim 0")
    child.expect(r"Game over: Sam wins with 67 points\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_kill_9_after_the_jam_then_resume_does_not_press_again(tmp_path: Path) -> None:
    journal = tmp_path / "night.jsonl"
    child = start(journal)
    came_out = jam_mid_hit_fire(child) + 1
    child.kill(signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    presses = [line for line in journal.read_text().splitlines() if '"type":"press"' in line]

    resumed = spawn("--resume", str(journal), "--delay", "0")
    resumed.expect(r"Resuming .*: replaying 2 entries\.")
    resumed.expect(rf"Kim\s+{7 + came_out} cards")
    resumed.expect("Ann> ")
    before = resumed.before
    assert "presses the launcher" not in before  # the replay pressed nothing
    resumed.sendline("quit")
    resumed.expect(r"Stopped\. Continue with: uno-attack referee --resume")
    resumed.expect(pexpect.EOF)
    after = [line for line in journal.read_text().splitlines() if '"type":"press"' in line]
    assert after == presses and re.search(rf'"counted":{came_out}', presses[-1])
