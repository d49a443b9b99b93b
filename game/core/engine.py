"""The rules engine: a :class:`Game` you drive with :class:`~game.core.moves.Move` s.

>>> from game import Game
>>> game = Game.new("attack", players=3, seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)

The engine is a pure self machine: it holds no device, does no I/O and starts
no thread (python-chess's ``Board`` never holds an engine). Every hit is a
launcher press, and every press is a chance node (OpenSpiel's): the game stops
with :meth:`Game.is_chance_node` true, :attr:`Game.press_due` saying who presses,
how many times and why, and :meth:`Game.chance_outcomes` giving the distribution
of ``fired:N`` when the game was given its launcher's per-press odds (empty: the
sampled mode, the caller draws the outcome). The caller feeds ``fired:N``: a
:class:`~game.play.driver.Table` presses a real launcher and feeds what it counted,
a search feeds sampled counts. The draw pile is the engine's own plain data,
:attr:`Game.pile`. Card effects are :mod:`game.core.effects` blocks run through the
:class:`~game.core.effects.EffectContext` protocol, which the referee implements too.
All randomness comes from the injected chance source, so the same seed, ruleset,
players and fed counts replay the same event stream. Events go to
:attr:`Game.events` and, as each happens, to the ``on_event`` callback.

Who acts: :attr:`Game.pending` says what decision is awaited and
:attr:`Game.decider` from whom; :meth:`Game.legal_moves` lists that seat's
moves (``next-round`` once a round is over). Out-of-turn moves — calling UNO,
catching a player who did not, jumping in — are in :meth:`Game.table_moves`
(each carries the acting seat in ``by``). :meth:`Game.play` accepts both and
raises :class:`~game.core.errors.IllegalMove` naming the broken rule, changing nothing.

The round's fields are plain attributes of the game, declared by
:class:`~game.core.round.RoundState`;
what is legal is :mod:`game.core.legal`, the deal and the scoring :mod:`game.core.table`,
the decisions :mod:`game.core.turns`: plain functions over that self, typed against
the :class:`~game.core.steps.EngineSteps` protocol, so they import nothing above them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from game.core import legal, table
from game.core import turns as flow
from game.core.cards import Card, Color, by_display
from game.core.chance import Chance, fresh_seed, seeded
from game.core.effects import RUNNERS
from game.core.errors import GameError, IllegalMove, RulesetError
from game.core.eventlog import (
    Event,
    EventCallback,
    EventLog,
    decision_event,
    fields_event,
    play_event,
)
from game.core.history import History, Snapshot
from game.core.legal import ACCEPT, CHALLENGE, DRAW, PASS, TAKE, UNO, CompiledRules
from game.core.moves import (
    NEXT_ROUND,
    Decision,
    FiredMove,
    Move,
    PenalizeMove,
    PlayMove,
    UnoMove,
    fired,
)
from game.core.round import ROUND_FIELDS, PressDue, RoundState
from game.core.rulesets import Ruleset, Step, ruleset_for

_NO_KINDS: frozenset[Any] = frozenset()
# Decisions as module names: an enum member read off its class calls EnumType's attribute
# hook in CPython 3.11 (about 80 ns, a global 10; docs/performance.md).
_TURN, _PRESS = Decision.TURN, Decision.PRESS
_ROUND_OVER, _GAME_OVER = Decision.ROUND_OVER, Decision.GAME_OVER
_STACK, _CHALLENGE = Decision.STACK, Decision.CHALLENGE
_OVER = frozenset((_ROUND_OVER, _GAME_OVER))
#: Decisions whose legal moves need neither the seats in play nor the stackable kinds.
_PLAIN = frozenset((Decision.COLOR, Decision.DRAWN, Decision.PLAY_AGAIN, Decision.GIVE))


def _pile_odds(ruleset: Ruleset) -> tuple[float, ...] | None:
    """A draw pile's press: exactly one card (none once it is empty)."""
    return (0.0, 1.0) if ruleset.draws_from_pile else None


