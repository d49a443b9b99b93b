"""Draw docs/images/wiring.svg: the Pi launcher's wiring (run: python docs/images/make_wiring.py).

Plain SVG written by hand from the tables below, no plotting library: the output depends on
nothing but this file and ``hardware.pinmap.DEFAULT_PINS`` (the pins of docs/hardware.md's
tables), so ``tests/test_hardware_docs.py`` can check that running it reproduces the
committed drawing byte for byte. It shows a DRV8833 with the optional enable monostable
(74HC123) on nSLEEP, every ground on one bus, the bulk and noise capacitors, the IN1/IN2
pull-downs, the IR emitter's own 5 V supply and the receiver's 3V3 pull-up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.pinmap import DEFAULT_PINS  # noqa: E402

OUT = Path(__file__).with_name("wiring.svg")
#: BCM -> physical pin of the 40-pin header (the pins this drawing uses).
HEADER_PIN = {17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 25: 22}
ENABLE_PIN = 25  # the suggested enable line (docs/hardware.md): a pull-down at reset
WIDTH, HEIGHT = 980, 600
GND_Y = 560
COLOURS = {"3v3": "#d62728", "5v": "#e377c2", "gnd": "#111111", "vm": "#ff7f0e", "sig": "#1f77b4"}


def _box(x: int, y: int, w: int, h: int, title: str, lines: list[str]) -> list[str]:
    out = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#f7f7f7" stroke="#333"/>',
        f'<text x="{x + w // 2}" y="{y + 18}" text-anchor="middle" font-weight="bold">'
        f"{escape(title)}</text>",
    ]
    for n, line in enumerate(lines):
        out.append(f'<text x="{x + 8}" y="{y + 38 + 16 * n}">{escape(line)}</text>')
    return out


def _wire(points: list[tuple[int, int]], colour: str, dashed: bool = False) -> str:
    path = " ".join(f"{x},{y}" for x, y in points)
    dash = ' stroke-dasharray="6,4"' if dashed else ""
    return f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'


def _label(x: int, y: int, text: str, anchor: str = "start") -> str:
    return f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="11">{escape(text)}</text>'


def _pi() -> list[str]:
    in1, in2 = DEFAULT_PINS["motor"]
    rows = [
        ("pin 1", "3V3"),
        ("pin 2", "5V"),
        ("pin 6", "GND"),
        (f"pin {HEADER_PIN[in1]}", f"GPIO{in1}  IN1"),
        (f"pin {HEADER_PIN[in2]}", f"GPIO{in2}  IN2"),
        (f"pin {HEADER_PIN[DEFAULT_PINS['beam']]}", f"GPIO{DEFAULT_PINS['beam']}  beam"),
        (f"pin {HEADER_PIN[DEFAULT_PINS['button']]}", f"GPIO{DEFAULT_PINS['button']}  button"),
        (f"pin {HEADER_PIN[DEFAULT_PINS['led']]}", f"GPIO{DEFAULT_PINS['led']}  LED"),
        (f"pin {HEADER_PIN[DEFAULT_PINS['buzzer']]}", f"GPIO{DEFAULT_PINS['buzzer']}  buzzer"),
        (f"pin {HEADER_PIN[ENABLE_PIN]}", f"GPIO{ENABLE_PIN}  enable (opt.)"),
    ]
    return _box(20, 40, 200, 200, "Raspberry Pi header", [f"{a:7} {b}" for a, b in rows])


def render() -> str:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, sans-serif" font-size="12">',
        "<title>uno-attack GPIO launcher wiring (DRV8833, enable monostable optional)</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
    ]
    parts += _pi()
    parts += _box(
        330,
        40,
        190,
        150,
        "DRV8833 breakout",
        [
            "AIN1  <- IN1",
            "AIN2  <- IN2",
            "SLP (nSLEEP)",
            "AOUT1/AOUT2 -> motor",
            "VM    <- supply +",
            "GND",
        ],
    )
    parts += _box(
        330,
        250,
        190,
        110,
        "74HC123 (optional)",
        ["1B  <- GPIO enable", "1A, GND; 1CLR 3V3", "1Q  -> SLP", "Rx 100k, Cx 1uF"],
    )
    parts += _box(620, 40, 160, 90, "DC motor", ["100 nF across", "the terminals"])
    parts += _box(620, 170, 160, 90, "motor supply", ["4.5 V (3 x AA)", "220 uF at VM-GND"])
    parts += _box(
        620, 300, 160, 100, "IR receiver", ["VCC 3V3, GND", "OUT -> beam", "10k pull-up to 3V3"]
    )
    parts += _box(800, 300, 160, 80, "IR emitter", ["VCC 5V, GND", "(no GPIO)"])
    parts += _box(
        20,
        300,
        200,
        110,
        "button, LED, buzzer",
        ["button: GPIO - GND", "LED + 330R to GND", "buzzer via NPN + 1k"],
    )
    in1, in2 = DEFAULT_PINS["motor"]
    row = {
        name: 74 + 16 * n
        for n, name in enumerate(
            ["3v3", "5v", "gnd", "in1", "in2", "beam", "button", "led", "buzzer", "enable"]
        )
    }
    parts += [
        _wire([(220, row["in1"]), (330, 74)], COLOURS["sig"]),
        _wire([(220, row["in2"]), (330, 90)], COLOURS["sig"]),
        _label(330, 30, f"GPIO{in1} / GPIO{in2}: a 10k pull-down to GND on each"),
        _wire(
            [(220, row["enable"]), (290, row["enable"]), (290, 270), (330, 270)],
            COLOURS["sig"],
            dashed=True,
        ),
        _label(296, 262, f"GPIO{ENABLE_PIN}", "end"),
        _wire([(425, 250), (425, 190)], COLOURS["sig"], dashed=True),
        _label(432, 225, "1Q -> SLP (without it: SLP to 3V3)"),
        _wire([(520, 122), (620, 85)], COLOURS["vm"]),
        _label(548, 96, "AOUT1/2"),
        _wire([(520, 138), (620, 215)], COLOURS["vm"]),
        _label(560, 192, "VM"),
        _wire(
            [(220, row["beam"]), (270, row["beam"]), (270, 440), (700, 440), (700, 400)],
            COLOURS["sig"],
        ),
        _label(560, 434, f"GPIO{DEFAULT_PINS['beam']} beam (3V3 logic only)"),
        _wire(
            [(220, row["3v3"]), (250, row["3v3"]), (250, 470), (660, 470), (660, 400)],
            COLOURS["3v3"],
        ),
        _label(480, 464, "3V3: receiver VCC and pull-up"),
        _wire(
            [(220, row["5v"]), (240, row["5v"]), (240, 500), (880, 500), (880, 380)], COLOURS["5v"]
        ),
        _label(700, 494, "5V: IR emitter only"),
        _wire([(20, row["gnd"]), (10, row["gnd"]), (10, GND_Y)], COLOURS["gnd"]),
        _wire([(10, GND_Y), (WIDTH - 10, GND_Y)], COLOURS["gnd"]),
        _label(
            WIDTH // 2,
            GND_Y + 20,
            "one ground bus: Pi GND, DRV8833 GND, supply -, "
            "capacitor -, receiver, emitter, button, 74HC123",
            "middle",
        ),
        _wire([(520, 154), (545, 154), (545, GND_Y)], COLOURS["gnd"]),
        _wire([(780, 215), (790, 215), (790, GND_Y)], COLOURS["gnd"]),
    ]
    for x, top in ((120, 410), (470, 360), (740, 400), (930, 380)):
        parts.append(_wire([(x, top), (x, GND_Y)], COLOURS["gnd"]))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
