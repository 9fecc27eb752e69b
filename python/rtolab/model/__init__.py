"""Analytic models: TCP goodput under delay spikes (paper 003) and reference throughput formulas.

Pure numpy/scipy; no simulator involved. ``spikes`` is the entry point; the pieces (Eq. 4, the
congestion cycles of Table 1, Eq. 7 and 9, the closed forms) are in the submodules, each
imported on first use of one of its names.
"""

from typing import TYPE_CHECKING

from rtolab._lazy import lazy_attributes

from .defaults import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from .congestion import Cycles, cycles, reward_exact, reward_wald
    from .goodput import SpikeGoodput, spikes
    from .intervals import (
        Constant,
        Empirical,
        Exponential,
        IntervalDistribution,
        Mixture,
        Pareto,
        ScipyInterval,
        Uniform,
        markov_modulated,
    )
    from .lossless import goodput_exponential, ramp_time, reward
    from .reference import mathis_bps, pftk_full_bps, tfrc_bps

_ORIGINS = {
    **dict.fromkeys(["Cycles", "cycles", "reward_exact", "reward_wald"], ".congestion"),
    **dict.fromkeys(["SpikeGoodput", "spikes"], ".goodput"),
    **dict.fromkeys(
        ["Constant", "Empirical", "Exponential", "IntervalDistribution", "Mixture", "Pareto", "ScipyInterval", "Uniform", "markov_modulated"],
        ".intervals",
    ),
    **dict.fromkeys(["goodput_exponential", "ramp_time", "reward"], ".lossless"),
    **dict.fromkeys(["mathis_bps", "pftk_full_bps", "tfrc_bps"], ".reference"),
}
__getattr__, __dir__ = lazy_attributes(__name__, _ORIGINS)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Constant",
    "Cycles",
    "Empirical",
    "Exponential",
    "IntervalDistribution",
    "Mixture",
    "Pareto",
    "ScipyInterval",
    "SpikeGoodput",
    "Uniform",
    "cycles",
    "goodput_exponential",
    "markov_modulated",
    "mathis_bps",
    "pftk_full_bps",
    "ramp_time",
    "reward",
    "reward_exact",
    "reward_wald",
    "spikes",
    "tfrc_bps",
]
