"""The real HAL on a Raspberry Pi Pico (RP2040): pins, PWM, edge interrupts, flash, USB serial.

MicroPython only (``machine``). ``logic.Firmware`` talks to the hardware only through
the methods below; ``firmware_bridge/emulated_hal.py`` is the emulator's twin.
Wiring (change the constants to match your board; ``docs/firmware.md`` has the diagram):

    GP16 -> H-bridge IN1 (PWM)   GP17 -> H-bridge IN2 (held low: one direction only)
    GP15 <- break-beam receiver (open collector; internal pull-up; LOW = beam broken)
    GP14 <- push button to GND (internal pull-up; LOW = pressed)
    GP25 -> the on-board LED (ready / firing / fault, ``logic.Firmware.indicator``)
    BUZZER_PIN -> an optional active buzzer (None: no buzzer)
"""
# ruff: noqa: UP031

import os
import sys
import time
from array import array

import logic
import machine
import micropython
from machine import PWM, Pin

MOTOR_PWM_PIN = 16
MOTOR_DIR_PIN = 17
BEAM_PIN = 15
BUTTON_PIN = 14
LED_PIN = 25  # the Pico's on-board LED (a Pico W's LED is on the radio chip: use "LED")
BUZZER_PIN = None  # e.g. 13 for an active buzzer from GP13 to GND
BEAM_BLOCKED_LEVEL = 0  # the receiver pulls low while the beam is broken
BUTTON_PRESSED_LEVEL = 0
PWM_FREQ = 20000  # Hz: above hearing, fine for small DC motors on a DRV8833/TB6612
PROFILE_FILE = "profile.txt"
MAX_QUEUED_EDGES = 64
DEADLINE_POLL_MS = 5  # the timer that enforces the motor's deadline runs this often
WATCHDOG_MS = 2000  # the loop feeds it every few ms; 8388 ms is the RP2040's maximum
WATCHDOG_BASE = 0x40058000
WATCHDOG_CTRL_CLEAR = WATCHDOG_BASE + 0x3000  # the atomic clear alias of WATCHDOG_CTRL
WATCHDOG_ENABLE = 0x40000000  # CTRL bit 30: when clear, the countdown is paused
WATCHDOG_SCRATCH4 = WATCHDOG_BASE + 0x1C
# pico-sdk: watchdog_enable() (machine.WDT) writes this to scratch 4, watchdog_reboot()
# (machine.reset(), so mpremote `reset`) writes 0; both survive the watchdog reset.
WATCHDOG_NON_REBOOT_MAGIC = 0x6AB73121
# Ours: watchdog_off() writes this to scratch 4 when it pauses an armed watchdog (Ctrl-C).
# A hardware reset of any kind rewrites or clears scratch 4 (power-on clears it; pico-sdk's
# watchdog_reboot writes 0; arming the WDT again writes the magic above), so finding it at
# boot means this is a soft reboot (Ctrl-D at the REPL) after a paused watchdog, not a
# timeout: the reset-reason register still names the last *hardware* reset.
WATCHDOG_PAUSED_MARK = 0x50415553  # "PAUS"


def watchdog_off():
    """Pause an armed watchdog: MicroPython's WDT has no stop(), the RP2040 hardware does.

    main.py calls it when mpremote interrupts the firmware (Ctrl-C), so a copy that
    follows is not cut by a reboot 2 s later (``uno-attack firmware install`` after a job).
    """
    machine.mem32[WATCHDOG_CTRL_CLEAR] = WATCHDOG_ENABLE
    machine.mem32[WATCHDOG_SCRATCH4] = WATCHDOG_PAUSED_MARK


def watchdog_timed_out():
    """True if the last watchdog reset was a timeout of an armed WDT, not a requested reboot."""
    return machine.mem32[WATCHDOG_SCRATCH4] & 0xFFFFFFFF == WATCHDOG_NON_REBOOT_MAGIC


def soft_rebooted():
    """True (once) when this start is a soft reboot after watchdog_off(); clears the mark."""
    if machine.mem32[WATCHDOG_SCRATCH4] & 0xFFFFFFFF != WATCHDOG_PAUSED_MARK:
        return False
    machine.mem32[WATCHDOG_SCRATCH4] = 0
    return True


def motor_pins_low():
    """Drive both H-bridge inputs low: the very first thing at boot (main.py calls it)."""
    Pin(MOTOR_PWM_PIN, Pin.OUT, value=0)
    Pin(MOTOR_DIR_PIN, Pin.OUT, value=0)


