"""The model with congestion losses (paper 003, Sec. 2.3 and Appendix, Table 1).

Symbols: p loss probability per packet; R round-trip time (s); C = Cmax (packets/s); TO the
mean length of a timeout (s; the paper leaves its value open). A congestion cycle sends 1/p
packets. In congestion avoidance the rate grows with slope 1/R and halves at each loss; three
modes follow from p, R and C (Eq. 14):

- mode 1, pure sawtooth:   x0 = √(2/(3pR)) < C/2;             τCA = R·x0 = √(2R/(3p))
- mode 2, cutted sawtooth: x0 = 2C − √(3C² − 2/(pR)) ∈ [C/2, C); τCA = R·x0
- mode 3, rate limited:    otherwise;                          τCA = 1/(p·C)

The paper's "otherwise" is stated as a negative discriminant 3C² − 2/(pR) < 0, but for
√(2/(3pR)) ≤ C < 1/√(pR) the root x0 is ≥ C, outside mode 2's premise x0 < C. Here mode 3 is
taken whenever x0 ≥ C: the boundary with mode 2 is then C = 1/√(pR), where both give
τCA = √(R/p), so τCA (and τSS) are continuous at both mode boundaries, as the paper says.

The paper's slope of 1/R packets/s per second is the default (Appendix, Figure 10). A window
growing by one packet per RTT raises the rate by 1/R per RTT, i.e. 1/R² per second; with
R < 1 s the paper's sawtooth is slower than TCP's and its mode-1 rate is √R times the
square-root law's. ``slope=1/R²`` gives that reading: every formula above holds with R in the
slope replaced by h = 1/slope (slow start still doubles every R). See docs/spikes.md.

(Re-derived: in mode 1 the rate climbs from x0 to 2x0 in τCA = R·x0 with area 3/2·R·x0² = 1/p;
in mode 2 it climbs from x0 to C in R(C − x0), then stays at C until τCA = R·x0, with area
R(C² − x0²)/2 + R·C(2x0 − C) = 1/p, whose root below C is the x0 above.)

A timeout cycle (τSS, Eq. 16–18) is a silence TO, slow start from 1 packet/s to x0 (or C), then
the same evolution as its mode until 1/p packets are sent. A cycle is a timeout cycle with
probability β = β(w, p) (Eq. 5, from PFTK) with w = 2·x0·R in mode 1 and C·R otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .reference import pftk_timeout_probability


def timeout_probability(window: float, p: float) -> float:
    """Eq. 5: β(w, p) = Q̂(w) of PFTK; every loss with a window of three packets or fewer ends
    in a timeout."""
    return pftk_timeout_probability(window, p)


def _slow_start_only(p: float, rtt: float) -> float:
    """Time for slow start from 1 packet/s to send 1/p packets: R·log2(ln2/(pR) + 1)."""
    return rtt * math.log2(math.log(2) / (p * rtt) + 1)


def _slow_start_then_linear(x0: float, p: float, rtt: float, h: float) -> float:
    """Slow start to x0, then linear growth with slope 1/h until 1/p packets (Eq. 16, where
    h = R): t1 = R·log2 x0 sending a1 = R(x0 − 1)/ln2; t2 solves t2·x0 + t2²/(2h) = 1/p − a1."""
    a1 = rtt * (x0 - 1) / math.log(2)
    if a1 >= 1 / p:
        return _slow_start_only(p, rtt)
    t2 = -h * x0 + math.sqrt((h * x0) ** 2 + 2 * h * (1 / p - a1))
    return rtt * math.log2(x0) + t2


def _slope_time(rtt: float, slope: float | None) -> float:
    """h = 1/slope: R for the paper's slope 1/R (the default)."""
    if slope is None:
        return rtt
    if not slope > 0:
        raise ValueError(f"the congestion-avoidance slope must be positive packets/s², got {slope}")
    return 1 / slope


@dataclass(frozen=True)
class Cycles:
    """τCA, τSS, β and the mode (Table 1) for one (p, R, C, TO)."""

    mode: int
    x0: float
    tau_ca: float
    tau_ss: float
    beta: float
    p: float

    @property
    def mean_cycle(self) -> float:
        """E(Y) = β·τSS + (1 − β)·τCA."""
        return self.beta * self.tau_ss + (1 - self.beta) * self.tau_ca


def mode_and_x0(p: float, rtt: float, cmax: float, slope: float | None = None) -> tuple[int, float]:
    """The mode of Table 1 and the rate x0 at the start of a CA cycle (C in mode 3)."""
    h = _slope_time(rtt, slope)
    x1 = math.sqrt(2 / (3 * p * h))
    if x1 < cmax / 2:
        return 1, x1
    disc = 3 * cmax**2 - 2 / (p * h)
    if disc >= 0:
        x2 = 2 * cmax - math.sqrt(disc)
        if cmax / 2 <= x2 < cmax:
            return 2, x2
    return 3, cmax


