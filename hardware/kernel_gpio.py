"""Does this kernel return a released GPIO output to an input? (issue 29, finding 1)

On Raspberry Pi OS a GPIO output keeps its level after the process that drove it closes
it, or dies: Raspberry Pi's kernels *persist* released outputs, for the habits of the old
sysfs interface. A launcher killed with its motor on (SIGKILL, the OOM killer, a segfault,
systemd's kill after ``TimeoutStopSec``) then leaves IN1 driven high, and the board's
pull-downs cannot win against a driven output. The switch:

* ``dtparam=strict_gpiod`` in ``/boot/firmware/config.txt`` (one line, every model; it
  turns off the persistence of the header driver named below), or directly on the
  kernel command line (``/boot/firmware/cmdline.txt``):
  ``pinctrl_bcm2835.persist_gpio_outputs=n`` (Pi 0-4, 400, CM 1-4) or
  ``pinctrl_rp1.persist_gpio_outputs=n`` (Pi 5, 500, CM5: the header is on the RP1 chip);
* the kernel shows what is in force as the module parameter
  ``/sys/module/<driver>/parameters/persist_gpio_outputs`` (``Y`` persists, ``N`` releases);
  kernels from April to June 2024 named it ``strict_gpiod`` (``Y`` releases); older kernels
  have neither, and always persist.

:func:`check_output_release` reads those files under a root folder (``/`` on the Pi; a
test's tmp folder), so the check is testable anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

#: The header's GPIO driver by board family: the RP1 on a Pi 5, the SoC's own before it.
RP1_MODELS = ("Raspberry Pi 5", "Raspberry Pi 500", "Raspberry Pi Compute Module 5")
CONFIG_LINE = "dtparam=strict_gpiod"
HINT = (
    f"add the line `{CONFIG_LINE}` to /boot/firmware/config.txt and reboot (docs/hardware.md, "
    "'Install on the Pi'); then a process that dies leaves the motor pins as inputs, and the "
    "pull-downs hold the H-bridge inputs low"
)


@dataclass
class ReleaseCheck:
    """The verdict: ``ok``, ``fail``, or ``not_a_pi`` (nothing to check), and the evidence."""

    result: str
    detail: str
    driver: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)
    hint: str = ""

    @property
    def ok(self) -> bool:
        return self.result != "fail"


def board_model(root: Path) -> str | None:
    """``/proc/device-tree/model`` without its NUL (None off a device-tree board)."""
    path = root / "proc/device-tree/model"
    try:
        return path.read_bytes().rstrip(b"\0\n").decode("utf-8", "replace")
    except OSError:
        return None


def header_driver(model: str) -> str:
    return "pinctrl_rp1" if model.startswith(RP1_MODELS) else "pinctrl_bcm2835"


def _parameter(root: Path, driver: str, name: str) -> str | None:
    try:
        return (root / f"sys/module/{driver}/parameters/{name}").read_text().strip()
    except OSError:
        return None


def check_output_release(root: Path = Path("/")) -> ReleaseCheck:
    """Will the header's GPIO outputs go back to inputs when the launcher's process dies?"""
    model = board_model(root)
    if model is None or not model.startswith("Raspberry Pi"):
        return ReleaseCheck("not_a_pi", f"not a Raspberry Pi ({model or 'no device-tree model'})")
    driver = header_driver(model)
    found = {
        f"{driver}.{name}": value
        for name in ("persist_gpio_outputs", "strict_gpiod")
        if (value := _parameter(root, driver, name)) is not None
    }
    persist = found.get(f"{driver}.persist_gpio_outputs")
    strict = found.get(f"{driver}.strict_gpiod")
    if persist is not None:
        releases = persist.upper().startswith("N")
        shown = f"{driver}.persist_gpio_outputs={persist}"
    elif strict is not None:
        releases = strict.upper().startswith("Y")
        shown = f"{driver}.strict_gpiod={strict}"
    else:
        return ReleaseCheck(
            "fail",
            f"{model}: this kernel has no switch for released outputs ({driver} has neither "
            "persist_gpio_outputs nor strict_gpiod): outputs always keep their level",
            driver,
            found,
            "update the kernel (`sudo apt full-upgrade`, a kernel from mid-2024 on), then " + HINT,
        )
    if releases:
        return ReleaseCheck(
            "ok", f"{model}: released outputs return to inputs ({shown})", driver, found
        )
    return ReleaseCheck(
        "fail",
        f"{model}: released GPIO outputs keep their level ({shown}): a launcher that dies "
        "with the motor on leaves it running",
        driver,
        found,
        HINT,
    )
