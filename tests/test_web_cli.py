"""``uno-attack table serve``: what it binds to, what it prints, what it refuses (no real bind)."""

from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from game.cli import build_parser, main
from game.cli.table import settings_from_args
from tests.web_client import fake_serving


def _parse(*words: str) -> argparse.Namespace:
    return build_parser(only="table").parse_args(["table", "serve", *words])


def test_by_default_the_server_listens_on_localhost_only() -> None:
    settings = settings_from_args(_parse())
    assert (settings.host, settings.port, settings.lan) == ("127.0.0.1", 8000, False)
    assert settings.public_url is None
    assert len(settings.seats) == 4 and settings.seats[-1].bot == "rule"


def test_lan_listens_on_every_interface_and_links_use_a_reachable_address() -> None:
    settings = settings_from_args(_parse("--lan", "--port", "8123"))
    assert settings.host == "0.0.0.0" and settings.lan
    assert settings.public_url is not None and settings.public_url.endswith(":8123")
    assert "0.0.0.0" not in settings.public_url
    assert settings_from_args(_parse("--lan", "--host", "192.0.2.7")).host == "192.0.2.7"


@pytest.mark.parametrize(
    "words",
    [
        ["--referee", "--public-url", "é"],  # the slow fuzzer's line: it printed "é/referee/..."
        ["--public-url", "pi.local:8000"],
        ["--public-url", "http://pi:99999"],
        ["--allowed-origin", "ftp://pi"],
    ],
)
def test_an_address_that_is_not_a_web_url_is_refused_before_serving(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["table", "serve", *words])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {words[-2]}: expected an http:// or https:// address" in err


def test_a_public_url_is_kept_without_its_trailing_slash() -> None:
    settings = settings_from_args(_parse("--public-url", "https://Pi.example:8443/"))
    assert settings.public_url == "https://Pi.example:8443"


def test_seats_players_and_bots() -> None:
    seats = settings_from_args(_parse("--players", "3", "--bots", "random,greedy")).seats
    assert [s.bot for s in seats] == [None, "random", "greedy"]
    named = settings_from_args(_parse("--seats", "Ann,Bob,bot:random")).seats
    assert [(s.name, s.bot) for s in named][:2] == [("Ann", None), ("Bob", None)]


@pytest.mark.parametrize(
    "words, message",
    [
        (["--players", "2", "--bots", "greedy,greedy"], "no seat for a person"),
        (["--bots", "clever"], "unknown bot"),
        (["--resume", "a.jsonl", "--journal", "b.jsonl"], "do not also give --journal"),
        (["--resume", "a.jsonl", "--seed", "3"], "cannot be changed when resuming"),
        (["--port", "70000"], "--port 70000"),
    ],
)
def test_bad_flags_are_clear_errors(
    words: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["table", "serve", *words]) == 2
    assert message in capsys.readouterr().err


