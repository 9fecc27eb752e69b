"""The IW10 / initial-RTO study (paper 002): set-up, analysis on a hand-made table, and a
small reproduction checked against the slides' first observation."""

from __future__ import annotations

from pathlib import Path

import math
from typing import Any

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
    from rtolab import calibration
    from rtolab.studies import iw10_calibration as cal

    slugs = [cal.study_reading(c).slug for _, c in calibration.alternatives(cal.AXES, cal.calibrated())]
    assert len(slugs) == len(set(slugs)) and cal.study_reading(cal.calibrated()).slug not in slugs


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
    # The flow completing last: first.1 (12 s) with 2 data RTOs and 1 SYN RTO; later.1 (15 s) none.
    assert (first["last_flow_rtos"], first["last_flow_syn_rtos"], later["last_flow_rtos"], later["last_flow_syn_rtos"]) == (2, 1, 0, 0)
    between = analysis.between_bursts(pl.DataFrame(rows))
    assert between["jain_between"][0] == pytest.approx(800**2 / (4 * (100**2 + 300**2 + 2 * 200**2)))


@pytest.mark.slow  # one of the longest end-to-end checks (5-7 s); `make test-all` runs it
def test_quick_reproduction_writes_outputs_and_iw10_helps_a_single_flow(tmp_path: Path) -> None:
    r = reproduce("iw10-irto", tmp_path / "iw", quick=True, executor=rtolab.LocalExecutor(2), replications=3)
    # (EDGE 2BDP, 50p, REDok; HSPA 2BDP, REDok) × N × IW × IRTO × reps, at the chosen offset
    # and start jitter and at each of the ablations' readings
    from rtolab import calibration
    from rtolab.studies import iw10_calibration as cal

    assert r.failed == 0 and r.runs == 5 * 2 * 2 * 2 * 3 * (1 + len(calibration.alternatives(cal.AXES, cal.calibrated()))) + len(cal.MAXIMA) * cal.REPLICATIONS
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


# Hand-computed cases of the paired tests. Student-t at 90 % with 2 degrees of freedom:
# t = 2.919986, so three replications x1, x2, x3 give mean ± 2.919986 · s / √3.
Cell = tuple[str, str, int, int, str, str]  # link, buffer, flows, IW, IRTO, burst
COLUMNS = ("elapsed_s", "rtos", "spurious_rtos", "syn_rtos", "jain_within", "last_flow_rtos", "last_flow_syn_rtos")


def bursts_table(cells: dict[Cell, dict[str, list[float]]], reps: int = 3) -> pl.DataFrame:
    """A per_burst-like table: one row per (cell, replication); columns not given are 10 s of
    elapsed time, no RTOs and a Jain's index of 1."""
    rows = []
    for (link, buf, n, iw, irto, burst), given in cells.items():
        for r in range(reps):
            values: dict[str, Any] = {c: (10.0 if c == "elapsed_s" else 1.0 if c == "jain_within" else 0) for c in COLUMNS}
            values.update({c: v[r] for c, v in given.items()})
            rows.append({
                "run": f"{link}-{buf}-{n}-{iw}-{irto}-{r}", "point": 0, "replication": r, "tag.link": link, "tag.buffer": buf, analysis.FLOWS: n,
                analysis.IW: iw, analysis.IRTO: irto, "generator": burst, **values,
                "last_end_s": values["elapsed_s"], "genuine_rtos": values["rtos"] - values["spurious_rtos"], "unfinished": 0,
            })
    return pl.DataFrame(rows)


def measured(bursts: pl.DataFrame, between: pl.DataFrame | None = None, delays: pl.DataFrame | None = None) -> dict[str, Any]:
    if between is None:
        between = bursts.filter(pl.col("generator") == "first").select("run", "point", "replication", *analysis.KEYS, jain_between=pl.lit(1.0))
    return iw10_findings.measure(analysis.summary(bursts), between, delays if delays is not None else pl.DataFrame(), bursts)


