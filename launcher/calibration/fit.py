"""Fit a profile to one or more calibration sessions, and say how much to trust it.

The report holds the estimated distribution with simultaneous intervals
(:mod:`launcher.calibration.intervals`), the mean with its interval, the
independence and load checks (:mod:`launcher.calibration.independence`), the
count and structure models ranked by AIC (:mod:`launcher.calibration.models`)
and the :class:`~launcher.profiles.Profile` that the best models describe,
ready for ``sim://?profile=PATH``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from launcher.analysis import analyse
from launcher.calibration.independence import (
    MIN_PRESSES,
    Refill,
    TestResult,
    independence_checks,
    load_checks,
    looks_independent,
)
from launcher.calibration.intervals import Estimate, MeanInterval, estimate, mean_interval
from launcher.calibration.models import (
    ModelFit,
    StructureFit,
    count_models,
    load_bands,
    structure_models,
)
from launcher.calibration.session import Session, SessionError
from launcher.profiles import (
    EscalatingProfile,
    IIDProfile,
    LoadBand,
    LoadDependentProfile,
    PatternProfile,
    Profile,
)

IntArray = npt.NDArray[np.int64]
AIC_MARGIN = 2.0
#: Fewer presses than this: no checks, no models, and ``fit --out`` refuses to write a profile.
MIN_PROFILE_PRESSES = MIN_PRESSES


@dataclass(frozen=True)
class SessionData:
    """The presses of one or more sessions, pooled in order."""

    labels: tuple[str, ...]
    launchers: tuple[str, ...]
    counts: IntArray
    loads: IntArray
    since_reload: IntArray
    refills: tuple[Refill, ...] = ()

    @classmethod
    def of(cls, sessions: Sequence[Session]) -> SessionData:
        usable = [s for s in sessions if s.presses]
        if not usable:
            raise SessionError(f"{', '.join(s.label for s in sessions)}: no presses recorded yet")
        return cls(
            tuple(s.label for s in usable),
            tuple(sorted({s.header.launcher for s in usable})),
            np.concatenate([s.counts for s in usable]),
            np.concatenate([s.loads for s in usable]),
            np.concatenate([s.since_reload for s in usable]),
            tuple((len(s.presses), s.header.cards_loaded, s.header.reload_below) for s in usable),
        )

    @property
    def fired(self) -> npt.NDArray[np.bool_]:
        return self.counts > 0

    @property
    def cap(self) -> int:
        """The largest count a press could physically give: the fullest hopper seen."""
        return max(int(self.loads.max()), int(self.counts.max()))


@dataclass
class FitReport:
    """Everything ``calibrate fit`` prints, and the profile it writes."""

    data: SessionData
    estimate: Estimate
    mean: MeanInterval
    independence: list[TestResult]
    independent: bool
    load: list[TestResult]
    counts: list[ModelFit]
    structures: dict[str, StructureFit]
    structure: str
    firing: Estimate
    profile: Profile
    notes: list[str] = field(default_factory=list)
    #: The fitted profile's long-run mean (``profile show`` prints the same figure).
    profile_mean: float = float("nan")

    @property
    def presses(self) -> int:
        return len(self.data.counts)


def fit_sessions(
    sessions: Sequence[Session],
    *,
    name: str = "fitted",
    confidence: float = 0.95,
    lags: int = 10,
    seed: int = 0,
    ties: str = "randomized",
) -> FitReport:
    """Fit every model to the pooled presses and build the best profile.

    Below :data:`MIN_PROFILE_PRESSES` presses only the estimate, its intervals
    and the mean are computed; :func:`missing_statistics` says what is left out.
    """
    data = SessionData.of(sessions)
    enough = len(data.counts) >= MIN_PROFILE_PRESSES
    checks = independence_checks(data.counts, lags, seed=seed)
    loads = load_checks(data.counts, data.loads, seed=seed, refills=data.refills)
    structures = structure_models(data.fired, data.since_reload, data.loads) if enough else {}
    structure = (
        choose_structure(
            structures,
            dependent=not looks_independent(checks),
            load_matters=bool(loads) and looks_independent(loads) is False,
        )
        if enough
        else "iid"
    )
    firing = (
        estimate(data.counts[data.fired], confidence, first=1, ties=ties)
        if data.fired.any()
        else estimate([0], ties=ties)
    )
    report = FitReport(
        data=data,
        estimate=estimate(data.counts, confidence, ties=ties),
        mean=mean_interval(data.counts, confidence),
        independence=checks,
        independent=looks_independent(checks),
        load=loads,
        counts=count_models(data.counts, cap=data.cap)
        if enough
        else count_models(data.counts, cap=data.cap)[:1],
        structures=structures,
        structure=structure,
        firing=firing,
        profile=IIDProfile(name, "", "", (1.0,)),
    )
    report.profile, report.profile_mean = build_profile(report, name)
    report.notes = _notes(report)
    return report


def missing_statistics(presses: int) -> list[str]:
    """What a session of ``presses`` presses is too short for (empty when nothing is)."""
    missing = []
    if presses < 2:
        missing.append("the mean's interval (needs 2 presses)")
    if presses < MIN_PROFILE_PRESSES:
        missing += [
            f"the independence and load checks (need {MIN_PROFILE_PRESSES} presses)",
            f"the count and structure models, and a profile (need {MIN_PROFILE_PRESSES} presses)",
        ]
    return missing


def choose_structure(
    structures: dict[str, StructureFit],
    *,
    dependent: bool,
    load_matters: bool,
    margin: float = AIC_MARGIN,
) -> str:
    """Independent presses unless a test flags a dependence *and* its model wins on AIC.

    A test gates each alternative (the independence checks for pattern and
    escalating, the load checks for load-dependent) so i.i.d. data are
    mislabelled about as often as the tests' 5 % level (4.7 % of 150 simulated
    300-press sessions) rather than the 16 % that AIC alone gives; among the
    allowed models the lowest AIC wins if it beats i.i.d. by more than
    ``margin`` (differences under 2 are conventionally "no real support",
    Burnham and Anderson).
    """
    allowed = {"iid"}
    if dependent:
        allowed |= {"pattern", "escalating"}
    if load_matters:
        allowed.add("load-dependent")
    best = min(allowed, key=lambda key: structures[key].model.aic)
    if structures[best].model.aic < structures["iid"].model.aic - margin:
        return best
    return "iid"


def _notes(report: FitReport) -> list[str]:
    notes = []
    missing = missing_statistics(report.presses)
    if missing:
        notes.append(
            f"Only {report.presses} press(es), below the minimum: not computed: "
            + "; ".join(missing)
            + "."
        )
    if not report.independent:
        notes.append(
            "Presses are not independent: the intervals for P(k) and the mean assume they are, "
            "so read "
            "them as rough; the fitted structure below describes the dependence."
        )
    if any(r.p_value < 0.05 for r in report.load):
        notes.append("Output seems to depend on how many cards are loaded (see the load checks).")
    mean_note = _mean_note(report)
    if mean_note:
        notes.append(mean_note)
    if MIN_PROFILE_PRESSES <= report.presses < 100:
        notes.append(
            f"Only {report.presses} presses: intervals are wide; "
            "`calibrate plan` says how many you need."
        )
    return notes


#: A profile mean this far (relative) from the session's is worth a note even inside its interval.
MEAN_GAP = 0.05


def _mean_note(report: FitReport) -> str:
    """Say so when the profile's mean is not the session's (outside its interval, or 5 % off)."""
    fitted, seen = report.profile_mean, report.mean
    if report.presses < MIN_PROFILE_PRESSES or fitted != fitted:
        return ""
    outside = not seen.low <= fitted <= seen.high
    if not outside and abs(fitted - seen.mean) <= MEAN_GAP * max(seen.mean, 0.1):
        return ""
    where = "outside" if outside else "inside"
    return (
        f"The fitted profile's mean, {fitted:.3f} cards per press, differs from the session's "
        f"{seen.mean:.3f} [{seen.low:.3f}, {seen.high:.3f}] ({where} its 95 % interval): "
        f"the {report.profile.kind} model describes these presses only roughly."
    )


# -- building the profile -----------------------------------------------------------------
def _source(report: FitReport) -> str:
    day = datetime.now(UTC).date().isoformat()
    launchers = ", ".join(report.data.launchers)
    how = f"{report.structure} structure chosen by checks and AIC"
    if report.structure == "iid":
        how = f"independent presses, {report.counts[0].name} counts chosen by AIC"
    return (
        f"measured: fitted by `uno-attack calibrate fit` on {day} "
        f"from {', '.join(report.data.labels)} "
        f"({report.presses} presses on {launchers}); {how}"
    )


def _firing_probabilities(report: FitReport) -> tuple[float, ...]:
    """Cards per firing press (P(0) = 0), with the tail of :func:`with_tail` from 1 up."""
    fired = int(report.data.fired.sum())
    tail = with_tail(report.firing.probabilities, fired, report.data.cap, first=1)
    return (0.0, *tail)


def build_profile(report: FitReport, name: str) -> tuple[Profile, float]:
    """The profile of the best structure (AIC) with the best count model (AIC), and its mean.

    Every count from 0 up to the largest load seen stays possible: a parametric
    model keeps its own tail, cut at the hopper
    (:func:`~launcher.calibration.models.truncated_pmf`), and the empirical
    shares get :func:`with_tail`. The unseen-count tail is never added on top of
    a parametric model's own (that made a bump past the counts seen and raised
    the mean). The description's figures come from :func:`launcher.analysis.analyse` of
    the profile itself -- the same numbers ``profile show`` prints.
    """
    common: dict[str, Any] = {"name": name, "source": _source(report), "description": ""}
    builder = {
        "pattern": _pattern_profile,
        "escalating": _escalating_profile,
        "load-dependent": _load_profile,
    }
    made = builder.get(report.structure, lambda r, c: None)(report, common)
    if made is None:
        best = report.counts[0]
        pmf = best.pmf if best.parametric else with_tail(best.pmf, report.presses, report.data.cap)
        made = IIDProfile(**common, probabilities=_normalised(list(pmf)))
    result = analyse(made)
    description = (
        f"Fitted: mean {result.mean:.3f} cards per press, P(nothing) {result.p_nothing:.3f}; "
        f"counts above {report.estimate.tail_from - 1} were never seen "
        f"(P <= {report.estimate.tail_high:.3f} at 95 %) and keep a small tail probability."
        + made.description
    )
    return replace(made, description=description), result.mean


def _cap(report: FitReport) -> int:
    return report.data.cap


def with_tail(pmf: npt.ArrayLike, presses: int, cap: int, first: int = 0) -> tuple[float, ...]:
    """``pmf`` with mass 1 / (2 (presses + 1)) spread over the counts it gives 0, up to ``cap``.

    A session that never saw 9 cards does not show that 9 is impossible; a
    profile with P(9) = 0 would say so (and ``compare`` would call a later
    9 an impossibility). The mass is the "add one half" estimate of an unseen
    category; gaps inside the seen range share it equally with the first count
    above, and each further count gets half the one before, up to ``cap``.
    """
    given = np.asarray(pmf, dtype=float)
    values = np.zeros(max(len(given), cap + 1 - first))
    values[: len(given)] = given
    unseen = values <= 0
    if not unseen.any():
        return _normalised(list(values))
    top = int(np.flatnonzero(~unseen).max()) if (~unseen).any() else -1
    index = np.arange(len(values))
    weights = np.where(index > top, 0.5 ** np.clip(index - top - 1, 0, 1000), 1.0) * unseen
    tail = 0.5 / (presses + 1)
    mixed = (1 - tail) * values / values.sum() + tail * weights / weights.sum()
    return _normalised(list(mixed))


def _normalised(values: Sequence[float]) -> tuple[float, ...]:
    total = sum(values)
    return tuple(float(v) / total for v in values)


def _pattern_profile(report: FitReport, common: dict[str, Any]) -> Profile | None:
    rates = report.structures["pattern"].rates
    fires = tuple(int(i) + 1 for i in np.flatnonzero(rates >= 0.5))
    if not fires:
        return None
    common = dict(
        common,
        description=common["description"]
        + (
            f" Fires on presses {', '.join(map(str, fires))} after each reload; "
            f"presses past {len(rates)}"
            " were never observed, so the fitted cycle repeats what was seen."
        ),
    )
    return PatternProfile(
        **common, fires=fires, cycle=len(rates), firing=_firing_probabilities(report)
    )


def _escalating_profile(report: FitReport, common: dict[str, Any]) -> Profile | None:
    rates = [float(r) for r in report.structures["escalating"].rates]
    trials = report.structures["escalating"].trials
    if rates[-1] <= 0:
        rates[-1] = min(1.0, 0.5 / max(float(trials[-1]), 1.0))
        rates = [min(r, rates[-1]) for r in rates]
    guaranteed = next((m for m, r in enumerate(rates) if r >= 1.0), None)
    hazard = tuple(rates[:guaranteed] or [1.0]) if guaranteed is not None else tuple(rates)
    return EscalatingProfile(
        **common,
        hazard=hazard,
        firing=_firing_probabilities(report),
        guaranteed_after=guaranteed if guaranteed else None,
    )


def _load_profile(report: FitReport, common: dict[str, Any]) -> Profile | None:
    starts = load_bands(report.data.loads)
    band = np.searchsorted(starts, report.data.loads, side="right") - 1
    width = int(report.data.counts.max()) + 1
    bands: list[LoadBand] = []
    for index, start in enumerate(starts):
        cells = np.bincount(report.data.counts[band == index], minlength=width).astype(float)
        if cells.sum():
            pmf = with_tail(_normalised(list(cells)), int(cells.sum()), report.data.cap)
            bands.append(LoadBand(int(start) if bands else 0, pmf))
    if len(bands) < 2:
        return None
    return LoadDependentProfile(**common, bands=tuple(bands))
