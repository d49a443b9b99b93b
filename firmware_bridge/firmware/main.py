"""Pico entry point: motor pins low first, then boot the firmware and serve USB serial forever.

Copied to the Pico's flash root with protocol.py, logic.py and hal_rp2.py by
``uno-attack firmware install --port PORT``. The loop: read whatever the host sent,
hand complete lines to the firmware, deliver queued beam edges and button presses,
run the timers, feed the watchdog. Ctrl-C from ``mpremote`` stops it (motor off) and
leaves the REPL usable for reflashing.

The watchdog is armed when the first job starts, not at boot, so a board that was just
plugged in lets ``mpremote`` take over the REPL. MicroPython cannot stop an armed WDT, so
a Ctrl-C (mpremote taking over, e.g. to reinstall) pauses it through the hardware register
(``hal_rp2.watchdog_off``); a crash leaves it armed, and the board reboots. Holding the
button while plugging in skips the firmware entirely (maintenance mode).
"""

from machine import Pin

Pin(16, Pin.OUT, value=0)  # motor pins low before anything else can fail or take time
Pin(17, Pin.OUT, value=0)

import select  # noqa: E402
import sys  # noqa: E402

import hal_rp2  # noqa: E402
import logic  # noqa: E402
import protocol  # noqa: E402
from machine import WDT  # noqa: E402

WATCHDOG_MS = 2000  # the loop feeds it every few ms; 8388 ms is the RP2040's maximum
POLL_MS = 1
READ_CHUNK = 64


def read_available(poller, stream):
    """Up to READ_CHUNK bytes that have already arrived, without blocking."""
    data = b""
    while len(data) < READ_CHUNK and poller.poll(0):
        byte = stream.read(1)
        if not byte:
            break
        data += byte
    return data


def deliver_inputs(hal, firmware):
    while hal.edges:
        when, blocked = hal.edges.pop(0)
        firmware.on_beam(blocked, when)
    while hal.presses:
        firmware.on_button(hal.presses.pop(0))


def serve(hal, firmware):
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    lines = protocol.LineBuffer()
    watchdog = None
    while True:
        if watchdog is not None:
            watchdog.feed()
        elif firmware.job is not None:
            watchdog = WDT(timeout=WATCHDOG_MS)
        poller.poll(POLL_MS)
        for line in lines.feed(read_available(poller, stdin)):
            firmware.on_line(line, hal.ticks_ms())
        deliver_inputs(hal, firmware)
        firmware.tick(hal.ticks_ms())


def main():
    hal = hal_rp2.Rp2Hal()
    if hal.button_held():
        return  # maintenance mode: REPL only, motor pins low
    firmware = logic.Firmware(hal)
    try:
        firmware.boot(hal.ticks_ms())
        hal.start_interrupts()
        serve(hal, firmware)
    except KeyboardInterrupt:
        hal_rp2.watchdog_off()  # mpremote takes over the REPL: no reboot in mid-copy
        raise
    finally:
        hal.set_motor(0)


main()
