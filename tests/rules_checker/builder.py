"""Hand-made game logs for the checker's own tests: a dumb bookkeeper, no rules.

A test writes the story of a game move by move; the builder only tracks where each
card is, so that the log is complete (deck, deal, hopper order, round end). Whether
the story obeys the rules is for the checker to decide.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.rules_checker.cards import deck_for, hand_points

DEFAULT_OPTIONS: dict[str, Any] = {"target": 1, "scoring": "winner", "uno_penalty": 2}


class LogBuilder:
    def __init__(
        self,
        ruleset: str,
        hands: list[list[str]],
        starter: str,
        *,
        dealer: int = 0,
        front: list[str] | None = None,
        options: dict[str, Any] | None = None,
        turned: dict[str, str] | None = None,
        returned: list[str] | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.hands = [list(h) for h in hands]
        self.options = {**DEFAULT_OPTIONS, "hand_size": len(hands[0]), **(options or {})}
        deck = deck_for(ruleset, self.options.get("wilds"))
        rest = deck - Counter(c for h in hands for c in h) - Counter([starter])
        front = list(front or [])
        rest -= Counter(front)
        self.hopper = front + sorted(rest.elements())
        self.scores = [0] * len(hands)
        players = len(hands)
        turned = turned or {str(s): ("R9" if s == dealer else "R1") for s in range(players)}
        self.events: list[dict[str, Any]] = [
            {
                "type": "game_start",
                "ruleset": ruleset,
                "players": [f"P{i}" for i in range(players)],
                "seed": 0,
                "options": self.options,
                "launcher": "<test>" if ruleset.startswith("attack") else "<DrawPile backend=pile>",
                "deck": sorted(deck.elements()),
            },
            {"type": "dealer", "seat": dealer, "turned": turned},
            {
                "type": "deal",
                "round": 1,
                "dealer": dealer,
                "hands": [list(h) for h in hands],
                "starter": starter,
                "returned": list(returned or []),
                "loaded": list(self.hopper),
            },
        ]

    def add(self, kind: str, **fields: Any) -> LogBuilder:
        self.events.append({"type": kind, **fields})
        return self

    def play(self, player: int, card: str, reason: str = "turn") -> LogBuilder:
        if card in self.hands[player]:
            self.hands[player].remove(card)
        return self.add("play", player=player, card=card, reason=reason)

    def hit(
        self, player: int, reason: str, count: int = 1, cards: list[str] | None = None
    ) -> LogBuilder:
        """One press; by default the next ``count`` cards of the hopper come out."""
        out = list(cards) if cards is not None else self.hopper[:count]
        del self.hopper[: len(out)]
        self.hands[player].extend(out)
        return self.add("hit", player=player, reason=reason, cards=out, counted=len(out))

    def presses(self, player: int, reason: str, presses: int) -> LogBuilder:
        for _ in range(presses):
            self.hit(player, reason)
        return self

    def draw(self, player: int, count: int = 1) -> LogBuilder:
        self.add("draw", player=player)
        return self.hit(player, "draw", count)

    def end_round(
        self, winner: int | None, gained: list[int] | None = None, **over: Any
    ) -> LogBuilder:
        held = [hand_points(h) for h in self.hands]
        if gained is None:
            gained = [0] * len(held)
            if winner is not None:
                gained[winner] = sum(held)
        self.scores = [s + g for s, g in zip(self.scores, gained, strict=True)]
        event = {
            "round": 1,
            "winner": winner,
            "reason": "out",
            "held": held,
            "gained": gained,
            "scores": list(self.scores),
            "hands": [list(h) for h in self.hands],
            "turns": None,
            "eliminated": [],
        }
        event.update(over)
        return self.add("round_end", **event)

    def end_game(self, winner: int, **over: Any) -> LogBuilder:
        return self.add(
            "game_end", **{"winner": winner, "scores": list(self.scores), "rounds": 1, **over}
        )
