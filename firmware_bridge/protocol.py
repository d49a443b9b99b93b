"""The host <-> launcher wire protocol: one declaration shared by the host and the firmware.

A frame is one printable-ASCII line of at most :data:`MAX_FRAME` bytes::

    <KIND><SEQ> <VERB>[ <key>=<value>]**<CRC>\\n        e.g.  C07 FEED job=12 n=3*CEC7

``KIND`` is ``C`` (command, host -> MCU), ``R`` (reply) or ``E`` (event, MCU -> host);
``SEQ`` is two uppercase hex digits (the command's sequence number, echoed by its
reply; for events the event counter); ``CRC`` is CRC-16/CCITT-FALSE of every byte
before the ``*``, four uppercase hex digits. The full rules (retries, exactly-once,
faults) are in ``docs/protocol.md``.

This module is imported by CPython on the host AND by MicroPython on the Pico, so it
is written in the subset both run: no dataclasses, no typing at run time, no f-strings,
no ``bytes.hex(sep)``, no ``binascii.crc_hqx`` (MicroPython lacks it: the CRC below is
table-driven). ``tests/test_micropython.py`` proves the frames are byte-identical.
"""
# ruff: noqa: UP031  (%-formatting on purpose: the same text runs under MicroPython)

if False:  # for type checkers only; MicroPython has no typing module
    from collections.abc import Mapping, Sequence  # noqa: F401
    from typing import Any  # noqa: F401

PROTOCOL_VERSION = 1
MAX_FRAME = 120  # bytes, including the trailing "\n"

COMMAND = "C"
REPLY = "R"
EVENT = "E"
KINDS = "CRE"

# -- fault codes (latched on the MCU until CLEAR) ----------------------------------------
FAULT_NONE = "none"
FAULT_JAM = "jam"  # cards stopped coming for jam_ms mid-FEED (hopper ran out, or roller slips)
FAULT_BEAM_BLOCKED = "beam_blocked"  # beam blocked longer than block_ms (card stuck in the mouth)
FAULT_MAX_TIME = "max_time"  # a FEED ran max_ms without reaching its count
FAULT_HOST_SILENT = "host_silent"  # no command for HOST_SILENCE_MS while a host job ran
FAULT_WATCHDOG = "watchdog"  # the firmware restarted through its watchdog (latched at boot)
FAULTS = (FAULT_JAM, FAULT_BEAM_BLOCKED, FAULT_MAX_TIME, FAULT_HOST_SILENT, FAULT_WATCHDOG)

# -- why a job ended without a fault (DONE reason=) --------------------------------------
REASON_COUNT = "count"  # FEED counted its n cards
REASON_TIME = "time"  # RUN ran its ms
REASON_STOPPED = "stopped"  # STOP, or a reboot/unplug seen by the host
REASON_EMPTY = "empty"  # FEED saw no card at all within jam_ms: the hopper is empty (no fault)
REASONS = (REASON_COUNT, REASON_TIME, REASON_STOPPED, REASON_EMPTY)

# -- error codes (R ERR code=) -----------------------------------------------------------
ERR_BUSY = "busy"  # another job is running
ERR_FAULT = "fault"  # a fault is latched: CLEAR first (the reply also carries fault=<code>)
ERR_BAD_ARG = "bad_arg"  # a field is missing or malformed (the reply names it: field=<key>)
ERR_UNKNOWN = "unknown"  # the verb is not a command this firmware knows
ERR_STALE = "stale"  # job id older than the last host job: a late duplicate, never run
ERR_REBOOTED = "rebooted"  # FEED/RUN/STOP named a boot id that is not this boot's (reply: boot=)

# -- states -----------------------------------------------------------------------------
STATE_IDLE = "idle"
STATE_RUNNING = "running"
STATE_FAULT = "fault"
JOB_DONE = "done"  # (job state in a duplicate FEED reply)

# -- timing the host and the firmware agree on (milliseconds) ----------------------------
HOST_SILENCE_MS = 500  # firmware: stop and latch host_silent after this long without a command
HOST_KEEPALIVE_MS = 200  # host: send PING or STATUS at least this often while a job runs
BEAT_MS = 250  # firmware: BEAT event period while a job runs
RETRY_MS = (100, 200, 400)  # host: waits before each retransmission; then the link is lost

