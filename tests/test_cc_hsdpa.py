"""Paper 004's study on a small grid: every measured flow is classed and measured by its
definition, each algorithm runs with Linux 2.6.24's settings, the uplink bulk flows are held
to the uplink's rate, and the findings, CDFs and figures are produced."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from conftest import assert_graded

from rtolab import run
from rtolab.executors import LocalExecutor
from rtolab.study import Study
from rtolab.studies import cc_hsdpa as c
from rtolab.findings import grade, regrade
from rtolab.studies import cc_hsdpa_analysis as a
from rtolab.studies import cc_hsdpa_findings as f
from rtolab.sweep import sweep

RUNS_PER_CASE = 2


@pytest.fixture(scope="module")
def flows(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    study = Study.from_dict({
        "name": "cc-hsdpa-small",
        "scenario": c.base_scenario(30.0, background_users=20),
        "cases": c.algorithm_cases(list(c.ALGORITHMS)),
        "grid": {c.UPLINK_QUEUE: ["20p"]},
        "replications": RUNS_PER_CASE,
        "seed": 11,
    })
    return sweep(study, tmp_path_factory.mktemp("sweep") / "sweep", executor=LocalExecutor(1))


def test_each_algorithm_runs_as_linux_2_6_24() -> None:
    """The cases put one algorithm on every measured flow, with 2.6.24's rate halving; CUBIC
    is 2.6.24's module (no HyStart, β = 0.8, counted per ACK); the background keeps its own
    TCP."""
    cases = {case[c.ALGORITHM]: case for case in c.algorithm_cases(list(c.ALGORITHMS))}
    assert cases["CUBIC"]["flows.*.tcp"] == {**c.LINUX_2_6_24, "cc": "cubic-2.6.24"}
    assert {case["generators.measured.tcp"]["cc"] for case in cases.values()} == {"reno", "westwood", "bic", "cubic-2.6.24"}
    assert all(case["flows.*.tcp"]["rack"] is False and case["flows.*.tcp"]["iw"] == "rfc3390" for case in cases.values())
    assert all(case["flows.*.tcp"]["recovery"] == "rate-halving" for case in cases.values())


def test_measured_flows_are_classed_and_measured(flows: pl.DataFrame) -> None:
    measured = a.per_flow(flows)
    counts = dict(measured.group_by("traffic").len().iter_rows())
    runs = len(c.ALGORITHMS) * RUNS_PER_CASE
    assert counts[a.DOWNLINK_BULK] == c.BULK * runs and counts[a.UPLINK_BULK] == c.BULK * runs
    assert counts[a.DOWNLINK_WEB] > 50 * runs
    assert measured.filter(pl.col("traffic") == a.DOWNLINK_WEB)["name"].str.starts_with("measured.").all()
    one = measured.filter(pl.col("traffic") == a.UPLINK_BULK).row(0, named=True)
    raw = flows.filter((pl.col("run") == one["run"]) & (pl.col("name") == one["name"])).row(0, named=True)
    assert one["retransmit_ratio"] == pytest.approx(raw["retransmits"] / raw["segments_sent"])
    assert one["genuine_timeouts"] == raw["timeouts"] - raw["spurious_timeouts"]


def test_uplink_bulk_is_held_to_the_uplink(flows: pl.DataFrame) -> None:
    """An uplink flow's goodput cannot exceed 384 kbit/s · 1448/1500 (its dedicated
    channel's rate times the payload share of a packet), and gets most of it over 25 s."""
    up = a.per_flow(flows).filter(pl.col("traffic") == a.UPLINK_BULK)["goodput_bps"].to_numpy()
    cap = 384e3 * 1448 / 1500
    assert (up <= cap * 1.0001).all() and (up > 0.6 * cap).all(), up


def test_summary_findings_and_figures(flows: pl.DataFrame, tmp_path: Path) -> None:
    measured = a.per_flow(flows)
    runs = a.per_run(measured)
    assert runs.height == len(c.ALGORITHMS) * RUNS_PER_CASE * len(a.TRAFFIC_CLASSES)
    table = a.summary(runs)
    assert set(table["measure"].unique().to_list()) == set(a.MEASURES)
    assert (table["n"] == RUNS_PER_CASE).all()
    found = grade(f.REGISTRY, f.measure(runs))
    assert found.height == len(f.REGISTRY) and (found["verdict"] == regrade(found)).all()
    cdf = a.cdfs(measured)
    assert set(cdf[c.ALGORITHM].unique().to_list()) == set(c.ALGORITHMS)
    trace = a.traces({alg: run(c.trace_scenario(alg, duration_s=15.0), seed=3).series for alg in ("NewReno", "CUBIC")})
    assert set(trace["metric"].unique().to_list()) == {"cwnd", "srtt"}
    paths = a.figures(cdf, trace, tmp_path)
    assert {p.name for p in paths} == {"cdf_downlink_bulk.png", "cdf_uplink_bulk.png", "cdf_downlink_web.png", "cwnd_rtt.png"}


