"""Paper 001's Figures 2 and 4–8 from the ICMP-RTO summaries (``icmp_rto_analysis``): each
measure against the fraction of bad period, scheme off, on, and on without back-off on the
timeouts it brings forward, with 90 % intervals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from rtolab.studies.figures import save
from rtolab.studies.icmp_rto import BAD_FRACTION, OFF, ON, ON_NO_BACKOFF, SCHEME

SUFFIXES = ("png", "svg")
DPI = 110
LABELS = {OFF: "NewReno", ON: "NewReno + ICMP-driven RTO", ON_NO_BACKOFF: "NewReno + ICMP-driven RTO, no back-off on its timeouts"}
MARKERS = {OFF: "o", ON: "s", ON_NO_BACKOFF: "^"}

#: (figure, traffic, metric, y label, title) of the off/on comparisons.
PANELS = [
    (4, "web", "throughput_bps", "throughput (bit/s)", "Throughput, 3GPP web traffic"),
    (5, "web", "rto_time_s", "average RTO (s)", "Average RTO, 3GPP web traffic"),
    (6, "ftp", "throughput_bps", "throughput (bit/s)", "Throughput, FTP bulk transfer (1500 B packets)"),
    (7, "ftp", "rto_time_s", "average RTO (s)", "Average RTO, FTP bulk transfer"),
    (8, "web", "completion_ratio", "session completion time / perfect channel", "Session completion time relative to the perfect channel"),
]


def _errorbars(ax: Axes, rows: pl.DataFrame, x: str, label: str, marker: str) -> None:
    xs = rows[x].to_numpy() * (100 if x == BAD_FRACTION else 1)
    mean = rows["mean"].to_numpy()
    low, high = (rows[c].to_numpy() for c in ("ci_low", "ci_high"))
    err = np.vstack([mean - np.where(np.isnan(low), mean, low), np.where(np.isnan(high), mean, high) - mean])
    ax.errorbar(xs, mean, yerr=err, marker=marker, capsize=3, label=label)


def comparison_figures(summaries: pl.DataFrame, out: Path) -> list[Path]:
    """Figures 4–8: one measure per figure, the three senders; Figure 5 and 7 also show the
    RTO after RTT samples (dashed, no back-off) for comparison."""
    written: list[Path] = []
    for number, traffic, metric, ylabel, title in PANELS:
        part = summaries.filter((pl.col("tag.traffic") == traffic) & (pl.col("metric") == metric))
        if part.is_empty():
            continue
        fig = Figure(figsize=(6.4, 4.4))
        ax = fig.subplots()
        for scheme, label in LABELS.items():
            _errorbars(ax, part.filter(pl.col(SCHEME) == scheme).sort(BAD_FRACTION), BAD_FRACTION, label, MARKERS[scheme])
        if metric == "rto_time_s":
            sampled = summaries.filter((pl.col("tag.traffic") == traffic) & (pl.col("metric") == "rto_sample_s"))
            for scheme, label in LABELS.items():
                rows = sampled.filter(pl.col(SCHEME) == scheme).sort(BAD_FRACTION)
                ax.plot(rows[BAD_FRACTION] * 100, rows["mean"], "--", alpha=0.6, label=f"{label}: RTO after RTT samples")
        ax.set_xlabel("fraction of bad period (%)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"Figure {number}: {title}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        written += save(fig, out, f"figure{number}", SUFFIXES, DPI)
    return written


def arq_figure(summary: pl.DataFrame, out: Path, window: int = 3, attempts: int = 6) -> list[Path]:
    """Figure 2: goodput ratio against the bad fraction; left, ARQ buffer ``window`` with
    each number of attempts; right, ``attempts`` attempts with each buffer size."""
    fig = Figure(figsize=(12, 4.4))
    left, right = fig.subplots(1, 2, sharey=True)
    for ax, fixed, value, varied in ((left, "window", window, "attempts"), (right, "attempts", attempts, "window")):
        part = summary.filter(pl.col(fixed) == value)
        for (v,), rows in part.group_by([varied], maintain_order=True):
            _errorbars(ax, rows.sort(BAD_FRACTION), BAD_FRACTION, f"{varied} {v}", "o")
        ax.set_title(f"ARQ {fixed} {value}", fontsize=10)
        ax.set_xlabel("fraction of bad period (%)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    left.set_ylabel("goodput = bytes delivered / bytes sent by TCP")
    fig.suptitle("Figure 2: goodput of TCP over the ARQ link (web traffic, unmodified NewReno)")
    fig.tight_layout()
    return save(fig, out, "figure2", SUFFIXES, DPI)
