"""Open a launcher from a URL-like spec, the way pyserial's ``serial_for_url`` opens ports.

``sim://?profile=classic-bookmarklet&seed=7``, ``gpio://?motor=17,18&beam=27``,
``serial:///dev/ttyACM0?baud=115200``, ``emu://?faults=drop:0.02``. The scheme picks a
handler module (registered in :data:`HANDLERS`, imported lazily so the package installs
without gpiozero); the handler parses its own options with :class:`SpecOptions`, which
rejects unknown keys with a message that shows the expected form.

Choice order, as gpiozero picks pin factories: an explicit spec argument, then the
``UNO_ATTACK_LAUNCHER`` environment variable, then :data:`DEFAULT_SPEC`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from launcher.base import Launcher
from launcher.errors import BadSpec, LauncherUnavailable

ENV_VAR = "UNO_ATTACK_LAUNCHER"
DEFAULT_SPEC = "sim://"

#: scheme -> "module:function"; the function takes (ParsedSpec, default_seed) -> Launcher.
HANDLERS: dict[str, str] = {
    "sim": "launcher.sim:open_spec",
    "gpio": "launcher.gpio:open_spec",
    "serial": "launcher.serial:open_spec",
    "emu": "launcher.emu:open_spec",
    "pico-sim": "launcher.pico_sim:open_spec",
}


@dataclass
class SpecOptions:
    """The ``?key=value`` options of a spec; each handler takes what it knows, then finishes."""

    spec: str
    values: dict[str, str]
    _taken: set[str] = field(default_factory=set)

    def has(self, key: str) -> bool:
        return key in self.values

    def text(self, key: str, default: str | None = None) -> str | None:
        self._taken.add(key)
        return self.values.get(key, default)

    def integer(
        self, key: str, default: int | None = None, *, minimum: int | None = None
    ) -> int | None:
        raw = self.text(key)
        if raw is None:
            return default
        try:
            value = int(raw, 0)
        except ValueError:
            raise BadSpec(f"{self.spec}: option {key}={raw!r} is not a whole number") from None
        if minimum is not None and value < minimum:
            raise BadSpec(f"{self.spec}: option {key}={value} must be at least {minimum}")
        return value

    def number(self, key: str, default: float | None = None) -> float | None:
        raw = self.text(key)
        if raw is None:
            return default
        try:
            return float(raw)
        except ValueError:
            raise BadSpec(f"{self.spec}: option {key}={raw!r} is not a number") from None

    def flag(self, key: str, default: bool = False) -> bool:
        raw = self.text(key)
        if raw is None:
            return default
        if raw.lower() in ("1", "true", "yes", "on", ""):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise BadSpec(f"{self.spec}: option {key}={raw!r} must be 1/0, true/false or yes/no")

    def int_list(self, key: str) -> list[int] | None:
        raw = self.text(key)
        if raw is None:
            return None
        try:
            return [int(part, 0) for part in raw.split(",") if part]
        except ValueError:
            raise BadSpec(
                f"{self.spec}: option {key}={raw!r} must be whole numbers separated by commas"
            ) from None

    def finish(self, expected: str) -> None:
        """Reject any option no one took; ``expected`` shows the accepted form."""
        unknown = sorted(set(self.values) - self._taken)
        if unknown:
            raise BadSpec(
                f"{self.spec}: unknown option(s) {', '.join(unknown)}",
                hint=f"expected {expected}",
            )


@dataclass
class ParsedSpec:
    """A spec split into scheme, path (``serial:///dev/x`` -> ``/dev/x``) and options."""

    spec: str
    scheme: str
    path: str
    options: SpecOptions


def parse_spec(spec: str) -> ParsedSpec:
    """Split ``scheme://[host][/path][?k=v&…]``; the host part is folded into the path."""
    if "://" not in spec:
        raise BadSpec(f"launcher spec {spec!r} has no scheme", hint=f"use one of {known_schemes()}")
    parts = urlsplit(spec)
    path = (parts.netloc + parts.path) if parts.netloc else parts.path
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise BadSpec(f"launcher spec {spec!r}: cannot read options {parts.query!r}") from None
    values: dict[str, str] = {}
    for key, value in pairs:
        if key in values:
            raise BadSpec(f"launcher spec {spec!r}: option {key} given twice")
        values[key] = value
    return ParsedSpec(spec, parts.scheme.lower(), path, SpecOptions(spec, values))


def known_schemes() -> str:
    return ", ".join(f"{scheme}://" for scheme in HANDLERS)


def resolve_spec(spec: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Explicit spec, else ``$UNO_ATTACK_LAUNCHER``, else :data:`DEFAULT_SPEC`."""
    if spec:
        return spec
    env = os.environ if environ is None else environ
    return env.get(ENV_VAR) or DEFAULT_SPEC


def _handler(scheme: str, spec: str) -> Callable[..., Launcher[Any]]:
    target = HANDLERS.get(scheme)
    if target is None:
        raise BadSpec(
            f"unknown launcher scheme {scheme!r} in {spec!r}", hint=f"use one of {known_schemes()}"
        )
    module_name, func_name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name not in (module_name, module_name.rsplit(".", 1)[0]):
            raise LauncherUnavailable(
                f"the {scheme}:// launcher needs the Python package {error.name!r}, "
                "which is not installed",
                hint="install the extra: pip install 'uno-attack[pi]'",
            ) from None
        raise LauncherUnavailable(
            f"the {scheme}:// launcher is not available in this version"
        ) from None
    func: Callable[..., Launcher[Any]] = getattr(module, func_name)
    return func


def open_launcher(spec: str | None = None, *, default_seed: int | None = None) -> Launcher[Any]:
    """Open the launcher a spec names; ``default_seed`` seeds it when the spec gives no ``seed``."""
    parsed = parse_spec(resolve_spec(spec))
    return _handler(parsed.scheme, parsed.spec)(parsed, default_seed)