# -- compiled-in limits: every host parameter is clamped into [lo, hi] ---------------------
# name: (lowest, highest, default when the field is omitted)
LIMITS = {
    "n": (1, 108, 1),  # cards per FEED (a whole deck at most)
    "max_ms": (10, 30000, 10000),  # FEED: longest the motor may run
    "jam_ms": (5, 5000, 1500),  # FEED: no card for this long = jam
    "block_ms": (2, 2000, 500),  # beam blocked this long = card stuck
    "duty": (0, 100, 100),  # motor PWM duty, percent
    "ms": (1, 30000, 1000),  # RUN: open-loop run time
}
MAX_JOB_ID = 65535  # host job ids are 1..MAX_JOB_ID; job 0 = a standalone (button) job
JOB_WINDOW = MAX_JOB_ID // 2  # a job id up to this far behind the last one is stale, not new


def job_is_stale(job_id, last_id):
    """True if ``job_id`` is not newer than ``last_id`` (ids count up and wrap past MAX_JOB_ID).

    A FEED delayed in a buffer can arrive after later jobs ran; it must never run.
    """
    behind = (last_id - job_id) % MAX_JOB_ID
    return 0 < behind <= JOB_WINDOW


MAX_PROFILE_VALUES = 16  # per-mille probabilities in a PROFILE p= list
MAX_PATTERN_CYCLE = 128  # presses in a pattern profile cycle (fires= is a hex bit mask)

# -- the verb table (one declaration, Klipper style) ---------------------------------------
# (kind, verb, field spec). Field spec: space-separated "key=%t", t = u (unsigned decimal),
# s (token), l (comma-separated unsigned decimals); a trailing "?" marks an optional field.
_HELLO_FIELDS = "proto=%u fw=%s boot=%s reset=%s state=%s fault=%s"
MESSAGES = (
    (COMMAND, "HELLO", ""),
    (REPLY, "HELLO", _HELLO_FIELDS),
    (COMMAND, "PING", ""),
    (REPLY, "PONG", ""),
    (COMMAND, "STATUS", ""),
    (REPLY, "STATUS", "state=%s job=%u want=%u counted=%u total=%u ev=%u fault=%s motor=%u"),
    # boot= is REQUIRED on every command that can move a card: a frame sent to an earlier
    # boot (retransmitted across a restart) is refused with ERR rebooted, never run again.
    (COMMAND, "FEED", "job=%u n=%u max_ms=%u? jam_ms=%u? block_ms=%u? duty=%u? boot=%s"),
    (COMMAND, "RUN", "job=%u ms=%u duty=%u? boot=%s"),
    # bare STOP: motor off now, whatever runs. STOP job= boot=: end that job (idempotent).
    (COMMAND, "STOP", "job=%u? boot=%s?"),
    (COMMAND, "CLEAR", ""),
    (COMMAND, "PROFILE", "kind=%s p=%l cycle=%u? fires=%s?"),
    # bring-up check: the pins as the firmware reads them and the beam filter's counters
    (COMMAND, "SELFTEST", ""),
    (
        REPLY,
        "SELFTEST",
        "beam=%s raw=%s button=%u motor=%u wdt=%u glitches=%u host=%u refused=%u",
    ),
    (
        REPLY,
        "OK",
        "job=%u? dup=%u? state=%s? counted=%u? end=%s? n=%u? max_ms=%u? jam_ms=%u? "
        "block_ms=%u? duty=%u? ms=%u?",
    ),
    (REPLY, "ERR", "code=%s fault=%s? field=%s? job=%u? boot=%s?"),
    (EVENT, "BOOT", _HELLO_FIELDS),
    (EVENT, "CARD", "job=%u counted=%u total=%u"),
    (EVENT, "DONE", "job=%u counted=%u reason=%s total=%u"),
    (EVENT, "FAULT", "code=%s job=%u counted=%u total=%u"),
    (EVENT, "PRESS", "press=%u want=%u total=%u"),
    (EVENT, "BEAT", "state=%s job=%u counted=%u total=%u"),
)

# Commands that always execute, even when they repeat the last executed frame
# (they are idempotent). Every other command repeated byte-for-byte gets the cached reply.
ALWAYS_EXECUTE = ("HELLO", "PING", "STATUS", "STOP", "SELFTEST")


def _parse_spec(spec):
    """``"job=%u n=%u?"`` -> ``(("job", "u", True), ("n", "u", False))``."""
    fields = []
    for part in spec.split():
        key, fmt = part.split("=")
        required = not fmt.endswith("?")
        fields.append((key, fmt[1], required))
    return tuple(fields)


FIELDS = {}
for _kind, _verb, _spec in MESSAGES:
    FIELDS[_kind + _verb] = _parse_spec(_spec)


def message_fields(kind, verb):  # type: (str, str) -> tuple | None
    """The declared fields of a message as ``((key, type, required), ...)``, or None if unknown."""
    return FIELDS.get(kind + verb)


