"""Paper 000's findings (Sec. 3.1, 4, 5 and 6), each with the number that tests it, and how
rtolab's minRTO-over-HSDPA runs answer them.

The paper's operating point (Sec. 3.1's share of slow transfers above 150 users, Fig. 4's
range) is not a finding here: it is calibrated before any finding is graded
(``minrto_hsdpa_calibration``). Every finding is taken at the paper's loads (20–150 users).

A claimed order ("SIR causes fewer spurious timeouts than RR") or equality ("minRTO makes no
difference") is tested case by case on the 90 % Student-t interval of the difference between
the two runs of each replication (runs of one replication share their seed, so the difference
is paired): a case is borne out (1) when the interval lies on the claimed side, not
distinguished (0.5 for an order, 1 for an equality) when it holds zero, contradicted (0)
otherwise, and the finding's value is the mean over the cases its statement covers
(``rtolab.findings.order_credit``). An equality holds at 90 % in nine cases of ten even when
it is exact, so a claimed equality agrees from 0.8 of its cases not distinguished.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
import polars as pl

from rtolab import stats
from rtolab.findings import Interval, case_credits, EQUAL_AGREE, EQUAL_PARTLY, CREDIT_AGREE, CREDIT_PARTLY, ALL, Band, Finding, Measured, at_least, at_most, equality_credit, mean_credit, order_credit, share
from rtolab.studies.minrto_hsdpa import PAPER_MAX_USERS, SCHEDULER, STACK, USERS

PAPER = "000"
SACK, NEWRENO = "ns2-sack1", "ns2-newreno"
SCHEDULERS = {"rr": "RR", "max-sir": "SIR"}
LEVEL = 0.9
#: Sec. 3.1: "above 100 users the load is high".
HIGH_LOADS = (125, 150)
ORDER = "case by case on the paired 90 % interval: borne out 1, not distinguished ½, contradicted 0; the mean"
EQUAL = "case by case on the paired 90 % interval: holding 0 counts 1, else 0; the mean (0.8 agrees: one interval in ten misses at 90 %)"

REGISTRY = [
    Finding(PAPER, "sec3-load-classes", "Sec. 3.1", "20–50 users generate low load, 50–100 moderate load, and above 100 users the load is high",
            "low → high", "share of two conditions on SIR's and RR's system throughput (SACK, minRTO 0.2 s): at low load it grows with the users (T(50)/T(20) ≥ 0.9 · 50/20), at high load it saturates (T(150)/T(100) ≤ 0.9 · 150/100)",
            ALL, Band(0.5, 1.0), "proportional growth at low load, 10 % short of it at high load"),
    Finding(PAPER, "fig2-load", "Fig. 2", "The share of flows with a spurious timeout grows with load (both schedulers, short minRTO)",
            "rises from ≈ 0 at 20 users", "spurious share at 150 users minus at 20 users, per (scheduler, minRTO ≤ 0.2 s)", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig2-minrto", "Fig. 2, Sec. 4", "A longer minRTO results in a smaller share of flows suffering from spurious timeouts",
            "falls with minRTO", "spurious share at the longest minRTO minus at 0 s, per scheduler, 150 users", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig2-sir-short", "Fig. 2, Sec. 4", "The SIR scheduler causes fewer spurious timeouts than RR for a short minRTO",
            "SIR < RR", "SIR's spurious share minus RR's at 150 users, per minRTO ≤ 0.2 s", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig2-rr-long", "Fig. 2, Sec. 4", "The RR scheduler gives fewer spurious timeouts than SIR for a longer minRTO",
            "RR < SIR", "RR's spurious share minus SIR's at 150 users, per minRTO ≥ 0.4 s", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig2-half-second", "Fig. 2.2, Sec. 4", "With RR, for minRTOs longer than 0.5 s the share of flows with spurious timeouts is virtually zero",
            "≈ 0", "largest RR spurious share at minRTO > 0.5 s, 20–150 users", at_most(0.01), None, "'virtually zero': under 1 %"),
    Finding(PAPER, "fig3-flat", "Fig. 3, Sec. 4", "minRTO makes no significant difference to goodput fairness (except RR at high load)",
            "flat in minRTO", "Jain's index at the longest minRTO minus at 0 s, per (scheduler, load): SIR 20–150 users, RR 20–100 users", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "fig3-rr-high", "Fig. 3.2, Sec. 4", "With RR at high load a longer minRTO gives fairer goodput than a short one",
            "longer is fairer", "RR's Jain's index at the longest minRTO minus at 0 s, per high load (125, 150 users)", CREDIT_AGREE, CREDIT_PARTLY,
            ORDER + "; on the same intervals as fig3-flat, so the exception is judged by the yardstick that calls the rest flat"),
    Finding(PAPER, "fig3-rr-fairer", "Fig. 3, Sec. 4", "RR produces slightly higher fairness than SIR at moderate load",
            "RR slightly above SIR", "RR's Jain's index minus SIR's, per (load 50–100 users, minRTO)", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig3-falls", "Fig. 3, Sec. 4", "Regardless of scheduler and minRTO, fairness steadily decreases as the load increases above 75 users",
            "falls from 75 to 150 users", "Jain's index at 150 users minus at 75 users, per (scheduler, minRTO)", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "fig4-sir-flat", "Fig. 4.1, Sec. 4", "With SIR, minRTO makes no difference to system throughput",
            "identical curves", "SIR's system throughput at the longest minRTO minus at 0 s, per load 20–150 users", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "fig4-rr-small", "Fig. 4.2, Sec. 4", "With RR, a small difference in system throughput at high loads",
            "small but visible", "RR's system throughput at the longest minRTO minus at 0 s, per high load (125, 150 users): distinguished from 0 and within 10 % counts 1, not distinguished ½, beyond 10 % 0",
            CREDIT_AGREE, CREDIT_PARTLY, "'small': within 10 %; the contrast with SIR is fig4-sir-flat's"),
    Finding(PAPER, "sec5-rtt-mean", "Sec. 5", "The mean RTT is shorter with SIR than with RR for the same number of users",
            "SIR < RR", "RR's mean RTT of the packets minus SIR's, per load 20–150 users (minRTO 0.2 s)", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "sec5-rtt-high", "Sec. 5", "… more evidently so at high load",
            "gap grows with load", "RR's over SIR's mean RTT of the packets at 150 users minus the same ratio at 20 users (minRTO 0.2 s)", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "sec5-rtt-tail", "Sec. 5", "In general the RTT for SIR scheduling is shorter, but there are several occurrences of really long RTTs compared to RR",
            "SIR's tail longer", "SIR's RTT samples longer than RR's longest in the same replication, mean over replications, 150 users, minRTO 0.2 s (a count per replication does not rest on one pooled extreme)",
            at_least(3), at_least(1), "'several': at least three; the 'in general shorter' half is sec5-rtt-mean"),
    Finding(PAPER, "sec6-newreno", "Figs. 2–4, Sec. 6", "TCP NewReno gave similar results to SACK (Fig. 2)",
            "similar", "NewReno's spurious share minus SACK's, per (scheduler, load 20–150 users, minRTO)", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "sec6-newreno-fairness", "Fig. 3 caption", "TCP NewReno gave similar results (fairness)",
            "similar", "NewReno's Jain's index minus SACK's, per (scheduler, load 20–150 users, minRTO)", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "sec6-newreno-throughput", "Fig. 4 caption", "TCP NewReno gave similar results (system throughput)",
            "similar", "NewReno's system throughput minus SACK's, per (scheduler, load 20–150 users, minRTO)", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "sec6-goodput-flat", "Abstract, Sec. 6", "minRTO does not affect the total system throughput; the differences have no major effect on goodput",
            "no effect", "system goodput at the longest minRTO minus at 0 s, per (scheduler, load 20–150 users)", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
]


def high_load(loads: list[int]) -> int:
    """The paper's high load: 150 users, or the largest load of the grid at or below it."""
    return max(u for u in loads if u <= PAPER_MAX_USERS)


