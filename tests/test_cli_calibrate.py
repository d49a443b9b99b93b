"""``uno-attack calibrate``: in-process through the dispatcher; the manual prompt on a real pty."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pexpect
import pytest

from game.cli import main
from launcher.calibration.session import Press, SessionHeader, SessionWriter, read_session
from launcher.profiles import load_profile

ROOT = Path(__file__).resolve().parent.parent


def _record(path: Path, profile: str, presses: int, seed: int) -> None:
    assert (
        main(
            [
                "calibrate",
                "record",
                str(path),
                "--launcher",
                f"sim://?profile={profile}",
                "--presses",
                str(presses),
                "--seed",
                str(seed),
                "--notes",
                "test bench",
            ]
        )
        == 0
    )


def test_record_then_fit_writes_a_profile_the_simulator_can_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "original-1999", 300, 3)
    header = json.loads(session.read_text(encoding="utf-8").splitlines()[0])
    assert (
        header["type"] == "session"
        and header["notes"] == "test bench"
        and header["cards_loaded"] == 90
    )
    out_profile = tmp_path / "mine.toml"
    assert (
        main(
            [
                "calibrate",
                "fit",
                str(session),
                "--out",
                str(out_profile),
                "--plot",
                str(tmp_path / "f.png"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "presses are NOT independent" in out and "<- chosen" in out
    assert "(randomized Clopper-Pearson, simultaneous; joint coverage 95-97 %)" in out
    assert load_profile(out_profile).kind == "pattern"
    assert main(["profile", "show", str(out_profile)]) == 0
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_record_resume_continues_to_the_planned_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "web-game", 40, 1)
    assert main(["calibrate", "record", str(session), "--resume", "--presses", "70"]) == 0
    presses = read_session(session).presses
    assert [p.n for p in presses] == list(range(1, 71))
    assert main(["calibrate", "record", str(session), "--launcher", "sim://"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_compare_gives_a_plain_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _record(same, "web-game", 300, 5)
    _record(other, "original-1999", 300, 5)
    capsys.readouterr()
    assert main(["calibrate", "compare", str(same), "web-game"]) == 0
    assert "No evidence of a difference" in capsys.readouterr().out
    assert (
        main(["calibrate", "compare", str(same), str(other), "--plot", str(tmp_path / "c.png")])
        == 0
    )
    out = capsys.readouterr().out
    assert "DIFFERENT" in out and "total variation distance" in out and "Cohen's w" in out
    assert main(["calibrate", "compare", "web-game", "bookmarklet"]) == 0
    assert "Exact comparison of two profiles" in capsys.readouterr().out


def test_plan_answers_with_a_number_of_presses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "plan", "--precision", "0.05", "--profile", "web-game"]) == 0
    guess = int(capsys.readouterr().out.split()[3])  # "Press the launcher N times"
    assert main(["calibrate", "plan", "--precision", "0.05"]) == 0
    worst = int(capsys.readouterr().out.split()[3])
    assert 300 < guess <= worst < 2000
    assert main(["calibrate", "plan", "--precision", "2"]) == 2
    assert "--precision 2.0: expected a number between 0 and 0.5" in capsys.readouterr().err


def test_tune_on_a_simulated_launcher_explains_why_not(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "tune", "--target", "web-game", "--launcher", "sim://"]) == 2
    assert "no adjustable motor time" in capsys.readouterr().err


@pytest.mark.skipif(
    not (ROOT / "launcher" / "gpio.py").exists(), reason="launcher/gpio.py not written yet"
)
def test_tune_on_the_gpio_mock_reports_predicted_then_measured(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "calibrate",
                "tune",
                "--target",
                "web-game",
                "--launcher",
                "gpio://?mock=1",
                "--probe-repeats",
                "6",
                "--verify-presses",
                "120",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.index("predicted distance") < out.index("measured distance")
    assert "ms_per_card: 250.0 ->" in out


def test_missing_session_file_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["calibrate", "fit", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read session" in capsys.readouterr().err


def _spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "game", "calibrate", "record", *args],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=20,
    )


def test_manual_prompt_survives_ctrl_c_and_resumes(tmp_path: Path) -> None:
    session = tmp_path / "toy.jsonl"
    child = _spawn(
        str(session), "--manual", "--presses", "4", "--cards", "30", "--batteries", "3 C alkaline"
    )
    child.expect("hopper holds 30 cards")
    child.sendline("")
    child.expect(r"press 1 \(30 cards loaded\).*cards out\? ")
    child.sendline("2")
    child.expect(r"press 2 \(28 cards loaded\).*cards out\? ")
    child.sendline("lots")  # not a number: asked again, nothing recorded
    child.expect(r"type how many cards came out")
    child.expect(r"cards out\? ")
    child.sendline("0")
    child.expect(r"press 3 .*cards out\? ")
    child.sendintr()  # Ctrl-C while the person is at the prompt
    child.expect("2 presses saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert read_session(session).counts.tolist() == [2, 0]

    child = _spawn(str(session), "--resume")
    child.expect("2 presses recorded, 2 to go")
    child.expect("hopper holds 30 cards")
    child.sendline("")
    for number, count in ((3, "5"), (4, "1")):
        child.expect(rf"press {number} \(\d+ cards loaded\).*cards out\? ")
        child.sendline(count)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    done = read_session(session)
    assert done.counts.tolist() == [2, 0, 5, 1] and done.header.batteries == "3 C alkaline"
    assert [p.since_reload for p in done.presses] == [1, 2, 1, 2]  # the resume reloaded the hopper


def test_resume_refuses_a_different_launcher(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "web-game", 5, 1)
    assert main(["calibrate", "record", str(session), "--resume", "--launcher", "sim://"]) == 2
    assert "was recorded with sim://?profile=web-game" in capsys.readouterr().err


# -- issue 12 and 18: what the user reads --------------------------------------------------
def test_fit_on_one_press_says_what_it_cannot_compute_and_writes_no_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "one.jsonl"
    _record(session, "web-game", 1, 1)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy RuntimeWarnings were printed before
        assert main(["calibrate", "fit", str(session)]) == 0
    out = capsys.readouterr().out
    assert "NOT independent" not in out and "nan" not in out
    assert "below the minimum" in out and "independence and load checks" in out
    assert main(["calibrate", "fit", str(session), "--out", str(tmp_path / "p.toml")]) == 2
    assert "a profile needs at least 10" in capsys.readouterr().err
    assert not (tmp_path / "p.toml").exists()


def test_the_fitted_description_says_what_profile_show_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session, profile = tmp_path / "s.jsonl", tmp_path / "fitted.toml"
    _record(session, "web-game", 120, 2)
    assert main(["calibrate", "fit", str(session), "--out", str(profile)]) == 0
    described = load_profile(profile).description
    capsys.readouterr()
    assert main(["profile", "show", str(profile)]) == 0
    shown = capsys.readouterr().out
    mean = re.search(r"^mean ([0-9.]+) cards per press", shown, re.M).group(1)  # type: ignore[union-attr]
    nothing = re.search(r"^P\(nothing\) ([0-9.]+)", shown, re.M).group(1)  # type: ignore[union-attr]
    assert f"mean {mean} cards per press, P(nothing) {nothing}" in described


def test_fit_prints_a_bound_for_counts_never_seen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "bookmarklet", 60, 3)
    capsys.readouterr()
    assert main(["calibrate", "fit", str(session)]) == 0
    assert re.search(r"P\(count >= 6\) <= 0\.\d{3}", capsys.readouterr().out)


def _fit_json(capsys: pytest.CaptureFixture[str], session: Path, *flags: str) -> dict:
    """``calibrate fit SESSION --json FLAGS``, parsed (after whatever was printed before)."""
    capsys.readouterr()
    assert main(["calibrate", "fit", str(session), "--json", *flags]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_fit_names_its_interval_method_and_takes_mid_p_ties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "bookmarklet", 60, 3)
    randomized, mid_p = _fit_json(capsys, session), _fit_json(capsys, session, "--ties", "mid-p")
    assert randomized["interval_method"].startswith("randomized Clopper-Pearson")
    assert mid_p["interval_method"].startswith("mid-p Clopper-Pearson")
    shown = [row["count"] for row in randomized["distribution"]]
    assert shown == [row["count"] for row in mid_p["distribution"]]
    assert randomized["distribution"] != mid_p["distribution"]  # same counts, other bounds
    assert main(["calibrate", "fit", str(session)]) == 0
    assert "intervals (randomized Clopper-Pearson, simultaneous; joint" in capsys.readouterr().out


def test_plan_says_what_it_promises_and_warns_when_it_is_absurd(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["calibrate", "plan", "--precision", "0.05", "--profile", "web-game"]) == 0
    out = capsys.readouterr().out
    assert "half-width (high - low) / 2 of at most 0.05 in at least 95 % of sessions" in out
    assert main(["calibrate", "plan", "--precision", "0.0001"]) == 0
    out = capsys.readouterr().out
    assert "warning:" in out and "days" in out and "minutes" not in out.split("\n")[0]
    assert main(["calibrate", "plan", "--precision", "0.4"]) == 0
    assert "(about 1 minute at one press" in capsys.readouterr().out  # was "about 1 minutes"


def test_plan_for_a_launcher_that_never_fires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    never = tmp_path / "never.toml"
    never.write_text(
        'schema = 1\nname = "never"\nkind = "iid"\nsource = "invented"\ndescription = ""\n'
        "p = [1.0]\n",
        encoding="utf-8",
    )
    assert (
        main(["calibrate", "plan", "--precision", "0.05", "--profile", str(never), "--json"]) == 0
    )
    planned = json.loads(capsys.readouterr().out)["presses"]
    session = tmp_path / "zeros.jsonl"
    _record(session, str(never), planned, 1)
    report = _fit_json(capsys, session)
    widths = [(row["high"] - row["low"]) / 2 for row in report["distribution"]]
    assert max(widths + [report["tail"]["high"] / 2]) <= 0.05


def test_json_reports_of_fit_compare_and_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    _record(session, "web-game", 40, 4)
    fit = _fit_json(capsys, session)
    assert fit["report"] == "fit" and fit["presses"] == 40 and fit["mean"]["low"] >= 0
    assert {t["method"] for t in fit["independence_checks"]} == {"permutation, 999 shuffles"}
    assert main(["calibrate", "compare", str(session), "web-game", "--json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["different"] == (cmp["p_value"] < cmp["alpha"]) and len(cmp["tests"]) == 2
    assert main(["calibrate", "plan", "--precision", "0.1", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["presses"] > 0 and "half-width" in plan["promise"]


def test_a_verdict_never_contradicts_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18's p055 recipe printed "DIFFERENT: p = 0.05 < 0.05"."""
    web = load_profile("web-game").probabilities  # type: ignore[attr-defined]
    rest = [p * 0.45 / 0.55 for p in web[1:]]
    p055 = tmp_path / "p055.toml"
    p055.write_text(
        'schema = 1\nname = "p055"\nkind = "iid"\nsource = "invented"\ndescription = ""\n'
        f"p = [0.55, {', '.join(map(repr, rest))}]\n",
        encoding="utf-8",
    )
    session = tmp_path / "rep.jsonl"
    assert (
        main(
            [
                "calibrate",
                "record",
                str(session),
                "--launcher",
                "sim://?profile=web-game",
                "--seed",
                "628",
                "--presses",
                "300",
                "--cards",
                "90",
                "--reload-below",
                "10",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["calibrate", "compare", str(session), str(p055), "--seed", "635"]) == 0
    verdict = capsys.readouterr().out.strip().splitlines()[-1]
    number, sign = re.search(r"p = ([0-9.e-]+) (<|>=) 0.05", verdict).groups()  # type: ignore[union-attr]
    assert (float(number) < 0.05) == (sign == "<") == verdict.startswith("DIFFERENT")


# -- issue 28: every report opens in plain words ------------------------------------------------
def _write_counts(path: Path, counts: list[int]) -> None:
    """A session as ``calibrate record --manual`` writes it (90 cards, topped up below 10)."""
    with SessionWriter.create(path, SessionHeader("manual", 90, 10, len(counts), manual=True)) as w:
        loaded, since = 90, 0
        for n, count in enumerate(counts, start=1):
            if loaded < 10:
                loaded, since = 90, 0
            since += 1
            w.append(Press(n, count, loaded, since))
            loaded -= count


def test_fit_compare_and_plan_open_with_plain_sentences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.jsonl"
    counts = "0 3 1 0 2 0 0 5 1 2 0 1 0 4 2 0 0 1 3 0 2 1 0 0 6 1 2 0 0 1 3 0 1 0 2 0 0 1 4 2"
    _write_counts(session, [int(c) for c in counts.split()])
    assert main(["calibrate", "fit", str(session)]) == 0
    first = capsys.readouterr().out.splitlines()[:4]
    assert first[0].startswith(
        "Your launcher shoots nothing on about 43 % of presses (between 23 % and 64 %), "
        "on average 1.3 cards per press (between 0.8 and 1.9); the most in one press was 6."
    )
    assert first[1].startswith("Each press looks independent") and "40 presses" in first[2]
    assert first[3] == ""
    assert main(["calibrate", "compare", str(session), "irc-bot"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[1].startswith("A and B behave differently") and "B shoots nothing on 9 %" in lines[2]
    )
    assert main(["calibrate", "plan", "--precision", "0.05"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Press the launcher 903 times (about 75 minutes")
    assert lines[3].startswith("In detail: 903 presses;")
    assert _fit_json(capsys, session)["summary"][0].startswith("Your launcher shoots nothing")


# -- issue 28, finding 3: manual recording checks what is typed -----------------------------
def test_manual_recording_refuses_more_cards_than_loaded_and_undoes(tmp_path: Path) -> None:
    session = tmp_path / "toy.jsonl"
    child = _spawn(
        str(session), "--manual", "--presses", "3", "--cards", "12", "--reload-below", "5"
    )
    child.expect("hopper holds 12 cards")
    child.sendline("")
    child.expect(r"press 1 \(12 cards loaded\).*cards out\? \(u = undo\) ")
    child.sendline("95")  # more than the hopper holds: refused, nothing recorded
    child.expect(r"95 refused: only 12 cards are loaded, so at most 12 can come out")
    child.sendline("2")
    child.expect(r"recorded press 1: 2 card\(s\)")
    child.expect(r"press 2 \(10 cards loaded\)")
    child.sendline("u")
    child.expect(r"undone: press 1 \(2 card\(s\)\); type it again")
    child.expect(r"press 1 \(12 cards loaded\)")  # the hopper is back, no reload asked
    child.sendline("undo")
    child.expect("nothing to undo: no press recorded in this run yet")
    child.expect(r"press 1 \(12 cards loaded\)")
    child.sendline("3")
    child.expect(r"press 2 \(9 cards loaded\)")
    child.sendline("5")
    child.expect("hopper holds 12 cards")  # 4 < 5: reload
    child.expect(r"hopper loaded\? \(Enter or y when done\) ")
    child.sendline("30")  # a count typed too early is not the answer of the reload prompt
    child.expect(r"'30' is not an answer here")
    child.expect(r"hopper loaded\? ")
    child.sendline("y")
    child.expect(r"press 3 \(12 cards loaded\)")
    child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    done = read_session(session)
    assert done.counts.tolist() == [3, 5, 1] and [p.n for p in done.presses] == [1, 2, 3]
    assert [p.loaded for p in done.presses] == [12, 9, 12]
    assert [p.since_reload for p in done.presses] == [1, 2, 1]


def test_end_of_input_saves_and_says_so(tmp_path: Path) -> None:
    """Typed counts piped in (a file of counts): the end of the pipe is not an interruption."""
    session = tmp_path / "piped.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "game", "calibrate", "record", str(session), "--manual"],
        input="\n2\n0\n",
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "end of input: 2 presses saved in" in done.stdout and "stopped" not in done.stdout
    assert read_session(session).counts.tolist() == [2, 0]


# -- issue 28, finding 5: tune says where the setting goes, and writes it ---------------------
TUNE = [
    "calibrate",
    "tune",
    "--target",
    "web-game",
    "--probe-repeats",
    "4",
    "--verify-presses",
    "40",
]


def test_tune_prints_the_config_line_and_writes_it_with_a_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('seats = "You,bot:greedy"\nlauncher = "gpio://?mock=1"\n', encoding="utf-8")
    monkeypatch.setenv("UNO_ATTACK_CONFIG", str(config))
    assert main([*TUNE, "--launcher", "gpio://?mock=1"]) == 0
    out = capsys.readouterr().out
    ms = re.search(r"ms_per_card: 250\.0 -> (\d+\.\d)", out).group(1)
    assert f'this line goes in {config}:\n  launcher = "gpio://?mock=1&ms_per_card={ms}"' in out
    assert config.read_text(encoding="utf-8").endswith('launcher = "gpio://?mock=1"\n')  # unchanged
    assert main([*TUNE, "--launcher", "gpio://?mock=1", "--write-config"]) == 0
    out = capsys.readouterr().out
    assert f"written to {config}; the old file is kept as {config}.bak" in out
    lines = config.read_text(encoding="utf-8").splitlines()
    assert lines[0] == 'seats = "You,bot:greedy"' and lines[1].startswith(
        'launcher = "gpio://?mock=1&ms_per_card='
    )
    assert (tmp_path / "config.toml.bak").read_text(encoding="utf-8").endswith('?mock=1"\n')
    assert main([*TUNE, "--launcher", "gpio://?mock=1", "--write-config"]) == 0
    assert (tmp_path / "config.toml.bak.2").exists()  # an older backup is never overwritten
    assert main(["config"]) == 0 and "ms_per_card=" in capsys.readouterr().out


def test_tune_of_a_gpio_launcher_with_a_pin_file_writes_into_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pins = tmp_path / "launcher.toml"
    pins.write_text("motor = [17, 18]\nbeam = 27\nms_per_card = 250.0  # guess\njam_ms = 1500.0\n")
    monkeypatch.setenv("UNO_ATTACK_CONFIG", str(tmp_path / "none.toml"))
    spec = f"gpio://?mock=1&config={pins}"
    assert main([*TUNE, "--launcher", spec, "--write-config"]) == 0
    out = capsys.readouterr().out
    assert f"this line goes in {pins}:\n  ms_per_card = " in out
    text = pins.read_text(encoding="utf-8")
    assert "\nms_per_card = " in text and "250.0" not in text and "jam_ms = 1500.0" in text
