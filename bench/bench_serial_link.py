"""Serial link speed: command round trips and feed jobs over the emulator's pty, beside 115200 baud.

    python bench/bench_serial_link.py                 # prints a Markdown table
    python bench/bench_serial_link.py --pings 5000 --jobs 2000

Measured through the real host client (``firmware_bridge.client``) and a real
``serial.Serial`` on the emulator's pseudo-terminal (the firmware logic runs in the
emulator's thread, in this same process). A pty moves bytes as fast as the kernel
copies them, so the "wire" column says what the same frames would cost on a real UART
at 115200 baud (10 bits per byte); a Pico's USB CDC link is faster than that UART.

* ``PING`` round trip: one command frame and its reply.
* ``STATUS`` round trip: the longest reply.
* ``FEED n=1`` job: FEED + OK, the card's CARD and DONE events, on a 2000 cards/s mechanism
  (0.5 ms of motor per card): jobs per second end to end.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

from firmware_bridge import protocol
from hardware.mechanism import MechanismParams
from launcher.emu import FAST_FEED, EmuLauncher, open_emulated

BAUD = 115200
BITS_PER_BYTE = 10


def timings(count: int, action: Callable[[], object]) -> list[float]:
    """Seconds per call of ``action``, ``count`` times, after a short warm-up."""
    for _ in range(min(50, count)):
        action()
    out = []
    for _ in range(count):
        start = time.perf_counter()
        action()
        out.append(time.perf_counter() - start)
    return sorted(out)


def wire_ms(*frames: bytes) -> float:
    return sum(len(f) for f in frames) * BITS_PER_BYTE / BAUD * 1000


def row(name: str, samples: list[float], wire: float) -> str:
    median = statistics.median(samples) * 1000
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1000
    rate = 1 / statistics.mean(samples)
    return f"| {name} | {median:.3f} | {p99:.3f} | {rate:,.0f} | {wire:.2f} |"


def sample_frames() -> dict[str, tuple[bytes, ...]]:
    """Typical frames of each exchange, for the wire-time column."""
    status = [("state", "idle"), ("job", 1234), ("want", 3), ("counted", 3), ("total", 5120)]
    status += [("ev", 200), ("fault", "none"), ("motor", 0)]
    feed = [
        ("job", 1234),
        ("n", 1),
        ("max_ms", 1300),
        ("jam_ms", 100),
        ("block_ms", 50),
        ("duty", 100),
    ]
    ok = [("job", 1234), ("dup", 0), ("state", "running"), ("n", 1), ("max_ms", 1300)]
    ok += [("jam_ms", 100), ("block_ms", 50), ("duty", 100)]
    card = [("job", 1234), ("counted", 1), ("total", 5121)]
    return {
        "ping": (protocol.encode("C", 1, "PING"), protocol.encode("R", 1, "PONG")),
        "status": (protocol.encode("C", 1, "STATUS"), protocol.encode("R", 1, "STATUS", status)),
        "feed": (
            protocol.encode("C", 1, "FEED", feed),
            protocol.encode("R", 1, "OK", ok),
            protocol.encode("E", 1, "CARD", card),
            protocol.encode("E", 2, "DONE", card[:2] + [("reason", "count"), ("total", 5121)]),
        ),
    }


def run(pings: int, jobs: int) -> list[str]:
    launcher: EmuLauncher[object] = open_emulated(
        mechanism=MechanismParams(cards_per_second=2000.0, card_transit_ms=0.2), settings=FAST_FEED
    )
    frames = sample_frames()
    with launcher:
        client = launcher.client
        launcher.load(range(jobs + 100))
        lines = [
            row("PING round trip", timings(pings, client.ping), wire_ms(*frames["ping"])),
            row("STATUS round trip", timings(pings, client.status), wire_ms(*frames["status"])),
        ]

        def feed_one() -> object:
            return client.feed(1, max_ms=1300, jam_ms=100, block_ms=50, duty=100)

        lines.append(
            row("FEED n=1 job (0.5 ms motor)", timings(jobs, feed_one), wire_ms(*frames["feed"]))
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pings", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1000)
    args = parser.parse_args()
    lines = run(args.pings, args.jobs)
    python = f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}"
    print(f"Serial link over the emulator's pty ({python})\n")
    print("| exchange | median ms | p99 ms | per second | bytes on a 115200-baud wire, ms |")
    print("|---|---|---|---|---|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
