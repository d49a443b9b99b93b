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
    """Queued beam levels through the glitch filter, button levels to the debounce.

    Until nothing is left: a card's ``CARD`` write can block for up to 500 ms (a host that
    does not read) while the next edges queue, and the timers that run after this (a beam
    blocked too long, a jam) must see every edge that happened before they look.
    """
    beam, edges = firmware.beam_filter, hal.edges
    while True:
        edge = edges.pop()
        while edge is not None:
            when, us, blocked = edge
            for settled, at in beam.raw_edge(blocked, when, us):
                firmware.on_beam(settled, at)
            edge = edges.pop()
        settled_now = beam.poll(hal.ticks_us())
        for settled, at in settled_now:
            firmware.on_beam(settled, at)
        if not settled_now and edges.empty():
            break
    press = hal.buttons.pop()
    while press is not None:
        firmware.on_button(press[2], press[0])
        press = hal.buttons.pop()


def arm_stop(hal, firmware):
    """Keep the beam interrupt's countdown to the end of a FEED true (no loop latency).

    Each pass, the interrupt is told how many more cards end the job: the job's count less
    what the filter has seen (a leading edge it has not settled yet included). So the motor
    stops on the last card's raw leading edge however long the loop was busy, decoding a
    command or blocked in a write. If the edge that stopped it was a glitch (the filter
    settled back to clear, nothing is queued, the job still runs), the motor goes on at its
    duty. Only then: an edge still queued, or one the filter has not settled, is no proof of
    a glitch (restarting on it, firmware 0.2.0 ran the roller on until the loop counted the
    card, and at 50 cards/s one more card now and then came out uncounted).
    """
    job = firmware.job
    running = job is not None and not job.waiting and job.mode == logic.FEED
    beam = firmware.beam_filter
    unsettled = 1 if beam.raw and not beam.level else 0  # a leading edge still in the filter
    if hal.irq_stopped:
        if not (running and hal.edges.empty() and not unsettled and not beam.level):
            return  # stopped on a card the loop has yet to count, or the job is over
        hal.restore_motor()  # it was a glitch
    if running:
        hal.arm_stop(job.want - job.counted - unsettled)
    else:
        hal.disarm_stop()


def enforce_deadline(hal, firmware):
    """The timer stopped the motor at a deadline: run the job's timers at that instant.

    What happened before it (queued edges) first; then the fault the deadline stands for
    latches (``host_silent``, ``max_time``) or a RUN ends, dated when the motor stopped.
    Should the job still run (a deadline that moved meanwhile), the motor goes on.
    """
    at = hal.deadline_stopped
    if at is None:
        return
    deliver_inputs(hal, firmware)
    firmware.tick(at)
    if hal.deadline_stopped is None:
        return  # the job ended: its fault or end is latched, the motor stays off
    hal.deadline_stopped = None
    job = firmware.job
    if job is not None and not job.waiting and not hal.irq_stopped:
        hal.restore_motor()


def set_deadline(hal, firmware):
    """Tell the timer the running job's deadline (after every pass that may have moved it)."""
    if hal.deadline_stopped is None:
        hal.set_deadline(firmware.stop_deadline())


def serve(hal, firmware):
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    lines = protocol.LineBuffer()
    while True:
        hal.feed_watchdog()
        poller.poll(POLL_MS)
        enforce_deadline(hal, firmware)
        for line in lines.feed(read_available(poller, stdin)):
            deliver_inputs(hal, firmware)  # what happened before the line comes first
            firmware.on_line(line, hal.ticks_ms())
            deliver_inputs(hal, firmware)  # a command takes ~15 ms: never let a card wait
            arm_stop(hal, firmware)
            set_deadline(hal, firmware)
        deliver_inputs(hal, firmware)
        now = hal.ticks_ms()
        firmware.tick(now)
        arm_stop(hal, firmware)
        set_deadline(hal, firmware)
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
        hal.set_deadline(None)


main()
