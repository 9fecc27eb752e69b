"""The voice-over-HSDPA study's tables, from its sweep: one row per run (the web transfers'
timeouts, spurious timeouts, RTTs and goodput; the calls' MOS, losses and delays; the UDP
flows' losses and delays), their 90 % intervals over replications, the effects of voice and
of UDP paired by replication, the calls one by one (MOS distributions), the web transfers
begun over the run's time, and the delay-series pass's tails.

The per-transfer measures cover web transfers begun after the warm-up, as paper 000's
reproduction counts them: one still running at the end counts with what it had (its
timeouts, its goodput so far; ``minrto_hsdpa_analysis.measured``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import stats
from rtolab.store import Store
from rtolab.study import Study
from rtolab.studies.voice_hsdpa import MIN_RTO, SCHEDULER, UDP, VOICE, WARM_UP_S

#: The short names of the study's factors in every table.
KEYS = ["udp", "scheduler", "min_rto_s", "calls"]
LEVEL = 0.9
#: ITU-T G.107's "satisfied" band starts at R = 70, MOS 3.6.
MOS_SATISFIED = 3.6
#: Paper 000, Sec. 3.1's slow transfer.
LOW_GOODPUT_BPS = 10_000
#: Width of the bins of web transfers begun over the run.
BIN_S = 10.0

WEB_METRICS = [
    "transfers", "timeouts_per_transfer", "spurious_per_transfer", "spurious_share", "spurious_of_timeouts", "rtt_mean_s", "rtt_p99_s",
    "goodput_median_bps", "low_goodput_share", "unfinished_share", "late_to_early", "web_goodput_bps",
]
VOICE_METRICS = ["mos_mean", "mos_p10", "mos_low_share", "voice_late_share", "voice_lost_share", "voice_delay_s", "voice_delay_p99_s"]
UDP_METRICS = ["udp_loss_share", "udp_goodput_bps", "udp_delay_s", "udp_delay_p99_s"]
METRICS = WEB_METRICS + VOICE_METRICS + UDP_METRICS
#: The measures whose change with voice and UDP the page reports, paired by replication.
EFFECT_METRICS = ["timeouts_per_transfer", "spurious_per_transfer", "spurious_share", "rtt_p99_s", "goodput_median_bps", "transfers"]


@dataclass(frozen=True)
class Tables:
    """Everything the page and the CSV files show."""

    runs: pl.DataFrame
    summary: pl.DataFrame
    effects: pl.DataFrame
    calls: pl.DataFrame
    course: pl.DataFrame
    tails: pl.DataFrame


def _keys(df: pl.DataFrame) -> pl.DataFrame:
    """The factors under their short names."""
    return df.with_columns(
        udp=pl.col(UDP), scheduler=pl.col(SCHEDULER), min_rto_s=pl.col(f"{MIN_RTO}_s"), calls=pl.col(VOICE).cast(pl.Int64),
    )


def _web(flows: pl.DataFrame, duration_s: float) -> pl.DataFrame:
    """Per run: the measured web transfers' timeouts, RTTs and goodput; the transfers begun in
    the last fifth of the measured time against those begun in its first fifth
    (``late_to_early``: 1 when the rate of new transfers holds over the run); and the bytes
    every web transfer delivered per second of the run."""
    web = flows.filter(pl.col("kind") == "web")
    fifth = (duration_s - WARM_UP_S) / 5
    system = web.group_by("run").agg(web_goodput_bps=(pl.col("bytes") * 8).sum() / duration_s)
    measured = web.filter(pl.col("start_s") >= WARM_UP_S)
    per = measured.group_by("run").agg(
        transfers=pl.len().cast(pl.Float64),
        timeouts_per_transfer=pl.col("timeouts").mean(),
        spurious_per_transfer=pl.col("spurious_timeouts").mean(),
        spurious_share=(pl.col("spurious_timeouts") > 0).mean(),
        spurious_of_timeouts=pl.when(pl.col("timeouts").sum() > 0).then(pl.col("spurious_timeouts").sum() / pl.col("timeouts").sum()),
        rtt_mean_s=(pl.col("mean_rtt_s").fill_null(0.0) * pl.col("rtt_samples")).sum() / pl.col("rtt_samples").sum(),
        rtt_p99_s=pl.col("mean_rtt_s").quantile(0.99, interpolation="linear"),
        goodput_median_bps=pl.col("goodput_bps").median(),
        low_goodput_share=(pl.col("goodput_bps") < LOW_GOODPUT_BPS).mean(),
        unfinished_share=pl.col("end_s").is_null().mean(),
        late_to_early=pl.when((pl.col("start_s") < WARM_UP_S + fifth).sum() > 0).then(
            (pl.col("start_s") >= duration_s - fifth).sum() / (pl.col("start_s") < WARM_UP_S + fifth).sum()
        ),
    )
    return system.join(per, on="run", how="left")


def _voice(calls: pl.DataFrame) -> pl.DataFrame:
    """Per run with calls: their MOS (mean, 10th percentile, share below 3.6), the shares of
    their packets late for the playout and lost in the network, their mean one-way delay and
    the mean of their 99th percentiles."""
    return calls.group_by("run").agg(
        mos_mean=pl.col("mos").mean(),
        mos_p10=pl.col("mos").quantile(0.1, interpolation="linear"),
        mos_low_share=(pl.col("mos") < MOS_SATISFIED).mean(),
        voice_late_share=pl.col("datagrams_late").sum() / pl.col("datagrams_sent").sum(),
        voice_lost_share=pl.col("datagrams_lost").sum() / pl.col("datagrams_sent").sum(),
        voice_delay_s=pl.col("delay_mean_s").mean(),
        voice_delay_p99_s=pl.col("delay_p99_s").mean(),
    )


def _udp(flows: pl.DataFrame, duration_s: float) -> pl.DataFrame:
    """Per run with UDP flows: the share of their datagrams the network lost, the payload
    they delivered per second, their mean one-way delay and the mean of their 99th
    percentiles."""
    udp = flows.filter((pl.col("kind") == "flow") & (pl.col("transport") == "udp"))
    return udp.group_by("run").agg(
        udp_loss_share=pl.col("datagrams_lost").sum() / pl.col("datagrams_sent").sum(),
        udp_goodput_bps=(pl.col("bytes") * 8).sum() / duration_s,
        udp_delay_s=pl.col("delay_mean_s").mean(),
        udp_delay_p99_s=pl.col("delay_p99_s").mean(),
    )


COLUMNS = [
    "run", "replication", UDP, SCHEDULER, f"{MIN_RTO}_s", VOICE, "name", "kind", "transport", "start_s", "end_s", "bytes", "goodput_bps",
    "timeouts", "spurious_timeouts", "mean_rtt_s", "rtt_samples", "datagrams_sent", "datagrams_lost", "datagrams_late", "delay_mean_s",
    "delay_p99_s", "mos",
]


def _batch(flows: pl.DataFrame, duration_s: float) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """One batch of runs' flows: their run rows, their calls, their web transfers begun per bin."""
    flows = _keys(flows.select(COLUMNS))
    ids = flows.select("run", "replication", *KEYS).unique("run", maintain_order=True)
    calls = flows.filter(pl.col("kind") == "voip")
    runs = ids.join(_web(flows, duration_s), on="run", how="left").join(_voice(calls), on="run", how="left").join(_udp(flows, duration_s), on="run", how="left")
    course = (
        flows.filter(pl.col("kind") == "web")
        .with_columns(bin_s=(pl.col("start_s") / BIN_S).floor() * BIN_S)
        .group_by("run", "replication", *KEYS, "bin_s").agg(begun=pl.len())
    )
    kept = calls.select("run", "replication", *KEYS, "name", "mos", late_share=pl.col("datagrams_late") / pl.col("datagrams_sent"), delay_s=pl.col("delay_mean_s"))
    return runs, kept, course


def summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Every measure per grid point: mean and 90 % Student-t interval over replications."""
    parts = [stats.summarize(runs, m, KEYS, level=LEVEL).with_columns(measure=pl.lit(m)) for m in METRICS]
    return pl.concat(parts).select("measure", *KEYS, "n", "mean", "ci_low", "ci_high").sort("measure", *KEYS)


def _contrast(runs: pl.DataFrame, factor: str, level: Any, base: Any, fixed: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """``metric`` at ``factor = level`` minus at ``factor = base``, the other factors of
    ``fixed`` held, paired by replication, per remaining (scheduler, minRTO)."""
    part = runs.filter(*(pl.col(k) == v for k, v in fixed.items()))
    a = part.filter(pl.col(factor) == level).select("scheduler", "min_rto_s", "replication", a=metric)
    b = part.filter(pl.col(factor) == base).select("scheduler", "min_rto_s", "replication", b=metric)
    joined = a.join(b, on=["scheduler", "min_rto_s", "replication"]).drop_nulls(["a", "b"]).filter(pl.col("a").is_not_nan() & pl.col("b").is_not_nan())
    rows = []
    for (sched, rto), g in joined.group_by("scheduler", "min_rto_s", maintain_order=True):
        mean, low, high = stats.t_interval((g["a"] - g["b"]).to_numpy(), LEVEL)
        rows.append({
            "factor": factor, "level": str(level), "base": str(base), **{k: str(v) for k, v in fixed.items()}, "scheduler": sched, "min_rto_s": rto,
            "measure": metric, "n": g.height, "at_level": float(g["a"].mean()), "at_base": float(g["b"].mean()),  # type: ignore[arg-type]
            "diff": mean, "ci_low": low, "ci_high": high,
        })
    return rows


def effects(runs: pl.DataFrame) -> pl.DataFrame:
    """The effect of each voice load against none (without UDP) and of each UDP level against
    none (without voice), per (scheduler, minRTO), on ``EFFECT_METRICS``, paired by
    replication (the runs of one replication share their seed); ``verdict`` reads the 90 %
    interval of the difference: "higher", "lower" or "not distinguished"."""
    rows: list[dict[str, Any]] = []
    calls = sorted(c for c in runs["calls"].unique().to_list() if c)
    udps = [u for u in runs["udp"].unique(maintain_order=True).to_list() if u != "none"]
    for metric in EFFECT_METRICS:
        for c in calls:
            rows += _contrast(runs, "calls", c, 0, {"udp": "none"}, metric)
        for u in udps:
            rows += _contrast(runs, "udp", u, "none", {"calls": 0}, metric)
    schema = {
        "factor": pl.String, "level": pl.String, "base": pl.String, "udp": pl.String, "calls": pl.String, "scheduler": pl.String, "min_rto_s": pl.Float64,
        "measure": pl.String, "n": pl.Int64, "at_level": pl.Float64, "at_base": pl.Float64, "diff": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    }
    df = pl.DataFrame(rows, schema=schema)
    verdict = pl.when(pl.col("ci_low") > 0).then(pl.lit("higher")).when(pl.col("ci_high") < 0).then(pl.lit("lower")).otherwise(pl.lit("not distinguished"))
    return df.with_columns(verdict=verdict)


def tail_table(tail: Iterable[dict[str, Any]]) -> pl.DataFrame:
    """The delay-series pass as a table: one row per run, its CCDF as a list column."""
    rows = [
        {
            "udp": t[UDP], "scheduler": t[SCHEDULER], "calls": int(t[VOICE]), "packets": t.get("packets", 0),
            **{k: t.get(k) for k in ("p50_s", "p90_s", "p99_s", "p999_s", "max_s", "beyond_0_5s", "beyond_1s")}, "ccdf": t.get("ccdf", []),
            "cell_busy": t.get("cell_busy", []), "cell_drops": t.get("cell_drops", []),
        }
        for t in tail
    ]
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "udp": pl.String, "scheduler": pl.String, "calls": pl.Int64, "packets": pl.Int64, "p50_s": pl.Float64, "p90_s": pl.Float64, "p99_s": pl.Float64,
        "p999_s": pl.Float64, "max_s": pl.Float64, "beyond_0_5s": pl.Float64, "beyond_1s": pl.Float64, "ccdf": pl.List(pl.Float64),
        "cell_busy": pl.List(pl.Float64), "cell_drops": pl.List(pl.Float64),
    }
    return pl.DataFrame(rows, schema=schema)


def tabulate(sweep_dir: Path, s: Study, duration_s: float, tail: Iterable[dict[str, Any]]) -> Tables:
    """All tables from the sweep in ``sweep_dir``, a few runs at a time."""
    parts: list[tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]] = [_batch(b, duration_s) for b in Store(sweep_dir).batches(s, runs_per_batch=32)]
    runs = pl.concat([p[0] for p in parts], how="diagonal_relaxed").sort(*KEYS, "replication")
    calls = pl.concat([p[1] for p in parts]).sort(*KEYS, "replication", "name")
    per_bin = pl.concat([p[2] for p in parts])
    reps = runs.group_by(KEYS).agg(runs=pl.len())
    course = (
        per_bin.group_by(*KEYS, "bin_s").agg(begun=pl.col("begun").sum()).join(reps, on=KEYS)
        .with_columns(per_s=pl.col("begun") / pl.col("runs") / BIN_S).sort(*KEYS, "bin_s")
    )
    return Tables(runs, summary(runs), effects(runs), calls, course, tail_table(tail))


def write_csv(t: Tables, out: Path) -> list[Path]:
    """Each table as ``OUT/<name>.csv`` (the tails without their CCDF, their cells' lists as
    text, busiest first)."""
    paths = []
    for f in fields(t):
        df: pl.DataFrame = getattr(t, f.name)
        path = out / f"{f.name}.csv"
        lists = [c for c in ("cell_busy", "cell_drops") if c in df.columns]
        df.drop("ccdf", strict=False).with_columns(pl.col(c).cast(pl.List(pl.String)).list.join(" ") for c in lists).write_csv(path)
        paths.append(path)
    return paths


def point(summary_df: pl.DataFrame, measure: str, **keys: Any) -> dict[str, Any]:
    """The summary row of ``measure`` at one grid point (mean, ci_low, ci_high, n)."""
    rows = summary_df.filter(pl.col("measure") == measure, *(pl.col(k) == v for k, v in keys.items()))
    if rows.height != 1:
        raise KeyError(f"{measure} at {keys}: {rows.height} rows")
    return rows.row(0, named=True)


def paired(runs: pl.DataFrame, metric: str, a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float, float, int]:
    """``metric`` at the grid point ``a`` minus at ``b``, paired by replication: (mean
    difference, 90 % interval low, high, pairs). NaN when no pair has both values."""
    x = runs.filter(*(pl.col(k) == v for k, v in a.items())).select("replication", x=metric)
    y = runs.filter(*(pl.col(k) == v for k, v in b.items())).select("replication", y=metric)
    j = x.join(y, on="replication").drop_nulls().filter(pl.col("x").is_not_nan() & pl.col("y").is_not_nan())
    mean, low, high = stats.t_interval((j["x"] - j["y"]).to_numpy(), LEVEL)
    return mean, low, high, j.height
