"""``myscheme://?count=N``: a launcher that shoots exactly N cards per press (default 2)."""

from __future__ import annotations

from launcher import Launcher


class SteadyLauncher(Launcher[object]):
    """Every press shoots ``count`` cards (fewer when the hopper runs out)."""

    backend = "myscheme"

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def _press(self, loaded: int) -> int:
        return min(self.count, loaded)

    def describe(self) -> str:
        return f"count={self.count}"


def open_spec(parsed, default_seed):
    """The handler: parse the options, reject unknown ones, open the launcher."""
    count = parsed.options.integer("count", 2, minimum=0)
    parsed.options.finish("myscheme://?count=N")
    return SteadyLauncher(count)
