"""Kernel reference cases (validate/kernel/*.toml): each runs over the kernel's TCP through
`rtolab emulate` and in the simulator with the `linux` stack profile, and the side by side
goes into docs/validation.md between the kernel markers (with kernel version and date).
These are the targets of the `linux` profile; differences are findings, not failures.

    python validate/kernel_compare.py [--reps N] [--out docs/validation.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
from pathlib import Path

import polars as pl

from rtolab import SpecError, run
from rtolab.emulate import _with_stack, emulate

CASES = Path(__file__).parent / "kernel"
BEGIN, END = "<!-- kernel:begin -->", "<!-- kernel:end -->"
COLUMNS = ["completion_s", "retransmits", "timeouts", "spurious_timeouts", "spurious_detected", "undos", "mean_rto_s"]


def per_flow(flows: pl.DataFrame) -> dict[str, float | None]:
    f = flows.with_columns((pl.col("end_s") - pl.col("start_s")).alias("completion_s"))
    out: dict[str, float | None] = {"completion_s": f["completion_s"].max()}  # the slowest flow
    for c in COLUMNS[1:-1]:
        out[c] = float(f[c].sum())
    out["mean_rto_s"] = f["mean_rto_s"].mean()  # type: ignore[assignment]
    return out


def fmt(v: float | None) -> str:
    return "–" if v is None else (f"{v:.3g}" if isinstance(v, float) and not v.is_integer() else f"{v:g}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("docs/validation.md"))
    args = ap.parse_args()
    lines = []
    kernel = os.uname().release
    for case in sorted(CASES.glob("*.toml")):
        kernel_runs = [per_flow(emulate(str(case), seed=s).flows) for s in range(1, args.reps + 1)]
        try:
            sim_runs = [per_flow(run(_with_stack(str(case), "linux"), seed=s).flows) for s in range(1, args.reps + 1)]
        except SpecError as e:
            sim_runs, why = [], str(e)
        for i, k in enumerate(kernel_runs):
            s = sim_runs[i] if sim_runs else None
            cells = [f"{fmt(k[c])} / {fmt(s[c]) if s else '–'}" for c in COLUMNS]
            lines.append(f"| {case.stem} | {i + 1} | " + " | ".join(cells) + " |")
        if not sim_runs:
            lines.append(f"| {case.stem} | | simulator: {why} |" + " |" * (len(COLUMNS) - 1))
        print(lines[-1], flush=True)
    header = (
        f"{BEGIN}\n## Kernel reference cases (`make validate`: `validate/kernel_compare.py`)\n\n"
        f"Linux {kernel}, run on {dt.date.today().isoformat()} through `rtolab emulate` (the kernel's TCP over rtolab's "
        f"own link code, in real time), beside the simulator's `linux` stack profile with the same seed. Each cell is "
        f"**kernel / simulated**; completion is the slowest flow's, counts are summed over flows. The scenarios are "
        f"`validate/kernel/*.toml`. These are the targets of the `linux` profile (issue 10): differences here are what "
        f"that work must close.\n\n"
        "| case | rep | " + " | ".join(COLUMNS) + " |\n|" + "---|" * (len(COLUMNS) + 2) + "\n"
    )
    section = header + "\n".join(lines) + f"\n{END}\n"
    text = args.out.read_text() if args.out.exists() else ""
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + section + text[text.index(END) + len(END) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    args.out.write_text(text)
    print(f"kernel section written to {args.out}")


if __name__ == "__main__":
    main()