class Game(History, RoundState):
    """One game of any ruleset, from the deal to the winner. Create it with :meth:`new`.

    Drive it with :meth:`play`; the methods documented as *engine steps*
    (:meth:`play_card`, :meth:`run_effects`, :meth:`after_effects`...) are the moves'
    effects, for :mod:`game.core.turns` and :mod:`game.core.table`: they skip the legality check.
    """

    # The round's fields (RoundState) in slots: the fastest reads and writes (game.core.round).
    __slots__ = ROUND_FIELDS

    def __init__(
        self,
        ruleset: Ruleset,
        players: int | Sequence[str],
        chance: Chance,
        *,
        seed: int | None = None,
        on_event: EventCallback | None = None,
        press_odds: Sequence[float] | None = None,
        launcher: str = "chance",
    ) -> None:
        """A game dealt and resolved up to its first decision or chance node.

        ``press_odds``: the launcher's per-press distribution as plain data
        (``press_odds[k]`` = P(a press shoots k cards), e.g. an i.i.d. profile's
        probabilities); with it :meth:`chance_outcomes` is explicit; None gives a
        draw pile's odds to the pile rulesets (classic, pocket) and sampled mode to
        the others, ``()`` sampled mode to any. ``launcher``: how the ``game_start`` event names the
        device that will feed the presses (the core never sees it).
        """
        ruleset.check_players(players if isinstance(players, int) else len(players))
        self.names = (
            [f"P{i}" for i in range(players)] if isinstance(players, int) else list(players)
        )
        self.num_players = len(self.names)
        self.ruleset = ruleset
        self.launcher_name = launcher
        self.press_odds: tuple[float, ...] | None = (
            tuple(press_odds) if press_odds is not None else _pile_odds(ruleset)
        )
        self.pile_generation = 0
        self._stack_of_states: list[Snapshot] = []
        #: The moves made with :meth:`push` that :meth:`pop` can undo, oldest first.
        self.move_stack: list[Move] = []
        self.seed = seed
        #: The game's events as compact records, written as dicts when read (:attr:`events`).
        self.event_log = EventLog(on_event)
        self._chance = chance
        self.rules = CompiledRules.of(ruleset)
        self.scores = [0] * self.num_players
        #: Seats knocked out by ``scoring=elimination`` (the original sheet's challenge game).
        self.eliminated = [False] * self.num_players
        #: :attr:`seats_in_play` as a tuple kept by the engine (set again when a seat is
        #: knocked out): a plain attribute, read by the rule bot on its decisions, where the
        #: property costs a call and builds a list (docs/performance.md, session ``bots2``).
        self.in_play: tuple[int, ...] = tuple(range(self.num_players))
        self.round_number = 0
        #: Turns of the rounds before this one (:attr:`total_turns` adds this round's).
        self.turns_before = 0
        self.winner: int | None = None
        table.start_game(self)

    @classmethod
    def new(
        cls,
        ruleset: str | Ruleset = "attack",
        players: int | Sequence[str] = 4,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        press_odds: Sequence[float] | None = None,
        launcher: str = "chance",
    ) -> Game:
        """Start a game: deal the first round and resolve the first card.

        ``options`` override the ruleset's rule options. The game stops at every
        press (:meth:`is_chance_node`) for the caller to feed ``fired:N``; to play
        it with a launcher, open it with :meth:`game.play.driver.Table.new` instead.
        """
        rules = ruleset_for(ruleset, options)
        seed = fresh_seed() if seed is None else seed
        return cls(  # which checks the number of players
            rules,
            players,
            seeded(seed),
            seed=seed,
            on_event=on_event,
            press_odds=press_odds,
            launcher=launcher,
        )

    @property
    def press_due(self) -> PressDue | None:
        """The pending chance node (who presses, how many times, why), or None."""
        if self.pending is not _PRESS:
            return None
        return PressDue(self.due_seat, self.due_presses, self.due_reason, self.due_until)

    # -- chance nodes (OpenSpiel's explicit and sampled chance) ---------------------
    def is_chance_node(self) -> bool:
        """Is the game waiting for a launcher press's outcome (a ``fired:N`` move)?"""
        return self.pending is _PRESS

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """The distribution of the pending press's outcome: ``(fired:N, probability)`` pairs.

        Explicit when the game has :attr:`press_odds` (a draw pile's are P(1) = 1;
        a launcher profile's are passed in as plain data): a press shoots at most
        the cards the hopper holds, so the odds of larger counts fall on
        ``fired:len(pile)``. Empty in sampled mode (no odds given): the caller draws
        the outcome itself (from a launcher, or a model of one) and feeds it.
        Raises GameError away from a chance node.
        """
        if self.pending is not _PRESS:
            raise GameError("chance_outcomes: the game is not at a chance node")
        odds = self.press_odds
        if not odds:
            return []
        cap = len(self.pile)
        mass: dict[int, float] = {}
        for count, probability in enumerate(odds):
            if probability > 0:
                capped = min(count, cap)
                mass[capped] = mass.get(capped, 0.0) + probability
        return [(fired(count), mass[count]) for count in sorted(mass)]

    # -- self queries ------------------------------------------------------------
    @property
    def top_card(self) -> Card:
        return self.discard[-1]

    def hand(self, seat: int) -> list[Card]:
        """A copy of ``seat``'s hand, sorted for display."""
        return sorted(self.hands[seat], key=by_display)

    @property
    def hand_sizes(self) -> list[int]:
        """Cards in each seat's hand (``map``: a fifth cheaper than a comprehension)."""
        return list(map(len, self.hands))

    def hand_size(self, seat: int) -> int:
        """Cards in ``seat``'s hand: :attr:`hand_sizes` for one seat, without the list."""
        return len(self.hands[seat])

    def is_round_over(self) -> bool:
        # ``in`` a frozenset, not a tuple: a tuple compares a StrEnum member with ==, a string
        # comparison per member; a set finds it by its (cached) hash (asked before every move)
        return self.pending in _OVER

    @property
    def total_turns(self) -> int:
        """Turns begun in the whole game (a property: one count a turn, :attr:`turns`)."""
        return self.turns_before + self.turns

    def is_game_over(self) -> bool:
        return self.pending is _GAME_OVER

    @property
    def stacked(self) -> int:
        """Presses waiting on the stack (Mega Hit stacking, draw stacking, a pending challenge)."""
        return self.stack

    @property
    def uno_pending(self) -> int | None:
        """The seat that is down to one card and has not called UNO yet (it can still be caught)."""
        seat = self.uno_open
        if seat is not None and not self.uno_called and len(self.hands[seat]) == 1:
            return seat
        return None

    @property
    def drawn_card(self) -> Card | None:
        """The card a DRAWN decision is about."""
        return self.drawn

    def left_seat(self, seat: int) -> int:
        """The next seat still in play clockwise (deal order), whatever the direction of play."""
        n = self.num_players
        seat = (seat + 1) % n
        while self.eliminated[seat]:
            seat = (seat + 1) % n
        return seat

    @property
    def seats_in_play(self) -> list[int]:
        """Seats not eliminated (all of them unless ``scoring=elimination``).

        Read on every decision of a rule bot: when nobody is out (nearly always) it is
        ``range``'s list, without a comprehension (docs/performance.md, session ``bots2``).
        """
        eliminated = self.eliminated
        if True in eliminated:
            return [s for s in range(self.num_players) if not eliminated[s]]
        return list(range(self.num_players))

    @property
    def players_in(self) -> int:
        return len(self.in_play)

    @property
    def chance(self) -> Chance:
        """The game's seeded source of randomness (shuffles, the launcher's returns)."""
        return self._chance

    def __repr__(self) -> str:
        return (
            f"<Game {self.ruleset.id} round={self.round_number} pending={self.pending.value} "
            f"decider={self.decider} top={self.discard[-1] if self.discard else None} "
            f"color={self.active_color} hands={self.hand_sizes} scores={self.scores}>"
        )

    # -- legal moves ----------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The moves :attr:`decider` may make now: ``[next-round]`` once a round is over,
        empty at a chance node (:meth:`chance_outcomes`) and once the game is over."""
        moves = self.legal
        if moves is None:
            if self.pending is _TURN:  # the hot case, without compute_legal's call
                moves = self.legal = legal.turn_moves(self.rules, self)
            else:
                moves = self.legal = self.compute_legal()
        return moves.copy()  # the caller's own list; ``list(moves)`` costs twice the time (3.11)

    def compute_legal(self) -> list[Move]:
        """Engine step: the decider's legal moves, computed afresh (:meth:`legal_moves` caches)."""
        pending = self.pending
        if pending is _TURN:  # the hot case: no seats or stack kinds needed
            return legal.turn_moves(self.rules, self)
        if pending in _PLAIN:  # nor here
            return legal.legal_moves(self.rules, self, (), _NO_KINDS)
        stackable = self.ruleset.stack_kinds if self.can_stack() else _NO_KINDS
        return legal.legal_moves(self.rules, self, self.in_play, stackable)

    def table_moves(self) -> list[Move]:
        """Out-of-turn moves any seat may make now: ``uno``, ``catch:P@S``, jump-ins ``R7@S``."""
        if self.uno_open is None and not self.rules.jump_in:  # the common case, asked
            return []  # after every move of a bot table: nobody down to one card, no jump-ins
        uno_pending = self.uno_pending
        if uno_pending is None and not self.rules.jump_in:  # no list of seats either
            return []
        return legal.table_moves(self.rules, self, self.in_play, uno_pending)

    def seat_of(self, move: Move) -> int | None:
        """Which seat makes ``move`` (the decider for ordinary moves)."""
        if move.by is not None:
            return move.by
        if isinstance(move, UnoMove):
            return self.uno_open
        if isinstance(move, PenalizeMove):
            return move.seat
        return self.decider

    # -- making moves -------------------------------------------------------------
    def play(self, move: Move | str) -> None:
        """Make ``move`` (a Move or its notation); raises IllegalMove, changing nothing."""
        pending = self.pending
        if pending is _PRESS:
            # play_chance's common case (a FiredMove's count is a whole number >= 0)
            if type(move) is FiredMove and move.count <= len(self.pile):
                flow.on_fired(self, move.count)
            else:
                self.play_chance(Move.parse(move) if isinstance(move, str) else move)
            return
        offered = self.legal
        # the hot path: one of the move objects legal_moves() handed out, found by identity
        # (a move's == is Python-level dataclass code). A plain loop: `id(move) in map(id,
        # offered)` builds a map and calls id() per move, 4.7 % of a hand more (session 13)
        for made in offered or ():
            if made is move:
                break
        else:
            checked = flow.checked(self, move)
            if checked is None:  # an out-of-turn move, made
                return
            made, pending = checked, self.pending
        self.legal = None
        seat = self.decider
        if self.uno_open is not None and seat != self.uno_open:
            self.uno_open = None
        if pending is _TURN:  # a turn's move: a card from the hand, or a draw
            if type(made) is PlayMove:
                self.play_card(seat, made.card, "turn")
            else:
                flow.draw(self, seat)
        else:
            flow.HANDLERS[pending](self, made, seat)

    def play_chance(self, move: Move) -> None:
        """Engine step: feed one press's outcome (the game is at a chance node)."""
        held = len(self.pile)
        if not isinstance(move, FiredMove):
            raise IllegalMove(
                f"the game waits for a launcher press by P{self.decider} "
                f"({self.due_reason}): feed fired:N, not {move}"
            )
        count = move.count
        if type(count) is not int or not 0 <= count <= held:  # 1.5, -1, True, "2", too many
            raise IllegalMove(
                f"fired:{count!r} is not a press's outcome: a press shoots a whole number of "
                f"cards from 0 to the {held} the launcher holds"
            )
        flow.on_fired(self, count)

    # -- the turn machinery ----------------------------------------------------------
    def play_card(self, seat: int, card: Card, context: str, keep_pos: bool = False) -> None:
        """Engine step (game.turns): move ``card`` from the hand to the pile and resolve it.

        ``keep_pos`` (play again: the turn pointer stays) is passed by name, but it is not
        keyword-only: CPython 3.11 specialises no call of a function with a keyword-only
        parameter, a positional call included (about 200 instructions a call; docs/performance.md,
        helper ``trim``). :meth:`presses`' ``until`` and ``then`` likewise.
        """
        hand = self.hands[seat]
        if card in self.rules.challengeable:
            self.guilty = legal.would_be_guilty(
                self.rules, hand, card, self.discard[-1], self.active_color
            )
        hand.remove(card)
        self.discard.append(card)
        self.active_color = card.color
        log = self.event_log.add  # read, then called: faster than a method call (EventLog)
        log((play_event, seat, card, context))
        self.actor, self.card, self.context = seat, card, context
        if not keep_pos:
            self.pos = seat
        self.target = None
        if len(hand) < 2:
            self.hand_shrank(seat)
        steps = self.rules.steps_for[card]
        queue = self.queue
        if queue:  # what an earlier card's effect left to run (rarely anything) ends
            queue.clear()
        if steps:  # the queue refilled in place: a new deque costs twice the time (3.11)
            queue.extend(steps)
            self.run_effects()
        else:
            self.after_effects()

    def hand_shrank(self, seat: int) -> None:
        """Engine step: note a seat that went out or is down to one card (UNO)."""
        size = len(self.hands[seat])
        if size == 0:
            self.out = seat
        elif size == 1 and self.uno_open != seat:
            self.uno_open, self.uno_called = seat, False

    def run_effects(self) -> None:
        """Engine step: run the effect blocks left in the queue, until one asks or presses."""
        queue = self.queue
        while queue:
            step = queue.popleft()
            if RUNNERS[step.name](self, step):
                return
        self.after_effects()

    def after_effects(self) -> None:
        """Engine step: the card is resolved; end the round or begin the next turn."""
        self.first_phase = False
        if self.out is not None:
            table.end_round(self, self.out)
            return
        seat = (self.pos + self.direction) % self.num_players  # next_seat, inlined
        if self.eliminated[seat] or self.turns >= self.rules.turn_cap:
            self.begin_turn(self.next_seat(self.pos))
            return
        self.current = self.decider = seat  # begin_turn, inlined: the path of every turn
        self.pending = _TURN
        self.legal = None
        self.turns += 1

    def begin_turn(self, seat: int) -> None:
        """Engine step: ``seat``'s turn begins (or the round ends at ``round_turn_limit``)."""
        if self.turns >= self.rules.turn_cap:  # round_turn_limit turns were played: no more
            table.end_round(self, None)
            return
        self.current = self.decider = seat
        self.pending = _TURN
        self.legal = None
        self.turns += 1

    # -- the table between turns (game.core.table) ------------------------------------------
    def start_next_round(self) -> None:
        """After a round ends: the move ``next-round`` (collect, pass the deal left, deal)."""
        if self.pending is not Decision.ROUND_OVER:
            raise GameError(
                "the next round can start only when a round is over and the game is not"
                if self.pending is not Decision.GAME_OVER
                else "the game is over"
            )
        self.play(NEXT_ROUND)

    def deal_next_round(self) -> None:
        """Engine step (the ``next-round`` move): collect every card and deal again."""
        cards = table.collect(self, len(self.ruleset.deck))
        table.deal(self, cards, self.left_seat(self.dealer))

    def set_position(
        self,
        hands: Sequence[Sequence[Card]],
        top: Card,
        *,
        color: Color | None = None,
        current: int = 0,
        direction: int = 1,
        bottom: Sequence[Card] = (),
    ) -> None:
        """Set up a position (tests, puzzles, a referee fixing the table) from the game's cards.

        ``hands`` and ``top`` must come out of the deck; ``bottom`` are the next
        cards the launcher will yield, in order; every other card is loaded
        after them in deck order. ``current`` is to play. Emits a ``deal`` event
        (with ``position: true``), so logs still account for every card.
        """
        table.set_position(self, hands, top, color, direction, bottom)
        self.begin_turn(current)

    # -- the effect context (game.core.effects.EffectContext), with full information ---------
    @property
    def options(self) -> Mapping[str, Any]:
        return self.ruleset.options

    def next_seat(self, seat: int) -> int:
        """The next seat in play in the direction of play."""
        n, d = self.num_players, self.direction
        seat = (seat + d) % n
        while self.eliminated[seat]:
            seat = (seat + d) % n
        return seat

    def actor_out(self) -> bool:
        return self.out is not None and self.out == self.actor

    def can_stack(self) -> bool:
        card = self.card
        return (
            self.rules.stacking
            and not self.first_phase
            and self.out is None
            and card is not None
            and card.kind in self.ruleset.stack_kinds
        )

    def may_stack(self, seat: int) -> bool:
        """Offer a stack only to a seat holding a stack card."""
        kinds = self.ruleset.stack_kinds
        return any(c.kind in kinds for c in self.hands[seat])

    def may_play_again(self, seat: int) -> bool:
        return bool(legal.playable_cards(self.rules, self, seat))

    def ask(self, decision: Decision, seat: int) -> bool:
        """Stop for ``seat``'s decision; the log says which moves were offered."""
        self.pending, self.decider = decision, seat
        if decision in _PLAIN:  # a colour, a drawn card...: compute_legal's case, without its call
            moves = legal.legal_moves(self.rules, self, (), _NO_KINDS)
        else:
            moves = self.compute_legal()
        self.legal = moves
        log = self.event_log.add  # read, then called: faster than a method call (EventLog)
        log((decision_event, seat, decision, tuple(moves)))  # notation when read
        return True

    def presses(
        self, seat: int, presses: int, reason: str, until: str = "count", then: str = "run"
    ) -> bool:
        """Stop for ``presses`` presses by ``seat``; False when there are none to wait for.

        ``then`` says how to carry on once they are done: ``run`` the rest of the
        card's effect, finish a ``draw``, or ``resume`` the decision an out-of-turn
        penalty interrupted. A player's draw sets the same fields itself
        (:func:`game.core.turns.draw`: docs/performance.md, helper ``effects``).
        """
        if presses <= 0:
            return False
        if then == "resume":
            self.resume_to = (self.pending, self.decider)
        self.due_seat, self.due_presses = seat, presses
        self.due_reason, self.due_until, self.then = reason, until, then
        if not self.pile:
            flow.maybe_reload(self)
        self.pending, self.decider = _PRESS, seat
        self.legal = None
        return True

    def emit(self, kind: str, fields: Mapping[str, Any]) -> None:
        """Log an event of type ``kind`` with ``fields``, in their order, after ``type``.

        The steps of every turn (a play, a draw, a press, a decision, a colour) add their records to
        :attr:`event_log` themselves (game.core.eventlog); this is the form for the rest. The
        fields come as a dict, never keywords (:meth:`EffectContext.emit` says why).
        """
        log = self.event_log.add  # read, then called: faster than a method call (EventLog)
        log((fields_event, kind, fields))

    # -- the event log (game.core.eventlog): compact records, dicts when read ------------------
    @property
    def events(self) -> list[Event]:
        """Every event so far, oldest first, as the dicts game.play.events documents.

        Logged compactly as the game runs and written on the first read after: read it
        again after more moves for their events (the same list, grown).
        """
        return self.event_log.events

    @events.setter
    def events(self, events: list[Event]) -> None:
        """Start the log afresh from ``events`` (a sampled world's history, a search's snapshot)."""
        self.event_log = EventLog(self.event_log.on_event, events)

    @property
    def on_event(self) -> EventCallback | None:
        """Called with each event's dict as it happens (None: nobody listens as it runs)."""
        return self.event_log.on_event

    @on_event.setter
    def on_event(self, callback: EventCallback | None) -> None:
        self.event_log.on_event = callback

    def stack_on(self, victim: int, total: int, reason: str, *, skips: bool) -> bool:
        self.stack, self.stack_reason, self.stack_skips = total, reason, skips
        return self.ask(_STACK, victim)

    def challenge(self, victim: int, step: Step, can_challenge: bool) -> bool:
        numbers = step.numbers
        n = numbers.get("n", 4)
        self.stack += n
        self.stack_reason, self.stack_skips = step.text.get("reason") or f"draw{n}", True
        self.challenge_presses = (
            (numbers.get("guilty", n), numbers.get("innocent", n + 2)) if can_challenge else None
        )
        return self.ask(_CHALLENGE if can_challenge else _STACK, victim)

    def discard_color(self) -> None:
        """Discard All: the actor's cards of its colour go under it on the pile."""
        flow.discard_color(self)

    def trade(self, seat: int, other: int) -> None:
        hands = self.hands
        hands[seat], hands[other] = hands[other], hands[seat]
        self.uno_open = None

    def rotate(self) -> None:
        """7-0's zero: every hand in play moves one seat in the direction of play."""
        flow.rotate(self)


__all__ = ["ACCEPT", "CHALLENGE", "DRAW", "PASS", "TAKE", "UNO"]
__all__ += ["Color", "Decision", "Event", "EventCallback", "Game", "IllegalMove", "Move"]
__all__ += ["RulesetError"]
