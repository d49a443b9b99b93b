"""The pytest plugin, run the way a downstream suite runs it: pytester writes a test file and
runs pytest on it in-process, with the plugin loaded by its ``pytest11`` entry point (the
editable install registers it). tests/test_downstream.py runs a whole separate project
against it in a fresh venv.
"""

from __future__ import annotations

import json

import pytest

#: Writes, at the end of the inner session, what became of every launcher a test recorded.
REPORTER = """
import json

SEEN = []

def pytest_sessionfinish(session):
    report = []
    for device in SEEN:
        rig = getattr(device, "rig", None)
        motor = rig.motor_history()[-1] if rig is not None else None
        report.append({"backend": device.backend, "closed": device.closed, "motor": motor})
    with open("report.json", "w") as out:
        json.dump(report, out)
"""


def _report(pytester: pytest.Pytester) -> list[dict[str, object]]:
    data: list[dict[str, object]] = json.loads((pytester.path / "report.json").read_text())
    return data


def test_launcher_fixture_is_a_seeded_sim_launcher_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_press(launcher, uno_seed):
            assert launcher.backend == "sim" and launcher.seed == uno_seed == 1
            launcher.load(range(20))
            assert sum(launcher.hit().counted for _ in range(5)) <= 20
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_every_fixture_closes_its_launcher_and_stops_the_motor_when_a_test_fails(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(REPORTER)
    pytester.makepyfile(
        """
        from conftest import SEEN

        def test_motor_running_then_failure(mock_gpio_launcher):
            SEEN.append(mock_gpio_launcher)
            mock_gpio_launcher.driver.motor.forward(1.0)
            assert mock_gpio_launcher.rig.motor_history()[-1] > 0
            raise AssertionError("the test fails with the motor running")

        def test_emulated(emulated_launcher, scripted_launcher, make_launcher):
            SEEN.extend([emulated_launcher, scripted_launcher([1]), make_launcher("pile://")])
            raise AssertionError("fails too")
        """
    )
    pytester.runpytest().assert_outcomes(failed=2)
    report = _report(pytester)
    assert [r["backend"] for r in report] == ["gpio", "emu", "scripted", "pile"]
    assert all(r["closed"] for r in report)
    assert report[0]["motor"] == 0.0


def test_uno_launcher_option_switches_every_launcher_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_backend(launcher):
            assert launcher.backend == "emu"
        """
    )
    pytester.runpytest("--uno-launcher", "emu://?fast=1").assert_outcomes(passed=1)


def test_ini_option_sets_the_default_spec(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nuno_launcher = gpio://?mock=1\n")
    pytester.makepyfile(
        """
        def test_backend(launcher):
            assert launcher.backend == "gpio"
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_launcher_parametrises_over_specs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("launcher", ["sim://", "pile://", "gpio://?mock=1"], indirect=True)
        def test_conserves_cards(launcher):
            launcher.load(range(12))
            out = sum(len(launcher.hit()) for _ in range(4))
            assert out + launcher.remaining == 12
        """
    )
    pytester.runpytest("-v").assert_outcomes(passed=3)


def test_scripted_launcher_gives_exactly_the_volleys_asked_for(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_script(scripted_launcher):
            launcher = scripted_launcher([3, 0, 1])
            launcher.load("abcdefgh")
            assert [launcher.hit().cards for _ in range(4)] == [
                ("a", "b", "c"), (), ("d",), ("e", "f", "g")
            ]
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_uno_game_is_seeded_and_replays(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_same_seed_same_deal(uno_game):
            first, second = uno_game("attack", 3), uno_game("attack", 3)
            assert [first.hand(s) for s in range(3)] == [second.hand(s) for s in range(3)]
            assert uno_game("classic", 2).launcher.backend == "pile"

        def test_game_on_the_option_launcher(uno_game):
            assert uno_game("attack", 2).launcher.backend == "gpio"
        """
    )
    pytester.runpytest("-k", "same_seed").assert_outcomes(passed=1, deselected=1)
    pytester.runpytest("-k", "option", "--uno-launcher", "gpio://?mock=1").assert_outcomes(
        passed=1, deselected=1
    )


def test_hardware_marker_skips_unless_the_spec_is_real_hardware(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\naddopts = --strict-markers\n")
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.uno_hardware
        def test_on_the_real_thing(launcher):
            pass
        """
    )
    for spec in ("sim://", "gpio://?mock=1", "emu://?fast=1"):
        result = pytester.runpytest("-rs", "--uno-launcher", spec)
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines(["*needs a real launcher*"])


@pytest.mark.parametrize(
    ("spec", "hardware"),
    [
        ("sim://", False),
        ("emu://?fast=1", False),
        ("gpio://?mock=1", False),
        ("gpio://?motor=17,18&beam=27", True),
        ("serial:///dev/ttyACM0", True),
        ("myscheme://", True),
    ],
)
def test_which_specs_count_as_hardware(spec: str, hardware: bool) -> None:
    from game.testing.pytest_plugin import is_hardware_spec

    assert is_hardware_spec(spec) is hardware


def test_the_recipes_in_docs_pytest_md_pass(pytester: pytest.Pytester) -> None:
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "pytest.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    pytester.makepyfile(test_recipes="\n\n".join(blocks))
    # six recipes, one parametrised over three specs, one for real hardware only
    assert len(blocks) == 6
    pytester.runpytest().assert_outcomes(passed=7, skipped=1)


def test_mock_gpio_and_emulated_launchers_take_a_spec_parameter(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("mock_gpio_launcher", ["gpio://?mock=1&seed=9"], indirect=True)
        def test_gpio(mock_gpio_launcher):
            assert mock_gpio_launcher.seed == 9

        @pytest.mark.parametrize("emulated_launcher", ["emu://?fast=1&seed=5"], indirect=True)
        def test_emu(emulated_launcher):
            assert emulated_launcher.seed == 5
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_an_unknown_scheme_stops_the_run_with_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_never_runs(launcher): pass\n")
    result = pytester.runpytest("--uno-launcher", "nope://")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--uno-launcher nope://: unknown scheme nope://; use pile://*"])


def test_a_bad_spec_is_one_usage_error_naming_the_schemes(pytester: pytest.Pytester) -> None:
    """Issue 28: a wrong option gave one traceback per test; ``emu:/`` did not list the schemes."""
    pytester.makepyfile(
        "def test_one(launcher): pass\ndef test_two(launcher): pass\ndef test_three(): pass\n"
    )
    for spec, reason in (
        ("emu://?fsat=1", "*--uno-launcher emu://?fsat=1: emu://?fsat=1: unknown option(s) fsat*"),
        ("emu:/", "*--uno-launcher emu:/: launcher spec 'emu:/' has no scheme*"),
    ):
        result = pytester.runpytest("--uno-launcher", spec)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([reason + "the schemes are pile://, sim://*emu://*"])
        out = result.stdout.str() + result.stderr.str()
        assert "Traceback" not in out and "test_one" not in out  # no test ran
