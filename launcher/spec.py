"""Open a launcher from a URL-like spec, the way pyserial's ``serial_for_url`` opens ports.

``sim://?profile=classic-bookmarklet&seed=7``, ``gpio://?motor=17,18&beam=27``,
``serial:///dev/ttyACM0?baud=115200``, ``emu://?faults=drop:0.02``, ``pile://``. The scheme
picks a handler from one registry: the built-in table :data:`HANDLERS` (imported lazily so
the package installs without gpiozero), backends that other distributions declare in the
:data:`ENTRY_POINT_GROUP` entry-point group, and handlers added at run time with
:func:`register_scheme`. A handler parses its own options with :class:`SpecOptions`, which
rejects unknown keys with a message that shows the expected form (``docs/launchers.md``,
"Writing a backend").

Choice order, as gpiozero picks pin factories: an explicit spec argument, then the
``UNO_ATTACK_LAUNCHER`` environment variable, then :data:`DEFAULT_SPEC`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from launcher.base import DrawPile, Launcher
from launcher.errors import BadSpec, LauncherUnavailable

if TYPE_CHECKING:
    from importlib import metadata

ENV_VAR = "UNO_ATTACK_LAUNCHER"
DEFAULT_SPEC = "sim://"
#: The spit-out profile of a spec that names none (``profile=`` in the spec wins).
PROFILE_ENV_VAR = "UNO_ATTACK_PROFILE"
#: Built-in schemes that fire by a spit-out profile and so take ``profile=``.
PROFILE_SCHEMES = frozenset({"sim", "gpio", "serial", "emu"})

#: The group in which other distributions declare launcher backends: ``scheme = "module:func"``.
ENTRY_POINT_GROUP = "uno_attack.launchers"

#: A handler opens the launcher a parsed spec names: ``handler(parsed, default_seed)``.
Handler = Callable[["ParsedSpec", "int | None"], Launcher[Any]]

#: The built-in schemes, one line each: scheme -> ``"module:function"`` (a :data:`Handler`).
HANDLERS: dict[str, str] = {
    "pile": "launcher.spec:open_pile",
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
        """Whether the spec gives ``key`` (without taking it)."""
        return key in self.values

    def text(self, key: str, default: str | None = None) -> str | None:
        """Take ``key`` as text."""
        self._taken.add(key)
        return self.values.get(key, default)

    def integer(
        self, key: str, default: int | None = None, *, minimum: int | None = None
    ) -> int | None:
        """Take ``key`` as a whole number (``0x`` prefixes allowed), at least ``minimum``."""
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
        """Take ``key`` as a number."""
        raw = self.text(key)
        if raw is None:
            return default
        try:
            return float(raw)
        except ValueError:
            raise BadSpec(f"{self.spec}: option {key}={raw!r} is not a number") from None

    def flag(self, key: str, default: bool = False) -> bool:
        """Take ``key`` as yes/no: ``1/0``, ``true/false``, ``yes/no``, ``on/off``; bare = yes."""
        raw = self.text(key)
        if raw is None:
            return default
        if raw.lower() in ("1", "true", "yes", "on", ""):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise BadSpec(f"{self.spec}: option {key}={raw!r} must be 1/0, true/false or yes/no")

    def int_list(self, key: str) -> list[int] | None:
        """Take ``key`` as comma-separated whole numbers (``motor=17,18``)."""
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


@dataclass(frozen=True)
class SchemeInfo:
    """Where a scheme's handler comes from: ``built-in``, ``run time`` or a distribution's name."""

    scheme: str
    target: str
    source: str


#: Handlers added with :func:`register_scheme` (tests, applications): scheme -> handler.
_RUNTIME: dict[str, Handler | str] = {}


def register_scheme(scheme: str, handler: Handler | str, *, replace: bool = False) -> None:
    """Make ``scheme://`` open through ``handler`` (a callable or ``"module:function"``).

    For backends defined inside an application or a test. A distribution should declare an
    entry point in :data:`ENTRY_POINT_GROUP` instead, so that every program (``--launcher``
    included) finds it without importing anything first. A built-in scheme cannot be taken
    over; a scheme already registered at run time only with ``replace=True``.
    """
    scheme = _checked_scheme(scheme)
    if scheme in HANDLERS:
        raise BadSpec(f"{scheme}:// is a built-in launcher scheme and cannot be replaced")
    if scheme in _RUNTIME and not replace:
        raise BadSpec(
            f"{scheme}:// is already registered", hint="pass replace=True to register it again"
        )
    _RUNTIME[scheme] = handler


def unregister_scheme(scheme: str) -> None:
    """Forget a scheme added with :func:`register_scheme` (a test cleaning up after itself)."""
    _RUNTIME.pop(scheme.lower(), None)


def _checked_scheme(scheme: str) -> str:
    name = scheme.lower().removesuffix("://")
    if not name or not all(ch.isalnum() or ch in "+-." for ch in name) or not name[0].isalpha():
        raise BadSpec(f"{scheme!r} is not a URL scheme (letters, digits, '+', '-', '.')")
    return name


def _entry_points() -> dict[str, metadata.EntryPoint]:
    """Backends other distributions declare, by scheme (read on every call: installs change)."""
    from importlib import metadata  # 10-40 ms to import: only when a scheme is not built in

    found: dict[str, metadata.EntryPoint] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name.lower(), entry)
    return found


def registered_schemes() -> list[SchemeInfo]:
    """Every scheme ``open_launcher`` accepts, built-ins first; built-ins win over plug-ins."""
    infos = [SchemeInfo(scheme, target, "built-in") for scheme, target in HANDLERS.items()]
    for scheme, handler in _RUNTIME.items():
        target = handler if isinstance(handler, str) else _qualified_name(handler)
        infos.append(SchemeInfo(scheme, target, "run time"))
    taken = {info.scheme for info in infos}
    for scheme, entry in sorted(_entry_points().items()):
        if scheme not in taken:
            dist = entry.dist.name if entry.dist is not None else "an installed distribution"
            infos.append(SchemeInfo(scheme, entry.value, dist))
    return infos


def _qualified_name(handler: Callable[..., Any]) -> str:
    module = getattr(handler, "__module__", "?")
    return f"{module}:{getattr(handler, '__qualname__', repr(handler))}"


def known_schemes() -> str:
    """The accepted schemes as one line, for hints: ``pile://, sim://, gpio://, …``."""
    return ", ".join(f"{info.scheme}://" for info in registered_schemes())


