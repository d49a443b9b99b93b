"""``uno-attack profile``, run in-process through the real dispatcher."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from game.cli import main
from launcher.profiles import preset_names


def test_list_shows_every_preset_with_kind_and_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "list"]) == 0
    out = capsys.readouterr().out
    for name in preset_names():
        assert name in out
    assert "escalating" in out and "load-dependent" in out and "invented" in out


def test_show_gives_the_exact_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "show", "bookmarklet"]) == 0
    out = capsys.readouterr().out
    assert "analysis: exact" in out
    assert "mean 1.500" in out and "P(nothing) 0.500" in out
    assert "(a Wild Hit-Fire): 2.000" in out


def test_show_of_a_load_dependent_profile_states_its_standard_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profile", "show", "heavy-hopper"]) == 0
    out = capsys.readouterr().out
    assert "simulated" in out and "(s.e.)" in out


def test_sample_is_seeded_and_lists_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["profile", "sample", "original-1999", "--presses", "13", "--seed", "1", "--list"])
        == 0
    )
    counts = [int(x) for x in capsys.readouterr().out.split()]
    assert [i + 1 for i, c in enumerate(counts) if c] == [2, 6, 9, 13]
    assert main(["profile", "sample", "web-game", "--presses", "5000", "--seed", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[1:]
    main(["profile", "sample", "web-game", "--presses", "5000", "--seed", "2"])
    assert capsys.readouterr().out.splitlines()[1:] == first


def test_show_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "p.png"
    assert main(["profile", "show", "escalating", "--plot", str(target)]) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_profile_file_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = 1\nkind = "iid"\np = [0.3]\n', encoding="utf-8")
    assert main(["profile", "show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"uno-attack: error: {bad}: field p sums to 0.3, expected 1" in err
    assert "hint:" in err and "Traceback" not in err
    assert main(["profile", "sample", "nope", "--presses", "3"]) == 2
    assert "no profile named 'nope'" in capsys.readouterr().err


def test_plot_without_matplotlib_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # how a missing package looks to import
    assert main(["profile", "show", "web-game", "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "--plot needs matplotlib" in err and "uno-attack[plot]" in err
    assert not (tmp_path / "x.png").exists()