class EdgeQueue:
    """Pin levels and their times, queued by a hard interrupt and read by the main loop.

    The beam interrupt is hard (it runs at the edge, even while the loop sits in a garbage
    collection or a long C call: a soft one, run between bytecodes, waited 3 ms behind one
    now and then, and the roller ran on past the last card). A hard interrupt may not
    allocate, so the queue is a ring of preallocated arrays, not a list of tuples. One
    writer (the interrupt) moves ``tail``, one reader (the loop) moves ``head``: no lock.
    A full queue drops the new edge, as the list did.
    """

    def __init__(self, size):
        self.size = size + 1  # one slot stays free: head == tail means empty
        self.ms = array("i", [0] * self.size)
        self.us = array("i", [0] * self.size)
        self.level = bytearray(self.size)
        self.head = 0
        self.tail = 0

    def push(self, ms, us, level):
        """In the interrupt: no allocation (ticks are small ints, the slots exist)."""
        tail = self.tail
        after = tail + 1 if tail + 1 < self.size else 0
        if after == self.head:
            return
        self.ms[tail] = ms
        self.us[tail] = us
        self.level[tail] = 1 if level else 0
        self.tail = after

    def pop(self):
        """The oldest ``(ticks_ms, ticks_us, level)``, or None when nothing is queued."""
        head = self.head
        if head == self.tail:
            return None
        edge = (self.ms[head], self.us[head], self.level[head] == 1)
        self.head = head + 1 if head + 1 < self.size else 0
        return edge

    def empty(self):
        return self.head == self.tail

    def count_level(self, level):
        """How many queued edges read ``level`` (call with the interrupts held)."""
        count, index, want = 0, self.head, 1 if level else 0
        while index != self.tail:
            if self.level[index] == want:
                count += 1
            index = index + 1 if index + 1 < self.size else 0
        return count


