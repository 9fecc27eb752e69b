"""Paper 004's study on a small grid: every measured flow is classed and measured by its
definition, each algorithm runs with Linux 2.6.24's settings, the uplink bulk flows are held
to the uplink's rate, and the findings, CDFs and figures are produced."""

from __future__ import annotations

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
    found = grade(f.REGISTRY, f.measure(table))
    assert found.height == len(f.REGISTRY) and (found["verdict"] == regrade(found)).all()
    cdf = a.cdfs(measured)
    assert set(cdf[c.ALGORITHM].unique().to_list()) == set(c.ALGORITHMS)
    trace = a.traces({alg: run(c.trace_scenario(alg, duration_s=15.0), seed=3).series for alg in ("NewReno", "CUBIC")})
    assert set(trace["metric"].unique().to_list()) == {"cwnd", "srtt"}
    paths = a.figures(cdf, trace, tmp_path)
    assert {p.name for p in paths} == {"cdf_downlink_bulk.png", "cdf_uplink_bulk.png", "cdf_downlink_web.png", "cwnd_rtt.png"}


def test_findings_follow_the_means() -> None:
    """The findings read the summary: with BIC and CUBIC at 2× NewReno's and Westwood+'s
    retransmissions and 3× their timeouts (hand-computed: (2 + 4) / (1 + 1) = 3), CUBIC
    highest, those findings agree; an uplink RTT spread of (0.8 − 0.4) / 0.6 = 0.67 does not."""
    rows = []
    values = {
        "goodput_bps": {"NewReno": 2e6, "Westwood+": 2e6, "BIC": 2.05e6, "CUBIC": 2.05e6},
        "throughput_bps": {"NewReno": 2.1e6, "Westwood+": 2.1e6, "BIC": 2.3e6, "CUBIC": 2.3e6},
        "mean_rtt_s": {"NewReno": 0.5, "Westwood+": 0.4, "BIC": 0.7, "CUBIC": 0.8},
        "retransmit_ratio": {"NewReno": 0.01, "Westwood+": 0.01, "BIC": 0.02, "CUBIC": 0.02},
        "timeouts": {"NewReno": 1.0, "Westwood+": 1.0, "BIC": 2.0, "CUBIC": 4.0},
        "genuine_timeouts": {"NewReno": 1.0, "Westwood+": 1.0, "BIC": 2.0, "CUBIC": 4.0},
    }
    for measure, per_alg in values.items():
        for traffic in a.TRAFFIC_CLASSES:
            for alg, v in per_alg.items():
                rows.append({"measure": measure, c.ALGORITHM: alg, c.UPLINK_QUEUE: c.MAIN_UPLINK_QUEUE, c.BACKGROUND: c.BACKGROUND_USERS, "traffic": traffic, "n": 3, "mean": v, "ci_low": v, "ci_high": v})
    found = grade(f.REGISTRY, f.measure(pl.DataFrame(rows)))
    verdicts = dict(zip(found["key"].to_list(), found["verdict"].to_list()))
    assert found.filter(pl.col("key") == "timeouts-thrice")["value"][0] == pytest.approx(3.0)
    assert all(v == "agree" for k, v in verdicts.items() if k != "uplink-similar"), verdicts
    assert verdicts["uplink-similar"] == "disagree", "RTT spread 0.67 is not alike"


def test_reproduction_writes_its_files(tmp_path: Path) -> None:
    """`rtolab reproduce cc-hsdpa` end to end, one replication: every file it promises."""
    from rtolab.reproduce import reproduce

    r = reproduce("cc-hsdpa", tmp_path, quick=True, executor=LocalExecutor(1), replications=1)
    # one measured flow per run: a downlink flow per background size, an uplink flow per
    # uplink buffer and a web user, per algorithm; and one traced run per algorithm
    per_algorithm = len(c.BACKGROUNDS) + len(c.UPLINK_QUEUES) + 1
    assert r.runs == len(c.ALGORITHMS) * per_algorithm + len(c.ALGORITHMS) and r.failed == 0
    for name in ("flows.parquet", "runs.csv", "summary.csv", "cdf.csv", "findings.csv", "traces.parquet", "cwnd_rtt.png"):
        assert (tmp_path / name).exists(), name
    assert_graded(tmp_path / "findings.csv", f.REGISTRY)