def tau_ca(p: float, rtt: float, cmax: float, slope: float | None = None) -> float:
    """Eq. 14."""
    mode, x0 = mode_and_x0(p, rtt, cmax, slope)
    return 1 / (p * cmax) if mode == 3 else _slope_time(rtt, slope) * x0


def tau_ss(p: float, rtt: float, cmax: float, timeout: float, slope: float | None = None) -> float:
    """Eq. 16 (mode 1), 17 (mode 2), 18 (mode 3)."""
    mode, x0 = mode_and_x0(p, rtt, cmax, slope)
    h = _slope_time(rtt, slope)
    ln2 = math.log(2)
    if mode == 1:
        return timeout + _slow_start_then_linear(x0, p, rtt, h)
    if mode == 2:
        a1 = rtt * (x0 - 1) / ln2
        a2 = h * (cmax**2 - x0**2) / 2
        if a1 + a2 < 1 / p:
            return timeout + rtt * math.log2(x0) + h * (cmax - x0) + (1 / p - a1 - a2) / cmax
        return timeout + _slow_start_then_linear(x0, p, rtt, h)
    a1 = rtt * (cmax - 1) / ln2
    if a1 <= 1 / p:
        return timeout + rtt * math.log2(cmax) + (1 / p - a1) / cmax
    return timeout + _slow_start_only(p, rtt)


def cycles(p: float, rtt: float, cmax: float, timeout: float, slope: float | None = None) -> Cycles:
    """Table 1: the mode, τCA, τSS and β. ``slope`` is the congestion-avoidance growth of the
    rate in packets/s per second: None for the paper's 1/R, 1/R² for one packet per RTT."""
    if not 0 < p < 1:
        raise ValueError(f"loss probability p must be in (0, 1), got {p}")
    mode, x0 = mode_and_x0(p, rtt, cmax, slope)
    window = 2 * x0 * rtt if mode == 1 else cmax * rtt
    return Cycles(mode, x0, tau_ca(p, rtt, cmax, slope), tau_ss(p, rtt, cmax, timeout, slope), timeout_probability(window, p), p)


def _stopping_sets(u: float, c: Cycles) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eq. 7's index sets at T′ = u: S1 as (n, m) with the last cycle a CA cycle, one n per m
    with n·τCA + m·τSS < u ≤ (n+1)·τCA + m·τSS; S2 likewise with the last cycle a timeout cycle."""
    tca, tss = c.tau_ca, c.tau_ss
    m1 = np.arange(0, int(math.ceil(u / tss)) + 1)
    m1 = m1[m1 * tss < u]
    n1 = np.ceil((u - m1 * tss) / tca).astype(np.int64) - 1
    n2 = np.arange(0, int(math.ceil(u / tca)) + 1)
    n2 = n2[n2 * tca < u]
    m2 = np.ceil((u - n2 * tca) / tss).astype(np.int64) - 1
    return n1, m1, n2, m2


def reward_exact(u: float, c: Cycles) -> float:
    """Eq. 7: E(A | T′ = u), summing over the sequences of n congestion-avoidance and m
    timeout cycles that are stopped when u is exceeded (``_stopping_sets``); the last,
    unfinished cycle sends at a constant rate."""
    if u <= 0:
        return 0.0
    tca, tss, b = c.tau_ca, c.tau_ss, c.beta
    n1, m1, n2, m2 = _stopping_sets(u, c)
    s1 = np.sum(stats.binom.pmf(m1, n1 + m1, b) * (1 - b) * (n1 + m1 + (u - n1 * tca - m1 * tss) / tca))
    s2 = np.sum(stats.binom.pmf(m2, n2 + m2, b) * b * (n2 + m2 + (u - n2 * tca - m2 * tss) / tss))
    return float(s1 + s2) / c.p


def stopping_probability(u: float, c: Cycles) -> float:
    """Σ over S1 of Bin·(1 − β) plus Σ over S2 of Bin·β: the probability that the cycle
    sequence is stopped by u, which must be 1 (a consistency check of Eq. 7's index sets)."""
    n1, m1, n2, m2 = _stopping_sets(u, c)
    b = c.beta
    return float(np.sum(stats.binom.pmf(m1, n1 + m1, b)) * (1 - b) + np.sum(stats.binom.pmf(m2, n2 + m2, b)) * b)


def reward_wald(u: float, c: Cycles) -> float:
    """Eq. 9: E(A | T′ = u) ≈ (1/p)·u/E(Y), the mean of the Wald bounds of Eq. 8."""
    return max(u, 0.0) / (c.p * c.mean_cycle)


def goodput_exponential_wald(mean_period: float, spike: float, c: Cycles) -> float:
    """Closed form of Eq. 10 for exponential periods (packets/s): e^(−SD/E(T)) / (p·E(Y))."""
    return math.exp(-spike / mean_period) / (c.p * c.mean_cycle)
