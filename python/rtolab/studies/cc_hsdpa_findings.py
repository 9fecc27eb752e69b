"""Paper 004's findings (its list of main findings and its conclusions), each with the number
that tests it, and how rtolab's congestion-control-over-HSDPA runs answer them.

The paper reports CDFs over some 3 000 flows and states its findings in words. A claimed
order ("inflated", "the lowest", "the highest", "larger") or equality ("similar", "the same")
between algorithms is tested case by case on the 90 % Student-t interval of the difference
between the two algorithms' runs of each replication (runs of one replication share their
seed, so the difference is paired): an order is borne out (1) when the interval lies on the
claimed side of 0, not distinguished (½) when it holds 0, contradicted (0) otherwise; an
equality counts 1 when the interval holds 0 and 0 otherwise (``findings.order_credit``,
``equality_credit``). The finding's value is the mean over the cases its statement covers; an
equality over many cases agrees from 0.8 of them (at 90 % one interval in ten misses an exact
equality), as paper 000's findings read it.

The stated factors are levels: "two times" as 2 ± 25 % and "roughly three times" as
3 ± 25 %, with "partly" for a ratio on the stated side of 1 but outside that band. "×" is the
ratio of BIC's and CUBIC's mean to NewReno's and Westwood+'s. Downlink findings are read with
60 background users (the other sizes are ablations), uplink findings at the 20-packet uplink
buffer (the others are ablations).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import combinations

import polars as pl

from rtolab import stats
from rtolab.findings import Interval, case_credits, EQUAL_AGREE, EQUAL_PARTLY, CREDIT_AGREE, CREDIT_PARTLY, Ablation, Band, Finding, Measured, at_least, equality_credit, mean_credit, order_credit
from rtolab.studies.cc_hsdpa import ALGORITHM, ALGORITHMS, BACKGROUND, BACKGROUND_USERS, DOWNLINK_BULK, DOWNLINK_WEB, MAIN_UPLINK_QUEUE, UPLINK_BULK, UPLINK_QUEUE
from rtolab.studies.cc_hsdpa_analysis import BIC_LOW_WINDOW, summary

PAPER = "004"
LEVEL = 0.9
TWICE = Band(1.5, 2.5)
THRICE = Band(2.25, 3.75)
ORDER = "case by case on the paired 90 % interval: borne out 1, not distinguished ½, contradicted 0; the mean"
EQUAL = "case by case on the paired 90 % interval: holding 0 counts 1, else 0; the mean (0.8 agrees: one interval in ten misses at 90 %)"
FAST, SLOW = ("BIC", "CUBIC"), ("NewReno", "Westwood+")

REGISTRY = [
    Finding(PAPER, "goodput-similar", "finding 1", "Downlink: the TCP variants provide similar goodputs", "similar",
            "goodput difference of each pair of the four, paired by replication, downlink bulk", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "goodput-similar-web", "finding 1", "… also for short downlink transfers", "similar",
            "difference of each pair of the four in the mean goodput of a run's web transfers, paired by replication, downlink web", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "rtt-inflated", "finding 2", "BIC/CUBIC exhibit inflated average RTT; NewReno and Westwood+ lower", "BIC, CUBIC > NewReno, Westwood+",
            "mean RTT of BIC or CUBIC minus that of NewReno or Westwood+ (4 pairs), paired by replication, downlink bulk", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "rtt-westwood", "finding 2", "Westwood+ exhibits the lowest RTT", "Westwood+ lowest",
            "Westwood+'s mean RTT minus each other algorithm's (3 cases), paired by replication, downlink bulk", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "retx-twice", "finding 3", "BIC/CUBIC provoke two times the packet retransmissions of Westwood+ and NewReno", "× 2",
            "× of the retransmitted share of segments, downlink bulk", TWICE, Band(1.0, 4.0), "'two times': 2 ± 25 %"),
    Finding(PAPER, "timeouts-thrice", "finding 4", "BIC/CUBIC provoke roughly three times the timeouts of Westwood+ and NewReno", "× 3",
            "× of timeouts per flow (every timeout, as the kernel counts them), downlink bulk", THRICE, Band(1.0, 6.0), "'roughly three times': 3 ± 25 %"),
    Finding(PAPER, "timeouts-cubic", "finding 4", "CUBIC exhibits the highest number of timeouts", "CUBIC highest",
            "CUBIC's timeouts per flow minus each other algorithm's (3 cases), paired by replication, downlink bulk", CREDIT_AGREE, CREDIT_PARTLY, ORDER),
    Finding(PAPER, "uplink-similar", "uplink", "On the uplink the algorithms exhibit similar performance", "similar",
            "goodput and mean-RTT difference of each pair of the four (12 cases), paired by replication, uplink bulk", EQUAL_AGREE, EQUAL_PARTLY, EQUAL),
    Finding(PAPER, "uplink-linear", "uplink", "… because the moderate size of cwnd forced CUBIC and BIC to use the linear probing in order to be TCP friendly", "linear probing",
            f"the smaller of BIC's and CUBIC's ACK-weighted share of congestion avoidance in their Reno-friendly linear regime (BIC: cwnd ≤ low_window, {BIC_LOW_WINDOW} segments; "
            "CUBIC: the TCP-friendly estimate binding cnt), mean over replications, uplink bulk, 20-packet uplink buffer",
            at_least(0.5), at_least(0.25), "'forced … to use': most of the time (half); a quarter for partly"),
    Finding(PAPER, "throughput-larger", "conclusions 3", "BIC/CUBIC have larger throughput but the same goodput: their probing increases throughput and retransmissions, leaving the goodput unchanged",
            "throughput × > 1, goodput × = 1",
            "× of throughput (retransmissions included) and × of goodput, each per replication, downlink bulk: the smaller of two credits, ×throughput above 1 (order: 1, ½, 0) and ×goodput not distinguished from 1 (equality: 1, 0)",
            CREDIT_AGREE, CREDIT_PARTLY,
            "both halves of the statement on the paired 90 % intervals: agree when ×throughput is shown above 1 and ×goodput is not distinguished from 1, partly when ×throughput is not distinguished from 1 either; "
            "tested as two halves because ×throughput > 1 alone follows from retx-twice"),
]


def _over(a: float, b: float) -> float:
    """a / b, NaN when b is 0 (no timeouts at all: the ratio is not measured)."""
    return a / b if b else math.nan


def _mean(s: pl.DataFrame, measure: str, traffic: str, algorithm: str, queue: str, background: int) -> float:
    rows = s.filter(
        (pl.col("measure") == measure) & (pl.col("traffic") == traffic) & (pl.col(ALGORITHM) == algorithm) & (pl.col(UPLINK_QUEUE) == queue) & (pl.col(BACKGROUND) == background)
    )
    return stats.mean_or_nan(rows["mean"])




class _Runs:
    """The per-run table (``cc_hsdpa_analysis.per_run``) by algorithm, traffic, uplink buffer,
    background size and replication."""

    def __init__(self, runs: pl.DataFrame) -> None:
        self.by: dict[tuple[str, str, str, int], dict[int, dict[str, float]]] = {}
        for row in runs.iter_rows(named=True):
            key = (str(row[ALGORITHM]), str(row["traffic"]), str(row[UPLINK_QUEUE]), int(row[BACKGROUND]))
            self.by.setdefault(key, {})[int(row["replication"])] = row

    def values(self, measure: str, algorithm: str, traffic: str, queue: str, background: int) -> dict[int, float]:
        return {r: float(row[measure]) for r, row in self.by.get((algorithm, traffic, queue, background), {}).items() if row[measure] is not None and not math.isnan(row[measure])}

    def share(self, part: str, whole: str, algorithm: str, traffic: str, queue: str, background: int) -> dict[int, float]:
        """part / whole per replication (sums of counts over a run's flows), where whole is
        recorded and above 0."""
        rows = self.by.get((algorithm, traffic, queue, background), {}).items()
        return {r: row[part] / row[whole] for r, row in rows if row.get(whole) and row.get(part) is not None}

    def diff(self, measure: str, a: str, b: str, traffic: str, queue: str, background: int) -> Interval:
        """measure(a) − measure(b) paired by replication: (mean, low, high) at 90 %."""
        x, y = self.values(measure, a, traffic, queue, background), self.values(measure, b, traffic, queue, background)
        common = sorted(set(x) & set(y))
        return stats.t_interval([x[r] - y[r] for r in common], LEVEL) if common else (math.nan,) * 3

    def ratio(self, measure: str, traffic: str, queue: str, background: int) -> Interval:
        """× per replication, (BIC + CUBIC) / (NewReno + Westwood+), paired: (mean, low, high)."""
        v = {a: self.values(measure, a, traffic, queue, background) for a in ALGORITHMS}
        common = sorted(set.intersection(*(set(x) for x in v.values())))
        ratios = [_over(v["BIC"][r] + v["CUBIC"][r], v["NewReno"][r] + v["Westwood+"][r]) for r in common]
        ratios = [x for x in ratios if not math.isnan(x)]
        return stats.t_interval(ratios, LEVEL) if ratios else (math.nan,) * 3


def _kbit(x: float) -> str:
    return f"{x / 1e3:+.1f} kbit/s" if not math.isnan(x) else "–"


def _ms(x: float) -> str:
    return f"{1e3 * x:+.1f} ms" if not math.isnan(x) else "–"


def _count(x: float) -> str:
    return f"{x:+.2f}" if not math.isnan(x) else "–"


def throughput_larger(throughput: Interval, goodput: Interval) -> float:
    """throughput-larger: the smaller of ×throughput's order credit (above 1) and ×goodput's
    equality credit (holding 1)."""
    t, g = order_credit(throughput[1], throughput[2], 1, 1.0), equality_credit(goodput[1], goodput[2], 1.0)
    return math.nan if math.isnan(t) or math.isnan(g) else min(t, g)


def measure(runs: pl.DataFrame) -> dict[str, Measured]:
    """rtolab's answer to every finding, from the per-run table (``cc_hsdpa_analysis.per_run``,
    with its replications and its congestion-avoidance counts): at the main background and
    uplink buffer, with the other background sizes (downlink findings) and uplink buffers
    (uplink findings) reported as measured ablations."""
    s = summary(runs)
    rn = _Runs(runs)
    queues = [q for q in s[UPLINK_QUEUE].unique().sort().to_list() if q != MAIN_UPLINK_QUEUE]
    backgrounds = [int(b) for b in s[BACKGROUND].unique().sort().to_list() if b != BACKGROUND_USERS]
    pairs = list(combinations(ALGORITHMS, 2))

    def of(measure: str, traffic: str, queue: str = MAIN_UPLINK_QUEUE, background: int = BACKGROUND_USERS) -> dict[str, float]:
        return {a: _mean(s, measure, traffic, a, queue, background) for a in ALGORITHMS}

    def ratio(v: dict[str, float]) -> float:
        return _over(v["BIC"] + v["CUBIC"], v["NewReno"] + v["Westwood+"])

    def listing(v: dict[str, float], fmt: str, scale: float = 1.0) -> str:
        return ", ".join(f"{a} {format(x * scale, fmt)}" for a, x in v.items())

    def with_backgrounds(value_at: Callable[[int], tuple[float, str]], missing: str = "") -> Measured:
        value, detail = value_at(BACKGROUND_USERS)
        return Measured(value, detail, tuple(Ablation(f"{n} background users", value_at(n)[0]) for n in backgrounds), missing)

    def with_queues(value_at: Callable[[str], tuple[float, str]]) -> Measured:
        value, detail = value_at(MAIN_UPLINK_QUEUE)
        return Measured(value, detail, tuple(Ablation(f"uplink buffer {q}", value_at(q)[0]) for q in queues))

    def equal_pairs(measure: str, traffic: str, queue: str = MAIN_UPLINK_QUEUE, background: int = BACKGROUND_USERS) -> list[tuple[str, Interval]]:
        return [(f"{a} − {b}", rn.diff(measure, a, b, traffic, queue, background)) for a, b in pairs]

    out: dict[str, Measured] = {}
    out["goodput-similar"] = with_backgrounds(lambda n: case_credits(equal_pairs("goodput_bps", DOWNLINK_BULK, background=n), equality_credit, _kbit), LIVE_NETWORK)
    out["goodput-similar-web"] = Measured(*case_credits(equal_pairs("goodput_bps", DOWNLINK_WEB), equality_credit, _kbit))
    out["rtt-inflated"] = with_backgrounds(lambda n: case_credits(((f"{a} − {b}", rn.diff("mean_rtt_s", a, b, DOWNLINK_BULK, MAIN_UPLINK_QUEUE, n)) for a in FAST for b in SLOW),
                                                            lambda lo, hi: order_credit(lo, hi, 1), _ms))
    out["rtt-westwood"] = with_backgrounds(lambda n: case_credits(((f"Westwood+ − {b}", rn.diff("mean_rtt_s", "Westwood+", b, DOWNLINK_BULK, MAIN_UPLINK_QUEUE, n)) for b in ALGORITHMS if b != "Westwood+"),
                                                            lambda lo, hi: order_credit(lo, hi, -1), _ms))

    def level(measure: str, n: int, fmt: str, unit: str = "") -> tuple[float, str]:
        v = of(measure, DOWNLINK_BULK, background=n)
        return ratio(v), listing(v, fmt) + unit + f"; × {ratio(v):.2f}"

    out["retx-twice"] = with_backgrounds(lambda n: level("retransmit_ratio", n, ".4f"))
    genuine = of("genuine_timeouts", DOWNLINK_BULK)
    m = with_backgrounds(lambda n: level("timeouts", n, ".2f", " per flow"))
    out["timeouts-thrice"] = Measured(m.value, m.detail, (*m.ablations, Ablation("only the timeouts the oracle finds genuine", ratio(genuine))),
                                      "the paper's live network: its load, scheduler and radio conditions are not given; most of rtolab's timeouts are spurious, set off by the radio's delay spikes (docs/cc-hsdpa.md)")

    def cubic_highest(n: int, measure: str = "timeouts") -> tuple[float, str]:
        return case_credits(((f"CUBIC − {b}", rn.diff(measure, "CUBIC", b, DOWNLINK_BULK, MAIN_UPLINK_QUEUE, n)) for b in ALGORITHMS if b != "CUBIC"),
                      lambda lo, hi: order_credit(lo, hi, 1), _count)

    m = with_backgrounds(cubic_highest)
    out["timeouts-cubic"] = Measured(m.value, m.detail + " timeouts per flow", (*m.ablations, Ablation("only the timeouts the oracle finds genuine", cubic_highest(BACKGROUND_USERS, "genuine_timeouts")[0])),
                                     LIVE_NETWORK)

    def uplink(q: str) -> tuple[float, str]:
        return case_credits([*((f"goodput {a} − {b}", iv) for a, b in pairs for iv in [rn.diff("goodput_bps", a, b, UPLINK_BULK, q, BACKGROUND_USERS)]),
                       *((f"RTT {a} − {b}", iv) for a, b in pairs for iv in [rn.diff("mean_rtt_s", a, b, UPLINK_BULK, q, BACKGROUND_USERS)])],
                      equality_credit, lambda x: f"{x:+.4g}")

    m = with_queues(uplink)
    out["uplink-similar"] = Measured(m.value, m.detail, m.ablations, LIVE_NETWORK)
    m = with_queues(lambda q: linear_share(rn, q))
    out["uplink-linear"] = Measured(m.value, m.detail, m.ablations, CA_COUNTS_MISSING if math.isnan(m.value) else LIVE_NETWORK)

    def larger(n: int) -> tuple[float, str]:
        tp, gp = rn.ratio("throughput_bps", DOWNLINK_BULK, MAIN_UPLINK_QUEUE, n), rn.ratio("goodput_bps", DOWNLINK_BULK, MAIN_UPLINK_QUEUE, n)
        return throughput_larger(tp, gp), f"throughput × {tp[0]:.3f} [{tp[1]:.3f}, {tp[2]:.3f}], goodput × {gp[0]:.3f} [{gp[1]:.3f}, {gp[2]:.3f}]"

    out["throughput-larger"] = with_backgrounds(larger)
    return out


#: The detail of paper 004 that rtolab's network stands in for: a live network's conditions.
LIVE_NETWORK = "the paper's live network: its load, scheduler and radio conditions are not given (docs/cc-hsdpa.md)"

#: Why uplink-linear can be unmeasured: its counts are absent.
CA_COUNTS_MISSING = (
    "no congestion-avoidance ACKs counted for BIC's or CUBIC's uplink bulk flows at the main buffer: runs stored before the flows table had "
    "ca_acks and linear_acks read as null (sweep into a fresh store), or no such run"
)


def linear_share(rn: _Runs, queue: str) -> tuple[float, str]:
    """uplink-linear at the uplink buffer ``queue``: per algorithm, each replication's share
    of its uplink bulk flows' congestion-avoidance ACKs in the linear, Reno-friendly regime
    (Σ linear_acks / Σ ca_acks), the mean over replications with its 90 % interval; the value
    is the smaller of BIC's and CUBIC's means (NaN when either is not counted)."""
    means, parts = [], []
    for algorithm in FAST:
        shares = rn.share("linear_acks", "ca_acks", algorithm, UPLINK_BULK, queue, BACKGROUND_USERS)
        m, lo, hi = stats.t_interval([shares[r] for r in sorted(shares)], LEVEL) if shares else (math.nan,) * 3
        means.append(m)
        parts.append(f"{algorithm} {m:.3f} [{lo:.3f}, {hi:.3f}] over {len(shares)} replications" if shares else f"{algorithm} not counted")
    value = math.nan if any(math.isnan(x) for x in means) else min(means)
    return value, ", ".join(parts) + f" of congestion-avoidance ACKs linear (BIC: cwnd ≤ {BIC_LOW_WINDOW} segments; CUBIC: Reno's estimate pacing cnt)"
