"""Draw docs/images/wiring.png: the GPIO launcher's wiring (run: python docs/images/wiring.py).

The pins are those of ``hardware.pinmap.DEFAULT_PINS`` (the defaults of ``gpio://?mock=1``
and of docs/hardware.md's pin table); change both together.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

OUT = Path(__file__).with_name("wiring.png")

# (header pin number, label, wire colour)
HEADER = [
    (1, "3V3", "#d62728"),
    (6, "GND", "#111111"),
    (11, "GPIO17  motor IN1", "#1f77b4"),
    (12, "GPIO18  motor IN2", "#17becf"),
    (13, "GPIO27  beam", "#2ca02c"),
    (15, "GPIO22  button", "#9467bd"),
    (16, "GPIO23  LED", "#ff7f0e"),
    (18, "GPIO24  buzzer", "#8c564b"),
]


def box(ax: plt.Axes, x: float, y: float, w: float, h: float, title: str, colour: str) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.15",
            fc=colour,
            ec="#333333",
            lw=1.5,
        )
    )
    ax.text(x + w / 2, y + h - 0.25, title, ha="center", va="top", fontsize=11, weight="bold")


def wire(ax: plt.Axes, points: list[tuple[float, float]], colour: str, style: str = "-") -> None:
    xs, ys = zip(*points, strict=True)
    ax.plot(xs, ys, color=colour, lw=2.2, ls=style, solid_capstyle="round")


def draw_pi(ax: plt.Axes) -> dict[int, tuple[float, float]]:
    box(ax, 0.3, 1.0, 3.4, 8.6, "Raspberry Pi\n(40-pin header)", "#e8f5e9")
    ends: dict[int, tuple[float, float]] = {}
    for row, (pin, label, colour) in enumerate(HEADER):
        y = 8.2 - row * 0.95
        ax.add_patch(plt.Circle((3.4, y), 0.12, color=colour))
        ax.text(
            3.15,
            y,
            f"pin {pin:>2}  {label}",
            ha="right",
            va="center",
            fontsize=9.5,
            family="monospace",
        )
        ends[pin] = (3.55, y)
    ax.text(3.65, 8.2, "-> sensor VCC", va="center", fontsize=8, color="#d62728")
    ax.text(3.65, 8.2 - 0.95, "-> all GNDs", va="center", fontsize=8)
    return ends


def draw_motor(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 6.2, 6.4, 2.6, 2.6, "H-bridge\n(DRV8833)", "#e3f2fd")
    for pin, y, x_turn, name, up in ((11, 8.0, 4.8, "IN1", True), (12, 7.4, 5.1, "IN2", False)):
        colour = HEADER[[p for p, *_ in HEADER].index(pin)][2]
        wire(ax, [ends[pin], (x_turn, ends[pin][1]), (x_turn, y), (6.2, y)], colour)
        ax.text(6.3, y, name, va="center", fontsize=9)
        pull_down(ax, 5.65, y, up, colour)
    ax.text(6.3, 6.8, "GND  VM", va="center", fontsize=9)
    box(ax, 10.0, 7.2, 2.2, 1.6, "DC motor\n+ roller", "#fff3e0")
    wire(ax, [(8.8, 8.0), (10.0, 8.0)], "#444444")
    wire(ax, [(8.8, 7.6), (10.0, 7.6)], "#444444")
    ax.text(9.4, 8.15, "OUT1/OUT2", ha="center", fontsize=8)
    box(ax, 10.0, 5.0, 2.2, 1.5, "Motor supply\n4.5-6 V", "#fce4ec")
    wire(ax, [(10.0, 5.9), (7.9, 5.9), (7.9, 6.4)], "#d62728")
    ax.text(8.9, 6.0, "+ to VM", ha="center", fontsize=8)


def pull_down(ax: plt.Axes, x: float, y: float, up: bool, colour: str) -> None:
    """A 10k resistor from an H-bridge input to GND, so the motor stays off while pins float."""
    sign = 1 if up else -1
    ax.plot([x, x], [y, y + sign * 0.15], color=colour, lw=1.5)
    bottom = y + sign * 0.15 if up else y - 0.55
    ax.add_patch(plt.Rectangle((x - 0.08, bottom), 0.16, 0.4, fc="white", ec="#333333"))
    end = y + sign * 0.75
    ax.plot([x, x], [y + sign * 0.55, end], color="#111111", lw=1.5)
    ax.plot([x - 0.15, x + 0.15], [end, end], color="#111111", lw=2)
    ax.text(x + 0.15, y + sign * 0.35, "10k to GND", va="center", fontsize=7.5)


def draw_inputs(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 6.2, 3.3, 2.6, 2.2, "IR break-beam\nreceiver", "#e8f5e9")
    wire(ax, [ends[13], (6.2, ends[13][1])], "#2ca02c")
    ax.text(6.3, 4.1, "OUT (low = blocked)", fontsize=8, va="center")
    ax.text(6.3, 3.7, "VCC 3V3, GND", fontsize=8, va="center")
    box(ax, 10.0, 3.3, 2.2, 1.4, "IR emitter\n(across the mouth)", "#e8f5e9")
    wire(ax, [(8.8, 4.0), (10.0, 4.0)], "#bbbbbb", ":")
    ax.text(9.4, 4.1, "beam", ha="center", fontsize=8, color="#777777")
    box(ax, 6.2, 1.7, 2.6, 1.3, "Push button", "#f3e5f5")
    wire(ax, [ends[15], (4.3, ends[15][1]), (4.3, 2.2), (6.2, 2.2)], "#9467bd")
    ax.text(6.3, 1.95, "other leg to GND", fontsize=8, va="center")


def draw_outputs(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 10.0, 1.3, 2.2, 1.3, "LED + 330 R", "#fff8e1")
    wire(ax, [ends[16], (4.0, ends[16][1]), (4.0, 0.7), (11.1, 0.7), (11.1, 1.3)], "#ff7f0e")
    box(ax, 13.0, 1.3, 2.2, 1.3, "Active buzzer\n(via NPN)", "#efebe9")
    wire(ax, [ends[18], (3.8, ends[18][1]), (3.8, 0.4), (14.1, 0.4), (14.1, 1.3)], "#8c564b")


def main() -> None:
    fig, ax = plt.subplots(figsize=(15.5, 9.5), dpi=110)
    ends = draw_pi(ax)
    draw_motor(ax, ends)
    draw_inputs(ax, ends)
    draw_outputs(ax, ends)
    ax.text(
        13.0,
        9.3,
        "All grounds common: Pi GND, H-bridge GND,\nmotor supply -, sensor GND",
        fontsize=10,
        va="top",
        bbox={"fc": "#ffffff", "ec": "#999999"},
    )
    ax.text(
        13.0,
        7.9,
        "Motor supply is separate:\nnever power the motor\nfrom the Pi's 5 V pin",
        fontsize=10,
        va="top",
        bbox={"fc": "#ffebee", "ec": "#c62828"},
    )
    ax.set_xlim(0, 16)
    ax.set_ylim(0, 10)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        "uno-attack GPIO launcher wiring (BCM numbers; gpio://?motor=17,18&beam=27"
        "&button=22&led=23&buzzer=24)",
        fontsize=12,
    )
    fig.tight_layout()
    fig.savefig(OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
