"""Reference steady-state TCP throughput formulas, for comparison with the spike model.

Symbols: p loss-event probability; R round-trip time (s); T0 (``rto``) the retransmission
timeout (s); b packets acknowledged per ACK (1 without delayed ACKs, 2 with); W_max the
receiver window (packets); s the packet size (bytes, ``mss``). All functions return bit/s:
the packet rate of the formula times s·8.
"""

from __future__ import annotations

import math


def _check(p: float, rtt: float) -> None:
    if not 0 < p < 1:
        raise ValueError(f"loss probability p must be in (0, 1), got {p}")
    if not rtt > 0:
        raise ValueError(f"rtt must be positive seconds, got {rtt}")


def mathis_bps(mss: float, rtt: float, p: float, b: float = 1.0) -> float:
    """Mathis et al.'s square-root law: rate = s/R · √(3/(2·b·p)) (C = √(3/2) for periodic
    losses, one ACK per packet when b = 1)."""
    _check(p, rtt)
    return 8 * mss / rtt * math.sqrt(3 / (2 * b * p))


def pftk_timeout_probability(window: float, p: float) -> float:
    """PFTK's Q̂(w) = min(1, (1 − q³)(1 + q³(1 − q^(w−3))) / (1 − q^w)), q = 1 − p: the
    probability that a loss in a window of w packets ends in a timeout (paper 003, Eq. 5)."""
    if window <= 3:
        return 1.0
    q = 1.0 - p
    q3 = q * q * q
    return min(1.0, (1 - q3) * (1 + q3 * (1 - math.pow(q, window - 3))) / (1 - math.pow(q, window)))


def _backoff_factor(p: float) -> float:
    """PFTK's f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶: mean length of a run of
    exponentially backed-off timeouts, in units of T0."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def pftk_full_bps(
    mss: float, rtt: float, p: float, rto: float, b: float = 1.0, max_window: float = math.inf
) -> float:
    """The full PFTK model (Padhye, Firoiu, Towsley, Kurose 1998, Eq. 30 of the technical
    report): with E[W] = (2+b)/(3b) + √(8(1−p)/(3bp) + ((2+b)/(3b))²) the unconstrained mean
    window,

        B = ((1−p)/p + E[W] + Q̂(E[W])/(1−p)) / (R(b·E[W]/2 + 1) + Q̂(E[W])·T0·f(p)/(1−p))

    when E[W] < W_max, and otherwise, window-limited,

        B = ((1−p)/p + W_max + Q̂(W_max)/(1−p))
            / (R(b·W_max/8 + (1−p)/(p·W_max) + 2) + Q̂(W_max)·T0·f(p)/(1−p)).
    """
    _check(p, rtt)
    k = (2 + b) / (3 * b)
    mean_window = k + math.sqrt(8 * (1 - p) / (3 * b * p) + k**2)
    f = _backoff_factor(p)
    if mean_window < max_window:
        q = pftk_timeout_probability(mean_window, p)
        num = (1 - p) / p + mean_window + q / (1 - p)
        den = rtt * (b * mean_window / 2 + 1) + q * rto * f / (1 - p)
    else:
        w = max_window
        q = pftk_timeout_probability(w, p)
        num = (1 - p) / p + w + q / (1 - p)
        den = rtt * (b * w / 8 + (1 - p) / (p * w) + 2) + q * rto * f / (1 - p)
    return 8 * mss * num / den


def tfrc_bps(mss: float, rtt: float, p: float, rto: float, b: float = 1.0) -> float:
    """The simplified PFTK form used by TFRC (RFC 5348, Sec. 3.1):

        X = s / (R·√(2bp/3) + t_RTO·(3·√(3bp/8))·p·(1 + 32p²))   bytes/s.
    """
    _check(p, rtt)
    den = rtt * math.sqrt(2 * b * p / 3) + rto * 3 * math.sqrt(3 * b * p / 8) * p * (1 + 32 * p**2)
    return 8 * mss / den
