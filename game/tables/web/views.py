"""What each screen may see: a seat's private view, the public table view, and the event feed.

Nothing here trusts a page. A seat's view holds its own hand and, when it decides, its
legal moves; every other screen gets only what everyone at a real table sees: the top
card, the colour, the direction, whose turn it is, hand sizes, scores and the launcher's
presses. Events are cut down per viewer by :func:`public_event`: exactly what
:func:`game.core.observe.redact` leaves that viewer (no seed, no random order, no card it was
not shown), made shorter for the page. Lists a phone gets (its hand, its moves) are in a
canonical order, never the engine's internal one.

Every move is sent with a label in words ("Red 7", "Wild Hit 4", "Choose blue"), so colour
is never the only signal on the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from game.bots import seat_moves
from game.core.cards import Card
from game.core.moves import (
    AimMove,
    CatchMove,
    ChooseMove,
    Decision,
    DrawMove,
    GiveMove,
    Move,
    MoveKind,
    PassMove,
    PlayMove,
)
from game.core.observe import NOBODY as NOBODY  # the table screen's viewer seat (re-exported)
from game.core.observe import canonical, redact
from game.tables.web.news import card_text, done_to_you, round_result

if TYPE_CHECKING:
    from game.core.engine import Game

COLOUR_NAMES = {"R": "red", "B": "blue", "G": "green", "Y": "yellow"}
ARROWS = {1: "clockwise ↻", -1: "anticlockwise ↺"}


def card_view(code: str) -> dict[str, Any]:
    card = Card.parse(code)
    return {
        "code": code,
        "text": card_text(code),
        "color": card.color.value if card.color else None,
    }


def public_event(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """``event`` as ``seat`` may see it (``NOBODY``: the table screen)."""
    shown = redact(event, seat)
    kind = shown["type"]
    if kind == "reload":
        return {"type": "reload", "count": len(shown["cards"])}
    if kind == "game_start":  # what a page needs of the header
        return {k: v for k, v in shown.items() if k not in ("deck", "custom_file")}
    return shown


def move_label(game: Game, names: Sequence[str], move: Move) -> str:
    """What a move's button says."""
    match move:
        case PlayMove(card=card):
            text = card_text(card.code)
            return f"Jump in: {text}" if move.by is not None else text
        case DrawMove():
            return "Draw a card" if game.ruleset.draws_from_pile else "Press the launcher"
        case ChooseMove(color=color):
            return f"Choose {COLOUR_NAMES[color.value]}"
        case AimMove(target=target):
            return f"Aim at {names[target]}"
        case CatchMove(seat=seat):
            return f"Catch {names[seat]} (no UNO!)"
        case GiveMove(card=card):
            return f"Give {card_text(card.code)}"
        case PassMove() if game.pending is Decision.DRAWN:
            return "Keep it"
    return _LABELS.get(move.kind, str(move))


_LABELS = {
    MoveKind.PASS: "Pass",
    MoveKind.TAKE: "Take the presses",
    MoveKind.CHALLENGE: "Challenge!",
    MoveKind.ACCEPT: "Accept",
    MoveKind.UNO: "UNO!",
}


def move_view(game: Game, names: Sequence[str], move: Move) -> dict[str, Any]:
    color = None
    if isinstance(move, (PlayMove, GiveMove)) and move.card.color:
        color = move.card.color.value
    elif isinstance(move, ChooseMove):
        color = move.color.value
    return {
        "move": str(move),
        "label": move_label(game, names, move),
        "kind": move.kind.value,
        "color": color,
    }


def seat_options(game: Game, seat: int) -> list[Move]:
    """The moves ``seat`` may make now: its decision's moves and its out-of-turn moves."""
    if game.pending is Decision.PRESS or game.is_round_over():
        return []
    own = list(canonical(game.legal_moves())) if game.decider == seat else []
    return own + seat_moves(game, seat, game.table_moves())


def situation(game: Game, names: Sequence[str], seat: int) -> str:
    """One sentence on what ``seat`` is asked (empty when it is not asked anything)."""
    result = round_result(game, names)
    if result is not None:
        won = result["winner"] == seat
        if result["game_over"]:
            return "You win!" if won else f"{result['name'] or 'Nobody'} wins the game."
        points = f" (+{result['points']} points)"
        return f"You win round {result['round']}!{points}" if won else f"{result['text']}{points}"
    if game.decider != seat:
        return f"Waiting for {names[game.decider]}."
    actor = names[game.actor] if 0 <= game.actor < len(names) else "?"
    drawn = game.drawn_card
    texts = {
        Decision.TURN: "Your turn: play a card or "
        + ("draw." if game.ruleset.draws_from_pile else "press the launcher."),
        Decision.COLOR: "Choose the colour to play next.",
        Decision.TARGET: "Pick the player to aim at.",
        Decision.DRAWN: f"You drew {card_text(drawn.code) if drawn else 'a card'}: "
        "play it now or keep it.",
        Decision.PLAY_AGAIN: "You may play one more card, or pass.",
        Decision.GIVE: "Pass one of your cards to the next player.",
        Decision.STACK: f"{actor} hit you: stack a hit card, or take {game.stacked} presses.",
        Decision.CHALLENGE: f"{actor} played {card_text(game.top_card.code)} on you: "
        "challenge it or accept.",
    }
    return texts.get(game.pending, "")


