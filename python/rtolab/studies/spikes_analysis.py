"""Paper 003's figures from a spike sweep: model against simulation (Figures 6–8), the table
of relative errors, and the model-only sensitivity to the interval law (Figure 9).

Goodput is compared in the paper's unit, bit/s of 576 B packets: the simulator's payload
goodput times 576/536. The model takes R and Cmax of the set-up (``studies.spikes``), the
spike-free interval law and the spike-length law of each point (``interval_kind="spike_free"``,
Sec. 3.2) and, as TO, the mean RTO the simulator measured at that point (the paper leaves TO
open; PFTK's own validation likewise fed measured timeouts into its formula). With losses the
model's congestion-avoidance slope is 1/R² packets/s per second (``CA_GROWTH``): the paper's
"slope 1/R" is a window slope, one packet per RTT per RTT, which is a rate slope of 1/R².
Four more columns show what other readings give: ``model_slope_r_bps`` with the slope read as
printed, 1/R packets/s per second; ``model_to1_bps`` with TO = 1 s; ``model_wait_bps`` with
TO = the time the sender actually waited before each timeout (the flows table's
``timeout_idle_s`` over its timeouts); and ``model_period_bps``, the interval read as the
paper's period T (spike start to spike start) with the mean spike length.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from scipy import stats as scipy_stats

from rtolab import stats
from rtolab.model import Exponential, Pareto, ScipyInterval, Uniform, markov_modulated, spikes
from rtolab.model.goodput import CaGrowth
from rtolab.model.intervals import IntervalDistribution
from rtolab.model.parse import duration_distribution
from rtolab.studies.figures import save
from rtolab.studies.spikes import HEADER_BYTES, PACKET_BYTES, SPIKE_LENGTHS, interval_text, rtt_s

RATE, SD_LO, SD_HI, MEAN, LOSS = "tag.rate_bps", "tag.sd_lo_s", "tag.sd_hi_s", "tag.mean_interval_s", "links.radio.loss"
KEYS = [RATE, SD_LO, SD_HI, MEAN, LOSS]
MARKERS = {0.0: "s", 0.02: "D", 0.05: "^"}
SUFFIXES = ("png", "svg")
DPI = 110

#: The model's congestion-avoidance slope with losses, its main reading for every lossy point
#: (Figures 6–9). The Appendix grows the rate "linearly with slope 1/R" (Figure 10), and its
#: sawtooth is TCP's: the window grows by one packet per RTT, so the window's slope is 1/R
#: packets per RTT, per RTT, and the rate (window/R) grows by 1/R per RTT, i.e. 1/R² packets/s
#: per second. Read as a rate slope per second, 1/R would put the mode-1 sawtooth at √R times
#: the square-root law it stands for (congestion.py re-derives both), and its value would
#: depend on the unit of time. The slope as printed is kept as an ablation (``CA_AS_PRINTED``).
CA_GROWTH: CaGrowth = "per_rtt"
#: The slope read as printed, 1/R packets/s per second: the ablation of ``CA_GROWTH``.
CA_AS_PRINTED: CaGrowth = "paper"


def interval_law(mean_s: float) -> IntervalDistribution:
    """The simulated spike-free interval law, parsed from the very text the sweep simulates."""
    return duration_distribution(interval_text(mean_s))


def _model(rate: float, lo: float, hi: float, mean: float, loss: float, timeout: float, wait: float | None) -> dict[str, float | int | None]:
    point = partial(spikes, rate, PACKET_BYTES, rtt_s(rate), loss=loss)
    main = point(Uniform(lo, hi), interval_law(mean), timeout=timeout, interval_kind="spike_free", ca_growth=CA_GROWTH)
    as_printed = point(Uniform(lo, hi), interval_law(mean), timeout=timeout, interval_kind="spike_free", ca_growth=CA_AS_PRINTED)
    to1 = point(Uniform(lo, hi), interval_law(mean), timeout=1.0, interval_kind="spike_free", ca_growth=CA_GROWTH)
    # No timeout at the point (0/0): no waited TO to feed the model.
    waited = math.nan
    if wait is not None and math.isfinite(wait) and wait > 0:
        waited = point(Uniform(lo, hi), interval_law(mean), timeout=wait, interval_kind="spike_free", ca_growth=CA_GROWTH).goodput_bps
    period = point(0.5 * (lo + hi), interval_law(mean), timeout=timeout, ca_growth=CA_GROWTH)
    return {
        "model_bps": main.goodput_bps,
        "model_slope_r_bps": as_printed.goodput_bps,
        "model_to1_bps": to1.goodput_bps,
        "model_wait_bps": waited,
        "model_period_bps": period.goodput_bps,
        "mode": main.mode,
        "beta": main.beta,
        "tau_ca_s": main.tau_ca_s,
        "tau_ss_s": main.tau_ss_s,
    }


def compare(flows: pl.DataFrame, level: float = 0.9) -> pl.DataFrame:
    """One row per (rate, spike lengths, E(T), p): simulated goodput (mean and Student-t
    interval over replications), the model, and the relative error (model − sim) / sim."""
    scale = PACKET_BYTES / (PACKET_BYTES - HEADER_BYTES)
    per_run = flows.with_columns(
        (pl.col("goodput_bps") * scale).alias("sim_bps"),
        (pl.col("spurious_timeouts") / pl.col("timeouts")).alias("spurious_share"),
    )
    sim = stats.summarize(per_run, "sim_bps", by=KEYS, level=level).select(
        *KEYS, "n", pl.col("mean").alias("sim_bps"), pl.col("ci_low").alias("sim_ci_low"), pl.col("ci_high").alias("sim_ci_high")
    )
    extra = per_run.group_by(KEYS, maintain_order=True).agg(
        pl.col("mean_rto_s").mean().alias("timeout_s"),
        (pl.col("timeout_idle_s").sum() / pl.col("timeouts").sum()).alias("timeout_wait_s"),
        pl.col("timeouts").mean().alias("timeouts_per_run"),
        pl.col("spurious_share").mean(),
    )
    table = sim.join(extra, on=KEYS, how="left", maintain_order="left")
    models = [_model(*row) for row in table.select(*KEYS, "timeout_s", "timeout_wait_s").iter_rows()]
    table = pl.concat([table, pl.DataFrame(models)], how="horizontal")
    return table.with_columns(((pl.col("model_bps") - pl.col("sim_bps")) / pl.col("sim_bps")).alias("rel_error")).sort(KEYS)


def validation_figures(table: pl.DataFrame, out: Path) -> list[Path]:
    """Figures 6, 7 and 8: per spike-length range, the two rates side by side; model solid,
    simulation dashed with its confidence interval, one marker per loss rate."""
    written: list[Path] = []
    for sd in SPIKE_LENGTHS:
        part = table.filter((pl.col(SD_LO) == sd.lo) & (pl.col(SD_HI) == sd.hi))
        if part.is_empty():
            continue
        rates = part[RATE].unique().sort().to_list()
        fig = Figure(figsize=(6 * len(rates), 4.4))
        axes = fig.subplots(1, len(rates), squeeze=False)
        for ax, rate in zip(axes[0], rates):
            for loss in part[LOSS].unique().sort().to_list():
                rows = part.filter((pl.col(RATE) == rate) & (pl.col(LOSS) == loss)).sort(MEAN)
                x = rows[MEAN].to_numpy()
                marker = MARKERS.get(loss, "o")
                line = ax.plot(x, rows["model_bps"], "-", marker=marker, label=f"model, {loss:.0%} loss")[0]
                mean = rows["sim_bps"].to_numpy()
                low, high = (np.nan_to_num(rows[c].to_numpy(), nan=0.0) for c in ("sim_ci_low", "sim_ci_high"))
                err = np.vstack([mean - low, high - mean]) if rows["n"].to_numpy().min() > 1 else None
                ax.errorbar(x, mean, yerr=err, fmt="--", marker=marker, mfc="none", color=line.get_color(), capsize=3, label=f"rtolab sim, {loss:.0%} loss")
            ax.set_title(f"Cmax = {rate / 1000:g} kbps")
            ax.set_xlabel("E(T): mean spike-free interval (s)")
            ax.set_ylabel("goodput (bit/s of 576 B packets)")
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"Figure {sd.figure}: spike length uniform on [{sd.lo:g}, {sd.hi:g}] s (SD = {sd.mean:g} s); sim with 90 % CI")
        fig.tight_layout()
        written += save(fig, out, f"figure{sd.figure}", SUFFIXES, DPI)
    return written


SENSITIVITY_RATE_BPS = 40_000
SENSITIVITY_RTT_S = 0.72
SENSITIVITY_SD_S = 5.0


def sensitivity_laws(mean: float) -> dict[str, IntervalDistribution]:
    """Sec. 4.2: exponential; Pareto with shape 1.5; uniform on [E − min(E, 5), E + min(E, 5)];
    Markov-modulated exponentials with π0 = π1 = ½, μ0 = 0.25·E, μ1 = 1.75·E.

    The paper does not say which Pareto: both the classical one (support from x_m = E/3) and
    Pareto II / Lomax (support from 0, scale E/2) are drawn; see docs/spikes.md."""
    half = min(mean, 5.0)
    laws: dict[str, IntervalDistribution] = {
        "exponential": Exponential(mean),
        "Pareto (shape 1.5)": Pareto.from_mean(mean, 1.5),
        "Lomax / Pareto II (shape 1.5)": ScipyInterval(scipy_stats.lomax(c=1.5, scale=0.5 * mean)),
        "uniform": Uniform(mean - half, mean + half),
        "Markov-modulated exp.": markov_modulated((0.25 * mean, 1.75 * mean), 0.5, 0.5),
    }
    return laws


def sensitivity(means: list[float], loss: float, ca_growth: CaGrowth = CA_GROWTH) -> pl.DataFrame:
    """Figure 9's curves: the model (lossless exact, or Eq. 10 with loss and the
    congestion-avoidance slope ``ca_growth``) with T read as the period, SD = 5 s, 40 kbps,
    576 B packets, R = 0.72 s (Cmax = 8.68 packets/s). The ``ca_growth`` column names the
    slope (the lossless model has none: its rows say ``CA_GROWTH``)."""
    rows = []
    for mean in means:
        for name, law in sensitivity_laws(mean).items():
            g = spikes(SENSITIVITY_RATE_BPS, PACKET_BYTES, SENSITIVITY_RTT_S, SENSITIVITY_SD_S, law, loss=loss, interval_kind="period", ca_growth=ca_growth)
            rows.append({"loss": loss, "ca_growth": ca_growth if loss > 0 else CA_GROWTH, "law": name, "mean_interval_s": mean, "goodput_bps": g.goodput_bps})
    return pl.DataFrame(rows, schema={"loss": pl.Float64, "ca_growth": pl.String, "law": pl.String, "mean_interval_s": pl.Float64, "goodput_bps": pl.Float64})


#: Figure 9's losses: the lossless model and the model with p = 2 %.
FIGURE9_LOSSES = (0.0, 0.02)


def sensitivity_figure(table: pl.DataFrame, out: Path) -> list[Path]:
    """Figure 9 from ``sensitivity``'s rows at ``FIGURE9_LOSSES`` with the main slope."""
    table = table.filter(pl.col("loss").is_in(list(FIGURE9_LOSSES)) & (pl.col("ca_growth") == CA_GROWTH))
    losses = table["loss"].unique().sort().to_list()
    fig = Figure(figsize=(6 * len(losses), 4.4))
    axes = fig.subplots(1, len(losses), squeeze=False)
    for ax, loss in zip(axes[0], losses):
        part = table.filter(pl.col("loss") == loss)
        for (law,), rows in part.group_by(["law"], maintain_order=True):
            ax.plot(rows["mean_interval_s"], rows["goodput_bps"], label=str(law))
        ax.set_title("lossless model (exact)" if loss == 0 else f"model with p = {loss:g} (Eq. 10, slope 1/R²)")
        ax.set_xlabel("E(T) (s)")
        ax.set_ylabel("goodput (bit/s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Figure 9: sensitivity to the spike-interval law (SD = 5 s, 40 kbps, R = 0.72 s, Cmax = 8.68 packets/s)")
    fig.tight_layout()
    return save(fig, out, "figure9", SUFFIXES, DPI)
