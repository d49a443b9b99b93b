"""The wire codec: CRC, framing, the verb table, line reassembly (firmware_bridge/protocol.py)."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol as P

TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:+-"
keys = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
values = st.one_of(st.integers(0, 10**6), st.text(TOKEN_CHARS, min_size=1, max_size=8))
verbs = st.from_regex(r"[A-Z][A-Z0-9_]{0,6}", fullmatch=True)


def test_crc_check_value_is_ccitt_false() -> None:
    assert P.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=200))
def test_crc_equals_cpython_crc_hqx(data: bytes) -> None:
    assert P.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_encode_known_frame() -> None:
    frame = P.encode("C", 7, "FEED", [("job", 12), ("n", 3)])
    assert frame == b"C07 FEED job=12 n=3*CEC7\n"
    assert P.crc16(b"C07 FEED job=12 n=3") == 0xCEC7


@given(
    st.sampled_from("CRE"),
    st.integers(0, 255),
    verbs,
    st.lists(st.tuples(keys, values), max_size=6, unique_by=lambda kv: kv[0]),
)
def test_encode_decode_round_trip(
    kind: str, seq: int, verb: str, fields: list[tuple[str, object]]
) -> None:
    try:
        frame = P.encode(kind, seq, verb, fields)
    except ValueError:
        return  # over MAX_FRAME: refused at the source, never sent
    assert len(frame) <= P.MAX_FRAME and frame.endswith(b"\n")
    assert all(0x20 <= b <= 0x7E for b in frame[:-1])
    assert P.decode(frame) == (kind, seq, verb, {k: str(v) for k, v in fields})


@given(st.binary(min_size=1, max_size=40), st.integers(0, 10))
def test_any_single_byte_change_is_rejected(noise: bytes, where: int) -> None:
    frame = bytearray(P.encode("R", 0x1F, "STATUS", [("state", "idle"), ("total", 42)]))
    index = where % (len(frame) - 1)
    replacement = noise[0] if noise[0] != frame[index] else frame[index] ^ 0x01
    frame[index] = replacement
    with pytest.raises(ValueError):
        P.decode(bytes(frame))


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"C07 FEED job=12 n=3*CEC8\n", "bad CRC"),
        (b"C07 FEED job=12 n=3*cec7\n", "uppercase hex"),
        (b"C07 FEED job=12 n=3\n", r"no \*CRC"),
        (b"X07 PING*" + b"%04X" % P.crc16(b"X07 PING") + b"\n", "kind"),
        (b"C7 PING*" + b"%04X" % P.crc16(b"C7 PING") + b"\n", "kind"),
        (b"C0G PING*" + b"%04X" % P.crc16(b"C0G PING") + b"\n", "seq"),
        (b"C01 PING \xe9*0000\n", "printable ASCII"),
        (b"C01 PING x" + b"y" * 130 + b"*0000\n", "over the"),
        (b"C01 PING a=*" + b"%04X" % P.crc16(b"C01 PING a=") + b"\n", "malformed field"),
        (b"C01 PING a=1 a=2*" + b"%04X" % P.crc16(b"C01 PING a=1 a=2") + b"\n", "twice"),
    ],
)
def test_decode_rejects_with_a_reason(line: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        P.decode(line)


def test_decode_tolerates_crlf_and_missing_newline() -> None:
    frame = P.encode("E", 3, "CARD", [("job", 1), ("counted", 1), ("total", 9)])
    expected = ("E", 3, "CARD", {"job": "1", "counted": "1", "total": "9"})
    assert P.decode(frame[:-1] + b"\r\n") == expected
    assert P.decode(frame[:-1]) == expected


@pytest.mark.parametrize(
    ("kind", "seq", "verb", "fields"),
    [
        ("Q", 1, "PING", []),
        ("C", 256, "PING", []),
        ("C", -1, "PING", []),
        ("C", 1, "ping", []),
        ("C", 1, "PING", [("Bad", 1)]),
        ("C", 1, "PING", [("k", "two words")]),
        ("C", 1, "PING", [("k", "")]),
        ("C", 1, "PING", [("k", "x" * 120)]),
    ],
)
def test_encode_refuses_what_could_not_be_decoded(
    kind: str, seq: int, verb: str, fields: list
) -> None:
    with pytest.raises(ValueError):
        P.encode(kind, seq, verb, fields)


def test_values_format_bools_and_lists() -> None:
    frame = P.encode("C", 0, "PROFILE", [("kind", "iid"), ("p", [500, 500]), ("x", True)])
    assert frame.startswith(b"C00 PROFILE kind=iid p=500,500 x=1*")


# -- the verb table ------------------------------------------------------------------------
def test_every_message_has_a_unique_declaration() -> None:
    keys_seen = [kind + verb for kind, verb, _ in P.MESSAGES]
    assert len(keys_seen) == len(set(keys_seen))
    for kind, verb, _ in P.MESSAGES:
        assert kind in P.KINDS and P.is_verb(verb)
        for key, fmt, _required in P.message_fields(kind, verb) or ():
            assert P.is_key(key) and fmt in "usl"


def test_typed_converts_by_the_table_and_names_bad_fields() -> None:
    assert P.typed("C", "FEED", {"job": "4", "n": "3", "boot": "AB", "extra": "x"}) == {
        "job": 4,
        "n": 3,
        "boot": "AB",
        "extra": "x",
    }
    assert P.typed("C", "PROFILE", {"kind": "iid", "p": "1,999"})["p"] == (1, 999)
    with pytest.raises(P.FieldError) as missing:
        P.typed("C", "FEED", {"job": "4"})
    assert missing.value.field == "n"
    with pytest.raises(P.FieldError) as malformed:
        P.typed("C", "FEED", {"job": "four", "n": "3"})
    assert malformed.value.field == "job"
    assert P.typed("C", "NEWVERB", {"a": "1"}) == {"a": "1"}


def _worst_case(kind: str, verb: str) -> list[tuple[str, object]]:
    """Every declared field at its longest plausible value."""
    longest = {"u": 9999999, "s": "beam_blocked", "l": [1000] + [0] * 9}
    sized = {"job": 65535, "boot": "FFFFFFFF", "fw": "10.10.10", "ev": 255, "dup": 1, "motor": 1}
    sized |= {"duty": 100, "n": 108, "want": 108, "counted": 108, "proto": 1, "press": 99999}
    sized |= {"fires": "F" * 24, "cycle": 96, "kind": "pattern", "button": 1, "wdt": 1, "host": 1}
    for name, (_low, high, _default) in P.LIMITS.items():
        sized.setdefault(name, high)
    return [
        (key, sized.get(key, longest[fmt])) for key, fmt, _ in P.message_fields(kind, verb) or ()
    ]


@pytest.mark.parametrize(
    ("kind", "verb"), [(k, v) for k, v, _ in P.MESSAGES if not (k == "R" and v == "OK")]
)
def test_every_message_fits_one_frame_at_its_longest(kind: str, verb: str) -> None:
    assert len(P.encode(kind, 255, verb, _worst_case(kind, verb))) <= P.MAX_FRAME


def test_both_ok_reply_shapes_fit() -> None:
    new = [("job", 65535), ("dup", 0), ("state", "running"), ("n", 108), ("max_ms", 30000)]
    new += [("jam_ms", 5000), ("block_ms", 2000), ("duty", 100)]
    dup = [
        ("job", 65535),
        ("dup", 1),
        ("state", "fault"),
        ("counted", 108),
        ("end", "beam_blocked"),
    ]
    assert len(P.encode("R", 255, "OK", new)) <= P.MAX_FRAME
    assert len(P.encode("R", 255, "OK", dup)) <= P.MAX_FRAME


def test_clamp_uses_limits_and_defaults() -> None:
    assert P.clamp("n", 500) == 108
    assert P.clamp("jam_ms", 0) == P.LIMITS["jam_ms"][0]
    assert P.clamp("duty", None) == 100


@given(st.lists(st.floats(0, 1), min_size=1, max_size=16).filter(lambda ps: sum(ps) > 0))
def test_per_mille_sums_to_exactly_1000(weights: list[float]) -> None:
    total = sum(weights)
    probabilities = [w / total for w in weights]
    values_ = P.per_mille(probabilities)
    assert sum(values_) == 1000
    assert all(abs(v - p * 1000) < 1.0 + 1e-9 for v, p in zip(values_, probabilities, strict=True))


@given(st.sets(st.integers(1, 128), min_size=1))
def test_fires_mask_round_trip(fires: set[int]) -> None:
    assert P.fires_from_mask(P.fires_mask(sorted(fires))) == sorted(fires)


# -- line reassembly -------------------------------------------------------------------------
def _frames() -> list[bytes]:
    return [
        P.encode("R", 1, "PONG"),
        P.encode("E", 2, "CARD", [("job", 1), ("counted", 1), ("total", 1)]),
        P.encode("E", 3, "DONE", [("job", 1), ("counted", 1), ("reason", "count"), ("total", 1)]),
    ]


@given(st.lists(st.integers(1, 40), min_size=1, max_size=30))
def test_line_buffer_reassembles_any_split(cuts: list[int]) -> None:
    stream = b"".join(_frames())
    buffer, lines, position = P.LineBuffer(), [], 0
    for cut in cuts + [len(stream)]:
        lines += buffer.feed(stream[position : position + cut])
        position += cut
    assert lines == [frame[:-1] for frame in _frames()]


def test_line_buffer_discards_overlong_garbage_then_recovers() -> None:
    buffer = P.LineBuffer()
    good = _frames()[0]
    assert buffer.feed(b"x" * 300) == []
    assert buffer.feed(b"more garbage\n" + good) == [good[:-1]]
    assert buffer.dropped == 1
    assert buffer.feed(b"\n\n\r\n") == []
    assert buffer.pending() == 0