# -- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) ------------
def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):  # type: (bytes | bytearray, int) -> int
    """CRC-16/CCITT-FALSE of ``data`` (bytes); ``crc16(b"123456789") == 0x29B1``."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


# -- tokens -------------------------------------------------------------------------------
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_HEX = "0123456789ABCDEF"
_VERB_CHARS = _UPPER + _DIGITS + "_"
_KEY_CHARS = _LOWER + _DIGITS + "_"
_VALUE_CHARS = _UPPER + _LOWER + _DIGITS + "_.,:+-"


def _only(text, allowed):
    for char in text:
        if char not in allowed:
            return False
    return True


def is_verb(text):  # type: (str) -> bool
    return len(text) > 0 and text[0] in _UPPER and _only(text, _VERB_CHARS)


def is_key(text):  # type: (str) -> bool
    return len(text) > 0 and text[0] in _LOWER and _only(text, _KEY_CHARS)


def is_value(text):  # type: (str) -> bool
    return len(text) > 0 and _only(text, _VALUE_CHARS)


def format_value(value):  # type: (object) -> str
    """A field value as wire text: int -> decimal, bool -> 1/0, list/tuple of ints -> "1,2,3"."""
    if value is True or value is False:
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ",".join([format_value(item) for item in value])
    text = str(value)
    if not is_value(text):
        raise ValueError("field value %r is not a token of [A-Za-z0-9_.,:+-]" % (text,))
    return text


# -- encoding -----------------------------------------------------------------------------
def encode(kind, seq, verb, fields=()):  # type: (str, int, str, Sequence[tuple[str, object]]) -> bytes
    """One frame as bytes, ``\\n`` included. ``fields`` is a sequence of (key, value) pairs.

    Raises ValueError for a bad kind, seq, verb, key or value, or a frame over MAX_FRAME.
    """
    if len(kind) != 1 or kind not in KINDS:
        raise ValueError("frame kind %r is not one of C, R, E" % (kind,))
    if not isinstance(seq, int) or seq < 0 or seq > 255:
        raise ValueError("frame seq %r is not 0..255" % (seq,))
    if not is_verb(verb):
        raise ValueError("verb %r is not an uppercase token" % (verb,))
    parts = [kind + _HEX[seq >> 4] + _HEX[seq & 15], verb]
    for key, value in fields:
        if not is_key(key):
            raise ValueError("field key %r is not a lowercase token" % (key,))
        parts.append(key + "=" + format_value(value))
    body = " ".join(parts).encode()
    frame = body + b"*" + _hex4(crc16(body)) + b"\n"
    if len(frame) > MAX_FRAME:
        text = body[:20].decode()
        size = len(frame)
        raise ValueError("frame %s... is %d bytes, over the %d-byte cap" % (text, size, MAX_FRAME))
    return frame


def _hex4(value):
    return "".join([_HEX[(value >> shift) & 15] for shift in (12, 8, 4, 0)]).encode()


def _parse_hex(text, digits, what):
    if len(text) != digits or not _only(text, _HEX):
        raise ValueError("bad %s %r: expected %d uppercase hex digits" % (what, text, digits))
    return int(text, 16)


# -- decoding -----------------------------------------------------------------------------
def decode(line):  # type: (bytes | bytearray) -> tuple[str, int, str, dict[str, str]]
    """``b"C07 FEED job=12 n=3*CEC7\\n"`` -> ``("C", 7, "FEED", {"job": "12", "n": "3"})``.

    The trailing ``\\n`` (and a ``\\r`` before it) is optional. Field values stay text;
    :func:`typed` converts them by the verb table. Raises ValueError naming the reason:
    over-long, non-ASCII/unprintable, bad CRC, bad kind, bad seq, malformed field.
    """
    line = _strip_terminator(bytes(line))
    if len(line) + 1 > MAX_FRAME:
        raise ValueError("frame is %d bytes, over the %d-byte limit" % (len(line) + 1, MAX_FRAME))
    for byte in line:
        if byte < 0x20 or byte > 0x7E:
            raise ValueError("frame has a byte 0x%02X that is not printable ASCII" % byte)
    star = line.rfind(b"*")
    if star < 0:
        raise ValueError("frame has no *CRC")
    body = line[:star]
    crc = _parse_hex(line[star + 1 :].decode(), 4, "CRC")
    if crc16(body) != crc:
        raise ValueError("bad CRC: frame says %04X, computed %04X" % (crc, crc16(body)))
    return _split_body(body.decode())


def _strip_terminator(line):
    if line[-1:] == b"\n":
        line = line[:-1]
    if line[-1:] == b"\r":
        line = line[:-1]
    return line


def _split_body(body):
    parts = body.split(" ")
    head = parts[0]
    if len(head) != 3 or head[0] not in KINDS:
        raise ValueError("bad frame kind %r: expected C, R or E then 2 hex digits" % (head[:1],))
    seq = _parse_hex(head[1:], 2, "seq")
    if len(parts) < 2 or not is_verb(parts[1]):
        raise ValueError("frame has no verb")
    fields = {}
    for part in parts[2:]:
        eq = part.find("=")
        key, value = part[:eq], part[eq + 1 :]
        if eq < 0 or not is_key(key) or not is_value(value):
            raise ValueError("malformed field %r" % (part,))
        if key in fields:
            raise ValueError("field %s given twice" % (key,))
        fields[key] = value
    return head[0], seq, parts[1], fields


class FieldError(ValueError):
    """A missing or malformed field; ``field`` names it (the firmware answers ERR bad_arg)."""

    def __init__(self, message, field):  # type: (str, str) -> None
        super().__init__(message)
        self.field = field


def typed(kind, verb, fields):  # type: (str, str, Mapping[str, str]) -> dict[str, Any]
    """Convert decoded text fields by the verb table: %u -> int, %l -> tuple of ints.

    Raises FieldError (a ValueError with ``.field``) for a missing required field or a value
    of the wrong type. Fields the table does not declare (a newer peer) stay text.
    Unknown messages come back unchanged.
    """
    spec = FIELDS.get(kind + verb)
    if spec is None:
        return dict(fields)
    out = dict(fields)
    for key, fmt, required in spec:
        if key not in fields:
            if required:
                raise FieldError("%s %s: missing field %s" % (kind, verb, key), key)
            continue
        out[key] = _convert(fields[key], fmt, key)
    return out


def _convert(text, fmt, key):
    if fmt == "s":
        return text
    if fmt == "u":
        return _unsigned(text, key)
    return tuple([_unsigned(part, key) for part in text.split(",")])


def _unsigned(text, key):
    if not text or not _only(text, _DIGITS) or len(text) > 9:
        raise FieldError("field %s=%s is not an unsigned decimal number" % (key, text), key)
    return int(text)


def clamp(name, value):  # type: (str, int | None) -> int
    """``value`` clamped to the compiled-in LIMITS of ``name`` (the default when None)."""
    low, high, default = LIMITS[name]
    if value is None:
        return default
    return low if value < low else high if value > high else value


# -- standalone profiles (PROFILE) -----------------------------------------------------------
def per_mille(probabilities):  # type: (Sequence[float]) -> list[int]
    """Probabilities (summing to 1) as whole per-mille values summing to exactly 1000.

    Largest-remainder rounding, so ``[1/3, 1/3, 1/3]`` becomes ``[334, 333, 333]``.
    """
    raw = [p * 1000.0 for p in probabilities]
    out = [int(x) for x in raw]
    # (remainder, index): MicroPython's sort is not stable, so ties break on the index
    order = sorted(range(len(raw)), key=lambda i: (out[i] - raw[i], i))
    for i in order[: 1000 - sum(out)]:
        out[i] += 1
    return out


def fires_mask(fires):  # type: (Sequence[int]) -> str
    """1-based firing press numbers as the PROFILE ``fires=`` hex bit mask (bit i = press i+1)."""
    mask = 0
    for press in fires:
        mask |= 1 << (press - 1)
    return "%X" % mask


def fires_from_mask(text):  # type: (str) -> list[int]
    """The inverse of :func:`fires_mask`."""
    mask = _parse_hex(text, len(text), "fires mask") if text else 0
    out = []
    press = 1
    while mask:
        if mask & 1:
            out.append(press)
        mask >>= 1
        press += 1
    return out


# -- line reassembly ----------------------------------------------------------------------
class LineBuffer:
    """Reassemble frames from a byte stream: ``feed(bytes) -> [line, ...]`` (no ``\\n``).

    Empty lines are skipped; a run of more than MAX_FRAME bytes without a newline
    is garbage (noise, a REPL banner, a lost newline) and is discarded up to the next
    newline, so one bad line never eats the next good frame. ``dropped`` counts them.
    """

    def __init__(self):  # type: () -> None
        self._buf = b""
        self._skipping = False
        self.dropped = 0

    def feed(self, data):  # type: (bytes | bytearray) -> list[bytes]
        lines = []
        buf = self._buf + bytes(data)
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line, buf = buf[:nl], buf[nl + 1 :]
            if self._skipping:
                self._skipping = False
            elif len(line) + 1 > MAX_FRAME:
                self.dropped += 1
            elif line.strip():
                lines.append(line)
        if len(buf) >= MAX_FRAME:
            if not self._skipping:
                self.dropped += 1
            self._skipping = True
            buf = b""
        self._buf = buf
        return lines

    def pending(self):  # type: () -> int
        """Bytes held waiting for a newline (for diagnostics)."""
        return len(self._buf)
