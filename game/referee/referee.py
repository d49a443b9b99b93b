"""The referee for a game played with real cards: turn order, hand sizes, launcher presses, scores.

The people hold real cards; the referee never sees a hand. It knows what the
table tells it (:class:`Entry`: a card played, a press by choice, an UNO call,
a catch, the points left at the end of a round) and what the launcher reports
(``Volley.counted`` per press), and from that it keeps the turn, the direction,
the top card and active colour, every hand's size and the scores. It fires the
launcher for the right player the right number of times, checks what it can
(the card must match the top card or the active colour, and exist in the
ruleset's deck) and refuses the rest with a reason (:class:`IllegalEntry`).

Every change goes through :meth:`Referee.apply`, one entry at a time, so a
journal of entries (``game.play.journal``) rebuilds the same state. The physical
deck is data from the engine's rulesets (``game.core.rulesets``), never re-declared.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.core.cards import Card, Color, Kind
from game.core.effects import RUNNERS
from game.core.errors import RulesetError
from game.core.moves import Decision
from game.core.referee_entries import ALLOWED, PHASE_REASONS, Entry, IllegalEntry, Op, Phase, Press
from game.core.rulesets import Ruleset, Step
from game.play.driver import Presser
from launcher.base import Launcher

__all__ = [
    "Entry",
    "IllegalEntry",
    "Op",
    "Phase",
    "Press",
    "Referee",
    "RefereeState",
    "check_refereeable",
]

PLACEHOLDER = "?"  # what the hopper model holds: the referee never knows launcher card identities


@dataclass
class RefereeState:
    """Everything the referee knows; rebuilt exactly by re-applying the journaled entries."""

    players: list[str]
    hands: list[int]
    scores: list[int]
    phase: Phase = Phase.START
    round_number: int = 1
    dealer: int = 0
    current: int = 1  #: who the referee waits for
    direction: int = 1  #: 1 = left (clockwise), -1 = right
    top: Card | None = None
    color: Color | None = None
    discards: int = 0  #: cards on the discard pile (the reload source)
    exposed: int | None = None  #: a player on one card who has not called UNO (catchable)
    stack: int = 0  #: presses waiting on a Mega Hit stack
    round_winner: int | None = None
    winner: int | None = None
    presses: list[Press] = field(default_factory=list)


Announce = Callable[[str], None]
OnPress = Callable[
    [str, int, str, int], None
]  #: (player name, cards counted, reason, press number)


def check_refereeable(ruleset: Ruleset) -> None:
    """The referee drives a launcher: rulesets that draw from a pile are played with `play`."""
    if ruleset.draws_from_pile:
        raise RulesetError(
            f"ruleset {ruleset.id} draws from a pile, not the launcher: "
            "the referee has nothing to fire",
            hint="referee an Attack ruleset (attack, attack-original, attack-mega-hit), "
            "or use `uno-attack play`",
        )
    for name in ("seven_zero", "jump_in"):
        if ruleset.options[name]:
            raise RulesetError(
                f"option {name} is not supported by the referee yet; play it with `uno-attack play`"
            )
    if ruleset.options["scoring"] == "elimination":
        raise RulesetError(
            "option scoring=elimination is not supported by the referee: it does not knock "
            "players out of the game yet",
            hint="referee with scoring=winner or scoring=lowest, or play it with `uno-attack play`",
        )
    for kind, steps in ruleset.effects.items():
        hidden = {"challenge", "pass_card"} & {step.name for step in steps}
        if hidden and any(card.kind is kind for card in ruleset.deck):
            raise RulesetError(
                f"the referee cannot run the {kind.title}'s {', '.join(sorted(hidden))}: "
                "it needs the cards in a hand, and the referee only knows how many there are",
                hint="play it with `uno-attack play`",
            )


class Referee:
    """The state machine (see the module docstring); ``announce``/``on_press`` go to the table."""

    def __init__(
        self,
        ruleset: Ruleset,
        players: Sequence[str],
        launcher: Launcher[Any] | Presser,
        *,
        announce: Announce | None = None,
        on_press: OnPress | None = None,
    ) -> None:
        check_refereeable(ruleset)
        ruleset.check_players(len(players))
        self.ruleset = ruleset
        #: Presses the launcher (or feeds journaled counts): the engine's own driver.
        self.presser = launcher if isinstance(launcher, Presser) else Presser(launcher)
        #: Cards in the launcher by the referee's count (it never knows their identities).
        self.pile_count = 0
        self._pile_generation = 0
        self.state = RefereeState(list(players), [0] * len(players), [0] * len(players))
        self.announce: Announce = announce or (lambda text: None)
        self.on_press: OnPress = on_press or (lambda name, counted, reason, number: None)
        #: Who is pressing right now and why (the table's jam handler reads it).
        self.pressing: tuple[int, str] | None = None
        self.queue: deque[Step] = deque()
        self.pos = 0
        self.actor = 0
        self.card: Card | None = None
        self._entry = Entry(Op.START)
        self.first_phase = False
        self.context = "turn"  #: how the card resolving was played (turn, play-again, stack)
        self._deal()

    # -- queries ------------------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return self.state.players

    @property
    def phase(self) -> Phase:
        return self.state.phase

    def name(self, seat: int) -> str:
        return self.state.players[seat]

    def next_seat(self, seat: int) -> int:
        return (seat + self.state.direction) % len(self.state.players)

    def matches(self, card: Card) -> bool:
        """Colour, number or symbol of the top card, the active colour, or a wild."""
        top, color = self.state.top, self.state.color
        if card.is_wild or top is None or card.color is color:
            return True
        return card.kind is top.kind and card.number == top.number

    def needs_color(self, card: Card) -> bool:
        return card.is_wild

    def needs_target(self, card: Card) -> bool:
        return any(step.name == "target" for step in self.ruleset.effects.get(card.kind, ()))

    def discards_color(self, card: Card) -> bool:
        return any(step.name == "discard_color" for step in self.ruleset.effects.get(card.kind, ()))

    def hand_points(self, cards: Sequence[Card]) -> int:
        """Points of a hand typed card by card (``R7 BS W``), from the ruleset's point table."""
        return self.ruleset.hand_points(cards)

    # -- the one way in -----------------------------------------------------------------
    def apply(self, entry: Entry) -> None:
        """Apply one entry or raise :class:`IllegalEntry` with the reason, changing nothing."""
        if entry.op is Op.PLAY and self.state.phase is Phase.START:
            entry = Entry(Op.START, card=entry.card, color=entry.color)
        if entry.op not in ALLOWED[self.state.phase]:
            raise IllegalEntry(f"not now: {PHASE_REASONS[self.state.phase]}")
        _HANDLERS[entry.op](self, entry)

    # -- dealing and the first card -----------------------------------------------------
    def _deal(self) -> None:
        state, rules = self.state, self.ruleset
        state.hands = [rules.hand_size] * len(state.players)
        state.discards, state.direction, state.phase = 0, 1, Phase.START
        state.top = state.color = None
        self._load(len(rules.deck) - rules.hand_size * len(state.players) - 1)
        self.announce(
            f"Round {state.round_number}: {self.name(state.dealer)} deals "
            f"{rules.hand_size} cards each, "
            f"turns one card up and loads the rest ({self.pile_count}) into the launcher. "
            "Enter the card turned up."
        )

    def _start(self, entry: Entry) -> None:
        card = self._known_card(entry)
        steps = self.ruleset.first_card.get(card.kind, ())
        if steps and steps[0].name == "return":
            raise IllegalEntry(
                f"a {card.title} cannot start the discard pile: put it back and turn another card"
            )
        first = (self.state.dealer + 1) % len(self.state.players)
        if card.is_wild and entry.color is None:
            raise IllegalEntry(
                f"the first card is a {card.title}: {self.name(first)} chooses a colour "
                f"(e.g. '{card.code} red')"
            )
        state = self.state
        state.top, state.color, state.discards = card, entry.color or card.color, 1
        state.phase = Phase.PLAYING
        self.actor = self.pos = state.dealer
        self.card, self._entry, self.first_phase = card, entry, True
        self.queue = deque(steps)
        self._run()

    # -- playing ------------------------------------------------------------------------
    def _play(self, entry: Entry) -> None:
        card, seat, state = self._known_card(entry), self.state.current, self.state
        self._check_playable(card, entry, seat)
        self._close_uno_window(seat)
        again = state.phase is Phase.PLAY_AGAIN
        self.context = "play-again" if again else "stack" if state.phase is Phase.STACK else "turn"
        if state.phase is not Phase.STACK:
            state.stack = 0
        extra = entry.count or 0
        state.hands[seat] -= 1 + extra
        state.discards += 1 + extra
        state.top, state.color, state.phase = card, entry.color or card.color, Phase.PLAYING
        self.actor, self.card, self._entry, self.first_phase = seat, card, entry, False
        if not again:
            self.pos = seat
        self._after_play_uno(seat, entry)
        self.queue = deque(self.ruleset.effects.get(card.kind, ()))
        self._run()

    def _check_playable(self, card: Card, entry: Entry, seat: int) -> None:
        state, who = self.state, self.name(seat)
        if state.phase is Phase.STACK:
            if card.kind not in self.ruleset.stack_kinds:
                kinds = ", ".join(sorted(k.title for k in self.ruleset.stack_kinds))
                raise IllegalEntry(
                    f"only a {kinds} can be stacked; otherwise 'press' to take {state.stack} hits"
                )
        elif not self.matches(card):
            raise IllegalEntry(self._mismatch(card))
        if self.needs_color(card) and entry.color is None:
            raise IllegalEntry(
                f"{who} must choose a colour for the {card.title} (e.g. '{card.code} red')"
            )
        if state.hands[seat] < 1 + (entry.count or 0):
            raise IllegalEntry(
                f"{who} holds {state.hands[seat]} card(s) by the referee's count; "
                "if that is wrong, correct it with 'fix NAME N'"
            )
        if self.needs_target(card):
            self._check_target(card, entry, seat)
        if card.kind is Kind.TRADE_HANDS and state.hands[seat] == 1:
            raise IllegalEntry(f"{who} cannot go out on a Trade Hands: play another card or press")

    def _mismatch(self, card: Card) -> str:
        state = self.state
        top = state.top
        active = state.color.name.lower() if state.color else "any"
        same = "number" if top is not None and top.kind is Kind.NUMBER else "symbol"
        return (
            f"{card.title} does not match the top card {top.title if top else '-'}: "
            "it needs the active "
            f"colour {active}, the same {same}, or a wild. Otherwise 'press' the launcher"
        )

    def _check_target(self, card: Card, entry: Entry, seat: int) -> None:
        if entry.seat is None:
            raise IllegalEntry(f"the {card.title} needs a player to aim at: add '> NAME'")
        if not 0 <= entry.seat < len(self.state.players):
            raise IllegalEntry(f"there is no seat {entry.seat}")
        if entry.seat == seat:
            raise IllegalEntry(f"the {card.title} aims at another player, not at {self.name(seat)}")

    def _after_play_uno(self, seat: int, entry: Entry) -> None:
        if self.state.hands[seat] != 1:
            return
        self.state.exposed = None if entry.uno else seat
        if entry.uno:
            self.announce(f"{self.name(seat)} calls UNO!")

    def _press_by_choice(self, entry: Entry) -> None:
        state, seat = self.state, self.state.current
        self._close_uno_window(seat)
        if state.phase is Phase.STACK:
            total, state.stack = state.stack, 0
            self.announce(f"{self.name(seat)} takes the stack: {total} presses.")
            state.phase = Phase.PLAYING
            self._fire(seat, total, "stack")
            self._run()
            return
        self._fire(seat, 1, "by choice")
        self.pos = seat
        self._after_effects()

    def _done(self, entry: Entry) -> None:
        self.state.phase = Phase.PLAYING
        self._run()

    # -- the effect interpreter: game.core.effects' blocks, the engine's own ------------------
    def _run(self) -> None:
        while self.queue:
            step = self.queue.popleft()
            if RUNNERS[step.name](self, step):
                return
        self._after_effects()

    def _after_effects(self) -> None:
        state = self.state
        state.phase = Phase.PLAYING
        self.first_phase = False
        if state.hands[self.actor] == 0 and state.top is not None:
            self._end_round(self.actor)
            return
        state.current = self.next_seat(self.pos)
        self.announce(f"{self.name(state.current)}'s turn.")

    # -- the effect context (game.core.effects.EffectContext), with hand counts only ---------
    @property
    def options(self) -> Mapping[str, Any]:
        return self.ruleset.options

    @property
    def players_in(self) -> int:
        return len(self.state.players)

    @property
    def direction(self) -> int:
        return self.state.direction

    @direction.setter
    def direction(self, value: int) -> None:
        self.state.direction = value

    @property
    def stack(self) -> int:
        return self.state.stack

    @stack.setter
    def stack(self, value: int) -> None:
        self.state.stack = value

    @property
    def target(self) -> int | None:
        """The table's entry names the target (``> NAME``)."""
        return self._entry.seat

    def left_seat(self, seat: int) -> int:
        return (seat + 1) % len(self.state.players)

    def actor_out(self) -> bool:
        return self.state.hands[self.actor] == 0 and not self.first_phase

    def can_stack(self) -> bool:
        card = self.card
        return (
            self.ruleset.stacking
            and not self.first_phase
            and not self.actor_out()
            and card is not None
            and card.kind in self.ruleset.stack_kinds
        )

    def may_stack(self, seat: int) -> bool:
        return True  # the referee cannot see hands: it asks, and 'press' takes the stack

    def may_play_again(self, seat: int) -> bool:
        return True  # the player knows; 'done' declines

    def ask(self, decision: Decision, seat: int) -> bool:
        if decision in (Decision.COLOR, Decision.TARGET):
            return False  # the table's entry already carries the colour and the target
        if decision is Decision.PLAY_AGAIN:
            self.state.phase, self.state.current = Phase.PLAY_AGAIN, seat
            self.announce(f"{self.name(seat)} may play one more card, or type 'done'.")
            return True
        raise IllegalEntry(f"the referee cannot ask for a {decision.value} decision")

    def presses(self, seat: int, presses: int, reason: str, *, until: str = "count") -> bool:
        """The referee presses at once (the table watches the launcher)."""
        for number in range(1, presses + 1):
            if self._press_once(seat, reason, number) and until == "fire":
                return False
        if until == "fire":
            self.announce(
                f"The launcher did not fire in {presses} presses (option hit_fire_cap): "
                "the hit ends."
            )
        return False

    def emit(self, kind: str, fields: Mapping[str, Any]) -> None:
        if kind == "skip":
            who = self.name(fields["player"])
            self.announce(f"{who} {'are' if who == 'You' else 'is'} skipped.")
        elif kind == "reverse":
            self.announce(
                "Reverse first: the dealer plays first and play goes right."
                if self.first_phase
                else "Play changes direction."
            )
        elif kind == "trade":
            self.announce(
                f"{self.name(fields['player'])} and {self.name(fields['target'])} trade hands."
            )

    def stack_on(self, victim: int, total: int, reason: str, *, skips: bool) -> bool:
        state = self.state
        state.stack, state.phase, state.current = total, Phase.STACK, victim
        self.announce(
            f"{self.name(victim)}: stack a hit card on it, or 'press' to take {total} hits."
        )
        return True

    def discard_color(self) -> None:
        """The entry said how many more cards went with the Discard All (``_play`` counted them)."""

    def trade(self, seat: int, other: int) -> None:
        hands = self.state.hands
        hands[seat], hands[other] = hands[other], hands[seat]
        self.state.exposed = None

    def rotate(self) -> None:
        hands, count, direction = self.state.hands, len(self.state.hands), self.state.direction
        old = list(hands)
        for seat in range(count):
            hands[(seat + direction) % count] = old[seat]

    def challenge(self, victim: int, step: Step, can_challenge: bool) -> bool:
        raise IllegalEntry("the referee cannot run a challenge (a draw-pile card)")

    # -- UNO ----------------------------------------------------------------------------
    def _close_uno_window(self, seat: int) -> None:
        """A new decision by another player: one who did not call UNO can no longer be caught."""
        if self.state.exposed is not None and self.state.exposed != seat:
            self.state.exposed = None

    def _uno(self, entry: Entry) -> None:
        if entry.seat is None and self.state.exposed is not None:
            entry = Entry(Op.UNO, seat=self.state.exposed)
        seat = self._seat(entry)
        if self.state.hands[seat] != 1:
            raise IllegalEntry(
                f"{self.name(seat)} holds {self.state.hands[seat]} cards: UNO is called on one card"
            )
        if self.state.exposed == seat:
            self.state.exposed = None
        self.announce(f"{self.name(seat)} calls UNO!")

    def _catch(self, entry: Entry) -> None:
        seat = self._seat(entry)
        if self.state.exposed != seat:
            held = self.state.hands[seat]
            reason = (
                f"{self.name(seat)} holds {held} cards"
                if held != 1
                else f"{self.name(seat)} called UNO in time, or the next player has begun"
            )
            raise IllegalEntry(f"cannot catch {self.name(seat)}: {reason}")
        self.state.exposed = None
        self.announce(f"{self.name(seat)} was caught without calling UNO!")
        self._fire(seat, self.ruleset.options["uno_penalty"], "uno-penalty")

    # -- corrections --------------------------------------------------------------------
    def _manual_hit(self, entry: Entry) -> None:
        seat, times = self._seat(entry), entry.count or 1
        cap = self.ruleset.options["hit_fire_cap"]
        if not 1 <= times <= cap:
            raise IllegalEntry(f"{times} presses: between 1 and {cap}")
        self._fire(seat, times, "table's call")

    def _fix(self, entry: Entry) -> None:
        seat = self._seat(entry)
        if entry.count is None or entry.count < 0:
            raise IllegalEntry("'fix NAME N' needs the number of cards NAME really holds")
        self.announce(
            f"{self.name(seat)}'s hand corrected from {self.state.hands[seat]} "
            f"to {entry.count} cards."
        )
        self.state.hands[seat] = entry.count

    # -- the launcher -------------------------------------------------------------------
    def _fire(self, seat: int, times: int, reason: str) -> None:
        for number in range(1, times + 1):
            self._press_once(seat, reason, number)

    def _press_once(self, seat: int, reason: str, number: int) -> int:
        self._reload_if_empty()
        self.pressing = (seat, reason)
        try:
            counted = self.presser.next_count(self._sync)
        finally:
            self.pressing = None
        self.pile_count -= min(counted, self.pile_count)
        state = self.state
        state.hands[seat] += counted
        if counted and state.exposed == seat:
            state.exposed = None
        state.presses.append(Press(seat, counted, reason))
        self.on_press(self.name(seat), counted, reason, number)
        return counted

    def _reload_if_empty(self) -> None:
        state = self.state
        if (
            self.pile_count
            or state.discards <= 1
            or self.ruleset.options["empty_launcher"] != "reload"
        ):
            return
        reload, state.discards = state.discards - 1, 1
        self._load(reload)
        self.announce(
            f"The launcher is empty: take the discard pile except the top card ({reload} cards), "
            "shuffle it and load it into the launcher."
        )

    def _load(self, count: int) -> None:
        self.pile_count = count
        self._pile_generation += 1

    def _sync(self) -> None:
        self.presser.sync_count(self.pile_count, PLACEHOLDER, self._pile_generation)

    @property
    def launcher(self) -> Launcher[Any]:
        return self.presser.launcher

    # -- round end and scoring ----------------------------------------------------------
    def _end_round(self, seat: int) -> None:
        state = self.state
        state.round_winner, state.phase, state.exposed = seat, Phase.SCORING, None
        self.announce(
            f"{self.name(seat)} goes out and wins round {state.round_number}! "
            "Enter the points left in each hand."
        )

    def _score(self, entry: Entry) -> None:
        state, winner = self.state, self.state.round_winner
        points = list(entry.points)
        if len(points) != len(state.players) or any(p < 0 for p in points):
            raise IllegalEntry(f"the score needs {len(state.players)} numbers >= 0, one per player")
        if winner is not None and points[winner] != 0:
            raise IllegalEntry(f"{self.name(winner)} went out: their points are 0")
        if self.ruleset.options["scoring"] == "lowest":
            state.scores = [score + got for score, got in zip(state.scores, points, strict=True)]
        elif winner is not None:
            state.scores[winner] += sum(points)
        self.announce(
            "Scores: "
            + ", ".join(f"{n} {s}" for n, s in zip(state.players, state.scores, strict=True))
        )
        if max(state.scores) >= self.ruleset.target:
            self._end_game()
            return
        state.round_number += 1
        state.dealer = (state.dealer + 1) % len(state.players)
        state.round_winner = None
        self._deal()

    def _end_game(self) -> None:
        state = self.state
        best = (
            min(state.scores) if self.ruleset.options["scoring"] == "lowest" else max(state.scores)
        )
        state.winner = state.scores.index(best)
        state.phase = Phase.GAME_OVER
        self.announce(f"Game over: {self.name(state.winner)} wins with {best} points.")

    # -- helpers ------------------------------------------------------------------------
    def _known_card(self, entry: Entry) -> Card:
        if entry.card is None:
            raise IllegalEntry(
                "which card? e.g. 'blue 7', 'red hit2', 'wild attack-attack red > Sam'"
            )
        if entry.card not in self.ruleset.deck:
            raise IllegalEntry(f"the {self.ruleset.id} deck has no {entry.card.title}")
        return entry.card

    def _seat(self, entry: Entry) -> int:
        if entry.seat is None or not 0 <= entry.seat < len(self.state.players):
            raise IllegalEntry("name a player at the table")
        return entry.seat


_HANDLERS: dict[Op, Callable[[Referee, Entry], None]] = {
    Op.START: Referee._start,
    Op.PLAY: Referee._play,
    Op.PRESS: Referee._press_by_choice,
    Op.DONE: Referee._done,
    Op.UNO: Referee._uno,
    Op.CATCH: Referee._catch,
    Op.HIT: Referee._manual_hit,
    Op.FIX: Referee._fix,
    Op.SCORE: Referee._score,
}