class Rp2Hal:
    """Pins and services of the Pico, as ``logic.Firmware`` expects them."""

    def __init__(self):
        motor_pins_low()
        self._dir = Pin(MOTOR_DIR_PIN, Pin.OUT, value=0)
        self._pwm = PWM(Pin(MOTOR_PWM_PIN))
        self._pwm.freq(PWM_FREQ)
        self._pwm.duty_u16(0)
        self._beam = Pin(BEAM_PIN, Pin.IN, Pin.PULL_UP)
        self._button = Pin(BUTTON_PIN, Pin.IN, Pin.PULL_UP)
        self._led = Pin(LED_PIN, Pin.OUT, value=0)
        self._buzzer = Pin(BUZZER_PIN, Pin.OUT, value=0) if BUZZER_PIN is not None else None
        self._shown = None
        self.edges = EdgeQueue(MAX_QUEUED_EDGES)  # (ticks_ms, ticks_us, blocked) of the beam
        self.buttons = EdgeQueue(MAX_QUEUED_EDGES)  # (ticks_ms, ticks_us, pressed)
        self._out = sys.stdout.buffer
        self._gate = logic.WriteGate(time.ticks_diff, time.ticks_add)
        self._torn = False  # the last write ended mid-frame (see write)
        self._wdt = None
        self._cause = None
        #: While a FEED runs: after how many more raw leading edges the beam interrupt stops
        #: the motor itself (0 = not armed). The main loop sets it every pass
        #: (:meth:`arm_stop`); the interrupt counts down, so neither a command's decode
        #: (~15 ms) nor a write blocked by a host that does not read (up to 500 ms) lets the
        #: roller run past the count. ``irq_stopped`` says the interrupt stopped it.
        self.stop_after = 0
        self.irq_stopped = False
        #: The instant (ticks_ms) the motor must be off whatever the loop is doing, set by the
        #: loop every pass (``logic.Firmware.stop_deadline``: a silent host, the time bound);
        #: a 5 ms timer enforces it, and ``deadline_stopped`` tells the loop which one it was.
        self.deadline = None
        self.deadline_stopped = None
        self._deadline_timer = None
        self._duty = 0

    def button_held(self):
        return self._button.value() == BUTTON_PRESSED_LEVEL

    def start_interrupts(self):
        """Beam and button levels are queued by hard interrupts on both edges.

        The handlers only read the level and the time (and the beam's stops the motor at
        the count, :meth:`arm_stop`); the main loop filters the beam (``logic.BeamFilter``)
        and debounces the button (``logic.Firmware.on_button``). A hard handler that failed
        could not allocate its traceback without the emergency buffer.
        """
        micropython.alloc_emergency_exception_buf(100)
        both = Pin.IRQ_RISING | Pin.IRQ_FALLING
        self._beam.irq(trigger=both, handler=self._on_beam_edge, hard=True)
        self._button.irq(trigger=both, handler=self._on_button_edge, hard=True)

    def set_deadline(self, at):
        """The motor must be off at ``at`` (ticks_ms), whatever the loop is doing; None: no job.

        A timer checks it every :data:`DEADLINE_POLL_MS` while one is set. It runs while the
        loop sits in a write to a host that does not read (up to 500 ms: MicroPython runs
        pending callbacks while it waits), so a silent host or a time bound stops the motor
        on time. It runs only while a job does, so an idle board sleeps.
        """
        if at is None and self._deadline_timer is not None:
            self._deadline_timer.deinit()
            self._deadline_timer = None
        elif at is not None and self._deadline_timer is None:
            self._deadline_timer = machine.Timer(
                mode=machine.Timer.PERIODIC,
                period=DEADLINE_POLL_MS,
                callback=self._on_deadline_timer,
            )
        self.deadline = at

    def _on_deadline_timer(self, timer):
        at = self.deadline
        if at is None or self.deadline_stopped is not None:
            return
        if time.ticks_diff(time.ticks_ms(), at) >= 0:
            self._pwm.duty_u16(0)
            self.deadline_stopped = at

    def _on_beam_edge(self, pin):
        level = pin.value() == BEAM_BLOCKED_LEVEL
        if level and self.stop_after > 0:
            self.stop_after -= 1
            if self.stop_after == 0:
                self._pwm.duty_u16(0)  # the count is reached (or a glitch: the loop restarts it)
                self.irq_stopped = True
        self.edges.push(time.ticks_ms(), time.ticks_us(), level)

    def _on_button_edge(self, pin):
        pressed = pin.value() == BUTTON_PRESSED_LEVEL
        self.buttons.push(time.ticks_ms(), time.ticks_us(), pressed)

    def show(self, led, buzzer):
        """The LED and the buzzer (pins written only on a change)."""
        shown = (led, buzzer)
        if shown == self._shown:
            return
        self._shown = shown
        self._led.value(1 if led else 0)
        if self._buzzer is not None:
            self._buzzer.value(1 if buzzer else 0)

    def feed_watchdog(self):
        if self._wdt is not None:
            self._wdt.feed()

    # -- the HAL contract (see logic.py) ------------------------------------------------
    def set_motor(self, duty):
        duty = 0 if duty < 0 else 100 if duty > 100 else duty
        self.stop_after = 0
        self.irq_stopped = False
        self.deadline_stopped = None
        if duty == 0:
            self.deadline = None
        self._duty = duty
        self._pwm.duty_u16(duty * 65535 // 100)

    def arm_stop(self, cards):
        """Let the interrupt stop the motor at the ``cards``-th leading edge not yet seen.

        ``cards`` counts from what the loop has filtered; the leading edges still queued
        in :attr:`edges` already happened, so they come off (with the interrupts held, so
        none slips between the count and the arming). None left: stop now.
        """
        state = machine.disable_irq()
        try:
            cards -= self.edges.count_level(True)
            if cards > 0:
                self.stop_after = cards
            elif not self.irq_stopped:
                self.stop_after = 0
                self._pwm.duty_u16(0)
                self.irq_stopped = True
        finally:
            machine.enable_irq(state)

    def disarm_stop(self):
        self.stop_after = 0

    def restore_motor(self):
        """Undo an interrupt stop that turned out to be a beam glitch (the job goes on)."""
        self.set_motor(self._duty)

    def beam_blocked(self):
        return self._beam.value() == BEAM_BLOCKED_LEVEL

    def button_pressed(self):
        return self._button.value() == BUTTON_PRESSED_LEVEL

    def arm_watchdog(self):
        """Arm the 2 s watchdog (once; MicroPython cannot stop it). Before any motor start."""
        if self._wdt is None:
            self._wdt = machine.WDT(timeout=WATCHDOG_MS)

    def watchdog_armed(self):
        return self._wdt is not None

    def write(self, frame):
        """Send a frame; never blocks a loop pass for long while the host does not read."""
        now = time.ticks_ms()
        if not self._gate.open(now):
            return  # the host did not read lately: drop (a STATUS repairs events)
        if self._torn:  # the last frame was cut off: start this one on a line of its own
            frame = b"\n" + frame
        try:
            written = self._out.write(frame)
        except OSError:
            written = None  # no host attached: dropped whole, as USB CDC does
        # A write that timed out (a host that does not read) sent only the start of the frame.
        self._torn = written is not None and written < len(frame)
        self._gate.wrote(now, time.ticks_ms())

    def load_profile(self):
        try:
            with open(PROFILE_FILE) as handle:
                return handle.read().strip()
        except OSError:
            return None

    def save_profile(self, text):
        with open(PROFILE_FILE, "w") as handle:
            handle.write(text)

    def random32(self):
        data = os.urandom(4)
        return data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)

    def reset_cause(self):
        """Read once per boot (the soft-reboot mark is cleared by reading it)."""
        if self._cause is None:
            self._cause = self._read_reset_cause()
        return self._cause

    def _read_reset_cause(self):
        if soft_rebooted():  # Ctrl-D after Ctrl-C: no hardware reset happened
            return "soft"
        cause = machine.reset_cause()
        if cause == getattr(machine, "WDT_RESET", -1):
            # machine.reset() is a watchdog reboot too: only a timeout is a fault
            return "wdt" if watchdog_timed_out() else "requested"
        if cause == getattr(machine, "PWRON_RESET", -1):
            return "power"
        if cause == getattr(machine, "SOFT_RESET", -1):
            return "soft"
        return "unknown"

    @staticmethod
    def ticks_ms():
        return time.ticks_ms()

    @staticmethod
    def ticks_us():
        return time.ticks_us()

    @staticmethod
    def ticks_diff(a, b):
        return time.ticks_diff(a, b)

    @staticmethod
    def ticks_add(a, b):
        return time.ticks_add(a, b)
