"""The IW10 / initial-RTO study (paper 002): set-up, analysis on a hand-made table, and a
small reproduction checked against the slides' first observation."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import assert_graded

import rtolab
from rtolab.reproduce import reproduce
from rtolab.studies import iw10_analysis as analysis
from rtolab.studies import iw10_findings, iw10_irto

KEYS = {"tag.link": "EDGE", "tag.buffer": "2BDP", analysis.FLOWS: 2, analysis.IW: 10, analysis.IRTO: "1s"}


def test_every_case_is_a_valid_scenario() -> None:
    study = iw10_irto.study()
    assert len(study.points()) == 13 * 4 * 2 * 2 * 100  # (5 EDGE + 4 HSPA + 4 LTE buffers) × N × IW × IRTO
    seen = set()
    for p in study.points()[::100]:
        rtolab.validate(p.spec)
        seen.add((p.params["tag.link"], p.params["tag.buffer"]))
    assert ("EDGE", "50p") in seen and ("LTE", "REDok") in seen and ("HSPA", "50p") not in seen


def test_readings_scale_the_offset_and_the_jitter_and_keep_the_chosen_strings() -> None:
    """The chosen reading writes the bottleneck's own strings and no window (so the main
    study's run keys do not move); a scaled one writes milliseconds: EDGE's 2 s offset × 0.5 =
    1000 ms, its 100 ms jitter × 2 = 200 ms; the ablation's window is 1000 packets, the study's
    ns-2's default 20."""
    edge = iw10_irto.BOTTLENECKS["EDGE"]
    assert iw10_irto.Reading().settings(edge) == {"generators.later.start": "2s", "generators.*.jitter": "uniform(0s, 100ms)"}
    assert iw10_irto.Reading(offset_scale=0.5).settings(edge)["generators.later.start"] == "1000ms"
    assert iw10_irto.Reading(jitter_scale=2.0).settings(edge)["generators.*.jitter"] == "uniform(0s, 200ms)"
    assert iw10_irto.Reading(window=1000).settings(edge)["generators.*.tcp.max_window"] == 1000
    assert iw10_irto.base_scenario()["generators"][0]["tcp"]["max_window"] == 20
    assert [t.slug for t in iw10_irto.READINGS.values()] == ["offset-0.5x", "offset-2x", "jitter-0.5x", "jitter-2x", "window-1000"]


def test_red_settings_follow_the_backup_slide() -> None:
    q = iw10_irto.buffers(iw10_irto.BOTTLENECKS["EDGE"])["REDok"]
    assert q == {
        "kind": "red", "limit": "50p", "q_weight": 0.2, "thresh": 3, "maxthresh": 40, "linterm": 1 / 0.65,
        "mean_pktsize": 1500, "bytes": True, "queue_in_bytes": True, "gentle": False, "wait": False,
    }


def test_per_burst_elapsed_rtos_and_fairness_by_hand() -> None:
    rows = []
    # run r0: first burst ends at 10 s and 12 s; later burst (EDGE offset 2 s) at 9 s and 15 s
    for name, gen, end, goodput, rto, spurious, syn, syn_spurious in [
        ("first.0", "first", 10.0, 100.0, 1, 1, 0, 0),
        ("first.1", "first", 12.0, 300.0, 2, 0, 1, 1),
        ("later.0", "later", 9.0, 200.0, 0, 0, 0, 0),
        ("later.1", "later", 15.0, 200.0, 0, 0, 0, 0),
    ]:
        rows.append({"run": "r0", "point": 0, "replication": 0, **KEYS, "generators.later.start": "2s", "generator": gen, "name": name, "end_s": end,
                     "goodput_bps": goodput, "timeouts": rto, "spurious_timeouts": spurious, "syn_timeouts": syn,
                     "spurious_syn_timeouts": syn_spurious})
    bursts = analysis.per_burst(pl.DataFrame(rows)).sort("generator")
    first, later = bursts.row(0, named=True), bursts.row(1, named=True)
    assert first["elapsed_s"] == 12.0 and later["elapsed_s"] == 13.0  # 15 s − 2 s offset
    assert (first["rtos"], first["spurious_rtos"], first["genuine_rtos"]) == (4, 2, 2)
    assert first["jain_within"] == pytest.approx(400**2 / (2 * (100**2 + 300**2)))  # 0.8
    assert later["jain_within"] == 1.0
    between = analysis.between_bursts(pl.DataFrame(rows))
    assert between["jain_between"][0] == pytest.approx(800**2 / (4 * (100**2 + 300**2 + 2 * 200**2)))


def test_quick_reproduction_writes_outputs_and_iw10_helps_a_single_flow(tmp_path: Path) -> None:
    r = reproduce("iw10-irto", tmp_path / "iw", quick=True, executor=rtolab.LocalExecutor(2), replications=3)
    # (EDGE 2BDP, 50p, REDok; HSPA 2BDP, REDok) × N × IW × IRTO × reps, at the chosen offset
    # and start jitter and at each of the ablations' readings
    assert r.failed == 0 and r.runs == 5 * 2 * 2 * 2 * 3 * (1 + len(iw10_irto.READINGS))
    names = {p.name for p in r.figures}
    assert {"elapsed-EDGE-1+1.png", "elapsed-HSPA-6+6.png", "rtos.png", "fairness.png", "delay-EDGE-1+1.png"} <= names
    assert (tmp_path / "iw" / "summary.csv").exists()
    assert_graded(tmp_path / "iw" / "findings.csv", iw10_findings.REGISTRY)
    # Slides: "With small number of TCP flows, IW10 improves performance" (EDGE, 1+1, 2·BDP).
    s = r.summary.filter(
        (pl.col("tag.link") == "EDGE") & (pl.col("tag.buffer") == "2BDP") & (pl.col(analysis.FLOWS) == 1)
        & (pl.col("generator") == "first") & (pl.col(analysis.IRTO) == "3s")
    )
    median = dict(zip(s[analysis.IW].to_list(), s["median"].to_list()))
    # With ns-2's window of 20 neither flow overflows the 14-packet FIFO: IW10 saves part of
    # slow start's rounds of 0.5 s and no more (11.3 s against 11.6 s with seed 2010, 3 runs).
    assert median[10] < median[3]
