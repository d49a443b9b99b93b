"""A fixed integer action space for one ruleset and table size, and its names.

One id per move *shape*, the same for every seat, so a policy network has a fixed output
and a mask says which ids are legal now::

    play:CARD  (one per card face of the deck; a jump-in is a play out of turn)
    give:CARD  (Wild Dip Into The Deck)
    color:R color:B color:G color:Y
    target:S   (seat S, absolute)        catch:S   (catch seat S, who did not call UNO)
    draw pass take accept challenge uno
    wait       (decline an out-of-turn move: the table moves on)

The suggestion penalty (``penalize:S``) is a referee's move, not a player's: it is not in
the space.
"""

from __future__ import annotations

from game.core.cards import COLORS
from game.core.moves import (
    AimMove,
    CatchMove,
    ChooseMove,
    GiveMove,
    Move,
    MoveKind,
    PlayMove,
)
from game.core.rulesets import Ruleset

#: The bare moves at the end of the space, in order (``wait`` is the table's own).
_BARE = (MoveKind.DRAW, MoveKind.PASS, MoveKind.TAKE, MoveKind.ACCEPT, MoveKind.CHALLENGE)


class ActionSpace:
    """Ids of every move shape of ``ruleset`` at a table of ``players`` (see module doc)."""

    def __init__(self, ruleset: Ruleset, players: int) -> None:
        self.cards = sorted({card.code for card in ruleset.deck})
        self.card_index = {code: i for i, code in enumerate(self.cards)}
        faces = len(self.cards)
        self.play, self.give = 0, faces
        #: The ``play:CARD`` id of each card of the deck (cards are interned: one object a face).
        self.play_of = {card: self.play + self.card_index[card.code] for card in set(ruleset.deck)}
        self.color = 2 * faces
        #: The ``color:C`` id of each colour (a colour, a StrEnum, hashes as its string: in C).
        self.color_of = {color: self.color + i for i, color in enumerate(COLORS)}
        self.target = self.color + len(COLORS)
        self.catch = self.target + players
        bare = self.catch + players
        self.bare = {kind: bare + i for i, kind in enumerate(_BARE)}
        self.uno = bare + len(_BARE)
        #: The ids of the bare moves by the move's type (a type hashes at C speed; a kind,
        #: an enum, through a Python-level ``__hash__``).
        self.bare_of_type = {type(Move.of(kind)): i for kind, i in self.bare.items()}
        self.bare_of_type[type(Move.of(MoveKind.UNO))] = self.uno
        self.wait = self.uno + 1
        self.size = self.wait + 1
        self.names = (
            [f"play:{c}" for c in self.cards]
            + [f"give:{c}" for c in self.cards]
            + [f"color:{c.value}" for c in COLORS]
            + [f"target:{s}" for s in range(players)]
            + [f"catch:{s}" for s in range(players)]
            + [kind.value for kind in _BARE]
            + ["uno", "wait"]
        )

    def encode(self, move: Move) -> int:
        """The id of ``move`` (the acting seat is not part of it)."""
        kind = type(move)
        if kind is PlayMove:  # the common case first: one dict lookup
            return self.play_of[move.card]  # type: ignore[attr-defined]
        if kind is GiveMove:
            return self.give + self.card_index[move.card.code]  # type: ignore[attr-defined]
        if kind is ChooseMove:
            return self.color_of[move.color]  # type: ignore[attr-defined]
        if kind is AimMove:
            return self.target + move.target  # type: ignore[attr-defined]
        if kind is CatchMove:
            return self.catch + move.seat  # type: ignore[attr-defined]
        if move.kind is MoveKind.UNO:
            return self.uno
        return self.bare[move.kind]

    def encode_all(self, moves: list[Move]) -> dict[int, Move | None]:
        """``{id: move}`` for the decider's ``moves``, in their order.

        Its moves all have different shapes, so different ids. Made at every decision: the
        plays and colours are looked up here without a call each (nor a comprehension's; a
        colour decision's four :meth:`encode` calls cost about 400 instructions a step of
        the env() loop, docs/rl.md).
        """
        play_of, color_of, bare_of_type = self.play_of, self.color_of, self.bare_of_type
        ids: dict[int, Move | None] = {}
        for move in moves:
            kind = type(move)
            if kind is PlayMove:
                ids[play_of[move.card]] = move  # type: ignore[attr-defined]
            elif kind is ChooseMove:  # a colour decision's four
                ids[color_of[move.color]] = move  # type: ignore[attr-defined]
            else:
                bare = bare_of_type.get(kind)
                ids[self.encode(move) if bare is None else bare] = move
        return ids

    def name(self, action: int) -> str:
        return self.names[action]
