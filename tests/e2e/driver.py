"""Drive the web table's pages the way people do: look, wait, tap the first move offered.

Nothing here sleeps: every wait is the browser's own ``wait_for_function`` (with a
timeout), on something the page renders. Before each tap every rendered element is
marked ``data-seen``; a page re-renders by replacing its elements, so an unmarked one is
a render that came after the tap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MARK_SEEN = """() => {
  for (const node of document.querySelectorAll('#moves button, #status > *'))
    node.dataset.seen = '1';
  return Uno.version;
}"""
#: The table screen has drawn a view newer than version ``v``.
TABLE_FRESH = """(v) => Uno.version !== null && Uno.version > v &&
  document.querySelector('#status > :not([data-seen])') !== null"""
#: A seat's page shows a fresh decision (its question and its move buttons).
SEAT_READY = """(v) => Uno.version !== null && Uno.version >= v &&
  document.getElementById('situation').textContent.trim() !== '' &&
  document.querySelector('#moves button:not([data-seen])') !== null"""
#: A page has drawn version ``v`` or a newer one.
PAGE_AT_LEAST = "(v) => Uno.version !== null && Uno.version >= v"
ROUND_OVER = "wins round"


@dataclass
class Table:
    """The table screen and the phones of the people, by seat."""

    screen: Any
    phones: dict[int, Any]
    names: list[str]
    moves: list[str] = field(default_factory=list)

    def version(self) -> int:
        value: int = self.screen.evaluate("() => Uno.version ?? -1")
        return value

    def feed(self) -> str:
        text: str = self.screen.inner_text("#feed")
        return text

    def decider(self) -> int | None:
        """The seat whose turn the table screen shows, or None when the round is over."""
        if ROUND_OVER in self.feed():
            return None
        status: str = self.screen.inner_text("#status")
        for line in status.splitlines():
            if line.startswith("Turn: "):
                return self.names.index(line.removeprefix("Turn: ").strip())
        raise AssertionError(f"the table screen shows no turn: {status!r}")

    def wait_settled(self, after: int) -> None:
        self.screen.wait_for_function(TABLE_FRESH, arg=after)

    def wait_phones_current(self) -> None:
        """Every phone has drawn at least the view the table screen shows (phones can lag it)."""
        version = self.version()
        for page in self.phones.values():
            page.wait_for_function(PAGE_AT_LEAST, arg=version)

    def mark_seen(self) -> int:
        for page in self.phones.values():
            page.evaluate(MARK_SEEN)
        version: int = self.screen.evaluate(MARK_SEEN)
        return version if version is not None else -1

    def play_one(self) -> bool:
        """The person to play taps their first move; False once the round is over."""
        seat = self.decider()
        if seat is None:
            return False
        assert seat in self.phones, f"the server waits for seat {seat}, a bot"
        phone = self.phones[seat]
        phone.wait_for_function(SEAT_READY, arg=self.version())
        button = phone.locator("#moves button:not([data-seen])").first.element_handle()
        self.moves.append(f"{self.names[seat]}: {button.inner_text()}")
        before = self.mark_seen()
        button.click()
        self.wait_settled(before)
        return True

    def play_round(self, limit: int = 400) -> int:
        """Tap until the round ends; returns how many taps it took."""
        for taps in range(limit):
            if not self.play_one():
                return taps
        raise AssertionError(f"no round end after {limit} taps: {self.moves[-10:]}")


def open_table(server: Any, phone: Any, people: list[int], names: list[str]) -> Table:
    """Open the table screen and one phone per person; wait until each shows the game."""
    screen = phone()
    screen.goto(f"{server.url}/table")
    phones = {}
    for seat in people:
        page = phone()
        page.goto(server.seat_url(seat))
        page.wait_for_selector("#status > *")
        phones[seat] = page
    screen.wait_for_selector("#status > *")
    return Table(screen, phones, names)
