"""User-unit text → model inputs, parsed by the simulator core so that "40kbps",
"uniform(10s, 50s)" or a ``{"markov": …}`` table mean exactly what they mean in a spec."""

from __future__ import annotations

import math

from scipy import stats

from rtolab import _core

from .intervals import Constant, Exponential, IntervalDistribution, Pareto, ScipyInterval, Uniform, markov_modulated


def rate_bps(text: str) -> float:
    return _core.parse_quantity("rate", text)


def seconds(text: str) -> float:
    return _core.parse_quantity("duration", text)


def size_bytes(text: str) -> float:
    return _core.parse_quantity("size", text)


def duration_distribution(text: str) -> IntervalDistribution:
    """A random duration as written in a spec, as a model distribution (seconds)."""
    kind, pairs = _core.parse_duration_rv(text)
    p = dict(pairs)
    if kind == "const":
        return Constant(p["value"])
    if kind == "exp":
        return Exponential(p["mean"])
    if kind == "uniform":
        return Uniform(p["lo"], p["hi"])
    if kind == "pareto":
        if math.isfinite(p["max"]):
            raise ValueError("the model has no counterpart for a Pareto with a cut-off (max=)")
        return Pareto(p["shape"], p["scale"])
    if kind == "lognormal":
        return ScipyInterval(stats.lognorm(s=p["sigma"], scale=math.exp(p["mu"])))
    if kind == "markov":
        return markov_modulated((p["mean0"], p["mean1"]), p["p01"], p["p10"])
    raise ValueError(f"the model has no counterpart for a {kind!r} distribution")
