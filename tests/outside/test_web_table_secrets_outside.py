"""Outside check of issue 24 on the web table: what the table screen, the host page and each phone
receive over the WebSocket holds neither the seed nor another seat's cards.

From docs/table-web.md ("A hand is private": "A seat's phone is sent its own cards and nobody
else's; the table screen and the other seats see only what everyone at a real table sees") and
docs/index.md "Secrets" (the journal header holds the seed; no page does). The client speaks
the way the served /static/app.js does: /ws?token=T, a {"type": "hello", "version": 0} first,
then {"type": "move", "moves": [...], "version": V}.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import selectors
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

websockets = pytest.importorskip("websockets")

from tests.outside.test_hidden_information_outside import walk  # noqa: E402

UNO = Path(sys.executable).with_name("uno-attack")
PLAY_FOR = 25.0  # seconds of play at most
MOVES_WANTED = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def read_links(process: subprocess.Popen[bytes], timeout: float) -> str:
    """The server's banner, up to the last seat link (bounded by timeout, no sleep)."""
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    text, deadline = "", time.monotonic() + timeout
    while text.count("/seat/") < 2:
        left = deadline - time.monotonic()
        assert left > 0 and selector.select(left), f"no links from the server: {text!r}"
        chunk = os.read(process.stdout.fileno(), 65536)
        assert chunk, f"server ended: {text!r}"
        text += chunk.decode()
    return text


def wait_listening(process: subprocess.Popen[bytes], port: int, timeout: float) -> None:
    """Poll the port until the server accepts (the links are printed before it listens)."""
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "server never listened"
            if selector.select(0.1):  # sleep-ok: a bounded poll that also watches the output
                os.read(process.stdout.fileno(), 65536)


def moves_for(data: dict[str, Any], seat: int) -> list[str]:
    view = data.get("view") or {}
    if view.get("decider") != seat or view.get("over"):
        return []
    if isinstance(view.get("moves"), list) and view["moves"]:
        return [
            m if isinstance(m, str) else m.get("move", m.get("text", "")) for m in view["moves"]
        ]
    for entry in reversed(data.get("events", [])):
        event = entry.get("event", {})
        if event.get("type") == "decision" and event.get("player") == seat:
            return list(event.get("moves", []))
    return []


async def viewer(
    url: str, origin: str, seat: int | None, log: list[str], state: dict[str, Any]
) -> None:
    async with websockets.connect(url, origin=origin, open_timeout=10) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 0}))
        while time.monotonic() < state["deadline"] and state["moves"] < MOVES_WANTED:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=2.0)
            except TimeoutError:
                continue
            log.append(raw)
            data = json.loads(raw)
            if seat is None or data.get("type") != "update":
                continue
            offered = [m for m in moves_for(data, seat) if m]
            if offered:
                state["moves"] += 1
                pick = "draw" if "draw" in offered and state["moves"] % 3 == 0 else offered[0]
                await ws.send(
                    json.dumps({"type": "move", "moves": [pick], "version": data["version"]})
                )


def card_lists(value: Any) -> list[list[str]]:
    """Every list of card codes in a message (candidate hands): texts, or {"code": ...} cards."""
    found = []
    if isinstance(value, dict):
        for item in value.values():
            found += card_lists(item)
    elif isinstance(value, list):
        codes = [v.get("code") for v in value if isinstance(v, dict)]
        if len(codes) >= 3 and len(codes) == len(value) and all(isinstance(c, str) for c in codes):
            found.append(codes)
        if len(value) >= 3 and all(
            isinstance(v, str) and re.fullmatch(r"[RBGYW][0-9A-Z+]{0,3}", v) for v in value
        ):
            found.append(value)
        for item in value:
            found += card_lists(item)
    return found


def event_problems(event: dict[str, Any], seat: int | None) -> list[str]:
    """What the rules do not show this viewer (seat None: the table screen / host page)."""
    kind, player = event.get("type"), event.get("player")
    problems = []
    if "seed" in event:
        problems.append("an event carries 'seed'")
    if kind == "deal":
        problems += [
            f"deal shows seat {o}'s hand"
            for o, h in enumerate(event.get("hands", []))
            if o != seat and not isinstance(h, int)
        ]
        if isinstance(event.get("loaded"), list):
            problems.append("deal shows the loaded order")
    if kind in ("hit", "draw") and player != seat and event.get("cards"):
        problems.append(f"{kind} shows seat {player}'s cards")
    if kind == "challenge" and "hand" in event and seat not in (player, event.get("accused")):
        problems.append("challenge hand shown to a bystander")
    if kind == "give" and "card" in event and seat not in (player, event.get("to")):
        problems.append("passed card shown to a bystander")
    return problems


