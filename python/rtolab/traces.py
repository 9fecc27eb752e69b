"""Packet-delivery traces (``docs/traces.md``): one line per delivery opportunity of one
full-size 1500-byte IP datagram, its time in integer milliseconds from the start of the run,
non-decreasing; the last time is the trace's period. Reading (the core's parser, the one the
simulator uses), statistics, synthesis from a rate series or a Markov-modulated rate process,
and conversion of a run's per-TTI delivered-rate series.

Every conversion from bytes to opportunities is the same rule (`from_cumulative`): the
opportunities up to millisecond m are ⌊B(m) / 1500⌋, B(m) the bytes delivered by then, and
the last opportunity is moved to the trace's end so that the period is the length asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rtolab import _core

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: IP bytes of one delivery opportunity: one full-size datagram.
OPPORTUNITY_IP_BYTES = 1500
#: The window of ``info``'s percentile rates.
WINDOW_MS = 100


class TraceError(ValueError):
    """Input that cannot make or be a trace; the message says what and why."""


def read(path: str | Path) -> NDArray[np.int64]:
    """The opportunity times (ms) of the trace file at ``path``, checked by the core's parser
    (the simulator's). Raises ``TraceError``."""
    try:
        return np.asarray(_core.read_trace(str(path)), dtype=np.int64)
    except _core.SpecError as e:
        raise TraceError(str(e)) from None


def write(path: str | Path, times_ms: NDArray[np.int64]) -> None:
    """Writes ``times_ms`` as a trace file, one time per line."""
    Path(path).write_text("".join(f"{t}\n" for t in times_ms.tolist()), encoding="ascii")


@dataclass(frozen=True)
class TraceInfo:
    """What ``rtolab trace info`` says of a trace."""

    duration_s: float
    opportunities: int
    mean_bps: float
    #: 5th, 50th and 95th percentile of the rate over windows of ``WINDOW_MS``.
    p5_bps: float
    p50_bps: float
    p95_bps: float


def window_rates(times_ms: NDArray[np.int64], window_ms: int = WINDOW_MS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(window start in s, rate in bit/s) over one period in windows of ``window_ms``: the
    opportunities in [k·w, (k+1)·w) times 1500 B · 8 over the window's length; the last
    window ends at the period (and holds an opportunity at exactly the period's end)."""
    period = int(times_ms[-1])
    n = -(-period // window_ms)
    k = np.minimum(times_ms // window_ms, n - 1)
    counts = np.bincount(k, minlength=n).astype(np.float64)
    starts = np.arange(n) * window_ms
    lengths_s = (np.minimum(starts + window_ms, period) - starts) / 1e3
    return starts / 1e3, counts * OPPORTUNITY_IP_BYTES * 8 / lengths_s


def info(times_ms: NDArray[np.int64]) -> TraceInfo:
    """Duration (the period), opportunities, mean rate and the window rates' percentiles."""
    period_s = float(times_ms[-1]) / 1e3
    _, rates = window_rates(times_ms)
    p5, p50, p95 = np.percentile(rates, [5, 50, 95])
    return TraceInfo(period_s, len(times_ms), len(times_ms) * OPPORTUNITY_IP_BYTES * 8 / period_s, float(p5), float(p50), float(p95))


def plot(times_ms: NDArray[np.int64], out: str | Path, title: str) -> None:
    """Saves the rate over ``WINDOW_MS`` windows and the mean rate as a figure (a standalone
    ``Figure``, as ``rtolab.plots``: no pyplot, the user's backend left alone)."""
    from matplotlib.figure import Figure

    starts, rates = window_rates(times_ms)
    fig = Figure(figsize=(8, 3))
    ax = fig.subplots()
    ax.step(starts, rates / 1e6, where="post", linewidth=0.8, label=f"{WINDOW_MS} ms windows")
    ax.axhline(info(times_ms).mean_bps / 1e6, color="black", linestyle="--", linewidth=0.8, label="mean")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("rate (Mbit/s)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def from_cumulative(cum_bytes: NDArray[np.float64]) -> NDArray[np.int64]:
    """A trace from ``cum_bytes[m]``, the IP bytes delivered by millisecond m (m = 0 … D,
    non-decreasing, ``cum_bytes[0]`` = 0): ⌊B(m) / 1500⌋ opportunities up to m, each at the
    millisecond its 1500th byte arrives; the last one moved to D so that the period is D ms.
    Raises ``TraceError`` when fewer than 1500 bytes arrive in all."""
    # A relative slack of 1e-9 keeps exact multiples (12 Mbit/s: 1500 B per ms) from
    # rounding down.
    counts = np.floor(cum_bytes / OPPORTUNITY_IP_BYTES * (1 + 1e-9)).astype(np.int64)
    per_ms = np.diff(counts, prepend=0)
    times = np.repeat(np.arange(len(cum_bytes), dtype=np.int64), per_ms)
    if len(times) == 0:
        raise TraceError(f"less than {OPPORTUNITY_IP_BYTES} bytes delivered in {len(cum_bytes) - 1} ms: a trace needs at least one opportunity")
    times[-1] = len(cum_bytes) - 1
    return times


def from_rates(times_s: NDArray[np.float64], rates_bps: NDArray[np.float64], end_s: float) -> NDArray[np.int64]:
    """A trace of the piecewise-constant rate ``rates_bps[i]`` from ``times_s[i]`` to the next
    time (the last to ``end_s``); the first time must be 0. Raises ``TraceError``."""
    if len(times_s) == 0 or times_s[0] != 0:
        raise TraceError("the rate series must start at time 0")
    if np.any(np.diff(times_s) <= 0) or end_s <= times_s[-1]:
        raise TraceError("the rate series' times must increase, and end before the trace's end")
    if np.any(rates_bps < 0) or not np.all(np.isfinite(rates_bps)):
        raise TraceError("rates must be finite and non-negative")
    end_ms = round(end_s * 1e3)
    if end_ms < 1:
        raise TraceError(f"the trace must last at least 1 ms, got {end_s} s")
    edges = np.append(times_s, end_s)
    cum_at_edges = np.concatenate([[0.0], np.cumsum(rates_bps / 8 * np.diff(edges))])
    cum = np.interp(np.arange(end_ms + 1) / 1e3, edges, cum_at_edges)
    return from_cumulative(cum)


def read_rate_csv(path: str | Path) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(times in s, rates in bit/s) of a CSV with the header ``time_s,rate_bps``."""
    import polars as pl

    try:
        df = pl.read_csv(path)
    except (OSError, pl.exceptions.PolarsError) as e:
        raise TraceError(f"cannot read {str(path)!r} as CSV: {e}") from None
    if df.columns[:2] != ["time_s", "rate_bps"] or df.height == 0:
        raise TraceError(f"{str(path)!r}: expected the header time_s,rate_bps and at least one row, got columns {df.columns}")
    try:
        return df["time_s"].cast(pl.Float64).to_numpy(), df["rate_bps"].cast(pl.Float64).to_numpy()
    except pl.exceptions.PolarsError:
        raise TraceError(f"{str(path)!r}: time_s and rate_bps must be numbers") from None


def markov_rates(rates_bps: list[float], holding_s: list[float], duration_s: float, seed: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A Markov-modulated rate process: it starts in state 0, stays in state i for an
    exponential time of mean ``holding_s[i]``, then moves to one of the other states chosen
    with equal probability. Steps (start times, rates) up to ``duration_s``, from numpy's
    PCG64 generator seeded with ``seed`` (the same seed, the same steps)."""
    if len(rates_bps) < 2 or len(rates_bps) != len(holding_s):
        raise TraceError(f"expected at least two states with one holding time each, got {len(rates_bps)} rates and {len(holding_s)} holding times")
    if min(holding_s) <= 0:
        raise TraceError("holding times must be positive")
    rng = np.random.Generator(np.random.PCG64(seed))
    n = len(rates_bps)
    t, state = 0.0, 0
    starts, rates = [], []
    while t < duration_s:
        starts.append(t)
        rates.append(rates_bps[state])
        t += float(rng.exponential(holding_s[state]))
        state = (state + 1 + int(rng.integers(n - 1))) % n
    return np.asarray(starts), np.asarray(rates, dtype=np.float64)


def from_rate_series(series_time_s: NDArray[np.float64], series_bps: NDArray[np.float64], tti_s: float, end_s: float) -> NDArray[np.int64]:
    """A trace of a radio user's ``rate`` series (``output.series = ["rate"]``: one row per
    TTI it was served, the rate its block carried): each row's ``rate · tti / 8`` bytes
    arrive at the end of its TTI, rounded up to the millisecond."""
    end_ms = round(end_s * 1e3)
    at_ms = np.ceil(np.round((series_time_s + tti_s) * 1e3, 6)).astype(np.int64)
    keep = at_ms <= end_ms
    per_ms = np.bincount(at_ms[keep], weights=series_bps[keep] * tti_s / 8, minlength=end_ms + 1)
    return from_cumulative(np.cumsum(per_ms))
