"""Calibration (issue 42): targets are not findings, the search measures every combination of
readings against the targets only, and the rule that picks one is fixed and hand-checkable."""

from __future__ import annotations

import math

import polars as pl
import pytest

from rtolab import calibration
from rtolab.calibration import Axis, Reading, Target, choose
from rtolab.findings import Band, Measured, grade

TARGET = Target("999", "999-share", "Sec. 1", "about half", "about 50 %", "share", Band(0.25, 0.75), 0.25)
LEVEL = Target("999", "999-level", "Fig. 1", "up to 7", "≤ 7", "Mbit/s", Band(1.0, 7.5), 1.0)


def test_a_target_cannot_be_graded_as_a_finding() -> None:
    with pytest.raises(TypeError, match="999-share.*is a Target, not a Finding: a calibration target"):
        grade([TARGET], {"999-share": Measured(0.5, "half")})  # type: ignore[list-item]


def test_the_error_is_the_distance_outside_the_band_in_the_targets_scale() -> None:
    # Inside the band: 0. Below: (0.25 − 0.05) / 0.25 = 0.8. Above: (9.5 − 7.5) / 1 = 2.
    assert TARGET.error(0.5) == 0.0 and TARGET.error(0.25) == 0.0
    assert TARGET.error(0.05) == pytest.approx(0.8)
    assert LEVEL.error(9.5) == pytest.approx(2.0)
    assert math.isinf(LEVEL.error(math.nan))


AXES = [
    Axis("sizes", (Reading("cut", "3GPP", {}), Reading("uncut", "ns-2", {"size": "uncut"}))),
    Axis("buffer", (Reading("per user", "earlier", {}), Reading("per cell", "ns-2", {"buffer": "50p"}), Reading("none", "x", {"buffer": "inf"}))),
]


def test_the_search_measures_every_combination_against_the_targets() -> None:
    """Six candidates in the table's order (axes in order, readings in order), each measured
    once; the values here are made up so that the rule's three steps each decide once."""
    values = {
        ("cut", "per user"): {"999-share": 0.01, "999-level": 9.5},  # 0.96 + 2 = 2.96
        ("cut", "per cell"): {"999-share": 0.30, "999-level": 7.0},  # 0: one departure
        ("cut", "none"): {"999-share": 0.30, "999-level": 7.0},  # 0: one departure, later
        ("uncut", "per user"): {"999-share": 0.50, "999-level": 6.0},  # 0: one departure, earlier
        ("uncut", "per cell"): {"999-share": 0.40, "999-level": 5.0},  # 0: two departures
        ("uncut", "none"): {"999-share": 0.20, "999-level": 7.0},  # 0.2
    }
    seen: list[tuple[str, ...]] = []

    def evaluate(cands: list[tuple[Reading, ...]]) -> list[dict[str, float]]:
        seen.extend(tuple(r.name for r in c) for c in cands)
        return [values[tuple(r.name for r in c)] for c in cands]

    table = calibration.search(AXES, [TARGET, LEVEL], evaluate)  # type: ignore[arg-type]
    assert seen == list(values)
    assert table["error"].to_list() == pytest.approx([2.96, 0, 0, 0, 0, 0.2])
    assert table["departures"].to_list() == [0, 1, 1, 1, 2, 2]
    assert table["readings"][4] == "sizes: uncut; buffer: per cell"
    # Zero error ties four candidates; three depart once; the first of those in the table's
    # order is candidate 1 (cut, per cell), not candidate 3.
    assert choose(table) == 1
    assert calibration.reading_of(AXES, table, 1) == {"sizes": "cut", "buffer": "per cell"}


def test_choose_prefers_smaller_error_over_fewer_departures() -> None:
    table = pl.DataFrame({"candidate": [0, 1, 2], "error": [0.5, 0.1, 0.1], "departures": [0, 3, 2]})
    assert choose(table) == 2


