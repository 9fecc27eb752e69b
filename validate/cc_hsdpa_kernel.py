"""Paper 004's set-up with the kernel's own congestion controls: the HSDPA network of
`rtolab reproduce cc-hsdpa` (python/rtolab/studies/cc_hsdpa.py) run in real time through
`rtolab emulate`, every flow a real socket, beside the simulator's `linux` stack on the same
scenario and seeds. The kernel here has reno and cubic of the four (today's: CUBIC with
HyStart and β = 0.7), so the comparison is of today's Linux, all flows with the `linux`
defaults (the kernel applies its settings per namespace, so the measured flows cannot keep
2.6.24's while the background keeps today's).

The kernel side needs root and runs in real time (60 s per run), so its per-flow results are
kept in validate/kernel/cc_hsdpa.parquet; `--skip-kernel` reuses them. The table goes into
docs/cc-hsdpa.md between the kernel markers.

    python validate/cc_hsdpa_kernel.py [--reps N] [--out docs/cc-hsdpa.md]
    python validate/cc_hsdpa_kernel.py --skip-kernel
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import run
from rtolab.emulate import emulate
from rtolab.studies import cc_hsdpa as c
from rtolab.studies import cc_hsdpa_analysis as a

from doc_section import replace_section

KERNEL_RESULTS = Path(__file__).parent / "kernel" / "cc_hsdpa.parquet"
BEGIN, END = "<!-- kernel:begin -->", "<!-- kernel:end -->"
CONTROLS = {"NewReno": "reno", "CUBIC": "cubic"}
SHOWN = ["goodput_bps", "mean_rtt_s", "retransmit_ratio", "timeouts", "genuine_timeouts"]


def scenario(cc: str) -> dict[str, Any]:
    """The study's scenario with today's `linux` settings on every flow, `cc` on the
    measured ones."""
    spec = c.base_scenario()
    for f in spec["flows"]:
        f["tcp"] = {"stack": "linux", "cc": cc}
    for g in spec["generators"]:
        g["tcp"] = {"stack": "linux", "cc": cc if g["name"] == "measured" else "reno"}
    return spec


def measured(flows: pl.DataFrame, algorithm: str, engine: str, rep: int) -> pl.DataFrame:
    labelled = flows.with_columns(
        pl.lit(f"{engine}-{algorithm}-{rep}").alias("run"), pl.lit(algorithm).alias(c.ALGORITHM), pl.lit(c.MAIN_UPLINK_QUEUE).alias(c.UPLINK_QUEUE)
    )
    return a.per_flow(labelled).with_columns(pl.lit(engine).alias("engine"))


def table(flows: pl.DataFrame, when: str, kernel: str) -> str:
    """Mean of each measure per algorithm, traffic and engine, kernel beside simulator."""
    means = flows.group_by(c.ALGORITHM, "traffic", "engine").agg(pl.len().alias("n"), *(pl.col(m).mean() for m in SHOWN))
    lines = [
        f"Kernel {kernel}, {when}: {flows['run'].n_unique()} runs of 60 s; means over flows, kernel / simulator.",
        "",
        "| algorithm | traffic | flows | goodput [Mbit/s] | mean RTT [s] | retransmitted / sent | timeouts | not spurious |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for algorithm in CONTROLS:
        for traffic in a.TRAFFIC_CLASSES:
            row = {e: means.filter((pl.col(c.ALGORITHM) == algorithm) & (pl.col("traffic") == traffic) & (pl.col("engine") == e)) for e in ("kernel", "simulator")}
            if any(r.height == 0 for r in row.values()):
                continue

            def pair(m: str, scale: float = 1.0, digits: int = 3) -> str:
                k, s = (float(row[e][m][0]) * scale for e in ("kernel", "simulator"))
                return f"{k:.{digits}f} / {s:.{digits}f}"

            n = f"{row['kernel']['n'][0]} / {row['simulator']['n'][0]}"
            lines.append(
                f"| {algorithm} | {traffic} | {n} | {pair('goodput_bps', 1e-6)} | {pair('mean_rtt_s')} | "
                f"{pair('retransmit_ratio', digits=4)} | {pair('timeouts', digits=2)} | {pair('genuine_timeouts', digits=2)} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("docs/cc-hsdpa.md"))
    parser.add_argument("--skip-kernel", action="store_true")
    args = parser.parse_args()
    if args.skip_kernel or os.geteuid() != 0:
        if not KERNEL_RESULTS.exists():
            print("no kernel results kept and no root to measure them", file=sys.stderr)
            return 2
        kernel = pl.read_parquet(KERNEL_RESULTS)
    else:
        parts = []
        for algorithm, cc in CONTROLS.items():
            for rep in range(1, args.reps + 1):
                print(f"kernel {cc}, run {rep} (60 s real time)", file=sys.stderr)
                parts.append(measured(emulate(scenario(cc), seed=rep, wall_limit_s=120).flows, algorithm, "kernel", rep))
        kernel = pl.concat(parts).with_columns(pl.lit(platform.release()).alias("kernel"), pl.lit(dt.date.today().isoformat()).alias("date"))
        kernel.write_parquet(KERNEL_RESULTS)
    reps = kernel["run"].n_unique() // len(CONTROLS)
    sim = pl.concat(
        [measured(run(scenario(cc), seed=rep).flows, algorithm, "simulator", rep) for algorithm, cc in CONTROLS.items() for rep in range(1, reps + 1)]
    )
    both = pl.concat([kernel.select(sim.columns), sim])
    text = table(both, str(kernel["date"][0]), str(kernel["kernel"][0]))
    replace_section(args.out, BEGIN, END, f"{BEGIN}\n{text}\n{END}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
