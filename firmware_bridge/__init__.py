"""Host <-> microcontroller: wire protocol codec, host client, MicroPython firmware, emulator."""
