"""The rules engine: a :class:`Game` you drive with :class:`~game.moves.Move` s.

>>> from game import Game
>>> game = Game.new("attack", players=3, seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)

Every hit is a launcher press, and every press is a chance move: the engine
never touches a device. It stops with ``pending`` = ``Decision.PRESS`` and
:attr:`Game.press_due`; the game's :class:`~game.driver.Presser` (or the caller,
for ``Game.new(..., presses=False)``) presses and feeds ``fired:N`` back. The
draw pile is the engine's own :attr:`Game.pile`; in ``classic`` and ``pocket``
the device is a :class:`~launcher.base.DrawPile` — one code path. Card effects
are :mod:`game.effects` blocks run through the :class:`~game.effects.EffectContext`
protocol, which the referee implements too. All randomness comes from the
injected chance source, so the same seed, ruleset, players and launcher spec
replay the same event stream. The engine does no I/O: events go to
:attr:`Game.events` and, as each happens, to the ``on_event`` callback.

Who acts: :attr:`Game.pending` says what decision is awaited and
:attr:`Game.decider` from whom; :meth:`Game.legal_moves` lists that seat's
moves. Out-of-turn moves — calling UNO, catching a player who did not, jumping
in — are in :meth:`Game.table_moves` (each carries the acting seat in ``by``).
:meth:`Game.play` accepts both and raises :class:`~game.errors.IllegalMove`
naming the broken rule, changing nothing.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from game.cards import COLORS, Card, Color, Kind, all_cards, sort_key
from game.chance import Chance, fresh_seed, seeded
from game.driver import Presser, open_game_launcher
from game.effects import RUNNERS, skipped_step
from game.errors import IllegalMove, RulesetError
from game.explain import explain, explain_table
from game.moves import (
    AcceptMove,
    AimMove,
    CatchMove,
    ChallengeMove,
    ChooseMove,
    Decision,
    DrawMove,
    FiredMove,
    GiveMove,
    Move,
    MoveKind,
    PassMove,
    PenalizeMove,
    PlayMove,
    TakeMove,
    UnoMove,
)
from game.observe import Observation, Outcome, redact
from game.rulesets import Ruleset, Step, load_ruleset
from game.table import PressDue, TableMixin
from launcher.base import Launcher

Event = dict[str, Any]
EventCallback = Callable[[Event], None]

DRAW = DrawMove()
PASS = PassMove()
TAKE = TakeMove()
CHALLENGE = ChallengeMove()
ACCEPT = AcceptMove()
UNO = UnoMove()
_PLAY: dict[Card, Move] = {}
_TABLE_KINDS = frozenset((MoveKind.UNO, MoveKind.CATCH, MoveKind.PENALIZE))
_DONE = (Decision.ROUND_OVER, Decision.GAME_OVER)
_COLOR_MOVES = [Move.choose(c) for c in COLORS]
_SEVEN_ZERO = {7: (Step("target"), Step("trade_hands")), 0: (Step("rotate_hands"),)}


_PLAY.update((card, Move.play(card)) for card in all_cards())


def _play_move(card: Card) -> Move:
    return _PLAY[card]


class Game(TableMixin):
    """One game of any ruleset, from the deal to the winner. Create it with :meth:`new`."""

    def __init__(
        self,
        ruleset: Ruleset,
        players: int | Sequence[str],
        launcher: Launcher[Any] | Presser | None,
        chance: Chance,
        *,
        seed: int | None = None,
        on_event: EventCallback | None = None,
        owns_launcher: bool = False,
    ) -> None:
        self.names = (
            [f"P{i}" for i in range(players)] if isinstance(players, int) else list(players)
        )
        self.num_players = len(self.names)
        ruleset.check_players(self.num_players)
        self.ruleset = ruleset
        #: The driver that presses the launcher at every chance node (None: the caller feeds
        #: ``fired:N`` moves itself, e.g. a search or a referee replaying counts).
        self.presser: Presser | None = (
            launcher
            if isinstance(launcher, Presser) or launcher is None
            else Presser(launcher, owns_launcher=owns_launcher)
        )
        self.pile_generation = 0
        self._stack_of_states: list[dict[str, Any]] = []
        self.context = "turn"
        self._drawn_cards = self._draw_empties = 0
        self._last_volley: tuple[Card, ...] = ()
        self._due_seat_drawn = 0
        self.seed = seed
        self.on_event = on_event
        self.events: list[Event] = []
        self._chance = chance
        self._owns_launcher = owns_launcher
        self._compile_rules(ruleset)
        self.scores = [0] * self.num_players
        #: Seats knocked out by ``scoring=elimination`` (the original sheet's challenge game).
        self.eliminated = [False] * self.num_players
        self.round_number = 0
        self.total_turns = 0
        self.winner: int | None = None
        self._reset_round_state()
        self._start_game()
        self._settle()

    def _compile_rules(self, ruleset: Ruleset) -> None:
        """Read the options the hot paths need once, and each card's effect steps."""
        self._challenge_steps = {
            kind: next((s for s in steps if s.name == "challenge"), None)
            for kind, steps in ruleset.effects.items()
        }
        options = ruleset.options
        self._bluff = bool(options["wild_draw_bluff"])
        self._jump_in = bool(options["jump_in"])
        self._seven_zero = bool(options["seven_zero"])
        self._turn_limit = int(options["round_turn_limit"])
        self._reloads = options["empty_launcher"] == "reload"
        # draw_until_playable: the cap counts cards; presses that bring nothing do not count,
        # but at most hit_fire_cap of them more, so an empty launcher never loops for ever
        until_cap = int(options["draw_until_cap"]) + int(options["hit_fire_cap"])
        self._draw_presses = until_cap if options["draw_until_playable"] else 1
        self._play_after_draw = ruleset.play_after_draw
        self._steps_for = {card: self._card_steps(card) for card in all_cards()}
        self._challengeable = {c for c in all_cards() if self._challenge_steps.get(c.kind)}

    @classmethod
    def new(
        cls,
        ruleset: str | Ruleset = "attack",
        players: int | Sequence[str] = 4,
        *,
        launcher: Launcher[Any] | str | None = None,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        on_event: EventCallback | None = None,
        presses: bool = True,
    ) -> Game:
        """Start a game: deal the first round and resolve the first card.

        ``launcher``: a launcher object (used as is, never closed by the game),
        a spec such as ``"sim://?profile=web-game"``, ``"pile://"``, or None for
        the ruleset's default. ``options`` override the ruleset's rule options.
        ``presses=False``: no launcher at all; the game stops at every press
        (``pending`` is ``Decision.PRESS``) and the caller feeds ``fired:N``.
        """
        rules = load_ruleset(ruleset, options) if isinstance(ruleset, str) else ruleset
        if options and not isinstance(ruleset, str):
            rules = load_ruleset(ruleset.id, {**ruleset.options, **options})
        seed = fresh_seed() if seed is None else seed
        count = players if isinstance(players, int) else len(players)
        rules.check_players(count)
        if not presses:
            return cls(rules, players, None, seeded(seed), seed=seed, on_event=on_event)
        device, owned = open_game_launcher(rules, launcher, seed)
        try:
            return cls(
                rules,
                players,
                device,
                seeded(seed),
                seed=seed,
                on_event=on_event,
                owns_launcher=owned,
            )
        except BaseException:
            if owned:
                device.close()
            raise

    def close(self) -> None:
        """Close the launcher if the game opened it."""
        if self.presser is not None:
            self.presser.close()

    @property
    def launcher(self) -> Launcher[Any] | None:
        """The launcher the game's :attr:`presser` presses (None for a chance-move game)."""
        return self.presser.launcher if self.presser is not None else None

    def _launcher_text(self) -> str:
        return repr(self.launcher) if self.presser is not None else "chance"

    def _settle(self) -> None:
        """Let the attached driver make any pending presses (a jam leaves them pending)."""
        if self.presser is not None and self.pending is Decision.PRESS:
            self.presser.settle(self)

    def start_next_round(self) -> None:
        """After a round ends: collect every card, pass the deal to the left, deal again."""
        super().start_next_round()
        self._settle()

    @property
    def press_due(self) -> PressDue | None:
        """The pending chance node (who presses, how many times, why), or None."""
        return self._due if self.pending is Decision.PRESS else None

    def __enter__(self) -> Game:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- state queries ------------------------------------------------------------
    @property
    def top_card(self) -> Card:
        return self.discard[-1]

    def hand(self, seat: int) -> list[Card]:
        """A copy of ``seat``'s hand, sorted for display."""
        return sorted(self.hands[seat], key=sort_key)

    @property
    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self.hands]

    def is_round_over(self) -> bool:
        return self.pending in _DONE

    def is_game_over(self) -> bool:
        return self.pending is Decision.GAME_OVER

    @property
    def stacked(self) -> int:
        """Presses waiting on the stack (Mega Hit stacking, draw stacking, a pending challenge)."""
        return self.stack

    @property
    def uno_pending(self) -> int | None:
        """The seat that is down to one card and has not called UNO yet (it can still be caught)."""
        if (
            self._uno_open is not None
            and not self._uno_called
            and len(self.hands[self._uno_open]) == 1
        ):
            return self._uno_open
        return None

    @property
    def drawn_card(self) -> Card | None:
        """The card a DRAWN decision is about."""
        return self._drawn

    # -- python-chess-style API: copy, push/pop, outcome, observation ------------------
    def copy(self) -> Game:
        """An independent copy of the game with no launcher and no event callback.

        Its chance stream continues like this game's; its presses are chance
        nodes the caller feeds (``fired:N``), so a search never touches a device.
        """
        new = object.__new__(Game)
        new.__dict__.update(self._state())
        new.presser = None
        new.on_event = None
        new._owns_launcher = False
        return new

    def push(self, move: Move | str) -> None:
        """Make ``move`` and remember the state before it, so :meth:`pop` can undo it."""
        snapshot = self._state()
        self.play(move)
        self._stack_of_states.append(snapshot)

    def pop(self) -> None:
        """Undo the last :meth:`push` (the events it caused are dropped too)."""
        if not self._stack_of_states:
            raise IndexError("pop from a game with no pushed moves")
        snapshot = self._stack_of_states.pop()
        keep = self._stack_of_states
        self.__dict__.update(snapshot)
        self._stack_of_states = keep

    def _state(self) -> dict[str, Any]:
        """A snapshot of every mutable part of the game (shallow where values are immutable)."""
        state = dict(self.__dict__)
        state["hands"] = [list(hand) for hand in self.hands]
        state["discard"] = list(self.discard)
        state["pile"] = deque(self.pile)
        state["queue"] = deque(self.queue)
        state["events"] = list(self.events)
        state["scores"] = list(self.scores)
        state["eliminated"] = list(self.eliminated)
        state["_stack_of_states"] = list(self._stack_of_states)
        state["_due"] = None if self._due is None else dataclasses.replace(self._due)
        state["_chance"] = copy.deepcopy(self._chance)
        return state

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is on."""
        if self.winner is None:
            return None
        termination = (
            "elimination" if self.ruleset.options["scoring"] == "elimination" else "target"
        )
        return Outcome(self.winner, tuple(self.scores), self.round_number, termination)

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see now (its hand, the sizes of the others, the public history)."""
        mine = seat == self.decider and self.pending is not Decision.PRESS
        return Observation(
            seat=seat,
            hand=tuple(c.code for c in self.hand(seat)),
            hand_sizes=tuple(self.hand_sizes),
            top_card=self.discard[-1].code,
            active_color=self.active_color.value if self.active_color else None,
            direction=self.direction,
            pending=self.pending.value,
            decider=self.decider,
            legal_moves=tuple(str(m) for m in self.legal_moves()) if mine else (),
            scores=tuple(self.scores),
            pile_size=len(self.pile),
            history=tuple(redact(e, seat) for e in self.events),
        )

    def __repr__(self) -> str:
        return (
            f"<Game {self.ruleset.id} round={self.round_number} pending={self.pending.value} "
            f"decider={self.decider} top={self.discard[-1] if self.discard else None} "
            f"color={self.active_color} hands={self.hand_sizes} scores={self.scores}>"
        )

    # -- legal moves ----------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The moves :attr:`decider` may make now (empty when the round or game is over)."""
        moves = self._legal
        if moves is None:
            moves = self._legal = self._compute_legal()
        return list(moves)

    def _compute_legal(self) -> list[Move]:
        pending, seat = self.pending, self.decider
        if pending is Decision.TURN:
            moves = [_PLAY[c] for c in self._playable_cards(seat)]
            moves.append(DRAW)
            return moves
        if pending is Decision.COLOR:
            return list(_COLOR_MOVES)
        if pending is Decision.TARGET:
            return [Move.aim(s) for s in self.seats_in_play if s != seat]
        if pending is Decision.DRAWN:
            return [_play_move(self._drawn), PASS] if self._drawn is not None else [PASS]
        if pending is Decision.PLAY_AGAIN:
            return [_play_move(c) for c in self._playable_cards(seat)] + [PASS]
        if pending is Decision.GIVE:
            return [Move.give(c) for c in dict.fromkeys(self.hands[seat])]
        if pending is Decision.STACK:
            return self._stack_moves(seat) + [TAKE]
        if pending is Decision.CHALLENGE:
            return [CHALLENGE, ACCEPT] + self._stack_moves(seat)
        return []  # PRESS: a chance node, any ``fired:N`` (N >= 0) is an outcome

    def _stack_moves(self, seat: int) -> list[Move]:
        if not self.can_stack():
            return []
        kinds = self.ruleset.stack_kinds
        return [_play_move(c) for c in dict.fromkeys(self.hands[seat]) if c.kind in kinds]

    def _playable_cards(self, seat: int) -> list[Card]:
        """Distinct cards ``seat`` may play now, in hand order (the hot loop of the engine)."""
        hand = self.hands[seat]
        top, color = self.discard[-1], self.active_color
        kind, number = top.kind, top.number
        seen: dict[Card, None] = {}
        for card in hand:
            if (
                card.color is None
                or card.color is color
                or (card.kind is kind and card.number == number)
            ):
                seen[card] = None
        if len(hand) == 1 and hand[0].kind is Kind.TRADE_HANDS:
            seen.pop(hand[0], None)
        if not self._bluff:
            for card in list(seen):
                if self._challenge_steps.get(card.kind) and self._would_be_guilty(seat, card):
                    del seen[card]
        return list(seen)

    def table_moves(self) -> list[Move]:
        """Out-of-turn moves any seat may make now: ``uno``, ``catch:P@S``, jump-ins ``R7@S``."""
        moves: list[Move] = []
        if self.pending is Decision.PRESS or self.pending in _DONE:
            return moves
        open_seat = self.uno_pending
        if open_seat is not None:
            moves.append(UNO)
            moves += [Move.catch(open_seat, s) for s in self.seats_in_play if s != open_seat]
        if self._jump_in and self.pending is Decision.TURN:
            top = self.discard[-1]
            if top.color is not None:
                moves += [
                    Move.play(top, by=s)
                    for s in self.seats_in_play
                    if s != self.decider and top in self.hands[s]
                ]
        return moves

    def seat_of(self, move: Move) -> int | None:
        """Which seat makes ``move`` (the decider for ordinary moves)."""
        if move.by is not None:
            return move.by
        if isinstance(move, UnoMove):
            return self._uno_open
        if isinstance(move, PenalizeMove):
            return move.seat
        return self.decider

    # -- making moves -------------------------------------------------------------
    def play(self, move: Move | str) -> None:
        """Make ``move`` (a Move or its notation); raises IllegalMove, changing nothing."""
        if isinstance(move, str):
            move = Move.parse(move)
        if self.pending is Decision.PRESS:
            self._play_chance(move)
            return
        if move.by is not None or move.kind in _TABLE_KINDS:
            self._play_table(move)
            self._settle()
            return
        legal = self._legal if self._legal is not None else self.legal_moves()
        for candidate in legal:
            if candidate is move:
                break
        else:
            if move not in legal:
                raise IllegalMove(explain(self, move))
        self._legal = None
        seat = self.decider
        if self._uno_open is not None and seat != self._uno_open:
            self._uno_open = None
        _HANDLERS[self.pending](self, move, seat)
        if self.pending is Decision.PRESS and self.presser is not None:
            self.presser.settle(self)

    def _play_chance(self, move: Move) -> None:
        """Feed one press's outcome (the game is at a chance node)."""
        if not isinstance(move, FiredMove) or move.count < 0:
            raise IllegalMove(
                f"the game waits for a launcher press by P{self.decider} "
                f"({self._due.reason if self._due else ''}): feed fired:N, not {move}"
            )
        self._legal = None
        self._on_fired(move.count)

    def _on_turn(self, move: Move, seat: int) -> None:
        if isinstance(move, PlayMove):
            self._play_card(seat, move.card, "turn")
        else:
            self._draw(seat)

    def _on_color(self, move: Move, seat: int) -> None:
        assert isinstance(move, ChooseMove)  # the only legal kind (checked by play)
        self.active_color = move.color
        self._emit("color", player=seat, color=move.color.value)
        self._run()

    def _on_target(self, move: Move, seat: int) -> None:
        assert isinstance(move, AimMove)  # the only legal kind (checked by play)
        self.target = move.target
        self._emit("target", player=seat, target=move.target)
        self._run()

    def _on_drawn(self, move: Move, seat: int) -> None:
        self._drawn = None
        if isinstance(move, PlayMove):
            self._play_card(seat, move.card, "drawn")
        else:
            self._emit("pass", player=seat)
            self.pos = seat
            self._after_effects()

    def _on_play_again(self, move: Move, seat: int) -> None:
        if isinstance(move, PlayMove):
            self._play_card(seat, move.card, "play-again", keep_pos=True)
        else:
            self._emit("pass", player=seat)
            self._run()

    def _on_give(self, move: Move, seat: int) -> None:
        assert isinstance(move, GiveMove)  # the only legal kind (checked by play)
        receiver = self._next(self.pos)
        card = move.card
        self.hands[seat].remove(card)
        self.hands[receiver].append(card)
        self._emit("give", player=seat, to=receiver, card=card.code)
        self._hand_shrank(seat)
        self._run()

    def _on_stack(self, move: Move, seat: int) -> None:
        if isinstance(move, PlayMove):
            self._challenge = None
            self._play_card(seat, move.card, "stack")
            return
        total, self.stack = self.stack, 0
        self._emit("take", player=seat, presses=total)
        if self._stack_skips:
            self.pos = seat
            self.queue.appendleft(skipped_step(seat, "take"))
        self._challenge = None
        if not self._presses(seat, total, self._stack_reason):
            self._run()

    def _on_challenge(self, move: Move, seat: int) -> None:
        if isinstance(move, PlayMove):
            self._on_stack(move, seat)
            return
        guilty_n, innocent_n = self._challenge or (0, 0)
        self._challenge = None
        total, self.stack = self.stack, 0
        if isinstance(move, AcceptMove):
            self._emit("accept", player=seat)
            self.pos = seat
            self.queue.appendleft(skipped_step(seat, "accept"))
            waiting = self._presses(seat, total, self._stack_reason)
        else:
            waiting = self._resolve_challenge(seat, guilty_n, innocent_n)
        if not waiting:
            self._run()

    def _resolve_challenge(self, seat: int, guilty_n: int, innocent_n: int) -> bool:
        accused = self.actor
        self._emit(
            "challenge",
            player=seat,
            accused=accused,
            guilty=self._guilty,
            hand=[c.code for c in self.hands[accused]],
        )
        if self._guilty:
            return self._presses(accused, guilty_n, "challenge")
        self.pos = seat
        self.queue.appendleft(skipped_step(seat, "challenge"))
        return self._presses(seat, innocent_n, "challenge")

    # -- table (out-of-turn) moves ------------------------------------------------
    def _play_table(self, move: Move) -> None:
        if isinstance(move, PenalizeMove):
            self._penalize(move)
            return
        if move not in self.table_moves():
            raise IllegalMove(explain_table(move))
        self._legal = None
        if isinstance(move, CatchMove):
            self._uno_open = None
            self._emit("uno", player=move.seat, by=move.by, caught=True)
            penalty = int(self.ruleset.options["uno_penalty"])
            self._presses(move.seat, penalty, "uno-penalty", then="resume")
        elif isinstance(move, PlayMove) and move.by is not None:  # a jump-in
            self._uno_open = None if self._uno_open != move.by else self._uno_open
            self.current = move.by
            self._play_card(move.by, move.card, "jump-in")
        else:  # uno: the only other table move
            self._uno_called = True
            self._emit("uno", player=self._uno_open, by=self._uno_open, caught=False)

    def _penalize(self, move: PenalizeMove) -> None:
        presses = self.ruleset.options["suggestion_penalty"]
        seat = move.seat
        if not presses or self.is_round_over() or self.pending is Decision.PRESS:
            raise IllegalMove(
                "the suggestion penalty is off (option suggestion_penalty) or the round is over"
            )
        if not 0 <= seat < self.num_players:
            raise IllegalMove(f"there is no seat {seat}")
        self._legal = None
        self._presses(seat, presses, "suggestion-penalty", then="resume")

    # -- the turn machinery ----------------------------------------------------------
    def _play_card(self, seat: int, card: Card, context: str, *, keep_pos: bool = False) -> None:
        hand = self.hands[seat]
        if card in self._challengeable:
            self._guilty = self._would_be_guilty(seat, card)
        hand.remove(card)
        self.discard.append(card)
        self.active_color = card.color
        self._emit("play", player=seat, card=card.code, reason=context)
        self.actor, self.card, self.context = seat, card, context
        if not keep_pos:
            self.pos = seat
        self.target = None
        self._hand_shrank(seat)
        steps = self._steps_for[card]
        if steps:
            self.queue = deque(steps)
            self._run()
        else:
            self.queue.clear()
            self._after_effects()

    def _card_steps(self, card: Card) -> tuple[Step, ...]:
        """The effect of ``card`` under this game's rules (7-0 adds to the 7 and the 0)."""
        steps = tuple(self.ruleset.effects.get(card.kind, ()))
        if card.kind is Kind.NUMBER and self._seven_zero and card.number in _SEVEN_ZERO:
            steps += _SEVEN_ZERO[card.number]
        return steps

    def _would_be_guilty(self, seat: int, card: Card) -> bool:
        """Was playing this challengeable wild against the rules (rules.md 3.2, 4.2)?"""
        step = self._challenge_steps[card.kind]
        assert step is not None
        others = list(self.hands[seat])
        others.remove(card)
        if step.get("test", "color") == "color":
            return any(c.color is self.active_color and c.color is not None for c in others)
        top, color = self.discard[-1], self.active_color
        return any(
            c is not card
            and (
                c.color is None
                or c.color is color
                or (c.kind is top.kind and c.number == top.number)
            )
            for c in others
        )

    def _hand_shrank(self, seat: int) -> None:
        size = len(self.hands[seat])
        if size == 0:
            self._out = seat
        elif size == 1 and self._uno_open != seat:
            self._uno_open, self._uno_called = seat, False

    def _draw(self, seat: int) -> None:
        self._emit("draw", player=seat)
        self._last_volley = ()
        self._due_seat_drawn = seat
        self._drawn_cards = self._draw_empties = 0
        until = "playable" if self._draw_presses > 1 else "count"
        self._presses(seat, self._draw_presses, "draw", until=until, then="draw")

    def _after_draw(self, seat: int) -> None:
        """Offer the first playable card of the last volley (classic, pocket: rules.md 3.2, 4.2)."""
        playable = [c for c in self._last_volley if self._fits(c)]
        if self._play_after_draw and playable:
            self._drawn = playable[0]
            self._ask(Decision.DRAWN, seat)
            return
        self.pos = seat
        self._after_effects()

    def _fits(self, card: Card) -> bool:
        """May the decider play ``card`` (just drawn) now?"""
        top, color = self.discard[-1], self.active_color
        if card.color is None:
            return card in self._playable_cards(self.decider)  # the bluff rule may forbid it
        return card.color is color or (card.kind is top.kind and card.number == top.number)

    def _run(self) -> None:
        queue = self.queue
        while queue:
            step = queue.popleft()
            if RUNNERS[step.name](self, step):
                return
        self._after_effects()

    def _after_effects(self) -> None:
        self.first_phase = False
        if self._out is not None:
            self._end_round(self._out)
            return
        self._begin_turn(self._next(self.pos))

    def _begin_turn(self, seat: int) -> None:
        limit = self._turn_limit
        if limit and self.turns >= limit:  # round_turn_limit turns were played: no more
            self._end_round(None)
            return
        self.current = self.decider = seat
        self.pending = Decision.TURN
        self._legal = None
        self.turns += 1
        self.total_turns += 1

    def _ask(self, decision: Decision, seat: int) -> bool:
        """Stop for ``seat``'s decision; the log says which moves were offered."""
        self.pending, self.decider = decision, seat
        self._legal = moves = self._compute_legal()
        self._emit("decision", player=seat, decision=decision.value, moves=[str(m) for m in moves])
        return True

    # -- the effect context (game.effects.EffectContext), with full information ---------
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

    _next = next_seat

    def actor_out(self) -> bool:
        return self._out is not None and self._out == self.actor

    def can_stack(self) -> bool:
        card = self.card
        return (
            self.ruleset.stacking
            and not self.first_phase
            and self._out is None
            and card is not None
            and card.kind in self.ruleset.stack_kinds
        )

    def may_stack(self, seat: int) -> bool:
        """Offer a stack only to a seat holding a stack card."""
        kinds = self.ruleset.stack_kinds
        return any(c.kind in kinds for c in self.hands[seat])

    def may_play_again(self, seat: int) -> bool:
        return bool(self._playable_cards(seat))

    def ask(self, decision: Decision, seat: int) -> bool:
        return self._ask(decision, seat)

    def presses(self, seat: int, presses: int, reason: str, *, until: str = "count") -> bool:
        return self._presses(seat, presses, reason, until=until)

    def emit(self, kind: str, **fields: Any) -> None:
        self._emit(kind, **fields)

    def stack_on(self, victim: int, total: int, reason: str, *, skips: bool) -> bool:
        self.stack, self._stack_reason, self._stack_skips = total, reason, skips
        return self._ask(Decision.STACK, victim)

    def challenge(self, victim: int, step: Step, can_challenge: bool) -> bool:
        n = step.number("n", 4)
        self.stack += n
        self._stack_reason, self._stack_skips = step.get("reason") or f"draw{n}", True
        self._challenge = (
            (step.number("guilty", n), step.number("innocent", n + 2)) if can_challenge else None
        )
        return self._ask(Decision.CHALLENGE if can_challenge else Decision.STACK, victim)

    def discard_color(self) -> None:
        """Discard All: the actor's cards of its colour go under it on the pile."""
        card, actor = self.card, self.actor
        color = card.color if card is not None and card.color is not None else self.active_color
        hand = self.hands[actor]
        dumped = [c for c in hand if c.color is color and color is not None]
        if dumped:
            hand[:] = [c for c in hand if c.color is not color]
            self.discard[-1:-1] = dumped
            self._emit("discard", player=actor, cards=[c.code for c in dumped])
            self._hand_shrank(actor)

    def trade(self, seat: int, other: int) -> None:
        self.hands[seat], self.hands[other] = self.hands[other], self.hands[seat]
        self._uno_open = None

    def rotate(self) -> None:
        """7-0's zero: every hand in play moves one seat in the direction of play."""
        old = list(self.hands)
        for seat in self.seats_in_play:
            self.hands[self._next(seat)] = old[seat]
        self._uno_open = None
        self._emit("rotate", direction=self.direction, seats=self.seats_in_play)

    def _emit(self, kind: str, **fields: Any) -> None:
        event = {"type": kind, **fields}
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)


_HANDLERS: dict[Decision, Callable[[Game, Move, int], None]] = {
    Decision.TURN: Game._on_turn,
    Decision.COLOR: Game._on_color,
    Decision.TARGET: Game._on_target,
    Decision.DRAWN: Game._on_drawn,
    Decision.PLAY_AGAIN: Game._on_play_again,
    Decision.GIVE: Game._on_give,
    Decision.STACK: Game._on_stack,
    Decision.CHALLENGE: Game._on_challenge,
}

__all__ = ["Color", "Decision", "Game", "IllegalMove", "Move", "RulesetError"]
