"""The Wild Customizable (rules.md 2.4): replay the table's own action, block by block.

The steps come from the log (``game_start.custom``, newer logs) or from the TOML file
named by the ``custom`` option. Block names and arguments are the documented ones
(docs/rules.md "Building blocks"); what each block does is read from rules.md's card
of the same effect (Skip, Reverse, Hit, Wild Hit-Fire, Wild All Hit, Trade Hands...).
A custom card is a wild: a colour is chosen first when no block chooses one.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tests.rules_checker.cards import Violation
from tests.rules_checker.common import CommonEffects
from tests.rules_checker.replay import Chain, Played

Step = tuple[str, dict[str, str]]
PRESS_BLOCKS = ("hit", "everyone_hits", "hit_until_fire", "target", "choose_color")


def parse_step(text: str) -> Step:
    name, *args = text.split()
    pairs = dict(arg.split("=", 1) for arg in args)
    return name, pairs


def table_step(entry: dict[str, Any]) -> Step:
    name = str(entry["block"])
    return name, {k: str(v) for k, v in entry.items() if k != "block"}


def load_steps(start: dict[str, Any], options: dict[str, Any]) -> list[Step] | None:
    """The custom action, or None for the default action (a plain Wild)."""
    if start.get("custom"):
        return [parse_step(step) for step in start["custom"]]
    text = start.get("custom_file")
    path = options.get("custom") or ""
    if text is None and path:
        if not Path(path).exists():
            raise Violation(f"custom card file {path} is not in the log and not on disk")
        text = Path(path).read_text(encoding="utf-8")
    if not text:
        return None
    data = tomllib.loads(text)
    if "effects" in data:
        return [parse_step(step) for step in data["effects"]]
    return [table_step(entry) for entry in data.get("effect", [])]


class CustomEffects(CommonEffects):
    """Runs the Wild Customizable's blocks (only the UNO Attack deck has the card)."""

    def __init__(self, events: list[dict[str, Any]], start: dict[str, Any]) -> None:
        super().__init__(events, start)
        self.custom_steps = load_steps(start, self.options)

    def custom_card(self, played: Played, chain: Chain) -> None:
        steps = self.custom_steps or []
        seat = played.seat
        if not any(name == "choose_color" for name, _ in steps):
            self.maybe_color(seat)
        target: int | None = None
        for name, args in steps:
            if self.is_out(seat) and name not in PRESS_BLOCKS:
                # the round is over: only presses still happen (2.3); a log may still
                # record the skip or reverse of the card
                self.maybe(name if name in ("skip", "reverse") else "<none>")
                continue
            if name == "target":
                target = self.choose_target(seat)
            else:
                self.custom_block(name, args, played, chain, target)

    def custom_block(
        self, name: str, args: dict[str, str], played: Played, chain: Chain, target: int | None
    ) -> None:
        seat, count = played.seat, int(args.get("n", "1"))
        reasons = {args["reason"]} if "reason" in args else None
        if name == "choose_color":
            self.maybe_color(seat)
        elif name == "skip":
            self.skip(chain, self.next_victim(chain))
        elif name == "reverse":
            self.reverse(chain)
        elif name == "play_again":
            self.custom_play_again = True
        elif name == "hit":
            who = args.get("who", "next")
            if who == "self" and self.is_out(seat):
                return  # rules.md "Round end": effects on the player who went out are skipped
            victim = {"self": seat, "target": target}.get(who, None)
            victim = self.next_victim(chain) if victim is None else victim
            self.presses(victim, count, reasons)
        elif name == "draw":
            self.presses(seat, count, reasons)
        elif name == "everyone_hits":
            for other in self.clockwise(seat):
                self.presses(other, count, reasons)
        elif name == "hit_until_fire":
            self.fire_until(self.next_victim(chain), reasons)
        else:
            self.custom_card_moves(name, seat, chain, target)

    def custom_card_moves(self, name: str, seat: int, chain: Chain, target: int | None) -> None:
        if name == "discard_color":
            self.discard_color(seat, self.table.active_color)
        elif name == "trade_hands" and target is not None:
            self.swap_hands(seat, target)
        elif name == "pass_card":
            self.give(seat, self.next_victim(chain))
        elif name == "rotate_hands":
            self.rotate_hands()
        else:
            raise Violation(f"custom block {name!r} is not checked (README)")
