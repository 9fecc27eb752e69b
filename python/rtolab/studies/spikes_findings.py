"""Paper 003's findings (Sec. 4.1, Figures 6–8, and Sec. 4.2, Figure 9), each with the number
that tests it, and how rtolab's model-against-simulation table answers them.

Errors are (model − simulation) / simulation per point. "Match exactly" is read as within
2 % (two lines of Figures 6–8 that overlap at their scale); "very good" and "good accuracy" as
within 10 %; "overestimates" / "underestimates" as the sign of the error at the share of points
the word covers (plain: every point; "typically": at least half). Figure 9's orderings are
tested at every mean interval of the sensitivity table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import partial

import polars as pl

from rtolab.findings import ALL, Ablation, Band, Finding, Measured, at_most, share
from rtolab.studies.spikes_analysis import LOSS, RATE, SD_HI

PAPER = "003"
EXACT, GOOD = 0.02, 0.10
TYPICALLY = Band(0.5, 1.0)


#: A finding of this paper: key, where, statement, the paper's number, metric, agree band,
#: optional partly band and basis of the tolerance.
_f = partial(Finding, PAPER)


#: Figure 9's two readings of "Pareto" (``spikes_analysis.sensitivity_laws``).
CLASSICAL = "Pareto (shape 1.5)"
LOMAX = "Lomax / Pareto II (shape 1.5)"

REGISTRY = [
    _f("fig6-40-lossless", "Fig. 6, Sec. 4.1", "Low bandwidth, lossless: model and simulation match exactly (SD = 7.5 s)", "exact",
       "largest |error|, 40 kbps, p = 0, spikes U[5, 10] s", at_most(EXACT), at_most(GOOD), "'exactly': overlapping lines, 2 %"),
    _f("fig6-40-lossy-over", "Fig. 6, Sec. 4.1", "Low bandwidth with losses: the model typically overestimates", "error > 0",
       "share of 40 kbps points with p = 2 % or 5 % (U[5, 10] s) where the model is above the simulation", TYPICALLY, Band(0.25, 1.0), "'typically': at least half"),
    _f("fig6-40-lossy-good", "Fig. 6, Sec. 4.1", "… but the agreement is very good", "very good",
       "largest |error|, 40 kbps, p = 2 % and 5 %, U[5, 10] s", at_most(GOOD), at_most(0.2), "'very good': 10 %"),
    _f("fig6-100-lossless-over", "Fig. 6, Sec. 4.1", "Higher bandwidth (100 kbps), lossless: the model overestimates", "error > 0",
       "share of 100 kbps lossless points (U[5, 10] s) where the model is above the simulation", ALL, TYPICALLY),
    _f("fig6-100-low-loss-over", "Fig. 6, Sec. 4.1", "100 kbps: the model overestimates for low packet loss", "error > 0 at 2 %",
       "share of 100 kbps, p = 2 % points (U[5, 10] s) where the model is above the simulation", ALL, TYPICALLY),
    _f("fig6-100-high-loss-under", "Fig. 6, Sec. 4.1", "100 kbps: the model underestimates for higher packet loss", "error < 0 at 5 %",
       "share of 100 kbps, p = 5 % points (U[5, 10] s) where the model is below the simulation", ALL, TYPICALLY),
    _f("fig6-accuracy-2pct", "Fig. 6, Sec. 4.1", "The accuracy up to 2 % packet losses is very good", "very good",
       "largest |error| at p ≤ 2 %, both rates, U[5, 10] s", at_most(GOOD), at_most(0.2), "'very good': 10 %"),
    _f("fig7-like-fig6", "Fig. 7, Sec. 4.1", "SD = 3 s: the same observations as for SD = 7.5 s (lossless low bandwidth matches)", "exact",
       "largest |error|, 40 kbps, p = 0, spikes U[1, 5] s", at_most(EXACT), at_most(GOOD), "as Fig. 6"),
    _f("fig8-40-under", "Fig. 8, Sec. 4.1", "SD = 1.5 s: TCP's timer adapts to the spikes and the lossless low-bandwidth model underestimates", "error < 0",
       "share of 40 kbps lossless points, spikes U[1, 2] s, where the model is below the simulation", ALL, TYPICALLY),
    _f("fig8-40-lossy-over", "Fig. 8, Sec. 4.1", "SD = 1.5 s, lossy: the model slightly overestimates", "error > 0, small",
       "share of 40 kbps, p = 2 % and 5 %, U[1, 2] s points where the model is above the simulation by at most 10 %", TYPICALLY, Band(0.25, 1.0)),
    _f("fig8-100-lossy-under", "Fig. 8, Sec. 4.1", "SD = 1.5 s, 100 kbps with losses: the model underestimates, especially at 5 %", "error < 0",
       "share of 100 kbps lossy points (U[1, 2] s) where the model is below the simulation", ALL, TYPICALLY),
    _f("fig9-uniform-worst", "Fig. 9, Sec. 4.2", "The uniform interval law is the worst case, in both models", "uniform lowest",
       "share of (mean, loss) points of Fig. 9 at which the uniform law gives the lowest goodput of the four laws (Pareto read as Pareto II / Lomax)", ALL, TYPICALLY),
    _f("fig9-pareto-over-exp", "Fig. 9, Sec. 4.2", "Bursty (Pareto, shape 1.5) intervals give better goodput than exponential ones", "Pareto above exponential",
       "share of (mean, loss) points at which the Pareto law (Pareto II / Lomax, shape 1.5, mean E) beats the exponential", ALL, TYPICALLY),
    _f("fig9-markov-over-exp", "Fig. 9, Sec. 4.2", "The Markov-modulated process yields throughout a higher goodput than the exponential one", "above throughout",
       "share of (mean, loss) points at which the Markov-modulated law beats the exponential", ALL, TYPICALLY),
]


def _errors(t: pl.DataFrame, rate: int | None = None, sd_hi: float | None = None, losses: Iterable[float] | None = None, column: str = "rel_error") -> list[float]:
    cond = pl.lit(True)
    if rate is not None:
        cond = cond & (pl.col(RATE) == rate)
    if sd_hi is not None:
        cond = cond & (pl.col(SD_HI) == sd_hi)
    if losses is not None:
        cond = cond & pl.col(LOSS).is_in(list(losses))
    return [float(x) for x in t.filter(cond)[column].to_list()]


def _span(xs: list[float]) -> str:
    return f"{100 * min(xs):+.1f} … {100 * max(xs):+.1f} %" if xs else "–"


def _largest(xs: list[float]) -> float:
    return max((abs(x) for x in xs), default=math.nan)


def measure(table: pl.DataFrame, sensitivity: pl.DataFrame) -> dict[str, Measured]:
    """rtolab's answer to every finding, from the comparison table (``spikes_analysis.compare``)
    and Figure 9's table (``spikes_analysis.sensitivity``, may be empty). The reproduction
    measures the same again on its alternative runs (the paper's simulator's timer, spikes
    that hold the wire) and adds those as ablations (``findings.with_ablations``)."""
    out: dict[str, Measured] = {}

    def largest(key: str, errors: list[float], per_rtt: list[float] | None = None) -> None:
        ablations = (Ablation("congestion avoidance read as one packet per RTT (slope 1/R²)", _largest(per_rtt)),) if per_rtt else ()
        out[key] = Measured(_largest(errors), f"errors {_span(errors)} over {len(errors)} points", ablations)

    def sign(key: str, rate: int | None, sd_hi: float, losses: list[float], above: bool, per_rtt: bool = False, timeouts: bool = False, missing: str = "") -> None:
        def signed(xs: list[float]) -> float:
            return share((e > 0) if above else (e < 0) for e in xs)

        ablations = []
        if per_rtt:
            ablations.append(Ablation("congestion avoidance read as one packet per RTT (slope 1/R²)", signed(_column_error(table, "model_per_rtt_bps", rate, sd_hi, losses))))
        if timeouts:
            ablations.append(Ablation("the model's TO = 1 s instead of the measured mean RTO", signed(_column_error(table, "model_to1_bps", rate, sd_hi, losses))))
            ablations.append(Ablation("the model's TO = the time the sender waited before each timeout", signed(_column_error(table, "model_wait_bps", rate, sd_hi, losses))))
        errors = _errors(table, rate, sd_hi, losses)
        holds = [(e > 0) if above else (e < 0) for e in errors]
        out[key] = Measured(signed(errors), f"{sum(holds)} of {len(holds)} points; errors {_span(errors)}", tuple(ablations), missing)

    largest("fig6-40-lossless", _errors(table, 40_000, 10, [0.0]))
    sign("fig6-40-lossy-over", 40_000, 10, [0.02, 0.05], above=True, timeouts=True,
         missing="the paper does not give the TO its model used; the measured mean RTO misses the back-offs of repeated timeouts (docs/spikes.md)")
    largest("fig6-40-lossy-good", _errors(table, 40_000, 10, [0.02, 0.05]))
    sign("fig6-100-lossless-over", 100_000, 10, [0.0], above=True,
         missing="after a spike the held window is acknowledged in a burst and refills the window within one RTT, faster than the model's 1 → Cmax ramp; how the paper's Delayer patch released a held window is not given (docs/spikes.md)")
    sign("fig6-100-low-loss-over", 100_000, 10, [0.02], above=True, per_rtt=True, timeouts=True)
    sign("fig6-100-high-loss-under", 100_000, 10, [0.05], above=False, per_rtt=True)
    largest("fig6-accuracy-2pct", _errors(table, None, 10, [0.0, 0.02]), per_rtt=_column_error(table, "model_per_rtt_bps", None, 10, [0.0, 0.02]))
    largest("fig7-like-fig6", _errors(table, 40_000, 5, [0.0]))
    sign("fig8-40-under", 40_000, 2, [0.0], above=False)
    lossy = _errors(table, 40_000, 2, [0.02, 0.05])
    slight = [0 < e <= GOOD for e in lossy]
    to1 = _column_error(table, "model_to1_bps", 40_000, 2, [0.02, 0.05])
    waited = _column_error(table, "model_wait_bps", 40_000, 2, [0.02, 0.05])
    out["fig8-40-lossy-over"] = Measured(share(slight), f"{sum(slight)} of {len(slight)} points; errors {_span(lossy)}",
                                         (Ablation("the model's TO = 1 s instead of the measured mean RTO", share(0 < e <= GOOD for e in to1)),
                                          Ablation("the model's TO = the time the sender waited before each timeout", share(0 < e <= GOOD for e in waited))),
                                         "the paper does not give the TO its model used")
    sign("fig8-100-lossy-under", 100_000, 2, [0.02, 0.05], above=False)

    if not sensitivity.is_empty():
        wide = sensitivity.pivot(on="law", index=["loss", "mean_interval_s"], values="goodput_bps")
        laws = [c for c in wide.columns if c not in ("loss", "mean_interval_s")]
        rows = list(wide.iter_rows(named=True))
        # The paper's Pareto is its law of "bursty spikes" (Sec. 4.2: "the benefit of bursts can
        # be seen by comparing the Pareto and exponential distributions"): Pareto II (Lomax),
        # support from 0 and density 3/E there, three times the exponential's, so spikes come
        # in bunches. The classical Pareto with mean E never draws a gap below E/3 and cannot
        # bunch them; it is kept as the ablation (docs/spikes.md, Figure 9).
        paper_laws = [law for law in laws if law != CLASSICAL]
        uniform = [min(paper_laws, key=lambda law: r[law]) == "uniform" for r in rows]
        with_classical = [min(laws, key=lambda law: r[law]) == "uniform" for r in rows]
        out["fig9-uniform-worst"] = Measured(share(uniform), f"uniform lowest at {sum(uniform)} of {len(rows)} points",
                                             (Ablation("Pareto read as the classical law (support from E/3)", share(with_classical)),))
        lomax = [r[LOMAX] > r["exponential"] for r in rows]
        classical = [r[CLASSICAL] > r["exponential"] for r in rows]
        out["fig9-pareto-over-exp"] = Measured(
            share(lomax), f"Pareto II (Lomax) above exponential at {sum(lomax)} of {len(rows)} points",
            (Ablation("Pareto read as the classical law (support from E/3, mean E)", share(classical)),),
        )
        markov = [r["Markov-modulated exp."] > r["exponential"] for r in rows]
        out["fig9-markov-over-exp"] = Measured(share(markov), f"above at {sum(markov)} of {len(rows)} points")
    return out


def _column_error(table: pl.DataFrame, column: str, rate: int | None, sd_hi: float, losses: list[float]) -> list[float]:
    """The relative error against the simulation of another model column (another reading)."""
    part = table.with_columns(other_error=(pl.col(column) - pl.col("sim_bps")) / pl.col("sim_bps"))
    return _errors(part, rate, sd_hi, losses, column="other_error")


