"""Machine-readable reports: what ``calibrate fit|compare|plan --json`` print.

One JSON object per command, with the same figures as the text report (never
recomputed differently), ``schema`` for forward compatibility, and NaN or
infinity written as ``null`` so any JSON parser reads it. docs/calibration-methods.md
lists the fields.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from launcher.calibration.compare import Comparison
from launcher.calibration.fit import FitReport, missing_statistics
from launcher.calibration.independence import TestResult
from launcher.calibration.intervals import MEAN_METHOD, METHOD
from launcher.calibration.plain import compare_summary, fit_summary
from launcher.profiles import profile_to_dict

REPORT_SCHEMA = 1


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _test(result: TestResult) -> dict[str, Any]:
    return {
        "name": result.name,
        "statistic": _number(result.statistic),
        "p_value": _number(result.p_value),
        "method": result.method,
        "detail": result.detail,
    }


def fit_json(report: FitReport) -> dict[str, Any]:
    est = report.estimate
    return {
        "schema": REPORT_SCHEMA,
        "report": "fit",
        "summary": fit_summary(report),
        "presses": report.presses,
        "sessions": list(report.data.labels),
        "confidence": est.confidence,
        "interval_method": est.method,
        "distribution": [
            {"count": k, "observed": int(c), "p": float(p), "low": float(lo), "high": float(hi)}
            for k, c, p, lo, hi in zip(
                est.values, est.counts, est.probabilities, est.low, est.high, strict=True
            )
        ],
        "tail": {"count_at_least": est.tail_from, "high": float(est.tail_high)},
        "mean": {
            "estimate": _number(report.mean.mean),
            "low": _number(report.mean.low),
            "high": _number(report.mean.high),
            "method": MEAN_METHOD,
        },
        "independent": report.independent,
        "independence_checks": [_test(t) for t in report.independence],
        "load_checks": [_test(t) for t in report.load],
        "count_models": [
            {"name": m.name, "aic": m.aic, "bic": m.bic, "parameters": m.parameters}
            for m in report.counts
        ],
        "structure": report.structure,
        "profile": profile_to_dict(report.profile),
        "profile_mean": _number(report.profile_mean),
        "not_computed": missing_statistics(report.presses),
        "notes": report.notes,
    }


def compare_json(result: Comparison) -> dict[str, Any]:
    width = max(len(result.a.cells), len(result.b.cells))
    return {
        "schema": REPORT_SCHEMA,
        "report": "compare",
        "summary": compare_summary(result),
        "a": {"label": result.a.label, "is_session": result.a.is_session},
        "b": {"label": result.b.label, "is_session": result.b.is_session},
        "distribution_a": [float(v) for v in result.a.distribution(width)],
        "distribution_b": [float(v) for v in result.b.distribution(width)],
        "tests": [
            {"name": t.name, "statistic": _number(t.statistic), "p_value": _number(t.p_value)}
            for t in result.tests
        ],
        "p_value": _number(result.p_value) if result.is_sampled else None,
        "alpha": result.alpha,
        "different": bool(result.differ),
        "total_variation": float(result.total_variation),
        "effect": result.effect,
        "verdict": result.verdict,
    }


def plan_json(
    precision: float, presses: int, cells: int, basis: str, runs: str, summary: list[str]
) -> dict[str, Any]:
    return {
        "schema": REPORT_SCHEMA,
        "report": "plan",
        "summary": summary,
        "presses": int(np.int64(presses)),
        "precision": precision,
        "counts": cells,
        "promise": (
            f"the simultaneous 95 % interval of every P(count = k) and the bound for counts "
            f"never seen have half-width (high - low) / 2 <= {precision:g} in {runs}"
        ),
        "assuming": basis,
        "interval_method": METHOD,
        "minutes_at_5_s_per_press": presses * 5 / 60,
    }
