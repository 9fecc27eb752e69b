"""Paper 000's study on a tiny grid: the sweep runs, the per-run measures are what their
definitions say, and the findings table and figures are produced."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import assert_graded

from rtolab import stats
from rtolab.executors import LocalExecutor
from rtolab.study import Study
from rtolab.studies import minrto_hsdpa as m
from rtolab.findings import grade, regrade
from rtolab.studies import minrto_hsdpa_analysis as a
from rtolab.studies import minrto_hsdpa_findings as f
from rtolab.studies import minrto_hsdpa_reproduction as rep
from rtolab.sweep import sweep


def _tiny() -> Study:
    return Study.from_dict({
        "name": "minrto-hsdpa-tiny",
        "scenario": m.base_scenario(30.0),
        "grid": {m.SCHEDULER: m.SCHEDULERS, m.STACK: ["ns2-sack1"], m.USERS: [10, 60], m.MIN_RTO: ["0s", "1s"]},
        "replications": 2,
        "seed": 7,
    })


@pytest.fixture(scope="module")
def flows(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    return sweep(_tiny(), tmp_path_factory.mktemp("sweep") / "sweep", executor=LocalExecutor(1))


class _Counter:
    """Stands in for the reproduction's context: counts the runs made outside a sweep and
    runs them on a two-worker executor."""

    def __init__(self) -> None:
        self.runs = 0
        self.executor = LocalExecutor(2)

    def count(self, runs: int) -> None:
        self.runs += runs


@pytest.fixture(scope="module")
def samples() -> pl.DataFrame:
    return rep.sampled_rtts(_Counter(), _tiny(), users=60, min_rto="1s")  # type: ignore[arg-type]


def test_per_run_measures_follow_their_definitions(flows: pl.DataFrame) -> None:
    runs = a.per_run(flows)
    assert runs.height == 16
    one = runs.row(0, named=True)
    mine = flows.filter(pl.col("run") == one["run"])
    kept = mine.filter(pl.col("start_s") >= m.WARM_UP_S)
    # Goodput: every delivered byte over the run; the spurious share and fairness over the
    # transfers after the warm-up, those still running at the end at their goodput so far
    # (paper 000, Sec. 3.2 and Eq. 1; censored observations).
    assert one["goodput_bps"] == pytest.approx(mine["bytes"].sum() * 8 / m.DURATION_S)
    assert one["spurious_share"] == pytest.approx((kept["spurious_timeouts"] > 0).mean())
    assert one["fairness"] == pytest.approx(stats.jain(kept["goodput_bps"].to_numpy()))
    assert one["censored_share"] == pytest.approx(kept["end_s"].is_null().mean())
    assert one["low_goodput_share"] == pytest.approx((kept["goodput_bps"] < 10_000).mean())
    assert one["packet_rtt_s"] == pytest.approx((kept["mean_rtt_s"].fill_null(0) * kept["rtt_samples"]).sum() / kept["rtt_samples"].sum())
    assert (runs["throughput_bps"] >= runs["goodput_bps"] * 0.999).all(), "retransmissions only add"


def test_more_users_carry_more(flows: pl.DataFrame) -> None:
    runs = a.per_run(flows)
    by_load = runs.group_by(m.USERS).agg(pl.col("goodput_bps").mean()).sort(m.USERS)
    assert by_load["goodput_bps"][1] > 3 * by_load["goodput_bps"][0]


def test_rtt_samples_are_the_sweeps_runs_recorded(flows: pl.DataFrame, samples: pl.DataFrame) -> None:
    """The RTT samples come from the sweep's own runs made again with the ``rtt`` series on:
    per run, as many samples of the measured transfers as the sweep's flows table counts."""
    counter = _Counter()
    again = rep.sampled_rtts(counter, _tiny(), users=60, min_rto="1s")  # type: ignore[arg-type]
    assert counter.runs == 4, "2 schedulers × 2 replications"
    assert again.equals(samples), "deterministic"
    kept = a.measured(flows).filter((pl.col(m.USERS) == 60) & (pl.col("min_rto_s") == 1.0))
    counted = kept.group_by(m.SCHEDULER).agg(pl.col("rtt_samples").sum()).sort(m.SCHEDULER)
    recorded = samples.group_by(m.SCHEDULER).len().sort(m.SCHEDULER)
    assert counted["rtt_samples"].to_list() == recorded["len"].to_list()
    assert samples["rtt_s"].min() > 0.05, "25 ms each way on the wire, and the radio"


def test_packet_rtt_weighs_transfers_by_their_samples() -> None:
    """Hand-computed: one transfer with 9 samples of mean 0.1 s and one with a single 1.0 s
    sample. The packets' mean RTT is (9 · 0.1 + 1.0) / 10 = 0.19 s; the mean of per-transfer
    means would be 0.55 s."""
    row = {"run": "r", "replication": 0, m.SCHEDULER: "rr", m.STACK: "ns2-sack1", m.USERS: 2, m.MIN_RTO: "0.2s", "spurious_timeouts": 0, "timeouts": 0, "throughput_bps": 1.0, "bytes": 1000, "goodput_bps": 1e5}
    flows = pl.DataFrame([
        {**row, "flow": 0, "start_s": 20.0, "end_s": 21.0, "mean_rtt_s": 0.1, "rtt_samples": 9},
        {**row, "flow": 1, "start_s": 30.0, "end_s": 31.0, "mean_rtt_s": 1.0, "rtt_samples": 1},
    ])
    assert a.per_run(flows).row(0, named=True)["packet_rtt_s"] == pytest.approx(0.19)


