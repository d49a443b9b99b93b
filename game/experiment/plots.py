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


def figure_of(draw: Callable[[Any], None], size: tuple[float, float] = (7, 4)) -> Any:
    """A fresh figure with one axes drawn by ``draw`` and laid out (the caller closes it)."""
    plt = _figure()
    fig, ax = plt.subplots(figsize=size, dpi=100)
    try:
        draw(ax)
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def save_figure(path: Path, fig: Any) -> None:
    """Write ``fig`` to ``path`` atomically (fixed metadata: same bytes each run) and close it."""
    try:
        with atomic_path(path) as temporary:
            fig.savefig(temporary, format="png", metadata={"Software": None})
    finally:
        _figure().close(fig)


def save(path: Path, draw: Callable[[Any], None], size: tuple[float, float] = (7, 4)) -> None:
    """Draw on a fresh axes and write ``path`` atomically."""
    save_figure(path, figure_of(draw, size))


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


def report_figure(summary: dict[str, Any], name: str) -> Any:
    """One figure of :data:`REPORT_FIGURES` as a matplotlib figure (tests read its text)."""
    cells = summary["cells"]
    height = max(3.0, 0.35 * len(cells) + 1.5)
    if name == "minutes_per_round.png":
        return figure_of(
            lambda ax: _bar_with_ci(
                ax,
                [c["label"] for c in cells],
                [c["minutes_per_round"] for c in cells],
                "estimated minutes per round (95 % CI)",
            ),
            (8, height),
        )
    if name == "hand_sizes.png":
        return figure_of(lambda ax: _hand_sizes(ax, cells))
    return figure_of(lambda ax: _seat_wins(ax, cells), (9, height))


def report_figures(summary: dict[str, Any], paths: Sequence[Path]) -> None:
    """The three figures of :data:`REPORT_FIGURES`, to ``paths`` in that order."""
    for name, path in zip(REPORT_FIGURES, paths, strict=True):
        save_figure(path, report_figure(summary, name))


def _hand_sizes(ax: Any, cells: list[dict[str, Any]]) -> None:
    """Mean hand size through the round, with its 95 % interval as a band."""
    for cell in cells:
        deciles = cell["hand_size_by_decile"]
        x = [10 * k + 5 for k in range(len(deciles))]
        means = [_value(d["mean"]) for d in deciles]
        (line,) = ax.plot(x, means, marker="o", label=cell["label"])
        lows = [_value(d["low"], d["mean"]) for d in deciles]
        highs = [_value(d["high"], d["mean"]) for d in deciles]
        ax.fill_between(x, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xlabel("progress through the round (% of its turns)")
    ax.set_ylabel("mean hand size (band: 95 % CI)")
    if len(cells) <= 12:
        ax.legend(fontsize=7)


def _value(value: float | None, fallback: float | None = None) -> float:
    chosen = value if value is not None else fallback
    return float("nan") if chosen is None else float(chosen)


#: How far apart seats of one cell are drawn, as a share of the row height.
SEAT_SPREAD = 0.6


def _seat_wins(ax: Any, cells: list[dict[str, Any]]) -> None:
    """Each seat's win rate with its Wilson 95 % interval, seats one below the other in a row.

    Seats are told apart by colour (the legend), never by numbers written at the
    points, which overlapped whenever two seats won about as often.
    """
    labelled: set[int] = set()
    for row, cell in enumerate(cells):
        rates = cell["seat_win_rate"]
        for seat, rate in enumerate(rates):
            y = row + SEAT_SPREAD * ((seat + 0.5) / len(rates) - 0.5)
            mean = _value(rate["mean"])
            low, high = _value(rate["low"], rate["mean"]), _value(rate["high"], rate["mean"])
            ax.errorbar(
                [mean],
                [y],
                xerr=[[mean - low], [high - mean]],
                fmt="o",
                markersize=4,
                capsize=2,
                color=f"C{seat % 10}",
                label=None if seat in labelled else f"seat {seat}",
            )
            labelled.add(seat)
        fair = 1 / len(rates)
        ax.plot([fair, fair], [row - 0.45, row + 0.45], color="#bbb", lw=1)
    ax.set_yticks(range(len(cells)), [c["label"] for c in cells], fontsize=8)
    ax.set_ylim(len(cells) - 0.5, -0.5)
    ax.set_xlabel("game win rate by seat, 95 % CI (grey: a fair share)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
