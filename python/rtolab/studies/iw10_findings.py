"""Paper 002's findings (the slides' summary, per-link observations, one-way-delay slides and
conclusions), each with the number that tests it, and how rtolab's IW10 / initial-RTO tables
answer them.

The slides state their findings in words over box plots of 100 replications (median,
quartiles, min–max) and delay CDFs. The tests:

- An order the slides state ("IW10 improves", "fairness worse") is tested over the groups the
  statement covers (link, buffer, flows, burst): the share of groups in which the median (or
  mean Jain's index, or mean RTO count) is on the stated side. A plain statement agrees when
  it holds in at least three quarters of them (``MOSTLY``), "tends to" in at least half
  (``TENDS``); "partly" is at least half (a quarter for "tends to").
- "No change" is a ratio of medians within 2 % of 1 (a box plot cannot show less).
- "Slightly" is a ratio within (1, 1.5]; "significantly" at least 1.2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import partial

import polars as pl

from rtolab.findings import Band, Finding, Measured, above, at_most, between, share, within
from rtolab.studies.iw10_analysis import FLOWS, IRTO, IW

PAPER = "002"
MOSTLY, TENDS = Band(0.75, 1.0), Band(0.5, 1.0)
HALF, QUARTER = Band(0.5, 1.0), Band(0.25, 1.0)
NO_CHANGE = at_most(0.02)
GROUP = ["tag.link", "tag.buffer", FLOWS, "generator"]
LARGE = ("2BDP", "50p")


#: A finding of this paper: key, where, statement, the paper's number, metric, agree band,
#: optional partly band and basis of the tolerance.
_f = partial(Finding, PAPER)


#: The findings the ns-2.35 cross-check grades in both simulators (validate/iw10_ns2.py, 104
#: grid points × 20 replications, each run's per-flow start times fed to ns-2's Sack1 agent;
#: docs/iw10-ns2.md): those no timing ablation moved to agree when it was written.
NS2_COMPARED = ("too-many", "fair-later", "lte-rtos-iw10", "hspa-overload-first", "edge-irto1-fair", "edge-large-rtos", "delay-1-bdp", "edge-delayed")
NS2_SAME = (
    "ns-2.35's Sack1 agent fed the same flow starts earns the same verdict on the cross-check's 104 grid points "
    "(validate/iw10_ns2.py, docs/iw10-ns2.md): what the slides leave unstated (when each flow starts) decides it, not rtolab's TCP or queues"
)
#: What the latest cross-check (window 20, docs/iw10-ns2.md) measured for each compared finding
#: that ns-2 does not grade as rtolab does.
NS2_OTHER = {
    "fair-later": (
        "ns-2.35's Sack1 agent fed the same flow starts does no better on the cross-check's 104 grid points "
        "(0.47, disagree, against rtolab's 0.67 there; validate/iw10_ns2.py, docs/iw10-ns2.md): what the slides leave unstated decides it, not rtolab's TCP or queues"
    ),
}
#: The measured reason the cross-check gives each compared finding.
NS2_REASONS = {k: NS2_OTHER.get(k, NS2_SAME) for k in NS2_COMPARED}

REGISTRY = [
    _f("iw10-few", "summary", "With a small number of TCP flows, IW10 improves performance", "IW10 faster",
       "share of 1+1 groups (link, buffer, burst; IRTO 3 s) whose median elapsed time is shorter with IW10", MOSTLY, HALF),
    _f("iw10-many", "summary", "With a larger number of flows, IW10 tends to decrease performance", "IW10 slower",
       "share of 6+6 and 18+18 groups whose median elapsed time is longer with IW10", TENDS, QUARTER),
    _f("too-many", "summary", "Regardless of IW, too many flows clearly result in suboptimal performance", "18+18 slower than 1+1",
       "share of (link, buffer, IW, burst) whose median elapsed time is longer with 18+18 than with 1+1 flows", MOSTLY, HALF),
    _f("fair-later", "summary", "Fairness for later starting traffic improves with IW10", "later burst loses less",
       "share of groups with N ≥ 2 whose later-over-first median elapsed ratio is lower with IW10", MOSTLY, HALF),
    _f("fair-within", "summary", "Fairness within both bursts is worse with IW10", "Jain's index lower",
       "share of groups with N ≥ 2 whose mean Jain's index within the burst is lower with IW10", MOSTLY, HALF),
    _f("lte-no-change", "LTE", "IRTO: no changes on LTE", "IRTO1 = IRTO3",
       "largest |median IRTO1 / median IRTO3 − 1| over LTE groups", NO_CHANGE, at_most(0.05), "a box plot's resolution"),
    _f("lte-no-spurious", "LTE", "No spurious RTOs on LTE", "0", "mean spurious RTOs per burst, largest over LTE groups", at_most(0.0)),
    _f("lte-rtos-iw10", "LTE", "RTOs with IW10 when the number of flows is 6+6 or 18+18", "RTOs > 0",
       "share of LTE IW10 groups with 6+6 or 18+18 flows that have RTOs", MOSTLY, HALF),
    _f("lte-not-syn", "LTE", "… but not for the SYN of the flow that completes last ⇒ IRTO has no effect", "no SYN RTO",
       "mean SYN RTOs per burst, largest over LTE groups", at_most(0.0)),
    _f("hspa-no-change", "HSPA", "No changes due to IRTO1 with 1+1 or 2+2 flows on HSPA", "IRTO1 = IRTO3",
       "largest |median IRTO1 / median IRTO3 − 1| over HSPA 1+1 and 2+2 groups", NO_CHANGE, at_most(0.05), "a box plot's resolution"),
    _f("hspa-overload-later", "HSPA", "When overloaded, a small improvement with IRTO1 for the longest cases among the later starting traffic", "max IRTO1 < IRTO3",
       "share of HSPA 18+18 later-burst groups (buffer, IW) whose maximum elapsed time is lower with IRTO1", MOSTLY, HALF),
    _f("hspa-overload-first", "HSPA", "… the opposite for the first starting burst (the shortest cases delayed)", "min IRTO1 > IRTO3",
       "share of HSPA 18+18 first-burst groups whose minimum elapsed time is higher with IRTO1", MOSTLY, HALF),
    _f("edge-same-irto", "EDGE", "1+1 and 2+2 flows with BDP and 2·BDP buffers: mostly the same regardless of IRTO", "IRTO1 ≈ IRTO3",
       "share of EDGE 1+1 and 2+2 BDP / 2·BDP groups whose median changes by at most 5 % with IRTO1", MOSTLY, HALF, "'mostly the same'"),
    _f("edge-irto1-fair", "EDGE", "IW10 + IRTO1 becomes more fair", "Jain's index higher",
       "share of EDGE 1+1 and 2+2 BDP / 2·BDP (flows) cases whose mean Jain's index over both bursts is higher with IW10 + IRTO1 than with IW10 + IRTO3", MOSTLY, HALF),
    _f("edge-rto-sooner", "EDGE", "An RTO occurred sooner for the later starting burst (a spurious one)", "spurious RTO of the later burst",
       "share of EDGE 1+1 and 2+2 BDP / 2·BDP later-burst groups with more spurious RTOs with IRTO1 than with IRTO3", MOSTLY, HALF),
    _f("edge-large-rtos", "EDGE", "With a large buffer the number of RTOs increases (with IRTO1)", "more RTOs",
       "share of EDGE 2·BDP and 50 p groups (1+1, 2+2) with more RTOs per burst with IRTO1 than with IRTO3", MOSTLY, HALF),
    _f("edge-mostly-spurious", "EDGE", "… mostly spurious RTOs", "> 50 % spurious",
       "spurious share of the RTOs with IRTO1 in EDGE 2·BDP and 50 p groups (1+1, 2+2)", Band(0.5, 1.0), Band(0.25, 1.0), "'mostly'"),
    _f("edge-delayed", "EDGE", "⇒ completion of the longest flow is delayed", "IRTO1 slower",
       "share of EDGE 2·BDP and 50 p groups (1+1, 2+2) whose median elapsed time is longer with IRTO1", MOSTLY, HALF),
    _f("edge-same-trend", "EDGE", "The same trend with a larger number of flows", "more RTOs with IRTO1",
       "share of EDGE 2·BDP and 50 p groups (6+6, 18+18) with more RTOs per burst with IRTO1", MOSTLY, HALF),
    _f("edge-first-early", "EDGE", "When IW10 is in use, the first starting burst takes advantage and completes unfairly early", "first burst gains more",
       "share of EDGE (buffer, N ≥ 2, IRTO) cases in which IW10 shortens the first burst's median elapsed time more (relatively) than the later burst's", MOSTLY, HALF),
    _f("delay-1-iw10", "one-way delay", "1+1 EDGE: IW10 slightly more aggressive (FIFO)", "slightly higher delays",
       "median one-way delay IW10 over IW3, EDGE 1+1, FIFO 50 p", Band(above(1.0).low, 1.5), above(1.0), "'slightly': above 1, at most 1.5"),
    _f("delay-1-red", "one-way delay", "RED behaves like FIFO (too slow to react)", "RED ≈ FIFO",
       "largest |median RED / median FIFO 2·BDP − 1| over IW, EDGE 1+1", at_most(0.1), at_most(0.2), "CDFs that overlap"),
    _f("delay-1-bdp", "one-way delay", "With a BDP buffer IW10 hurts itself (self-congestion): slightly smaller delays except at the highest end", "IW10 median lower",
       "median one-way delay IW10 over IW3, EDGE 1+1, FIFO BDP", between(0.7, 1.0, open_high=True), at_most(1.05), "'slightly smaller': below 1, not below 0.7"),
    _f("delay-1-redok", "one-way delay", "REDok fails to control the delay increase IW10 imposes; maxima IW10 2.80 s, IW3 2.06 s", "× 1.36",
       "maximum one-way delay IW10 over IW3, EDGE 1+1, REDok", within(2.80 / 2.06, 0.25), above(1.0), "the slides' ratio 2.80 / 2.06 = 1.36 ± 25 %"),
    _f("delay-6-redok", "one-way delay", "6 flows with REDok: IW10 significantly more aggressive; maxima IW10 0.429 s, IW3 0.296 s", "× 1.45",
       "maximum one-way delay IW10 over IW3, HSPA 6+6, REDok", within(0.429 / 0.296, 0.25), above(1.0), "the slides' ratio 0.429 / 0.296 = 1.45 ± 25 %"),
    _f("delay-6-self", "one-way delay", "6 flows, FIFO and RED: IW10 less aggressive due to self-congestion", "IW10 median lower",
       "share of HSPA 6+6 FIFO (BDP, 2·BDP) and RED buffers whose median one-way delay is lower with IW10", MOSTLY, HALF),
    _f("irto-small-rtt", "conclusions", "A smaller initial RTO performs better when the effective end-to-end RTT is smaller than 1 s", "IRTO1 never worse",
       "share of HSPA and LTE groups whose median elapsed time is not longer (≤ +2 %) with IRTO1", Band(0.9, 1.0), MOSTLY),
    _f("irto-large-rtt", "conclusions", "… more controversial when the RTT is larger", "mixed",
       "share of EDGE 50 p and REDok groups (RTT above 1 s with queueing) whose median elapsed time is longer with IRTO1", Band(0.25, 0.75), Band(0.1, 0.9), "'controversial': neither always better nor always worse"),
]


class _Tables:
    """Lookups in the study's summary (one row per link, buffer, flows, IW, IRTO, burst)."""

    def __init__(self, summary: pl.DataFrame) -> None:
        self.s = summary

    def rows(self, **where: object) -> pl.DataFrame:
        names = {"link": "tag.link", "buffer": "tag.buffer", "flows": FLOWS, "iw": IW, "irto": IRTO, "burst": "generator"}
        cond = pl.lit(True)
        for k, v in where.items():
            col = pl.col(names[k])
            cond = cond & (col.is_in(list(v)) if isinstance(v, (list, tuple)) else col == v)
        return self.s.filter(cond)

    def paired(self, column: str, vary: str, a: object, b: object, **where: object) -> list[tuple[float, float]]:
        """(value at ``vary`` = a, value at ``vary`` = b) for every group matching ``where``."""
        names = {"iw": IW, "irto": IRTO, "flows": FLOWS}
        key = names[vary]
        part = self.rows(**where)
        others = [c for c in ["tag.link", "tag.buffer", FLOWS, IW, IRTO, "generator"] if c != key]
        left = part.filter(pl.col(key) == a).select(*others, pl.col(column).alias("a"))
        right = part.filter(pl.col(key) == b).select(*others, pl.col(column).alias("b"))
        joined = left.join(right, on=others)
        return [(float(x), float(y)) for x, y in joined.select("a", "b").iter_rows()]


