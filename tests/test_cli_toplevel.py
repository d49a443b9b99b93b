"""The command line people expect: --version, --traceback anywhere, shell completion from the
parsers, the config file's place in flag > environment > config > default, hints that fit
the error, ``launcher status`` and ``--json`` on launcher and profile commands."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from game.cli import main
from game.cli.config import config_path


#: A config directory of our own: the user's real ~/.config is never read by the tests.
@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in (
        "UNO_ATTACK_CONFIG",
        "UNO_ATTACK_LAUNCHER",
        "UNO_ATTACK_PROFILE",
        "UNO_ATTACK_SEATS",
        "UNO_ATTACK_DEBUG",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


def _write_config(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"uno-attack {version('uno-attack')}"


@pytest.mark.parametrize(
    "argv",
    [
        ["--traceback", "launcher", "fire", "--presses", "0"],
        ["launcher", "--traceback", "fire", "--presses", "0"],
        ["launcher", "fire", "--presses", "0", "--traceback"],
    ],
)
def test_traceback_is_accepted_anywhere_on_the_line(argv: list[str]) -> None:
    from hardware.errors import ConfigError

    with pytest.raises(ConfigError, match="--presses 0"):
        main(argv)


def test_without_traceback_the_error_is_one_line_and_a_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["launcher", "fire", "--presses", "0"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("uno-attack: error: --presses 0")


def test_a_bad_flag_value_points_at_the_commands_help_not_at_rules_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert "rules list" not in err
    assert "hint: `uno-attack simulate --help` describes --games" in err


def test_a_ruleset_error_keeps_its_ruleset_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--players", "1", "--games", "1"]) == 2
    assert "rules list" in capsys.readouterr().err


def _completion(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def _bash_complete(script: Path, *words: str) -> list[str]:
    line = " ".join(words)
    command = (
        f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        '_uno_attack; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_bash_completion_completes_commands_subcommands_and_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "uno-attack.bash"
    script.write_text(_completion("bash", capsys))
    assert _bash_complete(script, "uno-attack", "sim") == ["simulate"]
    assert _bash_complete(script, "uno-attack", "launcher", "st") == ["status"]
    assert _bash_complete(script, "uno-attack", "launcher", "status", "--js") == ["--json"]
    assert "--games" in _bash_complete(script, "uno-attack", "simulate", "--")


def test_bash_completion_completes_option_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "uno-attack.bash"
    script.write_text(_completion("bash", capsys))
    assert _bash_complete(script, "uno-attack", "play", "--ruleset", "cl") == ["classic"]
    assert _bash_complete(script, "uno-attack", "launcher", "fire", "--launcher", "em") == [
        "emu://"
    ]
    assert _bash_complete(script, "uno-attack", "completion", "f") == ["fish"]


#: (words typed, the current word last) -> one completion the shell must offer
SHELL_CASES = [
    (("launcher", "st"), "status"),
    (("play", "--ruleset", "cl"), "classic"),
    (("simulate", "--la"), "--launcher"),
]


def _zsh_offers(script: Path, words: tuple[str, ...]) -> list[str]:
    """Run the zsh function with compadd replaced by a print (zsh filters by prefix itself)."""
    typed = " ".join(("uno-attack", *words))
    command = (
        "compdef(){}; compadd(){ shift; print -r -- $@; }; _files(){}; "
        f"source {script}; words=({typed}); CURRENT={len(words) + 1}; _uno_attack"
    )
    done = subprocess.run(["zsh", "-c", command], capture_output=True, text=True, check=True)
    return [w for w in done.stdout.split() if w.startswith(words[-1])]


def _fish_offers(script: Path, words: tuple[str, ...]) -> list[str]:
    line = " ".join(("uno-attack", *words))
    command = f"source {script}; complete -C'{line}'"
    done = subprocess.run(["fish", "-c", command], capture_output=True, text=True, check=True)
    return [row.split("\t")[0] for row in done.stdout.splitlines()]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_complete_in_their_shell(
    shell: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _completion(shell, capsys)
    flag = "-l json" if shell == "fish" else "--json"
    for word in ("simulate", "launcher", "status", flag, "completion"):
        assert word in text
    if (
        shutil.which(shell) is None
    ):  # the script is generated either way; running it needs the shell
        pytest.skip(f"{shell} is not installed (apt-get install {shell})")
    script = tmp_path / f"uno-attack.{shell}"
    script.write_text(text)
    offers = _zsh_offers if shell == "zsh" else _fish_offers
    for words, expected in SHELL_CASES:
        assert expected in offers(script, words), words


def test_config_file_sets_the_default_launcher(capsys: pytest.CaptureFixture[str]) -> None:
    _write_config('launcher = "emu://?fast=1"\n')
    assert main(["launcher", "status"]) == 0
    assert "backend: emu" in capsys.readouterr().out


def test_environment_beats_the_config_file_and_a_flag_beats_both(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_config('launcher = "emu://?fast=1"\n')
    monkeypatch.setenv("UNO_ATTACK_LAUNCHER", "gpio://?mock=1")
    assert main(["launcher", "status"]) == 0
    assert "backend: gpio" in capsys.readouterr().out
    assert main(["launcher", "status", "--launcher", "pile://"]) == 0
    assert "backend: pile" in capsys.readouterr().out


def test_config_profile_applies_to_specs_that_name_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _write_config('profile = "original-1999"\n')
    assert main(["launcher", "status"]) == 0
    assert "profile=original-1999" in capsys.readouterr().out
    assert main(["launcher", "status", "--launcher", "sim://?profile=irc-bot"]) == 0
    assert "profile=irc-bot" in capsys.readouterr().out


def test_config_is_not_left_in_the_environment(capsys: pytest.CaptureFixture[str]) -> None:
    import os

    _write_config('launcher = "pile://"\n')
    main(["launcher", "status"])
    assert "UNO_ATTACK_LAUNCHER" not in os.environ


def test_config_command_shows_where_each_setting_comes_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_config('launcher = "pile://"\nseats = "Ann,bot:greedy"\n')
    monkeypatch.setenv("UNO_ATTACK_SEATS", "Bob,bot:random")
    assert main(["config", "--json"]) == 0
    rows = {row["key"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert rows["launcher"]["value"] == "pile://"
    assert rows["launcher"]["source"] == f"config file {path}"
    assert rows["seats"] == {
        **rows["seats"],
        "value": "Bob,bot:random",
        "source": "environment UNO_ATTACK_SEATS",
    }
    assert rows["profile"]["source"] == "default"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("launcher = [1]\n", "launcher must be a string"),
        ("speed = 'fast'\n", "unknown setting(s) speed"),
        ("launcher = \n", "not valid TOML"),
    ],
)
def test_a_bad_config_file_is_one_clear_error_naming_the_file(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_config(text)
    assert main(["launcher", "status"]) == 2
    err = capsys.readouterr().err
    assert f"uno-attack: error: {path}" in err and message in err


def test_play_takes_its_seats_from_the_config_file(capsys: pytest.CaptureFixture[str]) -> None:
    _write_config('seats = "bot:greedy,bot:random"\n')
    assert main(["play", "--seed", "3", "--rounds", "1", "--delay", "0"]) == 0
    assert "seats GreedyBot1, RandomBot2" in capsys.readouterr().out


def test_launcher_status_on_sim_lists_no_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["launcher", "status", "--launcher", "sim://", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "sim" and report["capabilities"] == [] and report["fault"] is None


def test_launcher_status_reports_a_latched_jam_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # catch=1: the mock mechanism jams the first card, so one press latches a fault
    spec = "gpio://?mock=1&cards=10&catch=1&button=none&sounds=0"
    from game.cli.launcher_cmd import status_report
    from launcher.spec import open_launcher

    with open_launcher(spec) as launcher:
        launcher.load(range(10))
        with pytest.raises(Exception):  # noqa: B017 - any LauncherFault
            for _ in range(10):
                launcher.hit()
        report = status_report(launcher)
    assert report["fault"] is not None and report["capabilities"] == ["clear_fault", "run_motor"]


def test_launcher_status_of_the_emulator_includes_the_firmware_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["launcher", "status", "--launcher", "emu://?fast=1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["device"]["state"] == "idle" and "status" in report["capabilities"]


def test_launcher_fire_json_lists_every_press(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["launcher", "fire", "--launcher", "sim://?seed=4", "--cards", "20", "--presses", "3"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["n"] for p in report["presses"]] == [1, 2, 3]
    assert report["remaining"] == 20 - sum(p["counted"] for p in report["presses"])


def test_launcher_fire_json_is_one_document_even_when_it_fills_the_hopper(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --cards the simulated hopper is filled for you: that notice goes to stderr."""
    assert main(["launcher", "fire", "--launcher", "sim://?seed=4", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["presses"][0]["n"] == 1
    assert "loaded 90 cards" in captured.err


def test_launcher_test_json_reports_each_check(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "gpio://?mock=1&cards=10&button=none"
    assert main(["launcher", "test", "--launcher", spec, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["checks"] == {"motor": True, "button": True}
    assert any("beam counted" in line for line in report["output"])


def test_profile_show_json_gives_the_exact_law(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "show", "bookmarklet", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exact"] is True and report["mean"] == pytest.approx(1.5)
    assert sum(report["probabilities"]) == pytest.approx(1.0)


def test_profile_list_and_sample_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "list", "--json"]) == 0
    names = [row["name"] for row in json.loads(capsys.readouterr().out)]
    assert "bookmarklet" in names
    argv = ["profile", "sample", "bookmarklet", "--presses", "50", "--seed", "2"]
    assert main([*argv, "--json", "--list"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["counts"]) == 50 and report["mean"] == pytest.approx(
        sum(report["counts"]) / 50
    )


def test_launcher_list_shows_every_scheme_and_its_source(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["launcher", "list", "--json"]) == 0
    rows = {row["scheme"]: row for row in json.loads(capsys.readouterr().out)}
    assert {"pile", "sim", "gpio", "serial", "emu"} <= set(rows)
    assert rows["pile"]["source"] == "built-in"
