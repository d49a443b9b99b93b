"""Where ``calibrate tune``'s new ``ms_per_card`` goes, and writing it there with a backup.

Two homes, as docs/hardware.md and docs/config.md describe them:

* a ``gpio://`` spec with ``config=FILE.toml`` reads its pins and timings from that file:
  the line is ``ms_per_card = 236.5`` in FILE.toml;
* any other spec carries its options itself: the line is the user config file's
  ``launcher = "SPEC"`` with ``ms_per_card=236.5`` in the spec
  (:func:`game.cli.config.config_path`).

Writing replaces the one line (or appends it), keeps the old file as ``NAME.bak`` (then
``NAME.bak.2`` …: an older backup is never overwritten) and writes atomically.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from game.cli.config import config_path, load_config
from hardware.errors import ConfigError
from hardware.files import atomic_write_text


@dataclass(frozen=True)
class ConfigLine:
    """One line of a TOML file: ``key = value``, and the file it belongs in."""

    path: Path
    key: str
    line: str

    def write(self) -> Path | None:
        """Put the line in the file (replacing the key's line); returns the backup, if any."""
        old = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        backup = _backup(self.path) if self.path.exists() else None
        pattern = re.compile(rf"^{re.escape(self.key)}\s*=.*$", re.M)
        if pattern.search(old):
            text = pattern.sub(lambda _: self.line, old, count=1)
        else:
            text = old + ("" if old.endswith("\n") or not old else "\n") + self.line + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, text)
        return backup


def _backup(path: Path) -> Path:
    target = path.with_name(path.name + ".bak")
    number = 2
    while target.exists():
        target = path.with_name(f"{path.name}.bak.{number}")
        number += 1
    shutil.copy2(path, target)
    return target


def with_option(spec: str, key: str, value: str) -> str:
    """``spec`` with ``key=value`` in its query (replacing an earlier value of ``key``)."""
    base, _, old = spec.partition("?")  # "gpio://" keeps its "//" (urlunsplit would drop it)
    query = [(k, v) for k, v in parse_qsl(old, keep_blank_values=True) if k != key]
    query.append((key, value))
    return f"{base}?{urlencode(query, safe='/,:.')}"


def tuned_line(spec: str, ms_per_card: float) -> ConfigLine:
    """The config line that keeps ``ms_per_card`` for the launcher ``spec``."""
    value = f"{ms_per_card:.1f}"
    query = dict(parse_qsl(urlsplit(spec).query))
    if urlsplit(spec).scheme == "gpio" and query.get("config"):
        return ConfigLine(Path(query["config"]), "ms_per_card", f"ms_per_card = {value}")
    path = config_path()
    configured = load_config(path).get("launcher")
    if configured and urlsplit(configured).scheme != urlsplit(spec).scheme:
        raise ConfigError(
            f"{path} sets launcher = {configured!r}, not a {urlsplit(spec).scheme}:// launcher",
            hint="write it by hand, or tune the launcher the config file names",
        )
    tuned = with_option(spec, "ms_per_card", value)
    return ConfigLine(path, "launcher", f"launcher = {json.dumps(tuned)}")
