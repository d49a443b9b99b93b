"""The simulated launcher: a real hopper of cards, spit-out counts from a profile.

``sim://?profile=web-game&seed=7`` (both optional). The hopper holds the
actual loaded cards and yields them from the bottom; how many per press comes
from the profile's seeded sampler, so the same seed replays the same presses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from launcher.base import Launcher, T
from launcher.profiles import DEFAULT_PROFILE, Profile, load_profile

if TYPE_CHECKING:
    from launcher.spec import ParsedSpec

SPEC_FORM = "sim://?profile=NAME|PATH&seed=N"


class SimLauncher(Launcher[T]):
    """A stochastic launcher that needs no hardware."""

    backend = "sim"

    def __init__(
        self, profile: Profile | str = DEFAULT_PROFILE, *, seed: int | None = None
    ) -> None:
        super().__init__()
        self.profile = load_profile(profile) if isinstance(profile, str) else profile
        self.seed = seed
        self._sampler = self.profile.sampler(seed)
        #: Every press as (press number, cards asked for by the profile, cards that came out).
        self.shots: list[tuple[int, int, int]] = []

    def _press(self, loaded: int) -> int:
        wanted = self._sampler.next(loaded)
        out = wanted if wanted < loaded else loaded
        # same meaning on every backend: what this press asked the hopper for (never above it)
        meta = self.press_meta
        meta["wanted"] = wanted
        meta["requested"] = out
        self.shots.append((self.presses + 1, wanted, out))
        return out

    def _on_load(self, loaded: int) -> None:
        self._sampler.reset()

    def describe(self) -> str:
        return f"profile={self.profile.name} seed={self.seed}"


def open_spec(parsed: ParsedSpec, default_seed: int | None) -> SimLauncher[object]:
    """Handler for ``sim://``."""
    options = parsed.options
    profile = options.text("profile", DEFAULT_PROFILE) or DEFAULT_PROFILE
    seed = options.integer("seed", default_seed)
    options.finish(SPEC_FORM)
    return SimLauncher(profile, seed=seed)
