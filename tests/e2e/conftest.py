"""Real-browser end-to-end fixtures: the real server in a subprocess, real headless Chromium.

The server is ``uno-attack table serve`` itself (a subprocess, so a test can kill it with
SIGKILL and start it again with ``--resume``); the browser is Debian's Chromium driven by
Playwright (``executable_path``: Playwright's own browser download is never used). Each
phone is its own browser context: its own cookies and storage, like separate phones.

Without Chromium or Playwright the tests skip with the reason; on CI (``CI=true``) they
fail instead, so a CI machine that lost its browser cannot pass silently.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: Debian's package (apt-get install chromium); $UNO_ATTACK_CHROMIUM names another.
CHROMIUM = os.environ.get("UNO_ATTACK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-dev-shm-usage", "--disable-gpu"]
#: A phone-sized viewport (CSS pixels), the size people see the pages at.
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}
#: How long a page may take to show what a test waits for (milliseconds).
WAIT_MS = 15_000
SERVER_START_S = 30.0
#: How the subprocess runs the console script (no ``game.cli.__main__`` exists).
LAUNCH = "import sys; from game.cli import main; sys.exit(main())"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"end-to-end browser tests cannot run on CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session (contexts are cheap, browsers are not)."""
    if not Path(CHROMIUM).exists():
        _unavailable(f"{CHROMIUM} is missing: apt-get install chromium chromium-driver")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed: pip install 'uno-attack[e2e]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def phones(browser: Any) -> Iterator[Callable[..., Any]]:
    """``phone(viewport=PHONE)`` -> a new page in its own browser context (its own phone)."""
    contexts: list[Any] = []

    def phone(viewport: dict[str, int] = PHONE) -> Any:
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return context.new_page()

    yield phone
    for context in contexts:
        context.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    """One ``uno-attack table serve`` process and what its pages need (URL, tokens)."""

    args: list[str]
    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def journal(self) -> Path:
        return self.workdir / "game.jsonl"

    @property
    def tokens(self) -> dict[str, Any]:
        """The tokens the server saved beside its journal (host, referee, seats)."""
        data: dict[str, Any] = json.loads(self.journal.with_name("game.jsonl.tokens").read_text())
        return data

    def seat_url(self, seat: int) -> str:
        return f"{self.url}/seat/{self.tokens['seats'][seat]}"

    def start(self, *extra: str) -> Server:
        self.starts += 1
        log = (self.workdir / f"server-{self.starts}.log").open("wb")
        command = [sys.executable, "-c", LAUNCH, "table", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, *self.args, *extra], stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir
        )
        log.close()
        self._wait_listening()
        return self

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited early:\n{self.log()}")
            # the port is bound before the journal and tokens are written (table serve binds
            # first), so wait for an HTTP answer: uvicorn runs only once they are on disk
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                connection.request("GET", "/favicon.ico")
                connection.getresponse().read()
                connection.close()
                return
            except OSError:
                time.sleep(0.05)  # sleep-ok: polling another process's port, bounded
        raise AssertionError(f"the server did not listen in {SERVER_START_S}s:\n{self.log()}")

    def log(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.workdir.glob("*.log")))

    def kill(self) -> None:
        """SIGKILL: no shut-down code runs (a power cut, an OOM kill)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """``serve(*args)`` starts ``uno-attack table serve ARGS --journal game.jsonl``."""
    servers: list[Server] = []

    def start(*args: str, journal: bool = True) -> Server:
        extra = ["--journal", "game.jsonl"] if journal else []
        server = Server([*args, *extra], tmp_path)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


def resume(server: Server, *extra: str) -> Server:
    """Start ``server`` again on the same port, continuing its journal (``--resume``)."""
    server.args = ["--resume", str(server.journal), *extra]
    return server.start()


#: Where the tests save their screenshots (``python -m tests.e2e.screenshots`` sets it).
SCREENSHOTS_ENV = "UNO_ATTACK_SCREENSHOTS"


@pytest.fixture
def screenshot() -> Callable[[Any, str], None]:
    """``screenshot(page, "hand")`` saves ``hand.png`` when $UNO_ATTACK_SCREENSHOTS names a
    folder (the docs' images are taken in these very tests), and does nothing otherwise."""
    folder = os.environ.get(SCREENSHOTS_ENV)

    def take(page: Any, name: str) -> None:
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)

    return take