class _Runs:
    """The per-run table (``minrto_hsdpa_analysis.per_run``) by grid point and replication."""

    def __init__(self, runs: pl.DataFrame) -> None:
        self.by: dict[tuple[str, str, int, float], dict[int, dict[str, float]]] = {}
        for row in runs.iter_rows(named=True):
            key = (row[SCHEDULER], row[STACK], int(row[USERS]), float(row["min_rto_s"]))
            self.by.setdefault(key, {})[int(row["replication"])] = row
        self.loads = sorted({k[2] for k in self.by})
        self.rtos = sorted({k[3] for k in self.by})
        self.stacks = {k[1] for k in self.by}

    def paper_loads(self) -> list[int]:
        return [u for u in self.loads if u <= PAPER_MAX_USERS]

    def values(self, measure: str, scheduler: str, users: int, min_rto: float, stack: str = SACK) -> dict[int, float]:
        return {r: float(row[measure]) if row[measure] is not None else math.nan for r, row in self.by.get((scheduler, stack, users, min_rto), {}).items()}

    def mean(self, measure: str, scheduler: str, users: int, min_rto: float, stack: str = SACK) -> float:
        v = list(self.values(measure, scheduler, users, min_rto, stack).values())
        return float(np.mean(v)) if v else math.nan

    def paired(self, a: dict[int, float], b: dict[int, float], op: Callable[[float, float], float] = lambda x, y: x - y) -> tuple[float, float, float]:
        """(mean, low, high) of ``op(a_r, b_r)`` over the replications both have."""
        common = sorted(set(a) & set(b))
        return stats.t_interval([op(a[r], b[r]) for r in common], LEVEL) if common else (math.nan,) * 3

    def diff(self, measure: str, x: tuple[str, int, float, str], y: tuple[str, int, float, str]) -> tuple[float, float, float]:
        """The paired difference measure(x) − measure(y); a point is (scheduler, users, minRTO, stack)."""
        return self.paired(self.values(measure, x[0], x[1], x[2], x[3]), self.values(measure, y[0], y[1], y[2], y[3]))


