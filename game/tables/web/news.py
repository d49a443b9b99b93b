"""The words the screens put first: what was just done to a seat, and who won the round.

A phone shows, above everything else, what happened to its seat since it last acted
("Bob aims Wild Attack-Attack at you", "You are skipped", "You press the launcher:
2 cards (Red 5, Green 7)"): at a real table you would notice a card aimed at you, on
a phone it would otherwise sit at the bottom of the feed. The table screen shows a
banner with the round's winner and points, and the game's winner at the end.

Both are built from the engine's events as the viewer may see them
(:func:`game.core.observe.redact`): a phone is told the cards its own presses
brought and nothing of anyone else's hand; the banner holds only public facts (who won,
the points, the scores).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from game.core.cards import Card, NotationError
from game.core.observe import redact

if TYPE_CHECKING:
    from game.core.engine import Game

#: Events in which a seat acts itself: what was done to it before such an event is old news.
OWN_ACTIONS = frozenset(
    {"play", "color", "target", "draw", "pass", "take", "accept", "challenge", "give"}
)
#: At most this many lines of news (the latest).
NEWS_LINES = 4


def done_to_you(game: Game, names: Sequence[str], seat: int) -> list[str]:
    """What was done to ``seat`` since its own last action (this round), in the second person."""
    events = game.events
    start = len(events)
    while start > 0:
        event = events[start - 1]
        if event["type"] == "deal" or (
            event["type"] in OWN_ACTIONS and event.get("player") == seat
        ):
            break
        start -= 1
    lines: list[str] = []
    last_play: dict[str, Any] | None = None
    for event in events[start:]:
        shown = redact(event, seat)
        if shown["type"] == "play":
            last_play = shown
            continue
        line = _to_you(shown, seat, names, last_play)
        if line:
            lines.append(line)
        if shown["type"] in ("uno", "challenge", "take"):  # the presses after it are penalties
            last_play = None
    return lines[-NEWS_LINES:]


def _to_you(
    e: dict[str, Any], seat: int, names: Sequence[str], cause: dict[str, Any] | None
) -> str:
    def name(who: Any) -> str:
        return names[who] if isinstance(who, int) and 0 <= who < len(names) else "?"

    kind, player = e["type"], e.get("player")
    others = cause is not None and cause["player"] != seat
    by = f"{name(cause['player'])}'s {card_text(cause['card'])}" if cause and others else None
    if kind == "hit" and player == seat:
        counted = int(e.get("counted", 0))
        got = f"{counted} card{'s' * (counted != 1)}" if counted else "nothing"
        cards = [card_text(code) for code in e.get("cards", [])]
        listed = f" ({', '.join(cards)})" if cards else ""
        why = f" for {by}" if by else ""
        return f"You press the launcher{why}: {got}{listed}."
    if kind == "skip" and player == seat:
        return f"{by} skips you." if by else "You are skipped."
    if kind == "target" and e.get("target") == seat:
        card = f" {card_text(cause['card'])}" if cause else ""
        return f"{name(player)} aims{card} at you!"
    if kind == "uno" and e.get("caught") and player == seat:
        return f"{name(e['by'])} caught you without UNO!"
    if kind == "trade" and e.get("target") == seat:
        return f"{name(player)} trades hands with you."
    if kind == "give" and e.get("to") == seat:
        card = f": {card_text(e['card'])}" if e.get("card") else ""
        return f"{name(player)} passes you a card{card}."
    if kind == "challenge" and e.get("accused") == seat:
        verdict = "guilty" if e.get("guilty") else "innocent"
        return f"{name(player)} challenges you: {verdict}."
    return ""


def card_text(code: str) -> str:
    """A card in words, capitalised: ``R7`` -> ``Red 7`` (the code itself if it is not a card)."""
    try:
        title = Card.parse(code).title
    except NotationError:
        return code
    return title[:1].upper() + title[1:]


def round_result(game: Game, names: Sequence[str]) -> dict[str, Any] | None:
    """The banner at a round's end (None while a round is played): winner, points, scores."""
    if not game.is_round_over():
        return None
    end = next((e for e in reversed(game.events) if e["type"] == "round_end"), None)
    if end is None:
        return None
    raw = end.get("winner")
    winner = raw if isinstance(raw, int) and 0 <= raw < len(names) else None
    over = game.is_game_over()
    who = names[winner] if winner is not None else None
    points = int(end["gained"][winner]) if winner is not None else 0
    if who is None:
        text = f"Round {end['round']} ends: nobody went out"
    elif over:
        text = f"{who} wins the game!"
    else:
        text = f"{who} wins round {end['round']}!"
    detail = f"+{points} points this round" + (
        f" · {game.scores[winner]} in all" if over and winner is not None else ""
    )
    return {
        "round": end["round"],
        "winner": winner,
        "name": who,
        "points": points,
        "scores": list(end["scores"]),
        "game_over": over,
        "text": text,
        "detail": detail,
    }
