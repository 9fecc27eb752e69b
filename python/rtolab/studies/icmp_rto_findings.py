"""Paper 001's findings (abstract, Sec. II and V, Figures 2 and 4–8), each with the number
that tests it, and how rtolab's ICMP-driven-RTO tables answer them.

Every ratio is "with the scheme" over "without it", paired by replication, for the study's
main reading of the scheme (``icmp_rto.MAIN_SCHEME``: a timeout the scheme brings forward
leaves the back-off alone, Sec. II's "without affecting the back-off algorithms"); the other
reading (``on``: such a timeout backs the timer off like any other) is reported beside each
finding as a measured ablation. The paper's numbers are read with ± 25 % ("about double":
2 ± 0.5; "9.90 s against 15 s": 0.66 ± 25 %; "11 times" and "4 times"), "significant" as at
least 10 %.

A claimed order ("over 100 %", "significantly lower", "rises") is tested case by case on the
90 % interval of the paired ratio (or of the paired change from the previous bad fraction):
borne out (1) when the interval lies on the claimed side of the stated bound, not
distinguished (½) when it holds the bound, contradicted (0) otherwise
(``findings.order_credit``); the finding's value is the mean over its cases. The absolute RTOs
(15 s and 9.9 s) and the 85 % goodput of the abstract are calibration targets, not findings.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import polars as pl

from rtolab.findings import CREDIT_AGREE, CREDIT_PARTLY, Ablation, Band, Finding, Measured, at_least, below, mean_credit, order_credit, within
from rtolab.studies.icmp_rto import BAD_FRACTION, BAD_MEAN, MAIN_SCHEME, MAIN_TIMER, ON, SCHEME, TIMER, TIMERS, TRAFFIC

OTHER_SCHEME = ON
OTHER_TIMER = next(t for t in TIMERS if t != MAIN_TIMER)

PAPER = "001"


#: A finding of this paper: key, where, statement, the paper's number, metric, agree band,
#: optional partly band and basis of the tolerance.
_f = partial(Finding, PAPER)


#: "Significant(ly)": at least 10 % (a ratio beyond 1.1 or below 0.9).
SIGNIFICANT = 0.1
ORDER = "on the paired 90 % interval: beyond the bound 1, holding it ½, short of it 0"

REGISTRY = [
    _f("web-throughput", "Fig. 4, Sec. V-A", "Short flows: even with the link bad 50 % of the time, throughput is about double that of default TCP", "× 2",
       "web throughput with the scheme over without, 50 % bad", Band(1.5, 2.5), Band(1.0, math.inf),
       "'about double': 2 ± 25 %; Sec. V-A's statement, read as it is worded: the abstract's 'over 100 %' is abstract-throughput's"),
    _f("abstract-throughput", "Abstract", "The proposed timeout mechanism offers over 100 % throughput improvement even when the bad state is about 50 %", "× > 2",
       "web throughput with the scheme over without, paired by replication, 50 % bad: its 90 % interval above 2 counts 1, holding 2 ½, below 2 0",
       CREDIT_AGREE, CREDIT_PARTLY, "'over 100 % improvement': a ratio above 2, " + ORDER),
    _f("web-rto-11", "Fig. 5, Sec. V-B", "At 11 % bad period the average RTO is 9.90 s with the scheme against 15 s without", "× 0.66",
       "time-averaged RTO of web transfers with over without the scheme, 11 % bad", within(0.66, 0.25), below(1.0),
       "0.66 ± 25 %; a ratio, not the two absolute RTOs (the calibration targets)"),
    _f("web-rto-rises", "Fig. 5, Sec. V-B", "The RTO rises gradually as the fraction of bad period increases", "rising",
       "per step between consecutive bad fractions of the grid, the change of the web RTO with the scheme (time-averaged), paired by replication: its 90 % interval above 0 counts 1, holding 0 ½, below 0 0; the mean",
       CREDIT_AGREE, CREDIT_PARTLY, "'rises': every step, " + ORDER),
    _f("ftp-throughput-33", "Fig. 6, Sec. V-C", "Bulk transfer: significant throughput benefits at 33 % bad period", "benefit",
       "FTP throughput with over without the scheme, paired, 33 % bad: its 90 % interval above 1.1 counts 1, holding 1.1 ½, below 1.1 0",
       CREDIT_AGREE, CREDIT_PARTLY, "'significant': at least 10 %, " + ORDER),
    _f("ftp-rto-beyond-33", "Fig. 7, Sec. V-D", "Bulk transfer: significant benefits of a lower RTO only beyond 33 % bad", "lower RTO beyond 33 % only",
       "per bad fraction above 0, the FTP RTO with over without the scheme, paired: beyond 33 % its 90 % interval below 0.9 counts 1, holding 0.9 ½, above 0; at or below 33 % (no significant benefit) an interval below 0.9 counts 0, else 1; the mean",
       CREDIT_AGREE, CREDIT_PARTLY, "'significant': at least 10 % lower; 'only': not shown at or below 33 %"),
    _f("completion-every", "Fig. 8, Sec. V-E", "For any fraction of bad period the scheme shows significantly lower session completion times", "lower everywhere",
       "per bad fraction above 0, web completion time with over without the scheme, paired: its 90 % interval below 0.9 counts 1, holding 0.9 ½, above 0; the mean",
       CREDIT_AGREE, CREDIT_PARTLY, "'significantly': at least 10 %, " + ORDER),
    _f("completion-11x", "Fig. 8, Sec. V-E", "At 50 % bad, default TCP's session completion time is about 11 times that with a perfect channel", "× 11",
       "web completion time without the scheme at 50 % bad over the perfect channel's", Band(8.25, 13.75), Band(5.5, 22.0), "11 ± 25 %"),
    _f("completion-4x", "Fig. 8, Sec. V-E", "… while with the scheme it is only 4 times larger", "× 4",
       "web completion time with the scheme at 50 % bad over the perfect channel's", Band(3.0, 5.0), Band(2.0, 8.0), "4 ± 25 %"),
    _f("arq-3-6", "Fig. 2, Sec. V", "A 3-packet ARQ buffer with at least 6 ARQ attempts is sufficient", "sufficient",
       "goodput ratio with a 3-packet buffer and 6 attempts over the best of the ARQ grid, worst bad mean", at_least(0.95), at_least(0.9), "within 5 % of the best"),
    _f("idle-time", "Sec. V-E", "The source idle time is kept well under check", "lower idle time",
       "time a web sender sits waiting for its timer before timeouts, per packet call, with over without the scheme, paired, 50 % bad: its 90 % interval below 0.9 counts 1, holding 0.9 ½, above 0",
       CREDIT_AGREE, CREDIT_PARTLY,
       "'kept well under check': at least 10 % less, " + ORDER + "; Sec. V-E's words, which give no factor: the abstract's 'at least 3 times less' is abstract-idle's"),
    _f("abstract-idle", "Abstract", "The source idle time is at least 3 times less with the scheme", "× ≤ 1/3",
       "per bad fraction above 0 of the web grid at which the sender without the scheme idles (in at least two replications: a replication without idle time leaves the paired ratio undefined), idle time per packet call with over without the scheme, paired: its 90 % interval below 1/3 counts 1, holding 1/3 ½, above 0; the mean",
       CREDIT_AGREE, CREDIT_PARTLY, "'at least 3 times less': a ratio of at most 1/3 at every bad fraction, " + ORDER),
]


def _row(t: pl.DataFrame, traffic: str, metric: str, bad_mean: float, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> dict[str, float] | None:
    rows = t.filter((pl.col(TRAFFIC) == traffic) & (pl.col("metric") == metric) & (pl.col(BAD_MEAN) == bad_mean) & (pl.col(SCHEME) == scheme) & (pl.col(TIMER) == timer))
    return rows.row(0, named=True) if rows.height else None


def _column(t: pl.DataFrame, traffic: str, metric: str, bad_mean: float, column: str, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> float:
    row = _row(t, traffic, metric, bad_mean, scheme, timer)
    return math.nan if row is None or row.get(column) is None else float(row[column])


def _ratio(t: pl.DataFrame, traffic: str, metric: str, fraction_of: float, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> float:
    return _column(t, traffic, metric, fraction_of, "over_off", scheme, timer)


def _interval(t: pl.DataFrame, traffic: str, metric: str, bad_mean: float, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER, step: bool = False) -> tuple[float, float, float]:
    """(mean, low, high) of the paired ratio (or, with ``step``, of the paired change from the
    previous bad fraction); NaN where the table has none."""
    names = ("step_mean", "step_ci_low", "step_ci_high") if step else ("over_off", "ratio_ci_low", "ratio_ci_high")
    m, lo, hi = (_column(t, traffic, metric, bad_mean, c, scheme, timer) for c in names)
    return m, lo, hi


def _credit(t: pl.DataFrame, traffic: str, metric: str, bad_mean: float, sign: int, bound: float, scheme: str = MAIN_SCHEME, timer: str = MAIN_TIMER) -> float:
    """One case of a claimed order of the paired ratio against ``bound`` (``sign`` +1: above)."""
    _, lo, hi = _interval(t, traffic, metric, bad_mean, scheme, timer)
    return order_credit(lo, hi, sign, bound)


def _not_below(lo: float, hi: float, bound: float) -> float:
    """One case of "no significant benefit": 0 when the interval lies wholly below ``bound``
    (the benefit shown), 1 otherwise (not shown, as the claim says); NaN for no interval."""
    if math.isnan(lo) or math.isnan(hi):
        return math.nan
    return 0.0 if hi < bound else 1.0


def _text(m: float, lo: float, hi: float) -> str:
    return f"{m:.3g} [{lo:.3g}, {hi:.3g}]"


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
    positive = [b for b in means if b > 0]
    out: dict[str, Measured] = {}

    def words(traffic: str, metric: str, b: float, what: str) -> str:
        return (f"{what} at {100 * fraction[b]:.1f} % bad: off {_column(t, traffic, metric, b, 'off'):.4g}, with the scheme {_column(t, traffic, metric, b, 'value'):.4g} "
                f"(× {_text(*_interval(t, traffic, metric, b))}), with its timeouts backed off {_column(t, traffic, metric, b, 'value', OTHER_SCHEME):.4g}")

    def at(key: str, traffic: str, metric: str, b: float, what: str) -> None:
        out[key] = Measured(_ratio(t, traffic, metric, b), words(traffic, metric, b, what),
                            _other(lambda s: _ratio(t, traffic, metric, b, s), lambda tm: _ratio(t, traffic, metric, b, timer=tm)))

    def order_at(key: str, traffic: str, metric: str, b: float, sign: int, bound: float, what: str, missing: str = "") -> None:
        out[key] = Measured(_credit(t, traffic, metric, b, sign, bound), words(traffic, metric, b, what),
                            _other(lambda s: _credit(t, traffic, metric, b, sign, bound, s), lambda tm: _credit(t, traffic, metric, b, sign, bound, timer=tm)), missing)

    at("web-throughput", "web", "throughput_bps", worst, "throughput [bit/s]")
    order_at("abstract-throughput", "web", "throughput_bps", worst, +1, 2.0, "throughput [bit/s]")
    at("web-rto-11", "web", "rto_time_s", eleven, "time-averaged RTO [s]")
    out["web-rto-11"] = Measured(out["web-rto-11"].value, out["web-rto-11"].detail,
                                 (*out["web-rto-11"].ablations, Ablation("the RTO averaged over RTT samples", _ratio(t, "web", "rto_sample_s", eleven)),
                                  Ablation(f"the RTO read as the wait before each timeout, averaged over the timer's expiries (off {_column(t, 'web', 'rto_expiry_s', eleven, 'off'):.3g} s)", _ratio(t, "web", "rto_expiry_s", eleven))),
                                 f"how the paper averages the RTO is not given; its 15 s without the scheme at 11 % bad is {15 / _column(t, 'web', 'rto_time_s', eleven, 'off'):.1f} times rtolab's time average")

    def rises(s: str = MAIN_SCHEME, tm: str = MAIN_TIMER) -> float:
        return mean_credit(order_credit(*_interval(t, "web", "rto_time_s", b, s, tm, step=True)[1:]) for b in means[1:])

    rtos = [_column(t, "web", "rto_time_s", b, "value") for b in means]
    steps = "; ".join(f"{100 * fraction[b]:.0f} %: {_text(*_interval(t, 'web', 'rto_time_s', b, step=True))} s" for b in means[1:])
    out["web-rto-rises"] = Measured(rises(), "RTO with the scheme " + " → ".join(f"{r:.3g}" for r in rtos) + f" s; change from the previous fraction {steps}",
                                    _other(rises, lambda tm: rises(tm=tm)))
    order_at("ftp-throughput-33", "ftp", "throughput_bps", third, +1, 1 + SIGNIFICANT, "throughput [bit/s]")

    def only_beyond(s: str = MAIN_SCHEME, tm: str = MAIN_TIMER) -> float:
        def case(b: float) -> float:
            _, lo, hi = _interval(t, "ftp", "rto_time_s", b, s, tm)
            return order_credit(lo, hi, -1, 1 - SIGNIFICANT) if fraction[b] > 0.34 else _not_below(lo, hi, 1 - SIGNIFICANT)

        return mean_credit(case(b) for b in positive)

    out["ftp-rto-beyond-33"] = Measured(only_beyond(), "on ÷ off " + ", ".join(f"{100 * fraction[b]:.0f} %: {_text(*_interval(t, 'ftp', 'rto_time_s', b))}" for b in positive),
                                        _other(only_beyond, lambda tm: only_beyond(tm=tm)))

    def c(s: str = MAIN_SCHEME, tm: str = MAIN_TIMER) -> float:
        return mean_credit(_credit(t, "web", "completion_s", b, -1, 1 - SIGNIFICANT, s, tm) for b in positive)

    # The scheme changes when the timer fires. Where a packet call without it spends under
    # 10 % of its time waiting for the timer (``idle_s`` over ``completion_s``), even removing
    # every such wait leaves the call less than 10 % faster: the finding cannot agree there.
    idle_share = {b: _column(t, "web", "idle_s", b, "off") / _column(t, "web", "completion_s", b, "off") for b in positive}
    bounded = [b for b in positive if idle_share[b] < 0.1]
    bound = ("a packet call without the scheme waits for its timer " + ", ".join(f"{100 * idle_share[b]:.1f} % of its time at {100 * fraction[b]:.0f} % bad" for b in bounded)
             + ": removing every such wait cannot make it 10 % faster") if bounded else ""
    out["completion-every"] = Measured(c(), "on ÷ off " + ", ".join(f"{100 * fraction[b]:.0f} %: {_text(*_interval(t, 'web', 'completion_s', b))}" for b in positive),
                                       _other(c, lambda tm: c(tm=tm)), bound)
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
    order_at("idle-time", "web", "idle_s", worst, -1, 1 - SIGNIFICANT, "idle time before timeouts per packet call [s]")

    def idles(b: float, tm: str = MAIN_TIMER) -> bool:
        _, lo, hi = _interval(t, "web", "idle_s", b, timer=tm)
        return _column(t, "web", "idle_s", b, "off", timer=tm) > 0 and not (math.isnan(lo) or math.isnan(hi))

    def third_or_less(s: str = MAIN_SCHEME, tm: str = MAIN_TIMER) -> float:
        return mean_credit(_credit(t, "web", "idle_s", b, -1, 1 / 3, s, tm) for b in positive if idles(b, tm))

    cases = [b for b in positive if idles(b)]
    left = [b for b in positive if b not in cases]
    out["abstract-idle"] = Measured(
        third_or_less(),
        "with ÷ without the scheme " + ", ".join(f"{100 * fraction[b]:.0f} %: {_text(*_interval(t, 'web', 'idle_s', b))}" for b in cases)
        + (f"; left out (the sender without the scheme idles in fewer than two replications): {', '.join(f'{100 * fraction[b]:.0f} %' for b in left)}" if left else ""),
        _other(third_or_less, lambda tm: third_or_less(tm=tm)),
    )
    return out
