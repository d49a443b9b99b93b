"""Every Python example in docs/profiles.md and the calibration pages runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _examples() -> list[tuple[str, str]]:
    found = []
    for name in ("profiles.md", "calibration.md", "calibration-methods.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        found += [
            (f"{name}#{i}", block)
            for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S))
        ]
    return found


@pytest.mark.parametrize("where, code", _examples(), ids=[w for w, _ in _examples()])
def test_doc_example_runs(
    where: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace("/tmp/", f"{tmp_path}/"), where, "exec"), {})