def _worst(pairs: list[tuple[float, float]]) -> float:
    return max((abs(b / a - 1) for a, b in pairs if a > 0), default=math.nan)


def measure(summary: pl.DataFrame, between: pl.DataFrame, delays: pl.DataFrame) -> dict[str, Measured]:
    """rtolab's answer to every finding, from ``iw10_analysis.summary``, the per-run Jain's
    index over both bursts (``between_bursts``) and the one-way delays (``one_way_delays``)."""
    t = _Tables(summary)
    out: dict[str, Measured] = {}

    def order(key: str, pairs: list[tuple[float, float]], holds: Callable[[float, float], bool], detail: str) -> None:
        out[key] = Measured(share(holds(a, b) for a, b in pairs), f"{sum(holds(a, b) for a, b in pairs)} of {len(pairs)} groups; {detail}")

    few = t.paired("median", "iw", 3, 10, flows=1, irto="3s")
    order("iw10-few", few, lambda a, b: b < a, _ratio_range(few, "IW10/IW3 median"))
    many = t.paired("median", "iw", 3, 10, flows=[6, 18], irto="3s")
    order("iw10-many", many, lambda a, b: b > a, _ratio_range(many, "IW10/IW3 median"))
    flows = t.paired("median", "flows", 1, 18)
    order("too-many", flows, lambda a, b: b > a, _ratio_range(flows, "18+18 / 1+1 median"))

    later_over_first = t.s.filter(pl.col(FLOWS) >= 2).pivot(on="generator", index=["tag.link", "tag.buffer", FLOWS, IW, IRTO], values="median")
    if {"first", "later"} <= set(later_over_first.columns):
        lf = _Tables(later_over_first.with_columns(ratio=pl.col("later") / pl.col("first"), generator=pl.lit("both")))
        pairs = lf.paired("ratio", "iw", 3, 10)
        order("fair-later", pairs, lambda a, b: b < a, _ratio_range(pairs, "later/first with IW3 → IW10", pairs_are_values=True))
        gains = _gains(later_over_first.filter(pl.col("tag.link") == "EDGE"))
        out["edge-first-early"] = Measured(share(f < l for f, l in gains), f"{sum(f < l for f, l in gains)} of {len(gains)} EDGE cases; IW10/IW3 median first {_span([g[0] for g in gains])}, later {_span([g[1] for g in gains])}")
    within = t.paired("mean_jain_within", "iw", 3, 10, flows=[2, 6, 18])
    order("fair-within", within, lambda a, b: b < a, f"mean Jain's index IW3 {_mean(a for a, _ in within):.3f} → IW10 {_mean(b for _, b in within):.3f}")

    lte = t.paired("median", "irto", "3s", "1s", link="LTE")
    out["lte-no-change"] = Measured(_worst(lte), f"largest change {100 * _worst(lte):.1f} % over {len(lte)} groups")
    lte_rows = t.rows(link="LTE")
    if lte_rows.height:
        out["lte-no-spurious"] = Measured(float(lte_rows["mean_spurious_rtos"].max()), f"largest mean spurious RTOs per burst {float(lte_rows['mean_spurious_rtos'].max()):.3f}")  # type: ignore[arg-type]
        out["lte-not-syn"] = Measured(float(lte_rows["mean_syn_rtos"].max()), f"largest mean SYN RTOs per burst {float(lte_rows['mean_syn_rtos'].max()):.3f}")  # type: ignore[arg-type]
        iw10 = t.rows(link="LTE", iw=10, flows=[6, 18])
        out["lte-rtos-iw10"] = Measured(share(x > 0 for x in iw10["mean_rtos"].to_list()), "mean RTOs per burst " + ", ".join(f"{x:.2f}" for x in iw10["mean_rtos"].to_list()))
    hspa = t.paired("median", "irto", "3s", "1s", link="HSPA", flows=[1, 2])
    out["hspa-no-change"] = Measured(_worst(hspa), f"largest change {100 * _worst(hspa):.1f} % over {len(hspa)} groups")
    hl = t.paired("max", "irto", "3s", "1s", link="HSPA", flows=18, burst="later")
    order("hspa-overload-later", hl, lambda a, b: b < a, _ratio_range(hl, "IRTO1/IRTO3 maximum"))
    hf = t.paired("min", "irto", "3s", "1s", link="HSPA", flows=18, burst="first")
    order("hspa-overload-first", hf, lambda a, b: b > a, _ratio_range(hf, "IRTO1/IRTO3 minimum"))

    small = dict(link="EDGE", buffer=["BDP", "2BDP"], flows=[1, 2])
    same = t.paired("median", "irto", "3s", "1s", **small)
    order("edge-same-irto", same, lambda a, b: abs(b / a - 1) <= 0.05, _ratio_range(same, "IRTO1/IRTO3 median"))
    fair = _between(between, "EDGE", ["BDP", "2BDP"], [1, 2])
    order("edge-irto1-fair", fair, lambda a, b: b > a, f"IW10 mean Jain's index over both bursts IRTO3 {_mean(a for a, _ in fair):.3f} → IRTO1 {_mean(b for _, b in fair):.3f}")
    sooner = t.paired("mean_spurious_rtos", "irto", "3s", "1s", burst="later", **small)
    order("edge-rto-sooner", sooner, lambda a, b: b > a, f"later burst's spurious RTOs IRTO3 {_mean(a for a, _ in sooner):.2f} → IRTO1 {_mean(b for _, b in sooner):.2f} per burst")
    large = dict(link="EDGE", buffer=list(LARGE), flows=[1, 2])
    rtos = t.paired("mean_rtos", "irto", "3s", "1s", **large)
    order("edge-large-rtos", rtos, lambda a, b: b > a, f"RTOs per burst IRTO3 {_mean(a for a, _ in rtos):.2f} → IRTO1 {_mean(b for _, b in rtos):.2f}")
    irto1 = t.rows(irto="1s", **large)
    total = float(irto1["mean_rtos"].sum())
    out["edge-mostly-spurious"] = Measured(float(irto1["mean_spurious_rtos"].sum()) / total if total else math.nan, f"{float(irto1['mean_spurious_rtos'].sum()):.1f} spurious of {total:.1f} RTOs per burst, summed over groups")
    delayed = t.paired("median", "irto", "3s", "1s", **large)
    order("edge-delayed", delayed, lambda a, b: b > a, _ratio_range(delayed, "IRTO1/IRTO3 median"))
    trend = t.paired("mean_rtos", "irto", "3s", "1s", link="EDGE", buffer=list(LARGE), flows=[6, 18])
    order("edge-same-trend", trend, lambda a, b: b > a, f"RTOs per burst IRTO3 {_mean(a for a, _ in trend):.2f} → IRTO1 {_mean(b for _, b in trend):.2f}")

    small_rtt = t.paired("median", "irto", "3s", "1s", link=["HSPA", "LTE"])
    order("irto-small-rtt", small_rtt, lambda a, b: b <= 1.02 * a, _ratio_range(small_rtt, "IRTO1/IRTO3 median"))
    large_rtt = t.paired("median", "irto", "3s", "1s", link="EDGE", buffer=["50p", "REDok"])
    order("irto-large-rtt", large_rtt, lambda a, b: b > a, _ratio_range(large_rtt, "IRTO1/IRTO3 median"))
    out.update(_delay_findings(delays))
    for key, reason in NS2_REASONS.items():
        if key in out:
            m = out[key]
            out[key] = Measured(m.value, m.detail, m.ablations, reason)
    return out


