"""Proof that the shared codec and the firmware logic behave identically under real MicroPython.

The interpreter is MicroPython's WebAssembly port from npm
(``@micropython/micropython-webassembly-pyscript``) run by ``tests/micropython/run.mjs``
under Node. Each script prints its results; the CPython run of the very same script must
print byte-identical lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
SCRIPTS = ROOT / "tests" / "micropython"
MODULES = {
    "protocol.py": ROOT / "firmware_bridge" / "protocol.py",
    "logic.py": FIRMWARE / "logic.py",
}


def run_micropython(micropython_dir: Path, code: str, files: dict[str, Path]) -> str:
    job = {"files": {name: path.read_text() for name, path in files.items()}, "code": code}
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


@pytest.mark.parametrize("script", ["vectors.py", "scenario.py"])
def test_same_output_under_cpython_and_micropython(micropython_dir: Path, script: str) -> None:
    path = SCRIPTS / script
    expected = run_cpython(path)
    actual = run_micropython(micropython_dir, path.read_text(), MODULES)
    assert expected.endswith("END\n") and len(expected.splitlines()) > 30
    assert actual.splitlines() == expected.splitlines()


def test_it_really_is_micropython(micropython_dir: Path) -> None:
    code = "import sys\nprint(sys.implementation.name)\nimport protocol\nprint(protocol.crc16(b'123456789'))"
    out = run_micropython(micropython_dir, code, MODULES)
    assert out.split() == ["micropython", str(0x29B1)]


def test_micropython_lacks_what_the_codec_avoids(micropython_dir: Path) -> None:
    """Why the codec carries its own CRC and no dataclasses: MicroPython has neither."""
    code = (
        "import binascii\nprint(hasattr(binascii, 'crc_hqx'))\n"
        "try:\n import dataclasses\n print('dataclasses')\nexcept ImportError:\n print('no dataclasses')\n"
    )
    assert run_micropython(micropython_dir, code, {}).split() == ["False", "no", "dataclasses"]
