"""Proof that the shared codec and the firmware logic behave identically under real MicroPython.

The interpreter is MicroPython's WebAssembly port from npm
(``@micropython/micropython-webassembly-pyscript``) run by ``tests/micropython/run.mjs``
under Node. Each script prints its results; the CPython run of the very same script must
print byte-identical lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from micropython_runner import MODULES, SCRIPTS, run_cpython, run_micropython


@pytest.mark.parametrize("script", ["vectors.py", "scenario.py"])
def test_same_output_under_cpython_and_micropython(micropython_dir: Path, script: str) -> None:
    path = SCRIPTS / script
    expected = run_cpython(path)
    actual = run_micropython(micropython_dir, path.read_text(), MODULES)
    assert expected.endswith("END\n") and len(expected.splitlines()) > 30
    assert actual.splitlines() == expected.splitlines()


def test_it_really_is_micropython(micropython_dir: Path) -> None:
    code = "import sys\nprint(sys.implementation.name)\n"
    code += "import protocol\nprint(protocol.crc16(b'123456789'))"
    out = run_micropython(micropython_dir, code, MODULES)
    assert out.split() == ["micropython", str(0x29B1)]


def test_micropython_lacks_what_the_codec_avoids(micropython_dir: Path) -> None:
    """Why the codec carries its own CRC and no dataclasses: MicroPython has neither."""
    code = (
        "import binascii\nprint(hasattr(binascii, 'crc_hqx'))\n"
        "try:\n import dataclasses\n print('dataclasses')\n"
        "except ImportError:\n print('no dataclasses')\n"
    )
    assert run_micropython(micropython_dir, code, {}).split() == ["False", "no", "dataclasses"]
