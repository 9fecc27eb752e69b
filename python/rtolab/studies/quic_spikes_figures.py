"""The figures of the QUIC-spikes study, from the tables of ``quic_spikes_analysis``: the
goodput lost to spikes beside the model's two readings, spurious timer firings per spike,
the window after a spike, and the web transfers' spurious shares in paper 000's cells.
Error bars are the tables' intervals (Student-t over replications)."""

from __future__ import annotations

from typing import Any

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from rtolab.studies.figures import save
from rtolab.studies.quic_spikes_analysis import LEVEL

DPI = 100
SUFFIXES = ("png",)


def _err(rows: pl.DataFrame, prefix: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Means and the asymmetric error bars of ``prefix``'s interval (none where it is NaN)."""
    mean = rows[f"{prefix}_mean"].to_numpy().astype(float) * scale
    low = np.nan_to_num(rows[f"{prefix}_ci_low"].to_numpy().astype(float) * scale, nan=0.0)
    high = np.nan_to_num(rows[f"{prefix}_ci_high"].to_numpy().astype(float) * scale, nan=0.0)
    return mean, np.vstack([np.maximum(mean - np.where(low == 0, mean, low), 0), np.maximum(np.where(high == 0, mean, high) - mean, 0)])


def _panels(settings: list[tuple[str, str]]) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(4.2 * len(settings), 4.0))
    return fig, list(fig.subplots(1, len(settings), squeeze=False)[0])


def _settings(frame: pl.DataFrame) -> list[tuple[str, str]]:
    return [(p, s) for p, s in frame.select("part", "setting").unique(maintain_order=True).iter_rows()]


def loss_figure(model: pl.DataFrame, out: Path) -> list[Path]:
    """Per (part, setting): the measured goodput loss per transport, and the lossless
    model's loss with a slow start after each spike and without (the held share)."""
    settings = _settings(model)
    fig, axes = _panels(settings)
    for ax, (part, setting) in zip(axes, settings):
        rows = model.filter((pl.col("part") == part) & (pl.col("setting") == setting))
        x = np.arange(rows.height)
        mean = rows["measured_loss"].to_numpy() * 100
        low = rows["loss_ci_low"].fill_nan(None).fill_null(strategy="zero").to_numpy() * 100
        high = rows["loss_ci_high"].fill_nan(None).fill_null(strategy="zero").to_numpy() * 100
        yerr = np.vstack([np.where(low > 0, mean - low, 0), np.where(high > 0, high - mean, 0)])
        ax.bar(x, mean, 0.6, yerr=yerr, capsize=3, label="measured")
        ax.scatter(x, rows["model_loss"].to_numpy() * 100, marker="v", color="k", zorder=3, label="model, slow start after a spike")
        ax.scatter(x, rows["held_share"].to_numpy() * 100, marker="_", s=300, color="r", zorder=3, label="model, no slow start (held share)")
        ax.set_xticks(x, rows["transport"].to_list(), rotation=30, ha="right", fontsize=8)
        ax.set_title(f"{part}: {setting}", fontsize=9)
        ax.set_ylabel("goodput lost to spikes (%)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"Goodput lost to delay spikes, 1 − G_on/G_off per replication (mean, {LEVEL:.0%} CI) and paper 003's model", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "loss", SUFFIXES, DPI)


def _paired_bars(ax: Any, rows: pl.DataFrame, pairs: tuple[tuple[str, str], tuple[str, str]], scale: float, rotation: int) -> None:
    """Two bars per transport (the columns ``pairs`` name, with their intervals, times
    ``scale``), the transports along x."""
    x = np.arange(rows.height)
    for dx, (prefix, label) in zip((-0.2, 0.2), pairs):
        mean, yerr = _err(rows, prefix, scale)
        ax.bar(x + dx, mean, 0.4, yerr=yerr, capsize=3, label=label)
    ax.set_xticks(x, rows["transport"].to_list(), rotation=rotation, ha="right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def timer_figure(timers: pl.DataFrame, out: Path) -> list[Path]:
    """Per (part, setting): timer firings and spurious ones per spike, per transport."""
    settings = _settings(timers)
    fig, axes = _panels(settings)
    for ax, (part, setting) in zip(axes, settings):
        rows = timers.filter((pl.col("part") == part) & (pl.col("setting") == setting))
        _paired_bars(ax, rows, (("timers_per_spike", "timeouts / PTOs"), ("spurious_per_spike", "spurious (oracle)")), 1.0, 30)
        ax.set_title(f"{part}: {setting}", fontsize=9)
        ax.set_ylabel("per spike")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Timer firings per spike: TCP timeouts, the QUIC server's PTOs (mean, {LEVEL:.0%} CI)", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "timers", SUFFIXES, DPI)


def window_figure(window: pl.DataFrame, out: Path) -> list[Path]:
    """Per (part, setting): cwnd 1 s after a spike's end, and its least value from the
    spike's start to then, over cwnd just before the spike."""
    settings = _settings(window)
    fig, axes = _panels(settings)
    for ax, (part, setting) in zip(axes, settings):
        rows = window.filter((pl.col("part") == part) & (pl.col("setting") == setting))
        _paired_bars(ax, rows, (("ratio_min", "least cwnd / before"), ("ratio_after", "cwnd 1 s after the end / before")), 1.0, 30)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_title(f"{part}: {setting}", fontsize=9)
        ax.set_ylabel("ratio to the window before the spike")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"The congestion window around a spike (mean of runs' means, {LEVEL:.0%} CI)", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "window", SUFFIXES, DPI)


def web_figure(web: pl.DataFrame, out: Path) -> list[Path]:
    """Per load: the share of web transfers with a spurious timer firing and with any."""
    if web.is_empty():
        return []
    settings = _settings(web)
    fig, axes = _panels(settings)
    for ax, (part, setting) in zip(axes, settings):
        rows = web.filter(pl.col("setting") == setting)
        _paired_bars(ax, rows, (("timer_share", "a timeout / PTO"), ("spurious_share", "a spurious one (oracle)")), 100.0, 20)
        ax.set_title(f"{part}: {setting}, round robin", fontsize=9)
        ax.set_ylabel("share of transfers (%)")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Paper 000's cells: web transfers with a timer firing (mean, {LEVEL:.0%} CI)", fontsize=10)
    fig.tight_layout()
    return save(fig, out, "hsdpa", SUFFIXES, DPI)
