"""Pico entry point: motor pins low first, then boot the firmware and serve USB serial forever.

Copied to the Pico's flash root with protocol.py, logic.py and hal_rp2.py by
``uno-attack firmware install --port PORT``. The loop: read whatever the host sent,
hand complete lines to the firmware, pass queued beam levels through the glitch filter
and button levels to the debounce, run the timers, show the LED, feed the watchdog.
Ctrl-C from ``mpremote`` stops it (motor off) and leaves the REPL usable for reflashing.

The watchdog is armed by the firmware right before the first motor start (``hal.arm_watchdog``),
not at boot, so a board that was just plugged in lets ``mpremote`` take over the REPL.
MicroPython cannot stop an armed WDT, so a Ctrl-C (mpremote taking over, e.g. to reinstall)
pauses it through the hardware register (``hal_rp2.watchdog_off``), which also marks the
next start as a soft reboot; a crash leaves it armed, and the board reboots. Holding the
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
    """Queued beam levels through the glitch filter, button levels to the debounce."""
    beam = firmware.beam_filter
    while hal.edges:
        when, us, blocked = hal.edges.pop(0)
        for settled, at in beam.raw_edge(blocked, when, us):
            firmware.on_beam(settled, at)
    for settled, at in beam.poll(hal.ticks_us()):
        firmware.on_beam(settled, at)
    while hal.buttons:
        when, pressed = hal.buttons.pop(0)
        firmware.on_button(pressed, when)


def arm_final_card(hal, firmware):
    """Let the beam interrupt stop the motor on the last card of a FEED (no loop latency).

    If the edge that stopped it was a glitch (the filter settled back to clear and the job
    still runs), the motor goes on at its duty.
    """
    job = firmware.job
    running = job is not None and not job.waiting and job.mode == logic.FEED
    if hal.irq_stopped:
        beam = firmware.beam_filter
        if running and not beam.level and not beam.raw:
            hal.restore_motor()
        return
    hal.final_card_armed = running and job.counted + 1 >= job.want


def serve(hal, firmware):
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    lines = protocol.LineBuffer()
    while True:
        hal.feed_watchdog()
        poller.poll(POLL_MS)
        for line in lines.feed(read_available(poller, stdin)):
            firmware.on_line(line, hal.ticks_ms())
            deliver_inputs(hal, firmware)  # a command takes ~15 ms: never let a card wait
            arm_final_card(hal, firmware)
        deliver_inputs(hal, firmware)
        now = hal.ticks_ms()
        firmware.tick(now)
        arm_final_card(hal, firmware)
        led, buzzer = firmware.indicator(now)
        hal.show(led, buzzer)


def main():
    hal = hal_rp2.Rp2Hal()
    if hal.button_held():
        return  # maintenance mode: REPL only, motor pins low
    firmware = logic.Firmware(hal)
    try:
        firmware.boot(hal.ticks_ms())
        firmware.beam_filter = logic.BeamFilter(
            hal, hal.beam_blocked(), hal.ticks_ms(), hal.ticks_us()
        )
        hal.start_interrupts()
        serve(hal, firmware)
    except KeyboardInterrupt:
        hal_rp2.watchdog_off()  # mpremote takes over the REPL: no reboot in mid-copy
        raise
    finally:
        hal.set_motor(0)


main()
