"""The delay-series pass of the voice-over-HSDPA study: the study's runs at minRTO 0.2 s of
replication 0 made again recording every packet's one-way delay (``output.series =
["delay"]``), reduced in the worker to the delay distribution of the web transfers' data
packets (transfers begun after the warm-up): quantiles, the shares beyond 0.5 s and 1 s,
and the complementary CDF on a fixed grid; and the seven cells' busy shares and the packets
their buffers refused (the ``cells`` table, which a sweep does not keep). Only those
summaries cross back, and they are kept in ``OUT/tails.json`` by run key, so a second call
reuses them."""

from __future__ import annotations

import json
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np

from rtolab.study import Study, spec_hash

#: The complementary CDF's abscissae: one-way delays from 20 ms to 60 s.
GRID_S = [float(x) for x in np.geomspace(0.02, 60.0, 121)]
#: Part of every stored summary's key: a summary of another shape is made again.
VERSION = 2
QUANTILES = {"p50_s": 0.5, "p90_s": 0.9, "p99_s": 0.99, "p999_s": 0.999}


def summarize(delays: np.ndarray) -> dict[str, Any]:
    """Quantiles, maximum, shares beyond 0.5 s and 1 s and the CCDF of ``delays`` (s)."""
    d = np.sort(np.asarray(delays, dtype=float))
    if d.size == 0:
        return {"packets": 0}
    out: dict[str, Any] = {"packets": int(d.size), **{k: float(np.quantile(d, q)) for k, q in QUANTILES.items()}, "max_s": float(d[-1])}
    out["beyond_0_5s"] = float((d > 0.5).mean())
    out["beyond_1s"] = float((d > 1.0).mean())
    out["ccdf"] = [float(1.0 - np.searchsorted(d, x, side="right") / d.size) for x in GRID_S]
    return out


def measure(task: tuple[str, dict[str, Any], int, float]) -> tuple[str, dict[str, Any]]:
    """Worker: one run with the delay series; the summary of its web packets' delays."""
    import polars as pl

    from rtolab.api import run

    key, spec, seed, warm_up_s = task
    result = run(spec, seed=seed)
    kept = result.flows.filter((pl.col("kind") == "web") & (pl.col("start_s") >= warm_up_s))["name"]
    series = result.series.filter(pl.col("metric") == "delay")
    web = series.filter(pl.col("entity").cast(pl.String).is_in(kept.implode()))["value"].to_numpy()
    cells = result.cells.sort("busy_share", descending=True)
    drops = cells["buffer_drops"].cast(pl.Float64)
    return key, {
        **summarize(web),
        "cell_busy": [float(x) for x in cells["busy_share"]],
        "cell_drops": [float(x) for x in drops],
    }


def tails(s: Study, store: Path, executor: Executor) -> tuple[list[dict[str, Any]], int]:
    """Each tail run's parameters with its summary, and how many were run now (the others read
    from ``store``, a JSON object keyed by spec hash and seed)."""
    from rtolab.executors import run_all
    from rtolab.studies.voice_hsdpa import WARM_UP_S, tail_specs

    kept: dict[str, Any] = json.loads(store.read_text()) if store.exists() else {}
    runs = {f"v{VERSION}-{spec_hash(spec)}-{seed:016x}": (params, spec, seed) for params, spec, seed in tail_specs(s)}
    todo = [(key, spec, seed, WARM_UP_S) for key, (_, spec, seed) in runs.items() if key not in kept]
    for key, summary in run_all(executor, measure, todo):
        kept[key] = summary
        store.write_text(json.dumps(kept) + "\n")
    return [{**params, **kept[key]} for key, (params, _, _) in runs.items()], len(todo)
