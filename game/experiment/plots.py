"""PNG figures of an experiment summary (matplotlib, the ``plot`` extra), written safely.

Each figure is drawn to a temporary file and renamed into place only once whole
(:func:`game.cli.common.write_plot`'s policy, through :func:`hardware.files.atomic_path`);
an existing file is replaced only with ``force``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hardware.files import PathError, atomic_path, check_output

#: The figures ``experiment report --plots DIR`` writes.
REPORT_FIGURES = ("minutes_per_round.png", "hand_sizes.png", "seat_win_rates.png")


def check_plot_dir(
    folder: str, names: Sequence[str], *, force: bool, what: str = "--plots"
) -> list[Path]:
    """Before any work: the folder exists and every figure may be written."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PathError(
            "--plots needs matplotlib, which is not installed",
            hint="pip install 'uno-attack[plot]'",
        ) from None
    base = Path(folder)
    if not base.is_dir():
        raise PathError(
            f"--plots {folder}: not a folder", hint=f"create it first (mkdir -p {folder})"
        )
    return [
        check_output(base / name, what="--plots", force=force, suffixes=["png"]) for name in names
    ]


def _figure() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(path: Path, draw: Callable[[Any], None], size: tuple[float, float] = (7, 4)) -> None:
    """Draw on a fresh axes and write ``path`` atomically (fixed metadata: same bytes each run)."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=size, dpi=100)
    try:
        draw(ax)
        fig.tight_layout()
        with atomic_path(path) as temporary:
            fig.savefig(temporary, format="png", metadata={"Software": None})
    finally:
        plt.close(fig)


def _bar_with_ci(ax: Any, labels: list[str], entries: list[dict[str, Any]], ylabel: str) -> None:
    means = [e["mean"] or 0.0 for e in entries]
    lows = [
        m - (e["low"] if e["low"] is not None else m) for m, e in zip(means, entries, strict=True)
    ]
    highs = [
        (e["high"] if e["high"] is not None else m) - m for m, e in zip(means, entries, strict=True)
    ]
    ax.barh(range(len(labels)), means, xerr=[lows, highs], color="#4a7bb7", capsize=3)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(ylabel)


def report_figures(summary: dict[str, Any], paths: Sequence[Path]) -> None:
    """The three figures of :data:`REPORT_FIGURES`, to ``paths`` in that order."""
    cells = summary["cells"]
    labels = [c["label"] for c in cells]
    height = max(3.0, 0.35 * len(cells) + 1.5)
    save(
        paths[0],
        lambda ax: _bar_with_ci(
            ax,
            labels,
            [c["minutes_per_round"] for c in cells],
            "estimated minutes per round (95 % CI)",
        ),
        (8, height),
    )
    save(paths[1], lambda ax: _hand_sizes(ax, cells))
    save(paths[2], lambda ax: _seat_wins(ax, cells), (8, height))


def _hand_sizes(ax: Any, cells: list[dict[str, Any]]) -> None:
    for cell in cells:
        means = [d["mean"] for d in cell["hand_size_by_decile"]]
        ax.plot([10 * k + 5 for k in range(len(means))], means, marker="o", label=cell["label"])
    ax.set_xlabel("progress through the round (% of its turns)")
    ax.set_ylabel("mean hand size")
    if len(cells) <= 12:
        ax.legend(fontsize=7)


def _seat_wins(ax: Any, cells: list[dict[str, Any]]) -> None:
    for row, cell in enumerate(cells):
        rates = cell["seat_win_rate"]
        ax.scatter([r["mean"] for r in rates], [row] * len(rates), s=12)
        for seat, rate in enumerate(rates):
            ax.annotate(
                str(seat),
                (rate["mean"], row),
                fontsize=6,
                xytext=(2, 2),
                textcoords="offset points",
            )
        fair = 1 / len(rates)
        ax.plot([fair, fair], [row - 0.4, row + 0.4], color="#bbb", lw=1)
    ax.set_yticks(range(len(cells)), [c["label"] for c in cells], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("game win rate by seat (numbers: seat; grey: a fair share)")