@pytest.mark.parametrize("ruleset", ["classic", "attack"])
def test_web_table_messages_hold_no_secret(tmp_path: Path, ruleset: str) -> None:
    """docs/table-web.md "A hand is private" and docs/index.md "Secrets": no message to the table
    screen, the host page or a phone holds the seed (read from the journal header) or a card of
    another seat's hand."""
    port, journal = free_port(), tmp_path / "game.jsonl"
    process = subprocess.Popen(
        [
            str(UNO),
            "table",
            "serve",
            "--players",
            "3",
            "--bots",
            "random",
            "--ruleset",
            ruleset,
            "--journal",
            str(journal),
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        banner = read_links(process, 30)
        wait_listening(process, port, 30)
        host = re.search(r"/host/([\w-]+)", banner)
        seats = re.findall(r"/seat/([\w-]+)", banner)
        assert host and len(seats) == 2, banner
        base, origin = f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}"
        logs: dict[str, list[str]] = {"table": [], "host": [], "seat0": [], "seat1": []}
        state = {"deadline": time.monotonic() + PLAY_FOR, "moves": 0}

        async def everyone() -> None:
            await asyncio.gather(
                viewer(base, origin, None, logs["table"], state),
                viewer(f"{base}?token={host.group(1)}", origin, None, logs["host"], state),
                viewer(f"{base}?token={seats[0]}", origin, 0, logs["seat0"], state),
                viewer(f"{base}?token={seats[1]}", origin, 1, logs["seat1"], state),
            )

        _run_alone(lambda: asyncio.wait_for(everyone(), PLAY_FOR + 20))
        header = json.loads(journal.read_text().splitlines()[0])
    finally:
        process.terminate()
        process.wait(timeout=15)
    seed = header["seed"]
    assert isinstance(seed, int) and state["moves"] >= 10, (header, state)
    assert seed.bit_length() > 100, f"a fresh seed of {seed.bit_length()} bits (Secrets: 128 bits)"
    for secret in (journal, journal.with_name(journal.name + ".tokens")):
        assert secret.stat().st_mode & 0o777 == 0o600, f"{secret.name} is not 0600"
    for name, log in logs.items():
        assert log, f"{name} got nothing"
        for raw in log:
            assert str(seed) not in raw and format(seed, "x") not in raw, (
                f"{name} got the seed: {raw[:300]}"
            )
            data = json.loads(raw)
            seat = int(name[-1]) if name.startswith("seat") else None
            for entry in data.get("events", []):
                assert not event_problems(entry.get("event", {}), seat), (name, entry)
            for leaf in walk(data):
                assert not (
                    isinstance(leaf, int) and not isinstance(leaf, bool) and abs(leaf) >= 2**40
                ), name
    own_hands = {
        seat: [
            Counter(h)
            for raw in logs[f"seat{seat}"]
            for h in card_lists(json.loads(raw).get("view", {}))
        ]
        for seat in (0, 1)
    }
    assert all(own_hands.values()), "no phone was sent its own hand"
    kinds = {
        e.get("event", {}).get("type")
        for raw in logs["table"]
        for e in json.loads(raw).get("events", [])
    }
    assert {"deal", "play", "draw"} <= kinds, kinds
    for name, log in logs.items():
        for raw in log:
            for listed in card_lists(shown_before_the_end(json.loads(raw))):
                for seat, hands in own_hands.items():
                    if name != f"seat{seat}" and len(listed) >= 4:
                        assert Counter(listed) not in hands, (
                            f"{name} was sent seat {seat}'s hand {listed}"
                        )


def shown_before_the_end(message: Any) -> Any:
    """``message`` without the hands a ``round_end`` event shows: when a round ends every hand
    is laid down and counted (game/core/table.py ``end_round``; docs/rules.md, the scores
    equal the cards left in the hands), so they are public then, not a leak."""
    if isinstance(message, dict):
        if message.get("type") == "round_end":
            return {k: v for k, v in message.items() if k != "hands"}
        return {k: shown_before_the_end(v) for k, v in message.items()}
    if isinstance(message, list):
        return [shown_before_the_end(v) for v in message]
    return message


def _run_alone(make: Any) -> Any:
    """``asyncio.run`` on a thread of its own: in the whole suite the browser tests' sync
    Playwright keeps an event loop running on the main thread, where asyncio.run refuses."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()
