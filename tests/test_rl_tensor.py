"""The compiled tensors (game/rl/_tensor.pyx) against the Python ones (game/rl/tensor.py).

An install with a C compiler builds the compiled twins, and every table then uses them;
the Python classes are the reference. They must agree byte for byte: every seat's
information-state tensor (hand shown and hidden) and mask, at every step of random tables
of every ruleset, out-of-turn rules on, after a copy and after a pickle round trip. And an
install without the compiled module must still work, on the Python classes.
"""

from __future__ import annotations

import pickle
import random
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

from game.rl import table as table_module
from game.rl import tensor
from game.rl.table import CHANCE, Table, TableSpec

TABLES = [
    ("attack", 2, {}),
    ("attack", 4, {}),
    ("attack", 3, {"jump_in": True}),
    ("attack-original", 2, {}),
    ("attack-mega-hit", 3, {}),
    ("classic", 2, {}),
    ("classic", 4, {"jump_in": True}),
    ("pocket", 3, {}),
]


def _has_c_compiler() -> bool:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None


def _python_twin(table: Table, monkeypatch: pytest.MonkeyPatch) -> Table:
    """A copy of ``table`` that makes its tensors with the Python classes."""
    monkeypatch.setattr(table_module, "SeatTensor", tensor.PySeatTensor)
    monkeypatch.setattr(table_module, "SeatMask", tensor.PySeatMask)
    twin = table.copy()  # a copy starts with no tensors: each is made when first asked for
    for seat in range(twin.players):
        twin.information_state_tensor(seat, True), twin.information_state_tensor(seat, False)
        twin.action_mask(seat)
    monkeypatch.undo()
    assert all(type(kept) is tensor.PySeatTensor for kept in twin._seat_tensors)
    return twin


def _assert_same_views(ours: Table, reference: Table, rng: random.Random) -> None:
    """Every seat, both privacy settings, in a random order (each tensor keeps what it
    showed, so the order in which seats are asked matters: it is varied)."""
    seats = list(range(ours.players))
    rng.shuffle(seats)
    for seat in seats:
        for private in rng.sample([True, False], 2):
            got = ours.information_state_tensor(seat, private)
            expected = reference.information_state_tensor(seat, private)
            assert got.dtype == expected.dtype == np.float32
            assert got.tobytes() == expected.tobytes(), (seat, private)
        assert ours.action_mask(seat).tobytes() == reference.action_mask(seat).tobytes()


@pytest.mark.skipif(not tensor.COMPILED, reason="the compiled tensors are not built here")
@pytest.mark.parametrize(("ruleset", "players", "options"), TABLES)
def test_the_compiled_tensors_are_the_python_ones_byte_for_byte(
    ruleset: str, players: int, options: dict[str, bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"{ruleset}-{players}")
    for seed in range(3):
        ours = Table(TableSpec.of(ruleset, players, options), seed=seed)
        reference = _python_twin(ours, monkeypatch)
        steps = 0
        while not ours.is_terminal() and steps < 500:
            if rng.random() < 0.7:  # not every step: changes pile up between views
                _assert_same_views(ours, reference, rng)
            if steps == 150:  # copies and pickles start with fresh tensors
                ours = pickle.loads(pickle.dumps(ours.copy()))
            if ours.actor == CHANCE:
                counts, probabilities = zip(*ours.chance_outcomes(), strict=True)
                action = rng.choices(counts, probabilities)[0]
            else:
                action = rng.choice(ours.legal_actions())
            ours.apply(action)
            reference.apply(action)
            steps += 1
        _assert_same_views(ours, reference, rng)
        assert steps > 20


@pytest.mark.skipif(not tensor.COMPILED, reason="the compiled tensors are not built here")
def test_a_mask_refuses_an_id_it_does_not_have() -> None:
    for mask_class in (tensor.SeatMask, tensor.PySeatMask):
        mask = mask_class(5)
        with pytest.raises(IndexError):
            mask.show({5: None})


@pytest.mark.skipif(not _has_c_compiler(), reason="no C compiler: the install keeps Python")
def test_an_install_with_a_c_compiler_builds_the_compiled_tensors() -> None:
    """The figure docs/rl.md gives for env() is the compiled one: CI must build it."""
    assert tensor.COMPILED
    assert table_module.SeatTensor is not tensor.PySeatTensor


def test_without_the_compiled_module_the_python_tensors_play() -> None:
    """An install that could not compile (no C compiler) plays on the Python classes."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["game.rl._tensor"] = None  # as if never built: its import fails
        import random
        from game.pettingzoo import env
        from game.rl import tensor
        assert not tensor.COMPILED and tensor.SeatTensor is tensor.PySeatTensor
        table = env(ruleset="attack", players=2)
        table.reset(seed=3)
        rng = random.Random(3)
        for _ in range(300):
            observation, _, done, cut, _ = table.last()
            if done or cut:
                table.reset()
                continue
            table.step(rng.choice(observation["action_mask"].nonzero()[0].tolist()))
        print("played")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "played"