def resolve_spec(spec: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Explicit spec, else ``$UNO_ATTACK_LAUNCHER``, else :data:`DEFAULT_SPEC`."""
    if spec:
        return spec
    env = os.environ if environ is None else environ
    return env.get(ENV_VAR) or DEFAULT_SPEC


def _handler(scheme: str, spec: str) -> Handler:
    """The handler of ``scheme``: built-in, then run time, then entry points."""
    if scheme in HANDLERS:
        return _import_target(scheme, HANDLERS[scheme])
    runtime = _RUNTIME.get(scheme)
    if runtime is not None:
        return runtime if callable(runtime) else _import_target(scheme, runtime)
    entry = _entry_points().get(scheme)
    if entry is None:
        raise BadSpec(
            f"unknown launcher scheme {scheme!r} in {spec!r}", hint=f"use one of {known_schemes()}"
        )
    return _load_entry_point(scheme, entry)


def _import_target(scheme: str, target: str) -> Handler:
    module_name, _, func_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name not in (module_name, module_name.rsplit(".", 1)[0]):
            raise LauncherUnavailable(
                f"the {scheme}:// launcher needs the Python package {error.name!r}, "
                "which is not installed",
                hint=f"install it: pip install {error.name}",
            ) from None
        raise LauncherUnavailable(
            f"the {scheme}:// launcher is not available in this version"
        ) from None
    func: Handler = getattr(module, func_name)
    return func


def _load_entry_point(scheme: str, entry: metadata.EntryPoint) -> Handler:
    dist = entry.dist.name if entry.dist is not None else "its distribution"
    try:
        handler = entry.load()
    except Exception as error:  # a broken plug-in must not look like a bug of ours
        raise LauncherUnavailable(
            f"the {scheme}:// launcher from {dist} failed to load ({entry.value}): "
            f"{type(error).__name__}: {error}",
            hint=f"reinstall or upgrade {dist}, or uninstall it",
        ) from error
    if not callable(handler):
        raise LauncherUnavailable(
            f"the {scheme}:// entry point of {dist} ({entry.value}) is not callable",
            hint=f"report this to the authors of {dist}",
        )
    loaded: Handler = handler
    return loaded


def open_pile(parsed: ParsedSpec, default_seed: int | None) -> DrawPile[object]:
    """Handler for ``pile://``: a plain draw pile (one card per press; classic UNO, UNO Pocket)."""
    parsed.options.finish("pile:// (no options)")
    if parsed.path:
        raise BadSpec(f"{parsed.spec}: pile:// takes no path", hint="write pile://")
    return DrawPile()


def open_launcher(spec: str | None = None, *, default_seed: int | None = None) -> Launcher[Any]:
    """Open the launcher a spec names; ``default_seed`` seeds it when the spec gives no ``seed``.

    ``spec`` None means ``$UNO_ATTACK_LAUNCHER``, else ``sim://``; a built-in spec that names
    no ``profile=`` takes ``$UNO_ATTACK_PROFILE`` when set. The launcher is a context
    manager: ``with open_launcher("sim://?seed=1") as launcher: ...`` closes it (motor off).
    """
    parsed = parse_spec(resolve_spec(spec))
    profile = os.environ.get(PROFILE_ENV_VAR)
    if profile and parsed.scheme in PROFILE_SCHEMES and not parsed.options.has("profile"):
        parsed.options.values["profile"] = profile
    launcher = _handler(parsed.scheme, parsed.spec)(parsed, default_seed)
    if not isinstance(launcher, Launcher):
        raise LauncherUnavailable(
            f"the {parsed.scheme}:// handler returned {type(launcher).__name__}, not a Launcher",
            hint="a backend's handler must return a launcher.base.Launcher",
        )
    return launcher
