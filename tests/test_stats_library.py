"""One Jain's index everywhere; Student-t intervals and interval densities from scipy; the
command line's fixed choices are enums that typer checks."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from scipy import integrate

from conftest import rtolab_cli
from rtolab import stats
from rtolab.model import Exponential, Pareto, Uniform
from rtolab.studies import iw10_analysis
from rtolab.studies.iw10_analysis import KEYS


def test_every_jain_column_is_the_one_index() -> None:
    goodputs = {"first": [100.0, 300.0, None], "later": [200.0, 200.0, float("nan")]}
    keys = {k: "EDGE" if k == "tag.link" else "x" for k in KEYS}
    rows = [
        {"run": "r", "point": 0, "replication": 0, **keys, "generators.later.start": "2s", "generator": g, "end_s": 1.0, "goodput_bps": v,
         "timeouts": 0, "spurious_timeouts": 0, "syn_timeouts": 0, "spurious_syn_timeouts": 0}
        for g, values in goodputs.items()
        for v in values
    ]
    flows = pl.DataFrame(rows)
    within = iw10_analysis.per_burst(flows).sort("generator")["jain_within"].to_list()
    by = stats.jain_by(flows, "goodput_bps", ["generator"]).sort("generator")
    direct = [stats.jain([np.nan if v is None else v for v in goodputs[g]]) for g in ("first", "later")]
    assert within == by["jain"].to_list() == direct == pytest.approx([0.8, 1.0])
    assert by["n"].to_list() == [2, 2]  # null and NaN are no values
    between = iw10_analysis.between_bursts(flows)["jain_between"][0]
    assert between == stats.jain([100, 300, 200, 200]) == pytest.approx(800**2 / (4 * (100**2 + 300**2 + 2 * 200**2)))
    assert math.isnan(stats.jain([])) and math.isnan(stats.jain([0.0, 0.0]))


def test_identical_replications_have_a_zero_width_interval() -> None:
    assert stats.t_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    s = stats.summarize(pl.DataFrame({"v": [2.0, 2.0, 2.0]}), "v").row(0, named=True)
    assert (s["ci_low"], s["ci_high"]) == (2.0, 2.0)


@pytest.mark.parametrize(
    ("dist", "density", "lo", "hi"),
    [
        (Exponential(20.0), lambda t: math.exp(-t / 20.0) / 20.0, 0.0, math.inf),
        (Uniform(5.0, 10.0), lambda t: 1 / 5.0, 5.0, 10.0),
        (Pareto(1.5, 4.0), lambda t: 1.5 * 4.0**1.5 / t**2.5, 4.0, math.inf),
    ],
)
def test_interval_laws_are_the_textbook_densities(dist: Exponential | Uniform | Pareto, density: Callable[[float], float], lo: float, hi: float) -> None:
    law = dist.law()
    assert law.mean() == pytest.approx(dist.mean())
    for t in (lo + 0.5, lo + 3.0, lo + 17.0):
        if t < hi:
            assert law.pdf(t) == pytest.approx(density(t))
    def reward(t: float) -> float:
        return min(t, 12.0)  # a kink at 12 s

    def integrand(t: float) -> float:
        return reward(t) * density(t)

    cuts = [max(lo, 6.0), *([12.0] if 12.0 < hi else []), hi]
    by_hand = sum(integrate.quad(integrand, a, b)[0] for a, b in zip(cuts, cuts[1:]))
    assert dist.expect(reward, lower=6.0, breakpoints=[12.0]) == pytest.approx(by_hand, rel=1e-7)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["model", "spikes", "--rate", "40kbps", "--mss", "576", "--rtt", "315ms", "--spike-length", "7.5s", "--interval", "exp(20s)", "--approx", "walt"], ["--approx", "'walt'", "'wald'", "'exact'"]),
        (["model", "spikes", "--rate", "40kbps", "--mss", "576", "--rtt", "315ms", "--spike-length", "7.5s", "--interval", "exp(20s)", "--ca-growth", "x"], ["--ca-growth", "'paper'", "'per_rtt'"]),
        (["reproduce", "spikez"], ["'spikez'", "'iw10-irto'", "'spikes'"]),
    ],
)
def test_fixed_choices_are_checked_by_the_command_line(args: list[str], needles: list[str]) -> None:
    proc = rtolab_cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    flat = " ".join(proc.stderr.replace("│", " ").split())
    for needle in needles:
        assert needle in flat, proc.stderr
