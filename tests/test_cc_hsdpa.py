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


def test_bic_linear_regime_from_its_series_by_hand() -> None:
    """cwnd and ssthresh of one flow (segments of 1448 B): slow start from 5 s (ssthresh
    infinite), a loss at 7 s (cwnd = ssthresh = 16: not above it), cwnd 17 at 7.5 s
    (congestion avoidance above low_window), at 9 s ssthresh 10 and cwnd 12 (at or below
    14: linear), at 10 s cwnd 15, the run ending at 11 s. Congestion avoidance 1.5 + 1 + 1 =
    3.5 s, of which 1 s linear. The finding is not measured (CUBIC's regime is not recorded)."""
    seg = a.SEGMENT_BYTES
    events = [(5.0, "cwnd", 3), (5.0, "ssthresh", float("inf")), (6.0, "cwnd", 20), (7.0, "ssthresh", 16), (7.0, "cwnd", 16),
              (7.5, "cwnd", 17), (9.0, "ssthresh", 10), (9.0, "cwnd", 12), (10.0, "cwnd", 15)]
    series = pl.DataFrame({"time_s": [e[0] for e in events], "entity": ["up0"] * len(events), "metric": [e[1] for e in events],
                           "value": [float(e[2]) * seg if math.isfinite(e[2]) else math.inf for e in events]})
    series = pl.concat([series, pl.DataFrame({"time_s": [8.0], "entity": ["other"], "metric": ["cwnd"], "value": [1.0]})])
    ca, low = a.low_window_share(series, "up0", 11.0)
    assert ca == pytest.approx(3.5) and low == pytest.approx(1.0)
    regime = pl.DataFrame({"replication": [0, 1], "ca_s": [3.5, 2.0], "low_s": [1.0, 1.0]}).with_columns(low_share=pl.col("low_s") / pl.col("ca_s"))
    m = f.measure(pl.DataFrame(_runs({})), regime)["uplink-linear"]
    assert math.isnan(m.value) and "CUBIC" in m.missing_detail and "BIC 0.393" in m.detail


def test_reproduction_writes_its_files(tmp_path: Path) -> None:
    """`rtolab reproduce cc-hsdpa` end to end, one replication: every file it promises."""
    from rtolab.reproduce import reproduce

    r = reproduce("cc-hsdpa", tmp_path, quick=True, executor=LocalExecutor(1), replications=1)
    # one measured flow per run: a downlink flow per background size, an uplink flow per
    # uplink buffer and a web user, per algorithm; one traced run per algorithm; and BIC's
    # uplink run at the main buffer once more with its series (one replication)
    per_algorithm = len(c.BACKGROUNDS) + len(c.UPLINK_QUEUES) + 1
    assert r.runs == len(c.ALGORITHMS) * per_algorithm + len(c.ALGORITHMS) + 1 and r.failed == 0
    for name in ("flows.parquet", "runs.csv", "summary.csv", "cdf.csv", "findings.csv", "traces.parquet", "uplink-regime.csv", "cwnd_rtt.png"):
        assert (tmp_path / name).exists(), name
    assert_graded(tmp_path / "findings.csv", f.REGISTRY)