def test_large_buffer_rtos_are_one_pooled_paired_interval() -> None:
    """edge-large-rtos and edge-delayed: EDGE 50 p, 1+1, IW 3 and 10, both bursts (4 groups).
    IRTO 3 s has no RTOs; IRTO 1 s adds none with IW3 (it cannot act) and 2, 4, 6 RTOs in
    replications 0, 1, 2 to each IW10 burst. Per replication the mean over the 4 groups is
    1, 2, 3: mean 2, s = 1, interval 2 ± 2.919986/√3 = [0.314, 3.686], above 0: credit 1
    (counting groups, as before, would give 2 of 4). Elapsed time is 10 s + the RTO count, so
    edge-delayed is the same. With 2·BDP (the ablation of scope) IRTO3's IW10 first burst has
    4, 0, 0 RTOs and IRTO1's 0, 4, 12: per replication −1, 1, 3, mean 1, s = 2, interval
    [−2.37, 4.37], holding 0: ½."""
    cells: dict[Cell, dict[str, list[float]]] = {}
    for buf in ("50p", "2BDP"):
        for iw in (3, 10):
            for irto in ("1s", "3s"):
                for burst in ("first", "later"):
                    if buf == "50p":
                        rtos = [2, 4, 6] if (iw, irto) == (10, "1s") else [0, 0, 0]
                    else:
                        rtos = {(10, "3s", "first"): [4, 0, 0], (10, "1s", "first"): [0, 4, 12]}.get((iw, irto, burst), [0, 0, 0])
                    cells[("EDGE", buf, 1, iw, irto, burst)] = {"rtos": rtos, "elapsed_s": [10.0 + x for x in rtos]}
    m = measured(bursts_table(cells))
    for key in ("edge-large-rtos", "edge-delayed"):
        assert m[key].value == 1.0
        assert [(a.setting, a.value) for a in m[key].ablations] == [("scope 2·BDP, not 50 p", 0.5)]
        assert "+2.00 [+0.31, +3.69]" in m[key].detail
    # edge-mostly-spurious: none of IRTO1's RTOs in 50 p is spurious (IW10: 4 per burst on
    # average in each burst, IW3 none): 0 of 8; with 2·BDP none either.
    assert m["edge-mostly-spurious"].value == 0.0 and "0.0 spurious of 8.0 RTOs" in m["edge-mostly-spurious"].detail


def test_a_general_statement_is_the_mean_credit_of_its_groups() -> None:
    """iw10-few: 1+1, IRTO 3 s, groups (link, buffer, burst). EDGE 2·BDP first burst: IW3
    12, 13, 14 s, IW10 11, 12, 13 s, so IW10 − IW3 = −1 in every replication: interval
    [−1, −1], shorter, borne out (1). Later burst: IW3 12, 12, 12 s, IW10 11, 12, 13 s:
    −1, 0, 1, interval [−1.69, 1.69] holds 0, not distinguished (½). Mean 0.75: agrees
    (MOSTLY_CREDIT). irto-small-rtt: HSPA 2·BDP 6+6 later burst IW3, IRTO1 − IRTO3 =
    −1, −2, −3 s, and an LTE group where IRTO1 changes nothing (0, 0, 0); per replication
    the mean over both groups is −0.5, −1, −1.5: interval [−1.84, −0.16], below 0: 1."""
    cells: dict[Cell, dict[str, list[float]]] = {
        ("EDGE", "2BDP", 1, 3, "3s", "first"): {"elapsed_s": [12, 13, 14]},
        ("EDGE", "2BDP", 1, 10, "3s", "first"): {"elapsed_s": [11, 12, 13]},
        ("EDGE", "2BDP", 1, 3, "3s", "later"): {"elapsed_s": [12, 12, 12]},
        ("EDGE", "2BDP", 1, 10, "3s", "later"): {"elapsed_s": [11, 12, 13]},
        ("HSPA", "2BDP", 6, 3, "3s", "later"): {"elapsed_s": [20, 20, 20]},
        ("HSPA", "2BDP", 6, 3, "1s", "later"): {"elapsed_s": [19, 18, 17]},
        ("LTE", "BDP", 6, 3, "3s", "later"): {"elapsed_s": [1, 1, 1]},
        ("LTE", "BDP", 6, 3, "1s", "later"): {"elapsed_s": [1, 1, 1]},
    }
    m = measured(bursts_table(cells))
    assert m["iw10-few"].value == 0.75
    assert m["iw10-few"].detail.startswith("1 borne out, 1 not distinguished, 0 contradicted of 2 groups")
    few = next(f for f in iw10_findings.REGISTRY if f.key == "iw10-few")
    assert rtolab.findings.verdict(0.75, few.agree, few.partly) == "agree"
    assert rtolab.findings.verdict(0.5, few.agree, few.partly) == "partly"  # every group not distinguished
    assert m["irto-small-rtt"].value == 1.0
    # "tends to" needs more groups borne out than contradicted: ½ is only partly.
    many = next(f for f in iw10_findings.REGISTRY if f.key == "iw10-many")
    assert rtolab.findings.verdict(0.5, many.agree, many.partly) == "partly" and rtolab.findings.verdict(0.51, many.agree, many.partly) == "agree"


