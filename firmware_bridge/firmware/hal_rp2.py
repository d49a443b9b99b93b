"""The real HAL on a Raspberry Pi Pico (RP2040): pins, PWM, edge interrupts, flash, USB serial.

MicroPython only (``machine``). ``logic.Firmware`` talks to the hardware only through
the methods below; ``firmware_bridge/emulated_hal.py`` is the emulator's twin.
Wiring (change the constants to match your board; ``docs/firmware.md`` has the diagram):

    GP16 -> H-bridge IN1 (PWM)   GP17 -> H-bridge IN2 (held low: one direction only)
    GP15 <- break-beam receiver (open collector; internal pull-up; LOW = beam broken)
    GP14 <- push button to GND (internal pull-up; LOW = pressed)
"""
# ruff: noqa: UP031

import os
import sys
import time

import machine
from machine import PWM, Pin

MOTOR_PWM_PIN = 16
MOTOR_DIR_PIN = 17
BEAM_PIN = 15
BUTTON_PIN = 14
BEAM_BLOCKED_LEVEL = 0  # the receiver pulls low while the beam is broken
BUTTON_PRESSED_LEVEL = 0
PWM_FREQ = 20000  # Hz: above hearing, fine for small DC motors on a DRV8833/TB6612
PROFILE_FILE = "profile.txt"
MAX_QUEUED_EDGES = 64
WATCHDOG_BASE = 0x40058000
WATCHDOG_CTRL_CLEAR = WATCHDOG_BASE + 0x3000  # the atomic clear alias of WATCHDOG_CTRL
WATCHDOG_ENABLE = 0x40000000  # CTRL bit 30: when clear, the countdown is paused
WATCHDOG_SCRATCH4 = WATCHDOG_BASE + 0x1C
# pico-sdk: watchdog_enable() (machine.WDT) writes this to scratch 4, watchdog_reboot()
# (machine.reset(), so mpremote `reset`) writes 0; both survive the watchdog reset.
WATCHDOG_NON_REBOOT_MAGIC = 0x6AB73121


def watchdog_off():
    """Pause an armed watchdog: MicroPython's WDT has no stop(), the RP2040 hardware does.

    main.py calls it when mpremote interrupts the firmware (Ctrl-C), so a copy that
    follows is not cut by a reboot 2 s later (``uno-attack firmware install`` after a job).
    """
    machine.mem32[WATCHDOG_CTRL_CLEAR] = WATCHDOG_ENABLE


def watchdog_timed_out():
    """True if the last watchdog reset was a timeout of an armed WDT, not a requested reboot."""
    return machine.mem32[WATCHDOG_SCRATCH4] & 0xFFFFFFFF == WATCHDOG_NON_REBOOT_MAGIC


def motor_pins_low():
    """Drive both H-bridge inputs low: the very first thing at boot (main.py calls it)."""
    Pin(MOTOR_PWM_PIN, Pin.OUT, value=0)
    Pin(MOTOR_DIR_PIN, Pin.OUT, value=0)


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
        self.edges = []  # (ticks_ms, blocked) appended by the beam interrupt
        self.presses = []  # ticks_ms appended by the button interrupt
        self._out = sys.stdout.buffer

    def button_held(self):
        return self._button.value() == BUTTON_PRESSED_LEVEL

    def start_interrupts(self):
        """Beam edges and button presses are queued by (soft) interrupts, handled by the loop."""
        self._beam.irq(trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, handler=self._on_beam_edge)
        self._button.irq(trigger=Pin.IRQ_FALLING, handler=self._on_button_edge)

    def _on_beam_edge(self, pin):
        if len(self.edges) < MAX_QUEUED_EDGES:
            self.edges.append((time.ticks_ms(), pin.value() == BEAM_BLOCKED_LEVEL))

    def _on_button_edge(self, pin):
        if len(self.presses) < 4:
            self.presses.append(time.ticks_ms())

    # -- the HAL contract (see logic.py) ------------------------------------------------
    def set_motor(self, duty):
        duty = 0 if duty < 0 else 100 if duty > 100 else duty
        self._pwm.duty_u16(duty * 65535 // 100)

    def beam_blocked(self):
        return self._beam.value() == BEAM_BLOCKED_LEVEL

    def write(self, frame):
        try:
            self._out.write(frame)
        except OSError:
            pass  # no host attached: drop, as USB CDC does

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
    def ticks_diff(a, b):
        return time.ticks_diff(a, b)

    @staticmethod
    def ticks_add(a, b):
        return time.ticks_add(a, b)
