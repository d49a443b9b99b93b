"""Run Python under the real MicroPython interpreter (npm, WebAssembly, under Node) and CPython.

Shared by ``test_micropython.py`` and ``test_mpy_cross.py``: ``tests/micropython/run.mjs``
writes the given files into MicroPython's filesystem and runs the code; the CPython twin
runs a script with the same flat module names importable.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
SCRIPTS = ROOT / "tests" / "micropython"
MODULES = {
    "protocol.py": ROOT / "firmware_bridge" / "protocol.py",
    "logic.py": FIRMWARE / "logic.py",
}


def run_micropython(
    micropython_dir: Path, code: str, files: dict[str, Path], binary: dict[str, bytes] | None = None
) -> str:
    """Run ``code`` under MicroPython with ``files`` (sources) and ``binary`` (.mpy) importable."""
    job = {
        "files": {name: path.read_text() for name, path in files.items()},
        "binary": {name: base64.b64encode(data).decode() for name, data in (binary or {}).items()},
        "code": code,
    }
    result = subprocess.run(
        ["node", str(micropython_dir / "run.mjs")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=micropython_dir,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_cpython(script: Path) -> str:
    """The same script under CPython, importing the same files by the same flat names."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "firmware_bridge"), str(FIRMWARE)])
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    return result.stdout
