"""Statistics against values computed by hand (t quantiles from tables, Jain examples)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from rtolab import stats


def test_t_interval_matches_the_textbook_formula() -> None:
    # x = 1..5: mean 3, s = sqrt(2.5) = 1.58114; t_{0.95, 4} = 2.13185 (t table);
    # half-width = 2.13185 · 1.58114 / sqrt(5) = 1.50744
    mean, lo, hi = stats.t_interval([1, 2, 3, 4, 5], level=0.9)
    assert mean == 3.0
    assert hi - mean == pytest.approx(1.50744, abs=1e-5)
    assert mean - lo == pytest.approx(1.50744, abs=1e-5)
    # 95 %: t_{0.975, 4} = 2.77645 → 1.96324
    assert stats.t_interval([1, 2, 3, 4, 5], level=0.95)[2] - 3 == pytest.approx(1.96324, abs=1e-5)
    assert math.isnan(stats.t_interval([4.0])[1])


def test_summarize_by_group() -> None:
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 2, "v": [1.0, 2.0, 3.0, 10.0, 5.0, 7.0]})
    s = stats.summarize(df, "v", ["g"]).row(0, named=True)
    # a: mean 4, median 2.5, q1 = 1.75, q3 = 4.75 (linear interpolation), min 1, max 10
    assert (s["n"], s["mean"], s["median"], s["q1"], s["q3"], s["min"], s["max"]) == (4, 4.0, 2.5, 1.75, 4.75, 1.0, 10.0)
    # s = sqrt(((−3)² + (−2)² + (−1)² + 6²)/3) = sqrt(50/3); t_{0.95,3} = 2.35336
    half = 2.35336 * math.sqrt(50 / 3) / 2
    assert s["ci_high"] - s["mean"] == pytest.approx(half, abs=1e-4)


def test_jain_examples() -> None:
    assert stats.jain([5, 5, 5, 5]) == 1.0  # perfectly fair
    assert stats.jain([1, 0, 0, 0]) == 0.25  # one takes all: 1/n
    assert stats.jain([1, 2, 3]) == pytest.approx(36 / 42)  # (6)² / (3 · 14)
    df = pl.DataFrame({"burst": ["x", "x", "y", "y"], "goodput": [1.0, 1.0, 3.0, 1.0]})
    by = stats.jain_by(df, "goodput", ["burst"]).sort("burst")
    assert by["jain"].to_list() == pytest.approx([1.0, 16 / 20])


def test_ecdf_steps_at_each_distinct_value() -> None:
    """By hand: of [3, 1, 2, 2, nan], 1 of 4 values is ≤ 1, 3 are ≤ 2, all 4 are ≤ 3."""
    e = stats.ecdf([3.0, 1.0, 2.0, 2.0, float("nan")])
    assert e["x"].to_list() == [1.0, 2.0, 3.0]
    assert e["p"].to_list() == [0.25, 0.75, 1.0]
    assert stats.ecdf([]).height == 0


def test_detector_scores_by_hand() -> None:
    # Group a: 10 timeouts, 6 spurious (oracle), 5 detected of which 4 spurious:
    # precision 4/5, recall 4/6. Group b: nothing detected, nothing spurious: both NaN.
    flows = pl.DataFrame(
        {
            "g": ["a", "a", "b"],
            "timeouts": [4, 6, 2],
            "spurious_timeouts": [2, 4, 0],
            "spurious_detected": [2, 3, 0],
            "spurious_detected_correct": [2, 2, 0],
        }
    )
    s = stats.detector_scores(flows, ["g"]).sort("g")
    a, b = s.row(0, named=True), s.row(1, named=True)
    assert (a["timeouts"], a["spurious"], a["detected"], a["true_positives"]) == (10, 6, 5, 4)
    assert a["precision"] == pytest.approx(0.8) and a["recall"] == pytest.approx(4 / 6)
    assert math.isnan(b["precision"]) and math.isnan(b["recall"])
