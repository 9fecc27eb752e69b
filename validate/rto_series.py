"""The retransmission timeout over time against the kernel's (issue 26): for every case of
validate/kernel/ in which the kernel timed out (validate/kernel/results.json), `rtolab
compare` runs it over the kernel's TCP (`rtolab emulate`, which samples `tcpi_rto`) and in the
simulator's `linux` profile (which records the RTO whenever it changes), seed 1. Both series
are read as step functions every 10 ms up to the earlier completion, and docs/validation.md
gets, between the rto-series markers, how far apart they are: a mean of the RTO weights the
backed-off stretches of a spike by how often each side happens to sample, a time series does
not. Needs root (the kernel side).

    python validate/rto_series.py [--out docs/validation.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import tomllib
from pathlib import Path

import numpy as np
import polars as pl

from rtolab import Result
from rtolab.emulate import compare

from doc_section import replace_section

CASES = Path(__file__).parent / "kernel"
BEGIN, END = "<!-- rto-series:begin -->", "<!-- rto-series:end -->"
STEP_S = 0.01
#: Two RTOs agree when within this share of the kernel's (a jiffy-rounded RTO of 200-300 ms
#: moves by 4 ms per jiffy; the kernel's first sample is the wall-clock handshake).
WITHIN = 0.10
#: What the table shows, read from the series of both sides (2026-11-26).
WHY = (
    "The largest single differences fall on the millisecond a spike ends, where one side has already taken the "
    "RTT sample that collapses its backed-off RTO and the other has not (the kernel's is sampled every 10 ms). "
    "Between and after the timeouts the two follow each other, back-off included, to within 10 % on 90-99 % of "
    "the grid. `spike-long-nots` is the exception. Its slow start now overflows the queue as the kernel's does "
    "(the receive window modelled: the earlier 2.1 against 2.8 s difference is gone, median |Δ| 252 -> 8 ms), "
    "and both time out three times and end together. Their back-off chains are the same (488, 976, 1952, "
    "3904 ms at the same instants, 2.5-9.75 s), and both peak at 22.6 s once the spike's 7 s samples arrive; "
    "the 3904 / 16444 ms at 10.00 s is the kernel's 10 ms sampling before that sample. The gap is the decay "
    "after it: from 10.75 to 18.5 s the profile's RTO runs 10-35 % below the kernel's, its steps down coming "
    "about one step earlier from the third on, as if one of `tcp_rtt_estimator`'s per-round RTTVAR decays "
    "(`mdev_max_us`) came a round earlier; which round boundary differs is not traced yet."
)


def rto_ms(result: Result, times: np.ndarray) -> np.ndarray:
    """The flow's RTO in ms at each of `times`: the last value at or before it (NaN before
    the first)."""
    s = result.series.filter(pl.col("metric") == "rto").sort("time_s")
    at = np.searchsorted(s["time_s"].to_numpy(), times, side="right") - 1
    values = 1000 * s["value"].to_numpy()
    return np.where(at >= 0, values[np.clip(at, 0, None)], np.nan)


def completion(result: Result) -> float:
    f = result.flows.row(0, named=True)
    return float(f["end_s"] - f["start_s"])


def case_row(name: str) -> str:
    tree = tomllib.loads((CASES / f"{name}.toml").read_text())
    tree.setdefault("output", {})["series"] = ["rto"]
    c = compare(tree, stack="linux", reps=1)
    end = min(completion(c.kernel), completion(c.simulated))
    grid = np.arange(STEP_S, end, STEP_S)
    kernel, sim = rto_ms(c.kernel, grid), rto_ms(c.simulated, grid)
    both = ~np.isnan(kernel) & ~np.isnan(sim)
    diff = np.abs(sim - kernel)[both]
    within = float(np.mean(diff <= WITHIN * kernel[both])) if diff.size else float("nan")
    worst = int(np.argmax(np.where(both, np.abs(sim - kernel), -1)))
    return (
        f"| {name} | {int(both.sum())} | {np.median(diff):.0f} | {np.percentile(diff, 90):.0f} | "
        f"{100 * within:.0f} % | {float(np.max(kernel[both])):.0f} / {float(np.max(sim[both])):.0f} | "
        f"{kernel[worst]:.0f} / {sim[worst]:.0f} at {grid[worst]:.2f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("docs/validation.md"))
    args = ap.parse_args()
    stored = json.loads((CASES / "results.json").read_text())
    names = sorted(name for name, v in stored.items() if (CASES / f"{name}.toml").exists() and any((r.get("timeouts") or 0) > 0 for r in v["runs"]))
    rows = []
    for name in names:
        rows.append(case_row(name))
        print(rows[-1], flush=True)
    section = (
        f"{BEGIN}\n## The RTO over time against the kernel's (`make validate`: `validate/rto_series.py`)\n\n"
        f"Linux {os.uname().release}, run on {dt.date.today().isoformat()}: every kernel case in which the kernel timed "
        "out, through `rtolab compare` (seed 1): the kernel's `tcpi_rto` as `rtolab emulate` samples it and the `linux` "
        f"profile's RTO, read every {1000 * STEP_S:g} ms up to the earlier completion. |Δ| is in ms; *within* is the "
        f"share of the grid where the two are within {100 * WITHIN:g} % of the kernel's value. The mean RTO of the table "
        "above is not comparable between the two (the emulator averages samples taken every 10 ms, the simulator at its "
        "RTT samples); this is the comparison that counts.\n\n"
        "| case | samples | median abs Δ ms | p90 abs Δ ms | within | largest RTO kernel / rtolab ms | largest Δ: kernel / rtolab ms |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n" + WHY + f"\n{END}\n"
    )
    replace_section(args.out, BEGIN, END, section)
    print(f"RTO section written to {args.out}")


if __name__ == "__main__":
    main()