def _runs(values: dict[str, dict[str, list[float]]], traffic: str = a.DOWNLINK_BULK) -> list[dict[str, object]]:
    """Per-run rows (``cc_hsdpa_analysis.per_run``) of one traffic class: ``values[measure]
    [algorithm]`` lists a value per replication; every other measure is 1."""
    rows = []
    for alg in c.ALGORITHMS:
        for r in range(3):
            row: dict[str, object] = {"run": f"{alg}-{traffic}-{r}", "replication": r, c.ALGORITHM: alg, c.UPLINK_QUEUE: c.MAIN_UPLINK_QUEUE,
                                      c.BACKGROUND: c.BACKGROUND_USERS, "traffic": traffic, "flows": 1}
            for measure in a.MEASURES:
                row[measure] = values.get(measure, {}).get(alg, [1.0, 1.0, 1.0])[r]
            rows.append(row)
    return rows


def test_findings_are_read_on_paired_intervals_by_hand() -> None:
    """Three replications; t(0.95, 2) = 2.920, so a paired difference of values d, d ± e has the
    interval d ± 2.920·e/√3 = d ± 1.686·e.

    - rtt-inflated (NewReno 0.5 s, Westwood+ 0.3 s, BIC 0.6 s, CUBIC 0.6, 0.4, 0.5 s): every
      pair above but CUBIC − NewReno (+0.1, −0.1, 0: 0 ± 0.17, holding 0): (1 + 1 + ½ + 1) / 4.
    - rtt-westwood: Westwood+ below every other (CUBIC: −0.3, −0.1, −0.2, i.e. −0.2 ± 0.17): 1.
    - timeouts-cubic: CUBIC 3, 3.5, 4 against BIC's 2 (differences 1, 1.5, 2: 1.5 ± 0.84) and
      NewReno's and Westwood+'s 1: above 0 each time, 1.
    - goodput-similar: every algorithm 2, 2.1, 1.9 Mbit/s: every pair differs by 0, holding 0:
      6 of 6, 1.
    - retx-twice: (0.02 + 0.02) / (0.01 + 0.01) = 2; timeouts-thrice (2 + 3.5) / (1 + 1) = 2.75.
    - throughput-larger: × throughput per replication (BIC = CUBIC = 2.2, 2.24, 2.28 over
      NewReno = Westwood+ = 2) 1.10, 1.12, 1.14: 1.12 ± 0.034 above 1, credit 1; × goodput 1 in
      every replication (all four at 2, 2.1, 1.9 Mbit/s): an interval [1, 1] holding 1, credit
      1; the smaller, 1. With × goodput 1.05, 1.06, 1.07 (distinguished from 1) it is 0; with
      × throughput 0.9, 1.0, 1.2 (1.03 ± 0.26, holding 1) and the same goodput it is ½."""
    good = {alg: [2e6, 2.1e6, 1.9e6] for alg in c.ALGORITHMS}
    values = {
        "goodput_bps": good,
        "throughput_bps": {"NewReno": [2.0, 2.0, 2.0], "Westwood+": [2.0, 2.0, 2.0], "BIC": [2.2, 2.24, 2.28], "CUBIC": [2.2, 2.24, 2.28]},
        "mean_rtt_s": {"NewReno": [0.5, 0.5, 0.5], "Westwood+": [0.3, 0.3, 0.3], "BIC": [0.6, 0.6, 0.6], "CUBIC": [0.6, 0.4, 0.5]},
        "retransmit_ratio": {"NewReno": [0.01] * 3, "Westwood+": [0.01] * 3, "BIC": [0.02] * 3, "CUBIC": [0.02] * 3},
        "timeouts": {"NewReno": [1.0] * 3, "Westwood+": [1.0] * 3, "BIC": [2.0, 2.0, 2.0], "CUBIC": [3.0, 3.5, 4.0]},
    }
    m = f.measure(pl.DataFrame(_runs(values)))
    assert m["rtt-inflated"].value == pytest.approx(3.5 / 4)
    assert m["rtt-westwood"].value == 1.0
    assert m["timeouts-cubic"].value == 1.0
    assert m["goodput-similar"].value == 1.0
    assert m["retx-twice"].value == pytest.approx(2.0)
    assert m["timeouts-thrice"].value == pytest.approx((2 + 3.5) / 2)
    assert m["throughput-larger"].value == 1.0
    assert f.throughput_larger((1.12, 1.086, 1.154), (1.06, 1.043, 1.077)) == 0.0
    assert f.throughput_larger((1.033, 0.776, 1.291), (1.0, 0.9, 1.1)) == 0.5
    grade(f.REGISTRY, m)


