"""TCP goodput under delay spikes: the renewal-reward model of paper 003 put together.

A renewal period T runs from the start of one spike to the start of the next; the first SD
seconds of it are the spike, during which nothing is delivered. The goodput is the mean reward
per period over the mean period (renewal-reward theorem, Eq. 1):

    G = E[A(T − SD) · 1{T > SD}] / E[T]

where A(u) is the number of packets sent in u seconds of sending after a spike: Eq. 4 without
congestion losses, Eq. 7 (exact) or Eq. 9 (Wald) with them. A random spike length adds an outer
expectation over SD (Sec. 3.2); a Markov-modulated interval process is a mixture of interval
laws with its stationary weights (Sec. 3.1, Eq. 11–13).

Two readings of "interval" are offered. ``interval_kind="period"`` is the paper's T (spike
start to spike start). ``interval_kind="spike_free"`` is the gap I from the end of one spike to
the start of the next, as in ns-2's `Delayer` and rtolab's spikes; then T = SD + I with I
independent of SD, and the same theorem gives

    G = E[A(I)] / (E[I] + E[SD]).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from . import congestion, lossless, parse
from .defaults import DEFAULT_TIMEOUT_S
from .intervals import EPSREL, Constant, IntervalDistribution

Approx = Literal["wald", "exact"]
CaGrowth = Literal["paper", "per_rtt"]
IntervalKind = Literal["period", "spike_free"]


@dataclass(frozen=True)
class SpikeGoodput:
    """The model's answer and its intermediate quantities (units in the field names; ``pps`` is
    packets per second). The congestion fields are None in the lossless model."""

    goodput_bps: float
    goodput_pps: float
    cmax_pps: float
    ramp_s: float
    rtt_s: float
    mss_bytes: float
    spike_mean_s: float
    interval_mean_s: float
    period_mean_s: float
    interval_kind: str
    loss: float
    approx: str | None
    timeout_s: float | None
    mode: int | None
    x0_pps: float | None
    tau_ca_s: float | None
    tau_ss_s: float | None
    beta: float | None
    mean_cycle_s: float | None

    def as_dict(self) -> dict[str, float | int | str | None]:
        return dataclasses.asdict(self)


def _positive(name: str, value: float) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive finite number, got {value}")


EXACT_EPSREL = 1e-7
"""Quadrature tolerance for Eq. 7, continuous but with a kink at every n·τCA + m·τSS."""


def _reward_function(
    loss: float, rtt: float, cmax: float, approx: Approx, timeout: float, ca_growth: CaGrowth
) -> tuple[Callable[[float], float], list[float], float, congestion.Cycles | None]:
    """A(u), the kinks worth splitting an integral at, and the quadrature tolerance."""
    if loss == 0:
        ramp = lossless.ramp_time(rtt, cmax)
        return (lambda u: lossless.reward(u, rtt, cmax)), [0.0, ramp], EPSREL, None
    if ca_growth not in ("paper", "per_rtt"):
        raise ValueError(f"ca_growth must be 'paper' or 'per_rtt', got {ca_growth!r}")
    cyc = congestion.cycles(loss, rtt, cmax, timeout, slope=None if ca_growth == "paper" else 1 / rtt**2)
    if approx == "wald":
        return (lambda u: congestion.reward_wald(u, cyc)), [0.0], EPSREL, cyc
    if approx == "exact":
        return (lambda u: congestion.reward_exact(u, cyc)), [0.0], EXACT_EPSREL, cyc
    raise ValueError(f"approx must be 'wald' or 'exact', got {approx!r}")


def _number(value: float | str, parse_text: Callable[[str], float]) -> float:
    """A number as given, or text with a unit read by the simulator's parser."""
    return parse_text(value) if isinstance(value, str) else value