def _gains(wide: pl.DataFrame) -> list[tuple[float, float]]:
    """(IW10 over IW3 median elapsed time of the first burst, the same of the later burst) per
    group (buffer, flows, IRTO) of a table with one row per group and IW, columns first and
    later: one join, so each pair comes from one group."""
    keys = ["tag.link", "tag.buffer", FLOWS, IRTO]
    iw3 = wide.filter(pl.col(IW) == 3).select(*keys, pl.col("first").alias("f3"), pl.col("later").alias("l3"))
    iw10 = wide.filter(pl.col(IW) == 10).select(*keys, pl.col("first").alias("f10"), pl.col("later").alias("l10"))
    both = iw3.join(iw10, on=keys).sort(keys)
    return [(f10 / f3, l10 / l3) for f3, l3, f10, l10 in both.select("f3", "l3", "f10", "l10").iter_rows()]


def _between(between: pl.DataFrame, link: str, buffers: list[str], flows: list[int]) -> list[tuple[float, float]]:
    """(IW10 + IRTO3, IW10 + IRTO1) mean Jain's index over both bursts per group."""
    part = between.filter((pl.col("tag.link") == link) & pl.col("tag.buffer").is_in(buffers) & pl.col(FLOWS).is_in(flows) & (pl.col(IW) == 10))
    means = part.group_by(["tag.buffer", FLOWS, IRTO]).agg(pl.col("jain_between").mean())
    wide = means.pivot(on=IRTO, index=["tag.buffer", FLOWS], values="jain_between")
    if not {"3s", "1s"} <= set(wide.columns):
        return []
    return [(float(a), float(b)) for a, b in wide.select("3s", "1s").iter_rows()]


