"""The MicroPython firmware for the Pico; logic.py also runs on CPython in the emulator."""