def test_rtt_tail_counts_sir_samples_beyond_rrs_longest() -> None:
    """Hand-computed: RR's samples 0.1, 0.2, 0.5 s and SIR's 0.05, 0.1, 0.6, 0.7 s. Two of SIR's
    are longer than RR's longest (0.5 s); the medians are 0.2 and 0.35 s (linear)."""
    samples = pl.DataFrame({m.SCHEDULER: ["rr"] * 3 + ["max-sir"] * 4, "run": "r", "rtt_s": [0.1, 0.2, 0.5, 0.05, 0.1, 0.6, 0.7]})
    tail = a.rtt_tail(samples)
    assert tail["beyond"] == 2
    assert tail["rr.max"] == 0.5 and tail["max-sir.max"] == 0.7
    assert tail["rr.p50"] == pytest.approx(0.2) and tail["max-sir.p50"] == pytest.approx(0.35)
    cdf = a.rtt_cdf(samples, points=50)
    for sched, longest in (("rr", 0.5), ("max-sir", 0.7)):
        part = cdf.filter(pl.col(m.SCHEDULER) == sched)
        assert part["x"][-1] == longest and part["p"][-1] == 1.0
        assert (part["p"].diff().drop_nulls() >= 0).all()


def test_findings_and_figures(flows: pl.DataFrame, samples: pl.DataFrame, tmp_path: Path) -> None:
    table = a.summary(a.per_run(flows, 30.0))
    found = grade(f.REGISTRY, f.measure(a.per_run(flows, 30.0), samples))
    assert found.height == len(f.REGISTRY)
    assert (found["verdict"] == regrade(found)).all()
    cdf = a.rtt_cdf(samples)
    assert set(cdf[m.SCHEDULER].unique().to_list()) == {"rr", "max-sir"}
    paths = a.figures(table, cdf, tmp_path)
    assert {p.name for p in paths} == {"fig2_spurious.png", "fig3_fairness.png", "fig4_throughput.png", "goodput.png", "rtt_cdf.png"}


def test_censored_transfer_counts_at_its_goodput_so_far() -> None:
    """Hand-computed: a run of 60 s whose transfers after the 10 s warm-up are one finished
    transfer at 80 kbit/s and one still running, begun at 40 s, that has delivered 20 000 B:
    20 000 · 8 / (60 − 40) = 8 000 bit/s, below 10 kbit/s. The low-goodput share is 1/2 and the
    censored share 1/2; leaving the running transfer out would give 0."""
    row = {"run": "r", "replication": 0, m.SCHEDULER: "rr", m.STACK: "ns2-sack1", m.USERS: 2, m.MIN_RTO: "0.2s", "spurious_timeouts": 0, "timeouts": 0, "mean_rtt_s": 0.1, "rtt_samples": 3, "throughput_bps": 1.0}
    flows = pl.DataFrame([
        {**row, "flow": 0, "start_s": 20.0, "end_s": 25.0, "bytes": 50_000, "goodput_bps": 80_000.0},
        {**row, "flow": 1, "start_s": 40.0, "end_s": None, "bytes": 20_000, "goodput_bps": 20_000 * 8 / (60.0 - 40.0)},
    ])
    one = a.per_run(flows).row(0, named=True)
    assert one["low_goodput_share"] == 0.5
    assert one["censored_share"] == 0.5
    assert one["flows"] == 2


@pytest.mark.slow  # the longest end-to-end check of `make test` (12-18 s); `make test-all` runs it
def test_quick_reproduction_grades_every_finding(tmp_path: Path) -> None:
    """``rtolab reproduce minrto-hsdpa --quick`` with one replication: the findings table has
    every finding of the registry, graded by its own numbers, the targets are measured at the
    frozen reading, and the figures are written."""
    from rtolab.reproduce import reproduce
    from rtolab.studies import minrto_hsdpa_calibration as cal

    r = reproduce("minrto-hsdpa", tmp_path, quick=True, executor=LocalExecutor(2), replications=1)
    sweeps = 1 if cal.calibrated() == cal.earlier() else 2
    # The target runs, each sweep, and the high load's runs made again for their RTT samples.
    assert r.failed == 0 and r.runs == len(cal.runs(cal.calibrated())) + sweeps * (len(m.USERS_QUICK) * len(m.SCHEDULERS) * len(m.MIN_RTOS_QUICK) + len(m.SCHEDULERS))
    assert_graded(tmp_path / "findings.csv", f.REGISTRY)
    assert r.targets["key"].to_list() == [t.key for t in cal.TARGETS]
    assert (tmp_path / "fig2_spurious.png").stat().st_size > 10_000


def test_the_study_runs_the_frozen_reading_and_the_earlier_one_as_its_ablation() -> None:
    """The study's scenario is the base scenario under the frozen calibrated reading; the
    earlier reading (each axis's first) is the 3GPP cut-off Pareto of TR 25.848 Annex A
    (k = 4.5 kB, α = 1.1, m = 2 MB, mean 25 kB) over 60 s runs, checked against its closed
    form in the simulator's tests (units/rv.rs)."""
    from rtolab.studies import minrto_hsdpa_calibration as cal

    earlier = m.study(reading=cal.earlier())
    assert earlier.base["generators"][0]["size"] == m.FILE_SIZES and earlier.base["duration"] == "60s"
    main = m.study()
    assert main.base == cal.scenario(cal.calibrated())
    assert main.grid == earlier.grid