def _delay_findings(delays: pl.DataFrame) -> dict[str, Measured]:
    if delays.is_empty():
        return {}
    stat = delays.group_by(["link", "flows", "buffer", "iw"]).agg(pl.col("delay_s").median().alias("median"), pl.col("delay_s").max().alias("max"))

    def get(link: str, n: int, buf: str, iw: int, what: str) -> float:
        row = stat.filter((pl.col("link") == link) & (pl.col("flows") == n) & (pl.col("buffer") == buf) & (pl.col("iw") == iw))
        return float(row[what][0]) if row.height else math.nan

    out: dict[str, Measured] = {}

    def ratio(link: str, n: int, buf: str, what: str) -> Measured:
        a, b = get(link, n, buf, 3, what), get(link, n, buf, 10, what)
        return Measured(b / a, f"{what} IW3 {a:.3f} s, IW10 {b:.3f} s")

    out["delay-1-iw10"] = ratio("EDGE", 1, "50p", "median")
    red = [abs(get("EDGE", 1, "RED", iw, "median") / get("EDGE", 1, "2BDP", iw, "median") - 1) for iw in (3, 10)]
    out["delay-1-red"] = Measured(max(red), "median RED / FIFO 2·BDP − 1: " + ", ".join(f"IW{iw} {100 * r:+.1f} %" for iw, r in zip((3, 10), red)))
    bdp = ratio("EDGE", 1, "BDP", "median")
    out["delay-1-bdp"] = Measured(bdp.value, f"{bdp.detail}; maxima IW3 {get('EDGE', 1, 'BDP', 3, 'max'):.3f} s, IW10 {get('EDGE', 1, 'BDP', 10, 'max'):.3f} s")
    out["delay-1-redok"] = ratio("EDGE", 1, "REDok", "max")
    out["delay-6-redok"] = ratio("HSPA", 6, "REDok", "max")
    bufs = ["BDP", "2BDP", "RED"]
    lower = [get("HSPA", 6, b, 10, "median") < get("HSPA", 6, b, 3, "median") for b in bufs]
    out["delay-6-self"] = Measured(share(lower), ", ".join(f"{b} IW3 {get('HSPA', 6, b, 3, 'median'):.3f} / IW10 {get('HSPA', 6, b, 10, 'median'):.3f} s" for b in bufs))
    return out


def _mean(xs: Iterable[float]) -> float:
    v = list(xs)
    return sum(v) / len(v) if v else math.nan


def _span(xs: list[float]) -> str:
    return f"{min(xs):.2f}–{max(xs):.2f}" if xs else "–"


def _ratio_range(pairs: list[tuple[float, float]], label: str, pairs_are_values: bool = False) -> str:
    if not pairs:
        return "no groups"
    if pairs_are_values:
        return f"{label}: {_mean(a for a, _ in pairs):.2f} → {_mean(b for _, b in pairs):.2f} (means)"
    return f"{label} {_span([b / a for a, b in pairs if a > 0])}"