def table_view(game: Game, names: Sequence[str], bots: Sequence[str | None]) -> dict[str, Any]:
    """What everyone at the table sees."""
    color = game.active_color.value if game.active_color else None
    winner = game.winner
    result = round_result(game, names)
    deciding = result is None and 0 <= game.decider < len(names)
    return {
        "names": list(names),
        "bots": list(bots),
        "hand_sizes": game.hand_sizes,
        "scores": list(game.scores),
        "top": card_view(game.top_card.code),
        "color": color,
        "color_name": COLOUR_NAMES.get(color or "", "any"),
        "direction": game.direction,
        "direction_text": ARROWS.get(game.direction, ""),
        "pending": game.pending.value,
        "decider": game.decider,
        "round": game.round_number,
        "target": game.ruleset.target,
        "stacked": game.stacked,
        "uno_pending": game.uno_pending,
        "over": game.is_game_over(),
        "winner": winner,
        "draws_from_pile": game.ruleset.draws_from_pile,
        # presentation: whose turn in words (None once the round is over), the round's banner
        "round_over": result is not None,
        "turn_name": names[game.decider] if deciding else None,
        "result": result,
    }


def seat_view(game: Game, names: Sequence[str], bots: Sequence[str | None], seat: int) -> dict:
    """What ``seat`` sees: the table, its hand, its moves (with labels) and its question."""
    view = table_view(game, names, bots)
    options = seat_options(game, seat)
    playable = {m.card.code for m in options if isinstance(m, PlayMove) and m.by is None}
    view.update(
        seat=seat,
        you=names[seat],
        hand=[{**card_view(c.code), "playable": c.code in playable} for c in game.hand(seat)],
        moves=[move_view(game, names, m) for m in options],
        situation=situation(game, names, seat),
        # with two cards, a card may be played together with the UNO call ("R5" + "uno")
        # (not when the only move is to press: there is no card to call it with)
        uno_with_play=len(game.hands[seat]) == 2
        and game.decider == seat
        and game.pending in (Decision.TURN, Decision.DRAWN, Decision.PLAY_AGAIN)
        and bool(playable),
        done_to_you=done_to_you(game, names, seat),
    )
    return view


def describe(event: dict[str, Any], names: Sequence[str]) -> str:
    """A line for the feed ("Ann plays Red 7.", "Bob presses: 3 cards!")."""
    kind = event["type"]
    maker = _DESCRIBE.get(kind)
    return maker(event, _Names(names)) if maker else ""


class _Names:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def __call__(self, seat: Any) -> str:
        ok = isinstance(seat, int) and 0 <= seat < len(self.names)
        return self.names[seat] if ok else "?"


def _hit(e: dict[str, Any], n: _Names) -> str:
    counted = int(e.get("counted", 0))
    if counted == 0:
        return f"{n(e['player'])} presses the launcher: nothing!"
    return f"{n(e['player'])} presses the launcher: {counted} card{'s' * (counted != 1)}!"


def _round_end(e: dict[str, Any], n: _Names) -> str:
    who = n(e["winner"]) if e.get("winner") is not None else "No one"
    return f"{who} wins round {e['round']}. Scores: {_scores(e['scores'], n)}."


def _scores(values: Sequence[int], n: _Names) -> str:
    return ", ".join(f"{n(i)} {v}" for i, v in enumerate(values))


_DESCRIBE = {
    "dealer": lambda e, n: f"{n(e['seat'])} deals first.",
    "deal": lambda e, n: (
        f"Round {e['round']}: {n(e['dealer'])} deals; top card {card_text(e['starter'])}."
    ),
    "play": lambda e, n: f"{n(e['player'])} plays {card_text(e['card'])}.",
    "color": lambda e, n: f"{n(e['player'])} chooses {COLOUR_NAMES.get(e['color'], e['color'])}.",
    "target": lambda e, n: f"{n(e['player'])} aims at {n(e['target'])}.",
    "draw": lambda e, n: f"{n(e['player'])} draws.",
    "hit": _hit,
    "skip": lambda e, n: f"{n(e['player'])} is skipped.",
    "reverse": lambda e, n: f"Play now goes {ARROWS.get(e['direction'], '?')}.",
    "reload": lambda e, n: "The launcher was empty: the discard pile is shuffled and loaded.",
    "discard": lambda e, n: f"{n(e['player'])} discards {len(e['cards'])} more card(s).",
    "trade": lambda e, n: f"{n(e['player'])} trades hands with {n(e['target'])}.",
    "rotate": lambda e, n: "Every hand moves one seat along.",
    "give": lambda e, n: f"{n(e['player'])} passes a card to {n(e['to'])}.",
    "uno": lambda e, n: (
        f"{n(e['by'])} catches {n(e['player'])}, who did not call UNO!"
        if e["caught"]
        else f"{n(e['player'])} calls UNO!"
    ),
    "challenge": lambda e, n: (
        f"{n(e['player'])} challenges {n(e['accused'])}: {'guilty' if e['guilty'] else 'innocent'}."
    ),
    "accept": lambda e, n: f"{n(e['player'])} accepts.",
    "pass": lambda e, n: f"{n(e['player'])} passes.",
    "take": lambda e, n: f"{n(e['player'])} takes the stack ({e['presses']} presses).",
    "round_end": _round_end,
    "game_end": lambda e, n: (
        f"Game over: {n(e['winner'])} wins! Scores: {_scores(e['scores'], n)}."
    ),
}
