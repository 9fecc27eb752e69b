"""The figures of ``studies/spikes-today.toml``, from the tables of ``spikes_today_analysis``:
goodput with and without spikes, the timer's expiries per spike, and each replication's loss
against the time its spikes held the link. Error bars are the tables' intervals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from rtolab.studies.figures import save
from rtolab.studies.spikes_today_analysis import KEYS, LEVEL

DPI = 100
SUFFIXES = ("png",)


def _groups(rows: pl.DataFrame) -> list[str]:
    """One x label per (cc, queue) of a trace's rows, in the rows' order."""
    return [f"{cc}\n{queue}" for cc, queue in rows.select("cc", "queue").iter_rows()]


def _bars(ax: Axes, x: np.ndarray, width: float, rows: pl.DataFrame, prefix: str, scale: float, label: str) -> None:
    mean = rows[f"{prefix}_mean"].to_numpy() * scale
    low, high = (np.nan_to_num(rows[f"{prefix}_{end}"].to_numpy() * scale, nan=0.0) for end in ("ci_low", "ci_high"))
    ax.bar(x, mean, width, yerr=np.vstack([mean - np.minimum(low, mean), np.maximum(high, mean) - mean]), capsize=3, label=label)


def _panels(traces: list[str]) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(5.2 * len(traces), 4.2))
    axes = fig.subplots(1, len(traces), squeeze=False)[0]
    return fig, list(axes)


def goodput_figure(good: pl.DataFrame, out: Path) -> list[Path]:
    """Per trace: goodput without and with spikes for each cc and queue, the loss above."""
    traces = good["trace"].unique(maintain_order=True).to_list()
    fig, axes = _panels(traces)
    for ax, trace in zip(axes, traces):
        rows = good.filter(pl.col("trace") == trace)
        x = np.arange(rows.height)
        _bars(ax, x - 0.2, 0.4, rows, "off", 1e-6, "without spikes")
        _bars(ax, x + 0.2, 0.4, rows, "on", 1e-6, "with spikes")
        for xi, top, loss in zip(x, rows["off_mean"].to_numpy() * 1e-6, rows["loss_mean"].to_numpy()):
            ax.annotate(f"−{loss:.1%}", (xi, top), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
        ax.set_xticks(x, _groups(rows), fontsize=8)
        ax.set_title(trace)
        ax.set_ylabel("goodput (Mbit/s)")
        ax.margins(y=0.15)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle(f"Goodput without and with delay spikes (mean of replications, {LEVEL:.0%} CI); loss above")
    fig.tight_layout()
    return save(fig, out, "goodput", SUFFIXES, DPI)


def timer_figure(timer: pl.DataFrame, out: Path) -> list[Path]:
    """Per trace: timeouts, spurious timeouts (the oracle's) and the sender's detections per
    spike, for each cc and queue."""
    traces = timer["trace"].unique(maintain_order=True).to_list()
    fig, axes = _panels(traces)
    for ax, trace in zip(axes, traces):
        rows = timer.filter(pl.col("trace") == trace)
        x = np.arange(rows.height)
        for shift, prefix, label in ((-0.27, "timeouts", "timeouts"), (0.0, "spurious", "spurious (oracle)"), (0.27, "detected", "detected spurious (sender)")):
            _bars(ax, x + shift, 0.27, rows, prefix, 1.0, label)
        ax.set_xticks(x, _groups(rows), fontsize=8)
        ax.set_title(trace)
        ax.set_ylabel("per spike")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle(f"Retransmission timeouts per delay spike (mean of replications, {LEVEL:.0%} CI)")
    fig.tight_layout()
    return save(fig, out, "timeouts", SUFFIXES, DPI)


def loss_figure(paired: pl.DataFrame, duration_s: float, out: Path) -> list[Path]:
    """Each replication's goodput loss against the share of its run the spikes held the link;
    the diagonal is a loss of exactly the time held."""
    fig = Figure(figsize=(9.0, 4.8))
    ax = fig.subplots()
    ccs, queues = (paired[k].unique(maintain_order=True).to_list() for k in ("cc", "queue"))
    for (trace, cc, queue), rows in paired.group_by(KEYS, maintain_order=True):
        held = rows["spike_time_s"].to_numpy() / duration_s
        marker, hollow = "os^v"[ccs.index(cc) % 4], queues.index(queue) > 0
        line = ax.plot(held * 100, rows["loss"].to_numpy() * 100, marker, ms=5, alpha=0.8, label=f"{trace}, {cc}, {queue}")[0]
        if hollow:
            line.set_markerfacecolor("none")
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="loss = time held")
    ax.set_xlabel("time the spikes held the link (% of the run)")
    ax.set_ylabel("goodput lost to spikes (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("Goodput lost against time held, one point per replication")
    fig.tight_layout()
    return save(fig, out, "loss-vs-held", SUFFIXES, DPI)