#: Per replication, the (ca_acks, linear_acks) of each uplink bulk flow of its run; None for
#: a flow not counted.
Counts = list[list[tuple[int | None, int | None]]]


def _uplink_flows(counts: dict[str, Counts]) -> pl.DataFrame:
    """Measured uplink bulk flows (``cc_hsdpa_analysis.per_flow``'s columns) at the main
    buffer: ``counts[algorithm][replication]`` lists (ca_acks, linear_acks) per flow of that
    replication's run; every measure is 1."""
    rows = []
    for alg, runs in counts.items():
        for r, flows in enumerate(runs):
            for i, (ca, linear) in enumerate(flows):
                rows.append({"run": f"{alg}-{r}", "replication": r, c.ALGORITHM: alg, c.UPLINK_QUEUE: c.MAIN_UPLINK_QUEUE, c.BACKGROUND: c.BACKGROUND_USERS,
                             "traffic": c.UPLINK_BULK, "name": f"up{i}", **{m: 1.0 for m in a.MEASURES}, "ca_acks": ca, "linear_acks": linear})
    return pl.DataFrame(rows, schema_overrides={"ca_acks": pl.UInt64, "linear_acks": pl.UInt64})


def test_uplink_linear_is_the_share_of_congestion_avoidance_acks_by_hand() -> None:
    """uplink-linear per replication is Σ linear_acks / Σ ca_acks over the run's uplink bulk
    flows: BIC (30 + 10)/(50 + 50) = 0.4, (30 + 20)/(60 + 40) = 0.5, (60 + 0)/(100 + 0) = 0.6;
    CUBIC 4/20 = 0.2, 6/20 = 0.3, 4/10 = 0.4 (NewReno's and Westwood+'s, all linear, are not
    read). Over three replications t(0.95, 2) = 2.920 and s = 0.1: 0.5 ± 2.920·0.1/√3 =
    0.5 ± 0.169 for BIC, 0.3 ± 0.169 for CUBIC; the value is the smaller mean, 0.3: partly
    (≥ 0.25, below 0.5). A flow not counted (null: a run stored before the columns) leaves its
    run out: without CUBIC's first replication its mean is 0.35; with no CUBIC run counted the
    finding is not measured, and says why."""
    bic: Counts = [[(50, 30), (50, 10)], [(60, 30), (40, 20)], [(100, 60), (0, 0)]]
    cubic: Counts = [[(10, 2), (10, 2)], [(20, 6), (0, 0)], [(5, 2), (5, 2)]]
    reno: Counts = [[(40, 40)], [(40, 40)], [(40, 40)]]
    runs = a.per_run(_uplink_flows({"NewReno": reno, "Westwood+": reno, "BIC": bic, "CUBIC": cubic}))
    assert runs.filter(pl.col(c.ALGORITHM) == "BIC").sort("replication")["ca_acks"].to_list() == [100, 100, 100]
    m = f.measure(runs)["uplink-linear"]
    assert m.value == pytest.approx(0.3)
    assert "BIC 0.500 [0.331, 0.669] over 3 replications" in m.detail and "CUBIC 0.300 [0.131, 0.469]" in m.detail
    found = grade(f.REGISTRY, {"uplink-linear": m})
    assert found.filter(pl.col("key") == "uplink-linear")["verdict"].item() == "partly"

    cubic[0][1] = (None, None)
    runs = a.per_run(_uplink_flows({"BIC": bic, "CUBIC": cubic}))
    assert f.measure(runs)["uplink-linear"].value == pytest.approx(0.35)
    cubic = [[(None, None)]] * 3
    m = f.measure(a.per_run(_uplink_flows({"BIC": bic, "CUBIC": cubic})))["uplink-linear"]
    assert math.isnan(m.value) and "CUBIC not counted" in m.detail and m.missing_detail == f.CA_COUNTS_MISSING


def test_reproduction_writes_its_files(tmp_path: Path) -> None:
    """`rtolab reproduce cc-hsdpa` end to end, one replication: every file it promises."""
    from rtolab.reproduce import reproduce

    r = reproduce("cc-hsdpa", tmp_path, quick=True, executor=LocalExecutor(1), replications=1)
    # one measured flow per run: a downlink flow per background size, an uplink flow per
    # uplink buffer and a web user, per algorithm; one traced run per algorithm
    per_algorithm = len(c.BACKGROUNDS) + len(c.UPLINK_QUEUES) + 1
    assert r.runs == len(c.ALGORITHMS) * per_algorithm + len(c.ALGORITHMS) and r.failed == 0
    for name in ("flows.parquet", "runs.csv", "summary.csv", "cdf.csv", "findings.csv", "traces.parquet", "cwnd_rtt.png"):
        assert (tmp_path / name).exists(), name
    assert_graded(tmp_path / "findings.csv", f.REGISTRY)
