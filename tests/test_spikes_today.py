"""studies/spikes-today.toml (issue 29 §4): the study file builds and every grid point passes
the scenario check; the analysis's goodput loss, excess, per-spike rates and paired differences
on a hand-made table, worked by hand; bad input exits 2 with one message; and the whole chain
(sweep, tables, figures, page) on the study cut to 60 s and 2 replications."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import polars as pl
import pytest

from conftest import ROOT
from rtolab.executors import LocalExecutor
from rtolab.study import Study
from rtolab.studies import spikes_today
from rtolab.studies import spikes_today_analysis as analysis
from rtolab.sweep import spec_errors, sweep

STUDY = ROOT / "studies" / "spikes-today.toml"
DURATION_S = 600.0


def _run(trace: str, cc: str, spikes: str, replication: int, goodput_bps: float, timeouts: int = 0, spike_count: int = 0, spike_time_s: float = 0.0) -> dict[str, object]:
    """One row of ``analysis.runs`` with the counters a test does not look at set to 0."""
    return {
        "trace": trace, "cc": cc, "queue": "droptail 150p", "spikes": spikes, "replication": replication, "goodput_bps": goodput_bps,
        "timeouts": timeouts, "spurious_timeouts": timeouts, "spurious_detected": timeouts, "spurious_detected_correct": timeouts, "undos": 0,
        "mean_rtt_s": 0.1, "mean_rto_s": 0.3, "spike_count": spike_count, "spike_time_s": spike_time_s, "drops": 0, "utilisation": 1.0,
    }


@pytest.fixture
def hand_table() -> pl.DataFrame:
    """CUBIC over trace t: without spikes 10, 10, 12 Mbit/s; with them 8, 9, 9 Mbit/s, held
    60, 60, 90 s of 600, with 4, 6, 6 timeouts over 2, 3, 3 spikes. BBR: 10 → 9 in every
    replication (loss 0.1), the same spikes."""
    rows = []
    for r, (off, on, held, timeouts, count) in enumerate([(10e6, 8e6, 60.0, 4, 2), (10e6, 9e6, 60.0, 6, 3), (12e6, 9e6, 90.0, 6, 3)]):
        rows += [_run("t", "cubic", "off", r, off), _run("t", "cubic", "on", r, on, timeouts, count, held)]
        rows += [_run("t", "bbr", "off", r, 10e6), _run("t", "bbr", "on", r, 9e6, timeouts, count, held)]
    return pl.DataFrame(rows)


def test_the_study_file_builds_and_every_point_passes_the_scenario_check() -> None:
    study = Study.load(STUDY)
    assert set(study.grid) == {analysis.TRACE, analysis.CC, analysis.QUEUE}
    assert [c[analysis.SPIKES] for c in study.cases] == ["off", "on"]
    points = study.points()
    per_point = len(study.grid[analysis.TRACE]) * len(study.grid[analysis.CC]) * len(study.grid[analysis.QUEUE]) * len(study.cases)
    assert len(points) == per_point * study.replications and study.replications >= 5
    assert spec_errors(points) == {}
    assert all(Path(t).is_file() for t in study.grid[analysis.TRACE])
    assert {p.spec["flows"][0]["tcp"]["stack"] for p in points} == {"linux"}


def test_goodput_loss_is_paired_by_replication_worked_by_hand(hand_table: pl.DataFrame) -> None:
    """CUBIC's losses 1 − 8/10, 1 − 9/10, 1 − 9/12 = 0.2, 0.1, 0.25: mean 0.18333, s = 0.076376,
    t(0.95, 2) = 2.919986, half-width 2.919986 · 0.076376 / √3 = 0.128759."""
    good = analysis.goodput(hand_table).filter(pl.col("cc") == "cubic").row(0, named=True)
    assert good["loss_n"] == 3
    assert good["loss_mean"] == pytest.approx(0.183333, abs=1e-6)
    assert (good["loss_ci_low"], good["loss_ci_high"]) == pytest.approx((0.183333 - 0.128759, 0.183333 + 0.128759), abs=1e-5)
    assert good["off_mean"] == pytest.approx(32e6 / 3) and good["on_mean"] == pytest.approx(26e6 / 3)
    bbr = analysis.goodput(hand_table).filter(pl.col("cc") == "bbr").row(0, named=True)
    assert (bbr["loss_mean"], bbr["loss_ci_low"], bbr["loss_ci_high"]) == pytest.approx((0.1, 0.1, 0.1))


def test_excess_per_spike_rates_and_differences_worked_by_hand(hand_table: pl.DataFrame) -> None:
    """Held shares 60/600, 60/600, 90/600 = 0.1, 0.1, 0.15: CUBIC's excess 0.1, 0, 0.1 (mean
    0.066667); timeouts per spike 4/2, 6/3, 6/3 = 2; BBR − CUBIC: −0.1, 0, −0.15 (mean
    −0.083333)."""
    paired = analysis.pairs(hand_table)
    excess = analysis.excess(paired, DURATION_S).filter(pl.col("cc") == "cubic").row(0, named=True)
    assert excess["excess_mean"] == pytest.approx(0.066667, abs=1e-6)
    timer = analysis.timer(hand_table, DURATION_S).filter(pl.col("cc") == "cubic").row(0, named=True)
    assert (timer["timeouts_mean"], timer["spikes_per_run"], timer["spurious_share"]) == pytest.approx((2.0, 8 / 3, 1.0))
    assert timer["held_share_mean"] == pytest.approx(0.116667, abs=1e-6)
    diff = analysis.difference(paired, "cc", "bbr", "cubic").row(0, named=True)
    assert (diff["n"], diff["mean"]) == (3, pytest.approx(-0.083333, abs=1e-6))


def test_a_run_without_its_baseline_is_named(hand_table: pl.DataFrame) -> None:
    gone = hand_table.filter(~((pl.col("cc") == "bbr") & (pl.col("spikes") == "off") & (pl.col("replication") == 2)))
    with pytest.raises(analysis.AnalysisError, match="no run without spikes for trace t, cc bbr, queue droptail 150p, replication 2"):
        analysis.pairs(gone)


def test_labels_of_the_sweeps_parameters() -> None:
    assert analysis.trace_label("/x/studies/../traces/lte-markov-60s.trace") == "lte-markov-60s"
    assert analysis.queue_label(json.dumps({"kind": "droptail", "limit": "150p"})) == "droptail 150p"
    assert analysis.queue_label(json.dumps({"kind": "fq_codel"})) == "fq_codel"
    assert analysis.SpikeLaw("exp(20s)", "uniform(1s, 5s)").held_share == pytest.approx(3 / 23)


def test_a_directory_without_this_studys_sweep_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert spikes_today.main([str(tmp_path / "none"), "--docs", str(tmp_path / "docs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no sweep here" in err
    other = tmp_path / "other"
    sweep({"name": "other", "scenario": {"duration": "1s", "links": [{"name": "l", "rate": "1Mbps", "delay": "10ms"}], "flows": [{"name": "f", "route": ["l"]}]}}, out=other, executor=LocalExecutor(1))
    assert spikes_today.main([str(other), "--docs", str(tmp_path / "docs")]) == 2
    assert "not a sweep of studies/spikes-today.toml" in capsys.readouterr().err
    assert not (tmp_path / "docs").exists()


def test_the_study_cut_short_writes_its_page_and_figures(tmp_path: Path) -> None:
    """The study as shipped, its runs cut to 60 s and 2 replications (a few seconds)."""
    full = Study.load(STUDY)
    quick = dataclasses.replace(full, base={**full.base, "duration": "60s"}, replications=2)
    sweep(quick, out=tmp_path / "sweep", executor=LocalExecutor(2))
    assert spikes_today.main([str(tmp_path / "sweep"), "--docs", str(tmp_path / "docs")]) == 0
    page = (tmp_path / "docs" / "spikes-today.md").read_text()
    combinations = len(full.grid[analysis.TRACE]) * len(full.grid[analysis.CC]) * len(full.grid[analysis.QUEUE])
    assert page.count("| lte-") == 4 * combinations  # goodput, timer, detection and model tables
    assert "60 s each, 2 replications" in page and "nan" not in page
    for name in ("goodput", "timeouts", "loss-vs-held"):
        assert (tmp_path / "docs" / "figures" / "spikes-today" / f"{name}.png").stat().st_size > 10_000