def test_a_frozen_reading_must_name_readings_of_the_axes() -> None:
    assert [r.name for r in calibration.frozen(AXES, {"sizes": "uncut", "buffer": "none"})] == ["uncut", "none"]
    with pytest.raises(ValueError, match="axis 'buffer' has no reading 'shared'"):
        calibration.frozen(AXES, {"sizes": "cut", "buffer": "shared"})


def test_not_distinguished_is_partly_for_an_order_and_agree_for_an_equality() -> None:
    """Hand-computed: the paired differences 0.02, 0.06, −0.01, 0.05 have mean 0.03, s =
    0.0316, and the 90 % Student-t interval 0.03 ± 2.353·0.0316/2 = [−0.0072, 0.0672]: it holds
    0, so a claimed "larger" is not distinguished (0.5, partly) and a claimed "equal" holds (1,
    agree). A second case borne out (1) and a third contradicted (0) give a mean of 0.5."""
    from rtolab import stats
    from rtolab.findings import CREDIT_AGREE, CREDIT_PARTLY, equality_credit, mean_credit, order_credit, verdict

    mean, low, high = stats.t_interval([0.02, 0.06, -0.01, 0.05], 0.9)
    assert (mean, low, high) == pytest.approx((0.03, -0.00720, 0.06720), abs=1e-4)
    assert order_credit(low, high) == 0.5 and equality_credit(low, high) == 1.0
    assert verdict(order_credit(low, high), CREDIT_AGREE, CREDIT_PARTLY) == "partly"
    assert verdict(equality_credit(low, high), CREDIT_AGREE, CREDIT_PARTLY) == "agree"
    assert order_credit(0.01, 0.2) == 1.0 and order_credit(-0.3, -0.1) == 0.0
    assert order_credit(0.5, 0.9, sign=-1, reference=1.0) == 1.0  # a ratio claimed below 1
    assert mean_credit([0.5, 1.0, 0.0]) == 0.5
    assert verdict(mean_credit([1.0, 1.0]), CREDIT_AGREE, CREDIT_PARTLY) == "agree"
    assert verdict(mean_credit([1.0, 0.5]), CREDIT_AGREE, CREDIT_PARTLY) == "partly"
    assert verdict(mean_credit([1.0, 0.0]), CREDIT_AGREE, CREDIT_PARTLY) == "partly"


@pytest.mark.parametrize("name", [n for n, p in __import__("rtolab.papers", fromlist=["PAPERS"]).PAPERS.items() if p.calibration])
def test_each_study_froze_the_rules_pick_from_its_own_search(name: str) -> None:
    """The freeze rule: a calibrated study's default (``CALIBRATED``) is the row ``RULE``
    picks from the search table it keeps beside it, and that table holds every candidate of
    the study's axes, in order, each measured against every target."""
    from rtolab.papers import PAPERS

    module = PAPERS[name].calibrated()
    assert module is not None
    table = calibration.frozen_table(name)
    assert table is not None, f"no search table for {name}: rtolab calibrate {name}, then freeze its pick"
    assert table["readings"].to_list() == [calibration.label(module.AXES, c) for c in calibration.candidates(module.AXES)]
    assert {t.key for t in module.TARGETS} <= set(table.columns)
    assert calibration.reading_of(module.AXES, table, choose(table)) == module.CALIBRATED


def test_an_unreached_operating_point_is_named_on_rows_without_a_reason() -> None:
    """A finding without a missing detail gets the calibration's note; one with its own keeps
    it; the note shows only on a row that does not agree."""
    from rtolab.findings import Finding, at_least, with_missing_detail

    measured = with_missing_detail({"a": Measured(0.5, "a"), "b": Measured(0.5, "b", missing_detail="its own")}, "not reached")
    assert measured["a"].missing_detail == "not reached" and measured["b"].missing_detail == "its own"
    table = grade([Finding("999", "a", "w", "s", "v", "m", at_least(1.0)), Finding("999", "b", "w", "s", "v", "m", at_least(0.0))], measured)
    assert table["reason"].to_list() == ["not reached", ""]
