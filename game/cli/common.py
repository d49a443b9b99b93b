"""Arguments several commands share, declared once so their help and defaults agree.

``uno-attack --help`` imports this module (for :func:`harden`), so it imports only
argparse and math at start; the file-safety helpers are imported where they are used.
"""

from __future__ import annotations

import argparse
import math

from hardware.errors import ConfigError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE`` (repeatable) and ``--custom FILE``, read by ``parse_options``."""
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rule option, repeatable (`uno-attack rules show ID` lists them)",
    )
    parser.add_argument(
        "--custom", metavar="FILE", help="TOML file defining the Wild Customizable action"
    )


# -- the file-safety policy on the command line (docs/errors.md, "Files") ---------------------
#: Formats matplotlib writes when it cannot be asked (it is an optional dependency).
PLOT_FORMATS_FALLBACK = (
    "eps jpeg jpg pdf pgf png ps raw rgba svg svgz tif tiff webp".split()  # noqa: SIM905
)


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """``--force``: the only way an existing output file is replaced."""
    parser.add_argument(
        "--force", action="store_true", help="replace output files that already exist"
    )


def plot_formats() -> list[str]:
    """The extensions matplotlib can save (asked of matplotlib when it is installed)."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        return list(PLOT_FORMATS_FALLBACK)
    return sorted(FigureCanvasBase.get_supported_filetypes())


def check_plot(path: str | None, *, force: bool, inputs: Sequence[str | None] = ()) -> None:
    """A ``--plot FILE`` checked before any work: writable, new (or --force), a known format."""
    if path is None:
        return
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError(
            "--plot needs matplotlib, which is not installed",
            hint="pip install 'uno-attack[plot]'",
        ) from None
    from hardware.files import check_output

    check_output(path, what="--plot", force=force, inputs=_given(inputs), suffixes=plot_formats())


def _given(paths: Sequence[str | None]) -> list[str]:
    return [p for p in paths if p]


def write_plot(path: str, draw: Callable[[Path], Any]) -> None:
    """Call ``draw(temporary_path)`` and rename the drawing to ``path`` only once it is whole."""
    from hardware.files import atomic_path

    with atomic_path(path) as temporary:
        draw(temporary)


# -- values every option must have ----------------------------------------------------------------
#: Longest ``--delay`` of the press animation, in seconds per frame.
MAX_DELAY = 5.0


def seconds(maximum: float) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds between 0 and ``maximum``."""

    def parse(text: str) -> float:
        value = finite_float(text)
        if not 0 <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"expected seconds between 0 and {maximum:g}, not {text!r}"
            )
        return value

    return parse


def finite_float(text: str) -> float:
    """An argparse type: a number, never NaN or infinite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, not {text!r}")
    return value


def seed_number(text: str) -> int:
    """An argparse type: a seed, a whole number >= 0 (what numpy's generators accept)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, not {text!r}")
    return value


def web_url(text: str) -> str:
    """An argparse type: an ``http://`` or ``https://`` address with a host (and a valid port).

    ``--public-url`` is printed in every join link and trusted as a page origin, so a typo
    must stop the server before it prints links nobody can open.
    """
    from urllib.parse import urlsplit  # here, not at start: the module docstring says why

    parts = urlsplit(text.strip())
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # not a number, or out of range
        port_ok = False
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or not port_ok:
        raise argparse.ArgumentTypeError(
            f"expected an http:// or https:// address such as https://pi.example:8000, not {text!r}"
        )
    return text.strip().rstrip("/")  # the links add their own "/join/..."


def nonempty(text: str) -> str:
    """An argparse type: any text but the empty string (an empty path or spec is a mistake)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a value, not an empty string")
    return text


def harden(parser: argparse.ArgumentParser) -> None:
    """Make every option of the whole parser tree refuse empty text and non-finite numbers.

    Text options (paths, specs, names) refuse ``''`` unless ``''`` is their default:
    ``--launcher ''`` or ``--journal ''`` would otherwise silently mean "not given", and
    ``firmware build --out ''`` "this folder". ``float`` options refuse NaN and infinities,
    and ``--seed`` negative numbers (numpy's generators refuse them deep inside).
    Applied once, after every command registered its options.
    """
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for child in set(action.choices.values()):
                harden(child)
        elif (
            action.type is None and "" not in (action.default, action.const) and _takes_text(action)
        ):
            action.type = nonempty
        elif action.type is float:
            action.type = finite_float
        elif action.type is int and action.dest == "seed":
            action.type = seed_number


def _takes_text(action: argparse.Action) -> bool:
    return action.nargs != 0 and isinstance(action.default, str | None)