def spikes(
    rate_bps: float | str,
    mss: float | str,
    rtt: float | str,
    spike_length: float | str | IntervalDistribution,
    interval: str | IntervalDistribution,
    loss: float = 0.0,
    approx: Approx = "wald",
    timeout: float | str = DEFAULT_TIMEOUT_S,
    interval_kind: IntervalKind = "spike_free",
    ca_growth: CaGrowth = "paper",
) -> SpikeGoodput:
    """Goodput (bit/s) of a bulk TCP transfer on a link of ``rate_bps`` with delay spikes.

    ``mss`` is the packet size in bytes (the paper's 576 B), so Cmax = rate / (8·mss)
    packets/s; ``rtt`` is R in seconds without spikes (propagation plus one packet's
    transmission time); ``spike_length`` is SD in seconds, a constant or a distribution;
    ``interval`` is the law of T (or of I, see ``interval_kind``); ``loss`` is the congestion
    loss probability p (0 selects the lossless model of Sec. 2.2); ``approx`` chooses Eq. 7
    ("exact") or Eq. 9 ("wald", the paper's choice in its figures); ``timeout`` is TO; ``ca_growth`` is the
    congestion-avoidance slope: "paper" (1/R packets/s per second, as published) or "per_rtt"
    (1/R², a window growing one packet per RTT; see ``congestion``).

    Quantities may be written as in a spec, with units, and then mean what they mean there:
    ``spikes("40kbps", "576B", "315ms", "7.5s", "uniform(10s, 50s)")``. ``interval_kind``
    defaults to the simulator's reading, "spike_free" (ns-2's Delayer: from a spike's end to
    the next start); "period" is the paper's T, from one spike's start to the next.
    """
    rate_bps, mss, rtt, timeout = _number(rate_bps, parse.rate_bps), _number(mss, parse.size_bytes), _number(rtt, parse.seconds), _number(timeout, parse.seconds)
    if isinstance(spike_length, str):
        spike_length = parse.duration_distribution(spike_length)
    if isinstance(interval, str):
        interval = parse.duration_distribution(interval)
    _positive("rate_bps", rate_bps)
    _positive("mss", mss)
    _positive("rtt", rtt)
    if not 0 <= loss < 1:
        raise ValueError(f"loss must be in [0, 1), got {loss}")
    if not (timeout >= 0 and math.isfinite(timeout)):
        raise ValueError(f"timeout must be a non-negative finite number of seconds, got {timeout}")
    if interval_kind not in ("period", "spike_free"):
        raise ValueError(f"interval_kind must be 'period' or 'spike_free', got {interval_kind!r}")
    spike = Constant(float(spike_length)) if isinstance(spike_length, (int, float)) else spike_length
    if spike.mean() < 0:
        raise ValueError(f"spike_length must be non-negative, got mean {spike.mean()}")
    interval_mean = interval.mean()
    _positive("mean interval", interval_mean)

    cmax = rate_bps / (8 * mss)
    ramp = lossless.ramp_time(rtt, cmax)
    reward, kinks, epsrel, cyc = _reward_function(loss, rtt, cmax, approx, timeout, ca_growth)

    if interval_kind == "period":
        period = interval_mean

        def reward_after(sd: float) -> float:
            return interval.expect(lambda t: reward(t - sd), lower=sd, breakpoints=[sd + k for k in kinks], epsrel=epsrel)

        packets = spike.expect(reward_after, lower=-math.inf, epsrel=epsrel)
    else:
        period = interval_mean + spike.mean()
        packets = interval.expect(reward, lower=0.0, breakpoints=kinks, epsrel=epsrel)

    pps = packets / period
    return SpikeGoodput(
        goodput_bps=pps * 8 * mss,
        goodput_pps=pps,
        cmax_pps=cmax,
        ramp_s=ramp,
        rtt_s=rtt,
        mss_bytes=mss,
        spike_mean_s=spike.mean(),
        interval_mean_s=interval_mean,
        period_mean_s=period,
        interval_kind=interval_kind,
        loss=loss,
        approx=approx if cyc is not None else None,
        timeout_s=timeout if cyc is not None else None,
        mode=cyc.mode if cyc else None,
        x0_pps=cyc.x0 if cyc else None,
        tau_ca_s=cyc.tau_ca if cyc else None,
        tau_ss_s=cyc.tau_ss if cyc else None,
        beta=cyc.beta if cyc else None,
        mean_cycle_s=cyc.mean_cycle if cyc else None,
    )
