"""Spit-out profiles: how many cards a launcher shoots, press by press.

A :class:`Profile` is data (a TOML file, ``docs/profiles.md``); it makes a
:class:`PressSampler`, the small seeded state machine a launcher consults on
every press. Four kinds: ``iid``, ``pattern`` (the 1999 launcher's fixed
firing sequence), ``escalating`` (the chance rises after each empty press) and
``load-dependent``. Presets ship in ``launcher/presets/*.toml``, each naming
its source; exact analysis and vectorised sampling live in
:mod:`launcher.analysis`.

>>> from launcher.profiles import load_profile
>>> load_profile("bookmarklet").sampler(seed=1).next(loaded=40) in range(6)
True
"""

from launcher.profiles.kinds import (
    EscalatingProfile,
    IIDProfile,
    LoadBand,
    LoadDependentProfile,
    PatternProfile,
    PressSampler,
    Profile,
)
from launcher.profiles.loading import (
    DEFAULT_PROFILE,
    SCHEMA_VERSION,
    load_profile,
    preset_names,
    profile_from_dict,
    profile_to_dict,
    profile_to_toml,
    save_profile,
)

__all__ = [
    "DEFAULT_PROFILE",
    "SCHEMA_VERSION",
    "EscalatingProfile",
    "IIDProfile",
    "LoadBand",
    "LoadDependentProfile",
    "PatternProfile",
    "PressSampler",
    "Profile",
    "load_profile",
    "preset_names",
    "profile_from_dict",
    "profile_to_dict",
    "profile_to_toml",
    "save_profile",
]
