"""Paper 001's findings (Sec. II and V, Figures 2 and 4–8), each with the number that tests
it, and how rtolab's ICMP-driven-RTO tables answer them.

Every ratio is "with the scheme" over "without it", paired by replication, for the study's
main reading of the scheme (``icmp_rto.MAIN_SCHEME``: a timeout the scheme brings forward
leaves the back-off alone, Sec. II's "without affecting the back-off algorithms"); the other
reading (``on``: such a timeout backs the timer off like any other) is reported beside each
finding as a measured ablation. The paper's numbers are
read with ± 25 % ("about double": 2 ± 0.5; "9.90 s against 15 s": 0.66 ± 25 %; "11 times"
and "4 times"), "significant" as at least 10 %.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import polars as pl

from rtolab.findings import ALL, Ablation, Band, Finding, Measured, at_least, at_most, below, share, within
from rtolab.studies.icmp_rto import BAD_FRACTION, BAD_MEAN, MAIN_SCHEME, MAIN_TIMER, ON, SCHEME, TIMER, TIMERS, TRAFFIC

OTHER_SCHEME = ON
OTHER_TIMER = next(t for t in TIMERS if t != MAIN_TIMER)

PAPER = "001"


#: A finding of this paper: key, where, statement, the paper's number, metric, agree band,
#: optional partly band and basis of the tolerance.
_f = partial(Finding, PAPER)


REGISTRY = [
    _f("web-throughput", "Fig. 4, Sec. V-A", "Short flows: even with the link bad 50 % of the time, throughput is about double that of default TCP", "× 2",
       "web throughput with the scheme over without, 50 % bad", Band(1.5, 2.5), Band(1.0, math.inf), "'about double': 2 ± 25 %"),
    _f("web-rto-11", "Fig. 5, Sec. V-B", "At 11 % bad period the average RTO is 9.90 s with the scheme against 15 s without", "× 0.66",
       "time-averaged RTO of web transfers with over without the scheme, 11 % bad", within(0.66, 0.25), below(1.0), "0.66 ± 25 %"),
    _f("web-rto-rises", "Fig. 5, Sec. V-B", "The RTO rises gradually as the fraction of bad period increases", "rising",
       "share of steps between consecutive bad fractions at which the web RTO with the scheme rises", ALL, Band(0.75, 1.0)),
    _f("ftp-throughput-33", "Fig. 6, Sec. V-C", "Bulk transfer: significant throughput benefits at 33 % bad period", "benefit",
       "FTP throughput with over without the scheme, 33 % bad", at_least(1.1), at_least(1.0), "'significant': at least 10 %"),
    _f("ftp-rto-beyond-33", "Fig. 7, Sec. V-D", "Bulk transfer: significant benefits of a lower RTO only beyond 33 % bad", "lower RTO beyond 33 % only",
       "share of bad fractions above 0 at which the FTP RTO with the scheme is significantly lower (at most 0.9× without) exactly when the fraction is above 33 %", ALL, Band(0.5, 1.0),
       "'significant': at least 10 % lower; 'only': not below"),
    _f("completion-every", "Fig. 8, Sec. V-E", "For any fraction of bad period the scheme shows significantly lower session completion times", "lower everywhere",
       "share of bad fractions above 0 at which the web completion time with the scheme is at least 10 % lower", ALL, Band(0.5, 1.0), "'significantly': at least 10 %"),
    _f("completion-11x", "Fig. 8, Sec. V-E", "At 50 % bad, default TCP's session completion time is about 11 times that with a perfect channel", "× 11",
       "web completion time without the scheme at 50 % bad over the perfect channel's", Band(8.25, 13.75), Band(5.5, 22.0), "11 ± 25 %"),
    _f("completion-4x", "Fig. 8, Sec. V-E", "… while with the scheme it is only 4 times larger", "× 4",
       "web completion time with the scheme at 50 % bad over the perfect channel's", Band(3.0, 5.0), Band(2.0, 8.0), "4 ± 25 %"),
    _f("arq-3-6", "Fig. 2, Sec. V", "A 3-packet ARQ buffer with at least 6 ARQ attempts is sufficient", "sufficient",
       "goodput ratio with a 3-packet buffer and 6 attempts over the best of the ARQ grid, worst bad mean", at_least(0.95), at_least(0.9), "within 5 % of the best"),
    _f("idle-time", "Sec. V-E", "The source idle time is kept well under check", "lower idle time",
       "time a web sender sits waiting for its timer before timeouts, per packet call, with over without the scheme, 50 % bad", at_most(0.9), below(1.0), "'kept well under check': at least 10 % less"),
]


def _ratio(t: pl.DataFrame, traffic: str, metric: str, fraction_of: float, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> float:
    rows = t.filter((pl.col(TRAFFIC) == traffic) & (pl.col("metric") == metric) & (pl.col(BAD_MEAN) == fraction_of) & (pl.col(SCHEME) == scheme) & (pl.col(TIMER) == timer))
    return float(rows["over_off"][0]) if rows.height else math.nan


def _column(t: pl.DataFrame, traffic: str, metric: str, bad_mean: float, column: str, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> float:
    rows = t.filter((pl.col(TRAFFIC) == traffic) & (pl.col("metric") == metric) & (pl.col(BAD_MEAN) == bad_mean) & (pl.col(SCHEME) == scheme) & (pl.col(TIMER) == timer))
    return float(rows[column][0]) if rows.height else math.nan


def _other(value_at: Callable[[str], float], timer_at: Callable[[str], float] | None = None) -> tuple[Ablation, ...]:
    """The finding's value with the other reading of the scheme, and (``timer_at``: the value
    as a function of the timer) with the other timer."""
    out = [Ablation("the scheme's timeouts backing the timer off (icmp_rto_backoff = true)", value_at(OTHER_SCHEME))]
    if timer_at is not None:
        out.append(Ablation(f"the timer read as '{OTHER_TIMER}'", timer_at(OTHER_TIMER)))
    return tuple(out)


def measure(comparison: pl.DataFrame, arq: pl.DataFrame) -> dict[str, Measured]:
    """rtolab's answer to every finding, from ``icmp_rto_analysis.comparison`` (web and FTP
    together) and the ARQ characterisation's summary (``arq.csv``)."""
    t = comparison
    means = sorted(float(b) for b in t[BAD_MEAN].unique().to_list())
    fraction = {b: float(t.filter(pl.col(BAD_MEAN) == b)[BAD_FRACTION][0]) for b in means}
    worst = means[-1]
    eleven = min(means, key=lambda b: abs(fraction[b] - 0.111))
    third = min(means, key=lambda b: abs(fraction[b] - 1 / 3))
    out: dict[str, Measured] = {}

    def at(key: str, traffic: str, metric: str, b: float, words: str) -> None:
        def v(s: str) -> float:
            return _ratio(t, traffic, metric, b, s)

        def timer(tm: str) -> float:
            return _ratio(t, traffic, metric, b, timer=tm)

        out[key] = Measured(
            v(MAIN_SCHEME),
            f"{words} at {100 * fraction[b]:.1f} % bad: off {_column(t, traffic, metric, b, 'off'):.4g}, with the scheme {_column(t, traffic, metric, b, 'value'):.4g}, with its timeouts backed off {_column(t, traffic, metric, b, 'value', OTHER_SCHEME):.4g}",
            _other(v, timer),
        )

    at("web-throughput", "web", "throughput_bps", worst, "throughput [bit/s]")
    at("web-rto-11", "web", "rto_time_s", eleven, "time-averaged RTO [s]")
    out["web-rto-11"] = Measured(out["web-rto-11"].value, out["web-rto-11"].detail,
                                 (*out["web-rto-11"].ablations, Ablation("the RTO averaged over RTT samples", _ratio(t, "web", "rto_sample_s", eleven)),
                                  Ablation(f"the RTO read as the wait before each timeout, averaged over the timer's expiries (off {_column(t, 'web', 'rto_expiry_s', eleven, 'off'):.3g} s)", _ratio(t, "web", "rto_expiry_s", eleven))),
                                 f"how the paper averages the RTO is not given; its 15 s without the scheme at 11 % bad is {15 / _column(t, 'web', 'rto_time_s', eleven, 'off'):.1f} times rtolab's time average")
    rtos = [_column(t, "web", "rto_time_s", b, "value") for b in means]
    steps = [b > a for a, b in zip(rtos, rtos[1:])]
    out["web-rto-rises"] = Measured(share(steps), "RTO with the scheme " + " → ".join(f"{r:.3g}" for r in rtos) + " s")
    at("ftp-throughput-33", "ftp", "throughput_bps", third, "throughput [bit/s]")
    positive = [b for b in means if b > 0]

    def only_beyond(s: str) -> float:
        return share((_ratio(t, "ftp", "rto_time_s", b, s) <= 0.9) == (fraction[b] > 0.34) for b in positive)

    out["ftp-rto-beyond-33"] = Measured(only_beyond(MAIN_SCHEME), "on ÷ off " + ", ".join(f"{100 * fraction[b]:.0f} %: {_ratio(t, 'ftp', 'rto_time_s', b):.2f}" for b in positive), _other(only_beyond))
    def c(s: str) -> float:
        return share(_ratio(t, "web", "completion_s", b, s) <= 0.9 for b in positive)

    # The scheme changes when the timer fires. Where a packet call without it spends under
    # 10 % of its time waiting for the timer (``idle_s`` over ``completion_s``), even removing
    # every such wait leaves the call less than 10 % faster: the finding cannot agree there.
    idle_share = {b: _column(t, "web", "idle_s", b, "off") / _column(t, "web", "completion_s", b, "off") for b in positive}
    bounded = [b for b in positive if idle_share[b] < 0.1]
    bound = ("a packet call without the scheme waits for its timer " + ", ".join(f"{100 * idle_share[b]:.1f} % of its time at {100 * fraction[b]:.0f} % bad" for b in bounded)
             + ": removing every such wait cannot make it 10 % faster") if bounded else ""
    out["completion-every"] = Measured(c(MAIN_SCHEME), "on ÷ off " + ", ".join(f"{100 * fraction[b]:.0f} %: {_ratio(t, 'web', 'completion_s', b):.2f}" for b in positive), _other(c), bound)
    off11 = _column(t, "web", "completion_ratio", worst, "off")
    out["completion-11x"] = Measured(off11, f"{off11:.2f} × the perfect channel's completion time",
                                     (Ablation(f"the timer read as '{OTHER_TIMER}'", _column(t, "web", "completion_ratio", worst, "off", timer=OTHER_TIMER)),))
    def on4(s: str) -> float:
        return _column(t, "web", "completion_ratio", worst, "value", s)

    def on4_timer(tm: str) -> float:
        return _column(t, "web", "completion_ratio", worst, "value", timer=tm)

    out["completion-4x"] = Measured(on4(MAIN_SCHEME), f"{on4(MAIN_SCHEME):.2f} × with the scheme, {on4(OTHER_SCHEME):.2f} × with its timeouts backed off", _other(on4, on4_timer))
    if not arq.is_empty():
        ratios = arq.filter(pl.col("metric") == "goodput_ratio")
        worst_share = math.inf
        details = []
        for (bad,), part in ratios.group_by([BAD_MEAN], maintain_order=True):
            best = float(part["mean"].max())  # type: ignore[arg-type]
            chosen = part.filter((pl.col("window") == 3) & (pl.col("attempts") == 6))
            if chosen.height and best > 0:
                to_best = float(chosen["mean"][0]) / best
                worst_share = min(worst_share, to_best)
                details.append(f"{bad:g} s bad: {to_best:.3f}")
        out["arq-3-6"] = Measured(worst_share if details else math.nan, "(3, 6) over the best: " + ", ".join(details))
    at("idle-time", "web", "idle_s", worst, "idle time before timeouts per packet call [s]")
    return out
