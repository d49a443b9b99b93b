"""Draw docs/images/wiring.png: the GPIO launcher's wiring (run: python docs/images/wiring.py).

The pins are those of ``hardware.pinmap.DEFAULT_PINS`` (the defaults of ``gpio://?mock=1``
and of docs/hardware.md's pin table); change both together. The drawing shows every
ground and supply negative on one ground bus, the H-bridge's sleep/standby pin held high,
the IR emitter's own power, the bulk capacitor at the motor supply, the external 10 kOhm
beam pull-up, and (inset) the Schottky diode a Pico needs with a battery on VSYS.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

OUT = Path(__file__).with_name("wiring.png")
GND_Y = 0.6  # the ground bus
RED, BLACK, GREY = "#d62728", "#111111", "#777777"

# (header pin number, label, wire colour)
HEADER = [
    (1, "3V3", RED),
    (2, "5V", "#ff1493"),
    (6, "GND", BLACK),
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
    ax.text(x + w / 2, y + h - 0.2, title, ha="center", va="top", fontsize=10.5, weight="bold")


def wire(ax: plt.Axes, points: list[tuple[float, float]], colour: str, style: str = "-") -> None:
    xs, ys = zip(*points, strict=True)
    ax.plot(xs, ys, color=colour, lw=2.0, ls=style, solid_capstyle="round")


def label(ax: plt.Axes, x: float, y: float, text: str, **kw: object) -> None:
    ax.text(x, y, text, fontsize=8, va="center", **kw)  # type: ignore[arg-type]


def ground(ax: plt.Axes, x: float, y: float) -> None:
    """A drop from (x, y) to the ground bus."""
    wire(ax, [(x, y), (x, GND_Y)], BLACK)
    ax.add_patch(plt.Circle((x, GND_Y), 0.06, color=BLACK))


def earth(ax: plt.Axes, x: float, y: float) -> None:
    """A ground symbol: the same ground bus, drawn locally to keep the drawing readable."""
    for i, half in enumerate((0.18, 0.11, 0.04)):
        yy = y - i * 0.07
        ax.plot([x - half, x + half], [yy, yy], color=BLACK, lw=1.8)


def resistor(ax: plt.Axes, x: float, y0: float, y1: float, text: str) -> None:
    """A vertical resistor between y0 and y1 at x."""
    mid = (y0 + y1) / 2
    wire(ax, [(x, y0), (x, mid - 0.2)], BLACK)
    ax.add_patch(plt.Rectangle((x - 0.08, mid - 0.2), 0.16, 0.4, fc="white", ec="#333333"))
    wire(ax, [(x, mid + 0.2), (x, y1)], BLACK)
    label(ax, x + 0.14, mid, text)


def capacitor(ax: plt.Axes, x: float, y0: float, y1: float, text: str) -> None:
    mid = (y0 + y1) / 2
    wire(ax, [(x, y0), (x, mid - 0.07)], BLACK)
    wire(ax, [(x, mid + 0.07), (x, y1)], BLACK)
    for dy in (-0.07, 0.07):
        ax.plot([x - 0.18, x + 0.18], [mid + dy, mid + dy], color=BLACK, lw=2.2)
    label(ax, x + 0.22, mid, text)


def draw_pi(ax: plt.Axes) -> dict[int, tuple[float, float]]:
    box(ax, 0.3, 1.4, 3.5, 8.7, "Raspberry Pi\n(40-pin header, BCM)", "#e8f5e9")
    ends: dict[int, tuple[float, float]] = {}
    for row, (pin, text, colour) in enumerate(HEADER):
        y = 8.9 - row * 0.85
        ax.add_patch(plt.Circle((3.55, y), 0.11, color=colour))
        ax.text(
            3.3, y, f"pin {pin:>2}  {text}", ha="right", va="center", fontsize=9, family="monospace"
        )
        ends[pin] = (3.66, y)
    return ends


def draw_rails(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    """3V3 and 5V rails along the top; the ground bus along the bottom."""
    wire(ax, [ends[1], (4.1, ends[1][1]), (4.1, 10.4), (15.6, 10.4)], RED)
    label(ax, 15.65, 10.4, "3V3 rail", color=RED)
    wire(ax, [ends[2], (4.3, ends[2][1]), (4.3, 10.15), (15.6, 10.15)], "#ff1493")
    label(ax, 15.65, 10.15, "5V rail", color="#ff1493")
    wire(ax, [ends[6], (4.5, ends[6][1]), (4.5, GND_Y)], BLACK)
    wire(ax, [(4.5, GND_Y), (19.6, GND_Y)], BLACK)
    ax.text(
        11.5,
        GND_Y - 0.3,
        "ONE GROUND BUS (and every ground symbol is on it): Pi GND, H-bridge GND, motor "
        "supply -, bulk capacitor -, IR receiver GND, IR emitter GND, button, LED, buzzer",
        ha="center",
        va="center",
        fontsize=9,
        weight="bold",
    )


def draw_bridge(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 7.0, 6.3, 3.0, 3.3, "H-bridge\nDRV8833", "#e3f2fd")
    rows = {"IN1": 8.5, "IN2": 8.0, "nSLEEP": 7.5, "GND": 7.0, "VM": 6.6}
    for name, y in rows.items():
        label(ax, 7.1, y, name)
    for pin, name, x_turn, x_res in ((11, "IN1", 5.0, 6.3), (12, "IN2", 5.3, 6.7)):
        colour = HEADER[[p for p, *_ in HEADER].index(pin)][2]
        y = rows[name]
        wire(ax, [ends[pin], (x_turn, ends[pin][1]), (x_turn, y), (7.0, y)], colour)
        resistor(ax, x_res, y, y - 1.0 - (x_res - 6.3) * 1.2, "")  # pull-down: motor off
        earth(ax, x_res, y - 1.0 - (x_res - 6.3) * 1.2)
    label(ax, 5.6, 6.3, "10k pull-downs on\nIN1 and IN2", ha="left")
    wire(ax, [(7.0, rows["nSLEEP"]), (5.9, rows["nSLEEP"]), (5.9, 10.4)], RED)
    label(
        ax, 7.05, 9.85, "nSLEEP/EEP tied HIGH (3V3 rail):\nlow or floating = outputs off", color=RED
    )
    wire(ax, [(7.0, rows["GND"]), (6.95, rows["GND"])], BLACK)
    earth(ax, 6.95, rows["GND"] - 0.02)
    box(ax, 11.6, 7.6, 2.4, 1.6, "DC motor\n+ roller", "#fff3e0")
    wire(ax, [(10.0, 8.5), (11.6, 8.5)], "#444444")
    wire(ax, [(10.0, 8.0), (11.6, 8.0)], "#444444")
    label(ax, 10.1, 8.75, "OUT1 / OUT2")
    capacitor(ax, 12.8, 7.6, 7.05, "")
    label(ax, 13.05, 7.3, "100 nF at the motor")
    wire(ax, [(12.8, 7.05), (12.8, 7.0)], "#444444")
    ax.text(
        8.5,
        5.95,
        "TB6612FNG instead: AIN1/AIN2 = IN1/IN2,\nPWMA, STBY and VCC to 3V3, VM to supply",
        ha="center",
        va="top",
        fontsize=8,
        bbox={"fc": "#ffffff", "ec": "#1f77b4"},
    )


def draw_supply(ax: plt.Axes) -> None:
    box(ax, 15.2, 6.3, 2.6, 2.4, "Motor supply\n4.5-6 V\n(not the Pi's 5V)", "#fce4ec")
    wire(ax, [(15.2, 7.2), (14.6, 7.2), (14.6, 6.6), (10.0, 6.6)], RED)
    label(ax, 14.0, 6.45, "+ to VM", color=RED)
    capacitor(ax, 14.6, 6.6, 5.5, "bulk 220 uF\nacross VM-GND")
    ground(ax, 14.6, 5.5)
    wire(ax, [(16.5, 6.3), (16.5, 5.8)], BLACK)
    ground(ax, 16.5, 5.8)
    label(ax, 16.6, 6.0, "supply -")


def draw_beam(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 7.0, 3.2, 3.0, 2.2, "IR receiver", "#e8f5e9")
    y_out = ends[13][1]
    wire(ax, [ends[13], (5.6, y_out), (5.6, 4.6), (7.0, 4.6)], "#2ca02c")
    label(ax, 7.1, 4.6, "OUT (low = blocked)")
    resistor(ax, 6.6, 4.6, 5.6, "")
    ax.text(6.6, 5.7, "3V3", ha="center", va="bottom", fontsize=8, color=RED)
    label(ax, 5.7, 5.25, "10k\npull-up", ha="right")
    label(ax, 7.1, 4.1, "VCC: 3V3 (never 5 V\non a GPIO)")
    label(ax, 7.1, 3.5, "GND")
    wire(ax, [(7.0, 3.5), (6.8, 3.5), (6.8, 3.3)], BLACK)
    earth(ax, 6.8, 3.3)
    box(ax, 11.6, 3.2, 2.6, 2.2, "IR emitter\n(across the mouth)", "#e8f5e9")
    wire(ax, [(10.0, 4.3), (11.6, 4.3)], "#bbbbbb", ":")
    label(ax, 10.4, 4.45, "beam", color=GREY)
    wire(ax, [(14.2, 4.6), (15.0, 4.6), (15.0, 10.15)], "#ff1493")
    label(ax, 15.05, 4.9, "emitter VCC: 5V rail\n(its own power: no beam,\nno cards counted)")
    wire(ax, [(14.2, 3.5), (14.5, 3.5)], BLACK)
    ground(ax, 14.5, 3.5)


def draw_user_io(ax: plt.Axes, ends: dict[int, tuple[float, float]]) -> None:
    box(ax, 7.0, 1.4, 2.2, 1.3, "Push button", "#f3e5f5")
    y = ends[15][1]
    wire(ax, [ends[15], (5.2, y), (5.2, 2.2), (7.0, 2.2)], "#9467bd")
    wire(ax, [(9.2, 2.0), (9.5, 2.0)], BLACK)
    ground(ax, 9.5, 2.0)
    label(ax, 7.1, 1.7, "to GND (internal pull-up)")
    box(ax, 10.2, 1.4, 2.0, 1.3, "LED + 330 R", "#fff8e1")
    wire(ax, [ends[16], (4.8, ends[16][1]), (4.8, 1.15), (10.6, 1.15), (10.6, 1.4)], "#ff7f0e")
    ground(ax, 11.8, 1.4)
    box(ax, 12.8, 1.4, 2.3, 1.3, "Active buzzer\nvia NPN + 1k", "#efebe9")
    wire(ax, [ends[18], (4.65, ends[18][1]), (4.65, 1.0), (13.2, 1.0), (13.2, 1.4)], "#8c564b")
    ground(ax, 14.7, 1.4)


def draw_pico_inset(ax: plt.Axes) -> None:
    box(ax, 18.1, 2.0, 3.6, 6.4, "Pico variant:\nbattery AND USB", "#f1f8e9")
    lines = [
        "battery + ->|- VSYS (pin 39)",
        "   Schottky, e.g. 1N5817,",
        "   anode at the battery",
        "battery - -> GND (pin 38)",
        "",
        "USB VBUS already reaches",
        "VSYS through the Pico's",
        "own diode; without the",
        "Schottky the battery and",
        "USB feed each other.",
        "",
        "Motor supply, H-bridge,",
        "beam: as on the Pi; one",
        "ground bus again.",
    ]
    for row, text in enumerate(lines):
        ax.text(18.25, 7.3 - row * 0.36, text, fontsize=8, family="monospace", va="center")


def main() -> None:
    fig, ax = plt.subplots(figsize=(19, 9.8), dpi=100)
    ends = draw_pi(ax)
    draw_rails(ax, ends)
    draw_bridge(ax, ends)
    draw_supply(ax)
    draw_beam(ax, ends)
    draw_user_io(ax, ends)
    draw_pico_inset(ax)
    ax.set_xlim(0, 22)
    ax.set_ylim(0, 10.9)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        "uno-attack GPIO launcher wiring (gpio://?motor=17,18&beam=27&button=22&led=23"
        "&buzzer=24&beam_pull=none)",
        fontsize=12,
    )
    fig.tight_layout()
    fig.savefig(OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