@pytest.fixture
def uvicorn_runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every server the command would run, with its app, host and port, instead of serving."""
    return fake_serving(monkeypatch)


def test_serve_prints_the_links_and_runs_uvicorn_on_localhost(
    uvicorn_runs: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    journal = tmp_path / "game.jsonl"
    assert main(["table", "serve", "--seed", "5", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert uvicorn_runs[0]["host"] == "127.0.0.1" and uvicorn_runs[0]["port"] == 8000
    tokens = uvicorn_runs[0]["app"].state.context.tokens
    assert f"http://127.0.0.1:8000/seat/{tokens.seats[0]}" in out
    assert f"/host/{tokens.host}" in out
    assert "add --lan" in out
    assert (tmp_path / "game.jsonl.tokens").exists()


def test_serve_lan_prints_qr_codes(
    uvicorn_runs: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["table", "serve", "--lan", "--players", "2", "--bots", "random"]) == 0
    out = capsys.readouterr().out
    assert uvicorn_runs[0]["host"] == "0.0.0.0"
    assert "on your network" in out and "█" in out  # a QR code drawn with block characters


def test_resume_keeps_the_links(
    uvicorn_runs: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    journal = tmp_path / "game.jsonl"
    from game.tables.web.session import GameSession
    from tests.web_client import quick_settings

    first = GameSession(quick_settings(journal=journal))
    first.open()
    first.close()
    assert main(["table", "serve", "--resume", str(journal)]) == 0
    assert uvicorn_runs[0]["app"].state.context.tokens == first.tokens
    assert first.tokens.seats[1] in capsys.readouterr().out


def test_resume_prints_a_link_for_every_person_in_the_journal(
    uvicorn_runs: list[dict[str, Any]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Six seats, two bots: the resumed server prints the four people's links, not two defaults."""
    journal = tmp_path / "game.jsonl"
    argv = ["table", "serve", "--players", "6", "--bots", "greedy,random", "--seed", "2"]
    assert main([*argv, "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["table", "serve", "--resume", str(journal)]) == 0
    out = capsys.readouterr().out
    tokens = uvicorn_runs[1]["app"].state.context.tokens
    people = [seat for seat in range(6) if f"/seat/{tokens.seats[seat]}" in out]
    assert len(people) == 4


def test_without_the_web_extra_the_command_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["table", "serve"]) == 2
    assert "pip install 'uno-attack[web]'" in capsys.readouterr().err


def test_bots_empty_means_no_bots_as_help_says() -> None:
    seats = settings_from_args(_parse("--players", "3", "--bots", "")).seats
    assert [seat.bot for seat in seats] == [None, None, None]


def test_a_port_in_use_is_one_clear_error_and_nothing_is_left_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "game.jsonl"
    with socket.create_server(("127.0.0.1", 0)) as other_server:
        port = other_server.getsockname()[1]
        argv = ["table", "serve", "--port", str(port), "--journal", str(journal)]
        assert main([*argv, "--launcher", "sim://"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no link to a port that belongs to another server
    assert err.count("uno-attack: error:") == 1 and "already in use" in err
    assert f"--port {port + 1}" in err  # the hint
    assert list(tmp_path.iterdir()) == []  # no journal, no .tokens: the retry just works


def test_resume_checks_seat_names_as_seats_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from game.tables.web.session import GameSession
    from tests.web_client import quick_settings

    journal = tmp_path / "game.jsonl"
    GameSession(quick_settings(journal=journal)).close()
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    bad = "<img src=x onerror=alert(1)>"
    records[0]["seats"][0]["name"] = bad
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["table", "serve", "--seats", f"{bad},Bob"]) == 2
    refused_seats = capsys.readouterr().err
    assert main(["table", "serve", "--resume", str(journal), "--launcher", "sim://"]) == 2
    refused_resume = capsys.readouterr().err
    rule = "must be 1-20 letters, digits, spaces or .'-"
    assert rule in refused_seats and rule in refused_resume and bad in refused_resume


def test_the_table_unit_runs_both_commands_with_the_launchers_pin_map() -> None:
    """docs/uno-attack-table.service: a new game or a resumed one, as the CLI parses them, on
    the launcher unit's pin map (a bare gpio:// has no pins: "key motor is missing")."""
    import shlex

    from tests.test_gpio_service import UNIT, parse_unit

    service = parse_unit((UNIT.parent / "uno-attack-table.service").read_text())["Service"]
    launcher_unit = parse_unit(UNIT.read_text())["Service"]
    pin_map = build_parser().parse_args(shlex.split(launcher_unit["ExecStart"][0])[1:]).launcher
    shell, flag, script = shlex.split(service["ExecStart"][0])
    assert (shell, flag) == ("/bin/sh", "-c")
    commands = [shlex.split(part.split(";")[0]) for part in script.split("exec ")[1:]]
    parsed = [build_parser().parse_args(argv[1:]) for argv in commands]
    assert [bool(args.resume) for args in parsed] == [True, False]
    for argv, args in zip(commands, parsed, strict=True):
        assert argv[0] == "/opt/uno-attack/venv/bin/uno-attack" and args.referee and args.lan
        assert args.launcher == pin_map
        settings_from_args(args)  # the seats and flags are valid
    assert service["WorkingDirectory"] == ["/var/lib/" + service["StateDirectory"][0]]
    assert int(service["LimitNOFILE"][0]) >= 1024
    assert "AF_INET" in service["RestrictAddressFamilies"][0].split()
    assert service["UMask"] == ["0077"]
