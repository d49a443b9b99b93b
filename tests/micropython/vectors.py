# Codec test vectors. Runs under CPython and under MicroPython; the printed lines must match.
# Written in the MicroPython subset (no f-strings, no dict-order reliance: items are sorted).
import protocol as P


def show(value):
    print(repr(value))


def decoded(frame):
    kind, seq, verb, fields = P.decode(frame)
    return (kind, seq, verb, sorted(fields.items()))


show(P.crc16(b"123456789"))
show(P.crc16(b""))
show(P.crc16(bytes(range(256))))
show(P.crc16(b"C07 FEED job=12 n=3"))

VECTORS = [
    ("C", 0, "HELLO", []),
    ("C", 7, "FEED", [("job", 12), ("n", 3), ("boot", "0A0B0C0D")]),
    ("C", 8, "RUN", [("job", 13), ("ms", 300), ("boot", "0A0B0C0D")]),
    ("C", 9, "STOP", [("job", 13), ("boot", "0A0B0C0D")]),
    ("C", 10, "STOP", []),
    (
        "C",
        255,
        "FEED",
        [
            ("job", 65535),
            ("n", 108),
            ("max_ms", 30000),
            ("jam_ms", 5000),
            ("block_ms", 2000),
            ("duty", 100),
            ("boot", "FFFFFFFF"),
        ],
    ),
    ("C", 16, "PROFILE", [("kind", "iid"), ("p", [450, 165, 165, 80, 80, 12, 12, 12, 12, 12])]),
    (
        "C",
        17,
        "PROFILE",
        [
            ("kind", "pattern"),
            ("cycle", 96),
            ("fires", "989911922324C91896911122"),
            ("p", [0, 0, 0, 167, 167, 167, 167, 166, 166]),
        ],
    ),
    (
        "R",
        1,
        "HELLO",
        [
            ("proto", 1),
            ("fw", "0.1.0"),
            ("boot", "DEADBEEF"),
            ("reset", "power"),
            ("state", "idle"),
            ("fault", "none"),
        ],
    ),
    ("R", 2, "OK", [("job", 3), ("dup", 1), ("state", "done"), ("counted", 2), ("end", "count")]),
    ("R", 3, "ERR", [("code", "fault"), ("fault", "beam_blocked")]),
    (
        "R",
        4,
        "STATUS",
        [
            ("state", "running"),
            ("job", 9),
            ("want", 4),
            ("counted", 1),
            ("total", 77),
            ("ev", 200),
            ("fault", "none"),
            ("motor", True),
        ],
    ),
    (
        "E",
        0,
        "BOOT",
        [
            ("proto", 1),
            ("fw", "0.1.0"),
            ("boot", "0000ABCD"),
            ("reset", "wdt"),
            ("state", "fault"),
            ("fault", "watchdog"),
        ],
    ),
    ("E", 128, "CARD", [("job", 1), ("counted", 1), ("total", 1)]),
    ("C", 18, "SELFTEST", []),
    (
        "R",
        18,
        "SELFTEST",
        [
            ("beam", "clear"),
            ("raw", "blocked"),
            ("button", 0),
            ("motor", 0),
            ("wdt", 1),
            ("glitches", 3),
            ("host", 1),
            ("refused", 0),
        ],
    ),
    ("E", 254, "FAULT", [("code", "host_silent"), ("job", 1), ("counted", 0), ("total", 5)]),
    ("E", 9, "X_Y", [("weird", "a.b,c:d+e-f_g")]),
]
for kind, seq, verb, fields in VECTORS:
    frame = P.encode(kind, seq, verb, fields)
    show(frame)
    show(decoded(frame))
    typed = P.typed(kind, verb, P.decode(frame)[3])
    show(sorted(typed.items()))

BAD = [
    b"C07 FEED job=12 n=3*CEC8",
    b"C07 FEED job=12 n=3",
    b"Z07 PING*0000",
    b"C01 PING \x01*0000",
    b"C01 PING " + b"x" * 130 + b"*0000",
    b"c07 feed*0000",
]
for line in BAD:
    try:
        P.decode(line)
        show("accepted")
    except ValueError:
        show("ValueError")

for kind, seq, verb, fields in [
    ("Q", 1, "PING", []),
    ("C", 300, "PING", []),
    ("C", 1, "PING", [("k", "a b")]),
]:
    try:
        P.encode(kind, seq, verb, fields)
        show("accepted")
    except ValueError:
        show("ValueError")

try:
    P.typed("C", "FEED", {"job": "1"})
except P.FieldError as error:
    show(error.field)

buffer = P.LineBuffer()
stream = (
    b"noise\n"
    + P.encode("R", 1, "PONG")
    + b"y" * 200
    + b"\n"
    + P.encode("E", 2, "PRESS", [("press", 1), ("want", 2), ("total", 3)])
)
for size in (1, 3, 7, 50):
    buffer = P.LineBuffer()
    lines = []
    for start in range(0, len(stream), size):
        lines += buffer.feed(stream[start : start + size])
    show((size, lines, buffer.dropped))

show(P.per_mille([1 / 3, 1 / 3, 1 / 3]))
show(P.per_mille([0.45, 0.165, 0.165, 0.08, 0.08, 0.012, 0.012, 0.012, 0.012, 0.012]))
show(P.per_mille([0.0, 0.0, 0.0, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6]))
show(P.fires_mask([2, 6, 9, 13, 96]))
show(P.fires_from_mask("80000000000000000001122"))
show([P.clamp("n", 0), P.clamp("n", 500), P.clamp("duty", None)])
print("END")