@pytest.mark.parametrize(
    ("iw10_later", "iw3_later", "expected"),
    [
        ([1, 1, 1], [0, 0, 0], 1.0),  # IRTO1 − IRTO3 = 1, 1, 1: [1, 1], above 0
        ([1, 0, 0], [0, 0, 0], 0.5),  # 1/3 ± 0.97: higher, not distinguished
        ([0, 0, 0], [0, 0, 0], 0.0),  # no group higher
    ],
)
def test_the_later_bursts_spurious_rto_is_shown_once(iw10_later: list[float], iw3_later: list[float], expected: float) -> None:
    """edge-rto-sooner over the EDGE later-burst groups: 1 when one group's spurious RTOs
    with IRTO1 minus IRTO3 are distinguished above 0, ½ when one is higher on average but
    none is distinguished, 0 when none is higher."""
    cells: dict[Cell, dict[str, list[float]]] = {
        ("EDGE", "BDP", 1, 10, "1s", "later"): {"spurious_rtos": iw10_later, "rtos": iw10_later},
        ("EDGE", "BDP", 1, 10, "3s", "later"): {},
        ("EDGE", "BDP", 1, 3, "1s", "later"): {"spurious_rtos": iw3_later, "rtos": iw3_later},
        ("EDGE", "BDP", 1, 3, "3s", "later"): {},
    }
    assert measured(bursts_table(cells))["edge-rto-sooner"].value == expected


def test_first_burst_early_fairness_and_the_last_lte_flow_by_hand() -> None:
    """edge-first-early, EDGE 50 p 1+1 IRTO 3 s: later/first with IW3 is 10/10 = 1 in every
    replication; with IW10 the first burst takes 8 s and the later 10, 12, 14 s: 1.25, 1.5,
    1.75, so IW10 − IW3 = 0.25, 0.5, 0.75: interval 0.5 ± 0.42 = [0.079, 0.921], above 0: 1.
    edge-irto1-fair, EDGE BDP 1+1 IW10: Jain's index over both bursts 0.9 with IRTO3, 0.95,
    0.9, 0.85 with IRTO1: +0.05, 0, −0.05, holding 0: ½. lte-not-first: two LTE groups of two
    replications; in one of the four the last flow has one more data RTO with IRTO1: 3/4."""
    cells: dict[Cell, dict[str, list[float]]] = {
        ("EDGE", "50p", 1, 3, "3s", "first"): {},
        ("EDGE", "50p", 1, 3, "3s", "later"): {},
        ("EDGE", "50p", 1, 10, "3s", "first"): {"elapsed_s": [8, 8, 8]},
        ("EDGE", "50p", 1, 10, "3s", "later"): {"elapsed_s": [10, 12, 14]},
    }
    m = measured(bursts_table(cells))
    assert m["edge-first-early"].value == 1.0 and "+0.500 [+0.079, +0.921]" in m["edge-first-early"].detail
    keys = {"tag.link": "EDGE", "tag.buffer": "BDP", analysis.FLOWS: 1, analysis.IW: 10}
    between = pl.DataFrame([{"run": f"{irto}{r}", "point": 0, "replication": r, **keys, analysis.IRTO: irto, "jain_between": j}
                            for irto, js in (("3s", [0.9, 0.9, 0.9]), ("1s", [0.95, 0.9, 0.85])) for r, j in enumerate(js)])
    assert measured(bursts_table(cells), between)["edge-irto1-fair"].value == 0.5
    lte: dict[Cell, dict[str, list[float]]] = {
        ("LTE", "BDP", 6, 10, "3s", "first"): {"last_flow_rtos": [1, 1]},
        ("LTE", "BDP", 6, 10, "1s", "first"): {"last_flow_rtos": [1, 2]},
        ("LTE", "BDP", 6, 10, "3s", "later"): {},
        ("LTE", "BDP", 6, 10, "1s", "later"): {},
    }
    assert measured(bursts_table(lte, reps=2))["lte-not-first"].value == 0.75


