"""The lossless renewal-reward model of TCP goodput under delay spikes (paper 003, Sec. 2.2).

Symbols (units): R round-trip time (s); C = Cmax, the rate limit (packets/s); SD spike
duration (s); T renewal period, spike start to spike start (s); L = R·log2(C), the time to
reach C in slow start (s).

After each spike TCP is silent for SD, then its rate doubles every R from one packet/s
(Eq. 2–3): X(t) = 2^((t−SD)/R) up to C. The packets sent in a cycle of length T, with
u = T − SD of sending time, are (Eq. 4)

    A(u) = 0                                  u ≤ 0
         = R/ln2 · (2^(u/R) − 1)              0 < u ≤ L
         = R/ln2 · (C − 1) + C·(u − L)        u > L

and the goodput is E(A)/E(T) (renewal-reward theorem, Eq. 1).
"""

from __future__ import annotations

import math


def ramp_time(rtt: float, cmax: float) -> float:
    """L = R·log2(C): slow start from 1 packet/s to C (0 when C ≤ 1)."""
    return rtt * math.log2(cmax) if cmax > 1 else 0.0


def reward(u: float, rtt: float, cmax: float) -> float:
    """Eq. 4: packets sent during ``u`` seconds of sending after a spike."""
    if u <= 0:
        return 0.0
    if cmax <= 1:
        return cmax * u
    ramp = ramp_time(rtt, cmax)
    k = rtt / math.log(2)
    if u <= ramp:
        return k * math.expm1(u * math.log(2) / rtt)
    return k * (cmax - 1) + cmax * (u - ramp)


def goodput_exponential(mean_period: float, spike: float, rtt: float, cmax: float) -> float:
    """Closed form for exponential periods with mean E(T) = μ (Sec. 2.2, "Example with
    exponential distribution"), in packets/s:

        G = e^(−SD/μ) · (ln2 · C^(1 − R/(μ ln2)) − R/μ) / (ln2 − R/μ).

    Derivation: with U = T − SD exponential given T > SD (memoryless),
    E[A(U)] = ∫_0^∞ X(s) P(U > s) ds = (C e^(−L/μ) − 1)/(ln2/R − 1/μ) + C μ e^(−L/μ),
    and C e^(−L/μ) = C^(1 − R/(μ ln2)). At μ = R/ln2 the ratio is 0/0; its limit is used."""
    if cmax <= 1:
        return math.exp(-spike / mean_period) * cmax
    a = rtt / mean_period
    ln2 = math.log(2)
    if abs(ln2 - a) < 1e-9:
        # l'Hôpital in x = R/μ at x = ln2: (−ln C − 1) / (−1)
        ratio = 1.0 + math.log(cmax)
    else:
        ratio = (ln2 * cmax ** (1 - a / ln2) - a) / (ln2 - a)
    return math.exp(-spike / mean_period) * ratio
