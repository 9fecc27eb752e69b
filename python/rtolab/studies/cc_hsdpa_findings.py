"""Paper 004's findings (its list of main findings and its conclusions), each with the number
that tests it, and how rtolab's congestion-control-over-HSDPA summary answers them.

The paper reports CDFs over some 3 000 flows and states its findings in words; the tolerances
read those words: "similar" as a spread under 10 % of the mean (what a CDF plot shows as
overlapping curves), "two times" as 2 ± 25 % and "roughly three times" as 3 ± 25 %, with
"partly" for a ratio on the stated side of 1 but outside that band. "×" is the ratio of BIC's
and CUBIC's mean to NewReno's and Westwood+'s, at the main uplink buffer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import polars as pl

from rtolab import stats
from rtolab.findings import ALL, Ablation, Band, Finding, Measured, above, at_most, below
from rtolab.studies.cc_hsdpa import ALGORITHM, ALGORITHMS, BACKGROUND, BACKGROUND_USERS, DOWNLINK_BULK, DOWNLINK_WEB, MAIN_UPLINK_QUEUE, UPLINK_BULK, UPLINK_QUEUE

PAPER = "004"
SIMILAR = "'similar': spread under 10 % of the mean"
TWICE = Band(1.5, 2.5)
THRICE = Band(2.25, 3.75)

REGISTRY = [
    Finding(PAPER, "goodput-similar", "finding 1", "Downlink: the TCP variants provide similar goodputs", "similar",
            "(largest − smallest) / mean goodput of the four, downlink bulk", at_most(0.10), at_most(0.2), SIMILAR),
    Finding(PAPER, "goodput-similar-web", "finding 1", "… also for short downlink transfers", "similar",
            "(largest − smallest) / mean goodput of the four, downlink web transfers", at_most(0.10), at_most(0.2), SIMILAR),
    Finding(PAPER, "rtt-inflated", "finding 2", "BIC/CUBIC exhibit inflated average RTT; NewReno and Westwood+ lower", "BIC, CUBIC > NewReno, Westwood+",
            "share of the (BIC or CUBIC, NewReno or Westwood+) pairs in which the first has the higher mean RTT, downlink bulk", ALL, Band(0.5, 1.0)),
    Finding(PAPER, "rtt-westwood", "finding 2", "Westwood+ exhibits the lowest RTT", "Westwood+ lowest",
            "Westwood+'s mean RTT over the lowest of the other three, downlink bulk", below(1.0), None),
    Finding(PAPER, "retx-twice", "finding 3", "BIC/CUBIC provoke two times the packet retransmissions of Westwood+ and NewReno", "× 2",
            "× of the retransmitted share of segments, downlink bulk", TWICE, Band(1.0, 4.0), "'two times': 2 ± 25 %"),
    Finding(PAPER, "timeouts-thrice", "finding 4", "BIC/CUBIC provoke roughly three times the timeouts of Westwood+ and NewReno", "× 3",
            "× of timeouts per flow (every timeout, as the kernel counts them), downlink bulk", THRICE, Band(1.0, 6.0), "'roughly three times': 3 ± 25 %"),
    Finding(PAPER, "timeouts-cubic", "finding 4", "CUBIC exhibits the highest number of timeouts", "CUBIC highest",
            "CUBIC's timeouts per flow over the highest of the other three, downlink bulk", above(1.0), None),
    Finding(PAPER, "uplink-similar", "uplink", "On the uplink the algorithms exhibit similar performance", "similar",
            "largest spread (over goodput and mean RTT) of the four, uplink bulk", at_most(0.10), at_most(0.2), SIMILAR),
    Finding(PAPER, "throughput-larger", "conclusions 3", "BIC/CUBIC have larger throughput but the same goodput: their probing adds retransmissions, not goodput", "throughput × above goodput ×",
            "× of throughput (retransmissions included) over × of goodput, downlink bulk", above(1.0), None),
]


def _over(a: float, b: float) -> float:
    """a / b, NaN when b is 0 (no timeouts at all: the ratio is not measured)."""
    return a / b if b else math.nan


def _mean(s: pl.DataFrame, measure: str, traffic: str, algorithm: str, queue: str, background: int) -> float:
    rows = s.filter(
        (pl.col("measure") == measure) & (pl.col("traffic") == traffic) & (pl.col(ALGORITHM) == algorithm) & (pl.col(UPLINK_QUEUE) == queue) & (pl.col(BACKGROUND) == background)
    )
    return stats.mean_or_nan(rows["mean"])


def measure(s: pl.DataFrame) -> dict[str, Measured]:
    """rtolab's answer to every finding, from ``cc_hsdpa_analysis.summary``: at the main
    background and uplink buffer, with the other background sizes (downlink findings) and
    uplink buffers (uplink findings) reported as measured ablations."""
    queues = [q for q in s[UPLINK_QUEUE].unique().sort().to_list() if q != MAIN_UPLINK_QUEUE]
    backgrounds = [int(b) for b in s[BACKGROUND].unique().sort().to_list() if b != BACKGROUND_USERS]

    def of(measure: str, traffic: str, queue: str = MAIN_UPLINK_QUEUE, background: int = BACKGROUND_USERS) -> dict[str, float]:
        return {a: _mean(s, measure, traffic, a, queue, background) for a in ALGORITHMS}

    def ratio(v: dict[str, float]) -> float:
        return _over(v["BIC"] + v["CUBIC"], v["NewReno"] + v["Westwood+"])

    def spread(v: dict[str, float]) -> float:
        return _over(max(v.values()) - min(v.values()), sum(v.values()) / len(v))

    def listing(v: dict[str, float], fmt: str, scale: float = 1.0) -> str:
        return ", ".join(f"{a} {format(x * scale, fmt)}" for a, x in v.items())

    def with_queues(value_at: Callable[[str], float], detail: str) -> Measured:
        return Measured(value_at(MAIN_UPLINK_QUEUE), detail, tuple(Ablation(f"uplink buffer {q}", value_at(q)) for q in queues))

    def with_backgrounds(value_at: Callable[[int], float], detail: str, missing: str = "") -> Measured:
        return Measured(value_at(BACKGROUND_USERS), detail, tuple(Ablation(f"{n} background users", value_at(n)) for n in backgrounds), missing)

    out: dict[str, Measured] = {}
    g = of("goodput_bps", DOWNLINK_BULK)
    out["goodput-similar"] = with_backgrounds(lambda n: spread(of("goodput_bps", DOWNLINK_BULK, background=n)), listing(g, ".2f", 1e-6) + " Mbit/s")
    w = of("goodput_bps", DOWNLINK_WEB)
    out["goodput-similar-web"] = Measured(spread(w), listing(w, ".0f", 1e-3) + " kbit/s")
    rtt = of("mean_rtt_s", DOWNLINK_BULK)

    def inflated(n: int) -> float:
        v = of("mean_rtt_s", DOWNLINK_BULK, background=n)
        pairs = [v[a] > v[b] for a in ("BIC", "CUBIC") for b in ("NewReno", "Westwood+")]
        return sum(pairs) / len(pairs)

    def westwood(n: int) -> float:
        v = of("mean_rtt_s", DOWNLINK_BULK, background=n)
        return _over(v["Westwood+"], min(x for a, x in v.items() if a != "Westwood+"))

    out["rtt-inflated"] = with_backgrounds(inflated, listing(rtt, ".3f") + " s")
    out["rtt-westwood"] = with_backgrounds(westwood, listing(rtt, ".3f") + " s")
    retx = of("retransmit_ratio", DOWNLINK_BULK)
    out["retx-twice"] = with_backgrounds(lambda n: ratio(of("retransmit_ratio", DOWNLINK_BULK, background=n)), listing(retx, ".4f") + f"; × {ratio(retx):.2f}")
    rto = of("timeouts", DOWNLINK_BULK)
    genuine = of("genuine_timeouts", DOWNLINK_BULK)
    m = with_backgrounds(lambda n: ratio(of("timeouts", DOWNLINK_BULK, background=n)), listing(rto, ".2f") + f" per flow; × {ratio(rto):.2f}")
    out["timeouts-thrice"] = Measured(m.value, m.detail, (*m.ablations, Ablation("only the timeouts the oracle finds genuine", ratio(genuine))),
                                      "the paper's live network: its load, scheduler and radio conditions are not given; most of rtolab's timeouts are spurious, set off by the radio's delay spikes (docs/cc-hsdpa.md)")

    def cubic_highest(n: int) -> float:
        v = of("timeouts", DOWNLINK_BULK, background=n)
        return _over(v["CUBIC"], max(x for a, x in v.items() if a != "CUBIC"))

    m = with_backgrounds(cubic_highest, listing(rto, ".2f") + " per flow")
    out["timeouts-cubic"] = Measured(m.value, m.detail, (*m.ablations, Ablation("only the timeouts the oracle finds genuine", _over(genuine["CUBIC"], max(v for a, v in genuine.items() if a != "CUBIC")))),
                                     "the paper's live network: its load, scheduler and radio conditions are not given (docs/cc-hsdpa.md)")

    def uplink(q: str) -> float:
        return max(spread(of("goodput_bps", UPLINK_BULK, q)), spread(of("mean_rtt_s", UPLINK_BULK, q)))

    up = of("goodput_bps", UPLINK_BULK)
    out["uplink-similar"] = with_queues(uplink, listing(up, ".0f", 1e-3) + " kbit/s; RTT " + listing(of("mean_rtt_s", UPLINK_BULK), ".3f") + " s")
    tp = of("throughput_bps", DOWNLINK_BULK)
    def extra_throughput(n: int) -> float:
        return _over(ratio(of("throughput_bps", DOWNLINK_BULK, background=n)), ratio(of("goodput_bps", DOWNLINK_BULK, background=n)))

    out["throughput-larger"] = with_backgrounds(extra_throughput, listing(tp, ".2f", 1e-6) + f" Mbit/s; throughput × {ratio(tp):.3f}, goodput × {ratio(g):.3f}")
    return out
