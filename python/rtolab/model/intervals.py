"""Distributions of the time between delay spikes, as plain objects.

Every distribution answers ``mean()`` and ``expect(g, lower, breakpoints, epsrel)`` =
E[g(T) · 1{T > lower}], as a finite sum for discrete laws and otherwise by adaptive quadrature
split at ``breakpoints`` (the kinks of the reward functions) to relative tolerance ``epsrel``.
Continuous laws take their density from a frozen ``scipy.stats`` distribution (``law()``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from scipy import integrate, stats

Reward = Callable[[float], float]

EPSREL = 1e-12
"""Default relative tolerance of the quadrature: enough for smooth rewards split at their kinks.
Rewards with many kinks (Eq. 7) ask for less."""


class IntervalDistribution(Protocol):
    def mean(self) -> float: ...

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float: ...


def _expect_density(law: Any, g: Reward, lower: float, breakpoints: Sequence[float], epsrel: float) -> float:
    """E[g(T) · 1{T > lower}] for a frozen continuous ``scipy.stats`` law: ∫ g · pdf over the
    part of its support above ``lower``, split at the breakpoints."""
    lo, hi = (float(x) for x in law.support())
    pdf = law.pdf
    return _quad(lambda t: g(t) * float(pdf(t)), max(lo, lower), hi, breakpoints, epsrel)


def _quad(h: Reward, a: float, b: float, breakpoints: Sequence[float], epsrel: float) -> float:
    """∫_a^b h, split at the breakpoints inside (a, b); b may be infinite."""
    if not b > a:
        return 0.0
    cuts = [a, *sorted(x for x in breakpoints if a < x < b), b]
    total = 0.0
    for lo, hi in zip(cuts, cuts[1:]):
        value, _ = integrate.quad(h, lo, hi, epsabs=0.0, epsrel=epsrel, limit=400)
        total += value
    return total


@dataclass(frozen=True)
class Exponential:
    """Exponential intervals with the given mean (Poisson spike starts)."""

    mean_s: float

    def mean(self) -> float:
        return self.mean_s

    def law(self) -> Any:
        return stats.expon(scale=self.mean_s)

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return _expect_density(self.law(), g, lower, breakpoints, epsrel)


@dataclass(frozen=True)
class Uniform:
    """Uniform on [lo, hi] (a point mass when lo == hi)."""

    lo: float
    hi: float

    def mean(self) -> float:
        return 0.5 * (self.lo + self.hi)

    def law(self) -> Any:
        """The frozen law; None for the point mass lo == hi, which has no density."""
        return stats.uniform(loc=self.lo, scale=self.hi - self.lo) if self.hi > self.lo else None

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        if self.hi == self.lo:
            return g(self.lo) if self.lo > lower else 0.0
        return _expect_density(self.law(), g, lower, breakpoints, epsrel)


@dataclass(frozen=True)
class Pareto:
    """Pareto with ``shape`` α and ``scale`` x_m: density α x_m^α / t^(α+1) for t ≥ x_m."""

    shape: float
    scale: float

    @classmethod
    def from_mean(cls, mean: float, shape: float) -> Pareto:
        if shape <= 1:
            raise ValueError(f"a Pareto mean needs shape > 1, got {shape}")
        return cls(shape, mean * (shape - 1) / shape)

    def mean(self) -> float:
        return math.inf if self.shape <= 1 else self.shape * self.scale / (self.shape - 1)

    def law(self) -> Any:
        return stats.pareto(b=self.shape, scale=self.scale)

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return _expect_density(self.law(), g, lower, breakpoints, epsrel)


@dataclass(frozen=True)
class Constant:
    value: float

    def mean(self) -> float:
        return self.value

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return g(self.value) if self.value > lower else 0.0


@dataclass(frozen=True)
class Empirical:
    """The empirical law of a sample (e.g. measured spike intervals)."""

    samples: tuple[float, ...]

    def __init__(self, samples: Sequence[float] | np.ndarray) -> None:
        object.__setattr__(self, "samples", tuple(float(s) for s in samples))
        if not self.samples:
            raise ValueError("an empirical distribution needs at least one sample")

    def mean(self) -> float:
        return float(np.mean(self.samples))

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return float(np.mean([g(t) if t > lower else 0.0 for t in self.samples]))


@dataclass(frozen=True)
class ScipyInterval:
    """Any frozen ``scipy.stats`` continuous distribution."""

    dist: Any

    def mean(self) -> float:
        return float(self.dist.mean())

    def law(self) -> Any:
        return self.dist

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return _expect_density(self.dist, g, lower, breakpoints, epsrel)


@dataclass(frozen=True)
class Mixture:
    """Intervals drawn from ``components`` with stationary ``weights`` (sum 1).

    The renewal-reward ratio of a Markov-modulated interval process (paper 003, Sec. 3.1,
    Eq. 11–13) is E_π(A)/E_π(T) = Σ π_i E_i(A) / Σ π_i E_i(T): the same as a mixture."""

    components: tuple[IntervalDistribution, ...]
    weights: tuple[float, ...]

    def mean(self) -> float:
        return sum(w * c.mean() for c, w in zip(self.components, self.weights))

    def expect(self, g: Reward, lower: float = 0.0, breakpoints: Sequence[float] = (), epsrel: float = EPSREL) -> float:
        return sum(w * c.expect(g, lower, breakpoints, epsrel) for c, w in zip(self.components, self.weights))


def markov_modulated(means: tuple[float, float], p01: float, p10: float) -> Mixture:
    """Two-state Markov-modulated exponential intervals (Sec. 3.1): in state i the interval
    is exponential with mean ``means[i]``; the chain moves at each spike with probabilities
    p01 and p10, so π0 = p10 / (p01 + p10) and π1 = p01 / (p01 + p10)."""
    if p01 + p10 <= 0:
        raise ValueError("p01 + p10 must be positive")
    pi1 = p01 / (p01 + p10)
    return Mixture((Exponential(means[0]), Exponential(means[1])), (1 - pi1, pi1))
