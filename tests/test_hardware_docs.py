"""docs/hardware.md and docs/install.md stay true to the code (issue 29, findings 1, 9 and 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scripts import load_script

from game.cli import main
from hardware.pinmap import DEFAULT_PINS

DOCS = Path(__file__).resolve().parent.parent / "docs"
HARDWARE = (DOCS / "hardware.md").read_text(encoding="utf-8")


def _make_wiring() -> object:
    return load_script(DOCS / "images" / "make_wiring.py", "make_wiring")


def test_the_script_reproduces_the_committed_wiring_svg() -> None:
    module = _make_wiring()
    committed = (DOCS / "images" / "wiring.svg").read_text(encoding="utf-8")
    assert module.render() == committed  # type: ignore[attr-defined]
    assert "images/wiring.svg" in HARDWARE


def test_the_drawing_and_the_tables_use_the_default_pins_on_their_header_pins() -> None:
    header = _make_wiring().HEADER_PIN  # type: ignore[attr-defined]
    in1, in2 = DEFAULT_PINS["motor"]
    for bcm in (in1, in2):
        assert f"| {header[bcm]} (GPIO{bcm}) |" in HARDWARE  # both driver-board tables
    for role in ("beam", "button", "led", "buzzer"):
        bcm = DEFAULT_PINS[role]
        assert re.search(rf"\| {bcm} \| {header[bcm]} \|", HARDWARE), role  # the pin table


def test_install_no_longer_offers_pip_install_lgpio_as_a_route() -> None:
    install = (DOCS / "install.md").read_text(encoding="utf-8")
    assert not re.search(r"\bor\s+`pip install lgpio`", install)
    assert "Do not `pip install lgpio`" in install and "python3-lgpio" in install


def test_the_strict_gpiod_step_is_documented_with_its_kernel_names() -> None:
    for needle in (
        "dtparam=strict_gpiod",
        "pinctrl_bcm2835.persist_gpio_outputs=n",
        "pinctrl_rp1.persist_gpio_outputs=n",
        "/sys/module/pinctrl_bcm2835/parameters/persist_gpio_outputs",
        "uno-attack launcher doctor",
    ):
        assert needle in HARDWARE, needle


def test_the_failure_table_covers_every_failure_for_every_wiring() -> None:
    section = HARDWARE.split("## What stops the motor when something dies", 1)[1].split("\n## ", 1)[
        0
    ]
    header = next(line for line in section.splitlines() if line.startswith("| failure"))
    assert header.count("|") == 5  # three wirings
    for failure in ("process killed", "frozen", "host hung", "USB unplugged", "power glitch"):
        rows = [
            line
            for line in section.splitlines()
            if line.startswith(f"| {failure}")
            or (line.startswith("|") and failure in line.split("|")[1])
        ]
        assert len(rows) == 1, failure
        assert rows[0].count("|") == 5
    assert "Left to the builder" in section


def test_the_wiring_docs_cover_what_a_builder_needs() -> None:
    for needle in (
        "**DRV8833**",
        "**TB6612FNG**",
        "### Why not an L298N",
        "### Receivers on 3.3 V",
        "Schottky",
        "### The enable line",
        "### Braking or coasting",
        "The Pico as the motor controller, even on a Pi",
    ):
        assert needle in HARDWARE, needle
    assert "pins float while the Pi boots" not in HARDWARE  # both chips reset to pull-downs


@pytest.mark.parametrize(
    "argv",
    [
        ["launcher", "fire", "--launcher", "gpio://?mock=1&max_run_ms=86400000"],
        ["launcher", "test", "--launcher", "gpio://?mock=1&cards=10&battery=0.1", "--no-button"],
    ],
    ids=["ceiling", "motor-never-turns"],
)
def test_the_quoted_console_output_is_what_the_cli_prints(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(argv)
    captured = capsys.readouterr()
    for line in (captured.out + captured.err).splitlines():
        assert line in HARDWARE, line
