"""Facts the outside checks read off the docs, written once for all of them."""

from __future__ import annotations

from game import Decision

#: docs/rules.md, "The event log": every decision other than a turn is logged as a
#: ``decision`` event with its moves (a press is chance, the round's end is nobody's).
LOGGED_DECISIONS = frozenset(
    {
        Decision.COLOR,
        Decision.TARGET,
        Decision.CHALLENGE,
        Decision.DRAWN,
        Decision.GIVE,
        Decision.PLAY_AGAIN,
        Decision.STACK,
    }
)