def _cases(intervals: Iterable[tuple[str, Interval]], credit: Callable[[float, float], float], fmt: Callable[[float], str]) -> Measured:
    """A finding read case by case (``rtolab.findings.case_credits``), as a measurement."""
    return Measured(*case_credits(intervals, credit, fmt))


def _pct(x: float) -> str:
    return f"{100 * x:+.1f} pt" if not math.isnan(x) else "–"


def _j(x: float) -> str:
    return f"{x:+.3f}" if not math.isnan(x) else "–"


def _mbit(x: float) -> str:
    return f"{x / 1e6:+.3f} Mbit/s" if not math.isnan(x) else "–"


def _ms(x: float) -> str:
    return f"{1e3 * x:+.1f} ms" if not math.isnan(x) else "–"


def measure(runs: pl.DataFrame, samples: pl.DataFrame | None) -> dict[str, Measured]:
    """rtolab's answer to every finding, from the per-run table (``per_run``, with its
    replications) and every RTT sample of the measured transfers at the paper's high load and
    minRTO 0.2 s (columns SCHEDULER, run, rtt_s; None when not recorded)."""
    rn = _Runs(runs)
    loads = rn.paper_loads()
    hi, lo, rtos = high_load(rn.loads), loads[0], rn.rtos
    short, long_ = [r for r in rtos if r <= 0.2], [r for r in rtos if r >= 0.4]
    first, last = rtos[0], rtos[-1]
    mid_rto = 0.2 if 0.2 in rtos else rtos[0]
    highs = [u for u in HIGH_LOADS if u in rn.loads]
    out: dict[str, Measured] = {}

    def order(intervals: Iterable[tuple[str, tuple[float, float, float]]], fmt: Callable[[float], str], sign: int = 1) -> Measured:
        return _cases(intervals, lambda a, b: order_credit(a, b, sign), fmt)

    def equal(intervals: Iterable[tuple[str, tuple[float, float, float]]], fmt: Callable[[float], str]) -> Measured:
        return _cases(intervals, equality_credit, fmt)

    tp = {(s, u): rn.mean("throughput_bps", s, u, mid_rto) for s in SCHEDULERS for u in (20, 50, 100, 150)}
    conditions = [tp[(s, 50)] / tp[(s, 20)] >= 0.9 * 50 / 20 for s in SCHEDULERS] + [tp[(s, 150)] / tp[(s, 100)] <= 0.9 * 150 / 100 for s in SCHEDULERS]
    out["sec3-load-classes"] = Measured(
        share(c for c in conditions) if not any(math.isnan(v) for v in tp.values()) else math.nan,
        "; ".join(f"{SCHEDULERS[s]} T(50)/T(20) {tp[(s, 50)] / tp[(s, 20)]:.2f}, T(150)/T(100) {tp[(s, 150)] / tp[(s, 100)]:.2f}" for s in SCHEDULERS),
    )
    out["fig2-load"] = order(((f"{SCHEDULERS[s]} {r:g} s", rn.diff("spurious_share", (s, hi, r, SACK), (s, lo, r, SACK))) for s in SCHEDULERS for r in short), _pct)
    out["fig2-minrto"] = order(((f"{SCHEDULERS[s]}", rn.diff("spurious_share", (s, hi, last, SACK), (s, hi, first, SACK))) for s in SCHEDULERS), _pct, sign=-1)
    out["fig2-sir-short"] = order(((f"{r:g} s", rn.diff("spurious_share", ("max-sir", hi, r, SACK), ("rr", hi, r, SACK))) for r in short), _pct, sign=-1)
    out["fig2-rr-long"] = order(((f"{r:g} s", rn.diff("spurious_share", ("rr", hi, r, SACK), ("max-sir", hi, r, SACK))) for r in long_), _pct, sign=-1)
    tail = max((rn.mean("spurious_share", "rr", u, r) for u in loads for r in rtos if r > 0.5), default=math.nan)
    out["fig2-half-second"] = Measured(tail, f"largest RR share above 0.5 s: {100 * tail:.2f} %")
    flat = [(s, u) for s in SCHEDULERS for u in loads if s == "max-sir" or u <= 100]
    out["fig3-flat"] = equal(((f"{SCHEDULERS[s]} {u}", rn.diff("fairness", (s, u, last, SACK), (s, u, first, SACK))) for s, u in flat), _j)
    out["fig3-rr-high"] = order(((f"{u} users", rn.diff("fairness", ("rr", u, last, SACK), ("rr", u, first, SACK))) for u in highs), _j)
    moderate = [u for u in rn.loads if 50 <= u <= 100]
    out["fig3-rr-fairer"] = order(((f"{u} users {r:g} s", rn.diff("fairness", ("rr", u, r, SACK), ("max-sir", u, r, SACK))) for u in moderate for r in rtos), _j)
    mid = min(rn.loads, key=lambda u: abs(u - 75))
    out["fig3-falls"] = order(((f"{SCHEDULERS[s]} {r:g} s", rn.diff("fairness", (s, hi, r, SACK), (s, mid, r, SACK))) for s in SCHEDULERS for r in rtos), _j, sign=-1)
    out["fig4-sir-flat"] = equal(((f"{u} users", rn.diff("throughput_bps", ("max-sir", u, last, SACK), ("max-sir", u, first, SACK))) for u in loads), _mbit)

    def small(u: int) -> tuple[str, float, float, float, float]:
        m, a, b = rn.diff("throughput_bps", ("rr", u, last, SACK), ("rr", u, first, SACK))
        return f"{u} users", m, a, b, abs(m) / rn.mean("throughput_bps", "rr", u, first)

    rr_small = [small(u) for u in highs]
    credits = [math.nan if math.isnan(a) else (0.0 if rel > 0.1 else 1.0 if (a > 0 or b < 0) else 0.5) for _, _, a, b, rel in rr_small]
    out["fig4-rr-small"] = Measured(mean_credit(credits), "; ".join(f"{n} {_mbit(m)} [{_mbit(a)}, {_mbit(b)}] ({100 * rel:.1f} %)" for n, m, a, b, rel in rr_small) or "no case in this run")
    out["sec5-rtt-mean"] = order(((f"{u} users", rn.diff("packet_rtt_s", ("rr", u, mid_rto, SACK), ("max-sir", u, mid_rto, SACK))) for u in loads), _ms)

    def rtt_ratio(u: int) -> dict[int, float]:
        rr, sir = rn.values("packet_rtt_s", "rr", u, mid_rto), rn.values("packet_rtt_s", "max-sir", u, mid_rto)
        return {r: rr[r] / sir[r] for r in set(rr) & set(sir)}

    out["sec5-rtt-high"] = order([(f"{hi} vs {lo} users", rn.paired(rtt_ratio(hi), rtt_ratio(lo)))], lambda x: f"{x:+.3f}")
    if samples is not None and samples.height:
        out["sec5-rtt-tail"] = _tail(samples, runs)
    if NEWRENO in rn.stacks:
        for key, measure_name, fmt in (("sec6-newreno", "spurious_share", _pct), ("sec6-newreno-fairness", "fairness", _j), ("sec6-newreno-throughput", "throughput_bps", _mbit)):
            out[key] = equal(((f"{SCHEDULERS[s]} {u} {r:g} s", rn.diff(measure_name, (s, u, r, NEWRENO), (s, u, r, SACK))) for s in SCHEDULERS for u in loads for r in rtos), fmt)
    out["sec6-goodput-flat"] = equal(((f"{SCHEDULERS[s]} {u}", rn.diff("goodput_bps", (s, u, last, SACK), (s, u, first, SACK))) for s in SCHEDULERS for u in loads), _mbit)
    return out


def _tail(samples: pl.DataFrame, runs: pl.DataFrame) -> Measured:
    """Per replication, SIR's samples longer than RR's longest sample in that replication;
    their mean (with its interval) over the replications."""
    rep = dict(zip(runs["run"].to_list(), runs["replication"].to_list()))
    by: dict[int, dict[str, np.ndarray]] = {}
    for (sched, run), group in samples.group_by([SCHEDULER, "run"], maintain_order=True):
        by.setdefault(int(rep[run]), {})[str(sched)] = group["rtt_s"].to_numpy()
    counts = [float((v["max-sir"] > v["rr"].max()).sum()) for v in by.values() if "rr" in v and "max-sir" in v]
    m, lo, hi = stats.t_interval(counts, LEVEL) if counts else (math.nan,) * 3
    med = {s: float(samples.filter(pl.col(SCHEDULER) == s)["rtt_s"].median()) for s in SCHEDULERS}  # type: ignore[arg-type]
    return Measured(m, f"{m:.1f} [{lo:.1f}, {hi:.1f}] SIR samples per replication beyond RR's longest ({len(counts)} replications); median RTT SIR {1e3 * med['max-sir']:.0f} ms, RR {1e3 * med['rr']:.0f} ms")
