"""``rtolab reproduce``: paper reproductions end to end (sweep, analysis, figures, tables)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab.executors import Executor, LocalExecutor
from rtolab.study import Study
from rtolab.sweep import errors, sweep
from rtolab.studies import iw10_analysis as analysis
from rtolab.studies import iw10_irto, spikes, spikes_analysis


@dataclass(frozen=True)
class Reproduction:
    out: Path
    wall_s: float
    runs: int
    failed: int
    figures: list[Path]
    summary: pl.DataFrame


def _sweep_into(out: Path, study: Study, executor: Executor, progress: bool) -> pl.DataFrame:
    """Creates ``out`` and sweeps ``study`` into ``out/sweep`` (resuming a partial sweep)."""
    out.mkdir(parents=True, exist_ok=True)
    return sweep(study, out / "sweep", executor=executor, progress=progress)


def iw10_irto_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 002: sweeps the study into ``out/sweep``, then writes figures and
    ``summary.csv`` (elapsed time of the longest flow per burst, RTOs, fairness) and
    ``delays.parquet`` (one-way delays on EDGE) under ``out``."""
    started = time.monotonic()
    executor = executor or LocalExecutor()
    study = iw10_irto.study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor, progress)
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


SENSITIVITY_MEANS = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.5, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0]


def spikes_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 003: sweeps the validation study into ``out/sweep``, compares it with the model
    (``comparison.csv``: every point with its relative error), draws Figures 6–8, and computes
    the model-only sensitivity study (``sensitivity.csv``, Figure 9)."""
    started = time.monotonic()
    study = spikes.study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor or LocalExecutor(), progress)
    table = spikes_analysis.compare(flows)
    table.write_csv(out / "comparison.csv")
    figures = spikes_analysis.validation_figures(table, out)
    sensitivity = pl.concat([spikes_analysis.sensitivity(SENSITIVITY_MEANS, loss) for loss in (0.0, 0.02)])
    sensitivity.write_csv(out / "sensitivity.csv")
    figures += spikes_analysis.sensitivity_figure(sensitivity, out)
    runs = study.replications * len(list(study.combinations()))
    return Reproduction(out, time.monotonic() - started, runs, errors(out / "sweep").height, figures, table)