def test_delay_findings_by_hand() -> None:
    """One packet per run, three replications. EDGE 1+1 RED: IW3 1.0 s, IW10 1.2, 1.4,
    1.6 s; per replication IW10 / IW3 = 1.2, 1.4, 1.6: interval 1.4 ± 0.337 = [1.063,
    1.737], above 1: delay-red-fails 1. FIFO 2·BDP: IW3 1.0 s, IW10 1.6 s; RED over FIFO
    medians: IW3 1.0 / 1.0 = 1, IW10 1.4 / 1.6 = 0.875: delay-1-red 0.875 (partly). HSPA 6+6,
    IW10 − IW3 median: BDP −0.01 (borne out, 1), 2·BDP −0.01, 0, +0.01 (½), RED +0.01 (0):
    delay-6-self ½. With IRTO 1 s only EDGE RED IW3 is run, at 1.04 s: median and 90th
    percentile change 4 %: delay-irto-shift 0.04."""
    rows = []

    def add(link: str, n: int, buf: str, iw: int, values: list[float], irto: str = "3s") -> None:
        rows.extend({"link": link, "flows": n, "buffer": buf, "iw": iw, "irto": irto, "replication": r, "delay_s": v} for r, v in enumerate(values))

    add("EDGE", 1, "RED", 3, [1.0, 1.0, 1.0])
    add("EDGE", 1, "RED", 10, [1.2, 1.4, 1.6])
    add("EDGE", 1, "2BDP", 3, [1.0, 1.0, 1.0])
    add("EDGE", 1, "2BDP", 10, [1.6, 1.6, 1.6])
    add("EDGE", 1, "RED", 3, [1.04, 1.04, 1.04], irto="1s")
    for buf, d in (("BDP", [-0.01, -0.01, -0.01]), ("2BDP", [-0.01, 0.0, 0.01]), ("RED", [0.01, 0.01, 0.01])):
        add("HSPA", 6, buf, 3, [0.1, 0.1, 0.1])
        add("HSPA", 6, buf, 10, [0.1 + x for x in d])
    m = iw10_findings._delay_findings(pl.DataFrame(rows))
    assert m["delay-red-fails"].value == 1.0
    assert m["delay-1-red"].value == pytest.approx(0.875)
    assert m["delay-6-self"].value == pytest.approx(0.5)
    assert m["delay-irto-shift"].value == pytest.approx(0.04)
    assert math.isnan(m["delay-1-iw10"].value)  # no 50 p in this table


def test_without_the_bursts_table_the_paired_findings_are_not_measured() -> None:
    """validate/iw10_ns2.py calls measure(summary, between, delays): the findings read on
    paired runs are then absent (graded not measured), the others still measured."""
    cells: dict[Cell, dict[str, list[float]]] = {("LTE", "BDP", 1, iw, irto, b): {} for iw in (3, 10) for irto in ("1s", "3s") for b in ("first", "later")}
    bursts = bursts_table(cells)
    between = bursts.filter(pl.col("generator") == "first").select("run", "point", "replication", *analysis.KEYS, jain_between=pl.lit(1.0))
    m = iw10_findings.measure(analysis.summary(bursts), between, pl.DataFrame())
    assert "lte-no-change" in m and "iw10-few" not in m and "lte-not-first" not in m
