"""``rtolab reproduce``: paper reproductions end to end (sweep, analysis, figures, tables)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab.executors import Executor, LocalExecutor
from rtolab.sweep import errors, sweep
from rtolab.studies import iw10_analysis as analysis
from rtolab.studies import iw10_irto


@dataclass(frozen=True)
class Reproduction:
    out: Path
    wall_s: float
    runs: int
    failed: int
    figures: list[Path]
    summary: pl.DataFrame


def iw10_irto_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 002: sweeps the study into ``out/sweep``, then writes figures and
    ``summary.csv`` (elapsed time of the longest flow per burst, RTOs, fairness) and
    ``delays.parquet`` (one-way delays on EDGE) under ``out``."""
    started = time.monotonic()
    executor = executor or LocalExecutor()
    out.mkdir(parents=True, exist_ok=True)
    study = iw10_irto.study(quick=quick, replications=replications)
    flows = sweep(study, out / "sweep", executor=executor, progress=progress)
    bursts = analysis.per_burst(flows)
    between = analysis.between_bursts(flows)
    table = analysis.summary(bursts)
    table.write_csv(out / "summary.csv")
    bursts.write_parquet(out / "bursts.parquet")
    between.write_parquet(out / "fairness_between.parquet")
    figures = analysis.elapsed_figures(bursts, out)
    figures.append(analysis.rto_figure(bursts, out))
    figures.append(analysis.fairness_figure(bursts, between, out))
    delays = analysis.one_way_delays(executor, replications=3 if quick else 20, counts=[1, 6], seed=study.seed)
    delays.write_parquet(out / "delays.parquet")
    figures += analysis.delay_figure(delays, out)
    return Reproduction(out, time.monotonic() - started, study.replications * len(list(study.combinations())), errors(out / "sweep").height, figures, table)
