"""QUIC through `rtolab emulate` against the simulation (`make validate`; root and /dev/net/tun):
one 4 MB QUIC transfer over 10 Mbit/s, 20 ms, a 100-packet drop-tail queue, without and with a
3 s delay spike at 1 s, simulated and emulated `--reps` times each (seeds 1..reps). The
acceptance line of issue 44 §6: the mean completion time within 5 % of the simulation's in
both cases. Writes a section of docs/validation.md.

Both sides run quinn-proto 0.11.19 with the same settings (`QuicSpec::transport`): the
simulator embeds it on simulated time, the emulator runs quinn (its async wrapper) over the
kernel's UDP between two namespaces, through rtolab's links
(`crates/rtolab-emu/src/quic_apps.rs`). What differs is real time: the two kernels' UDP, the
forwarder's releases and the tokio runtime's timers.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

import rtolab
from doc_section import replace_section
from rtolab.emulate import emulate

#: The acceptance line (issue 44 §6), fixed before any run.
TOLERANCE = 0.05

LINK: dict[str, Any] = {"name": "l", "rate": "10Mbps", "delay": "20ms", "queue": {"kind": "droptail", "limit": "100p"}}
FLOW: dict[str, Any] = {"name": "q", "route": ["l"], "size": "4MB", "quic": {}}

CASES: dict[str, dict[str, Any]] = {
    "4 MB, 10 Mbit/s, 20 ms, 100p drop-tail": {"name": "quic-emu", "links": [LINK], "flows": [FLOW]},
    "the same with a 3 s spike at 1 s": {"name": "quic-emu-spike", "links": [{**LINK, "spikes": {"at": ["1s"], "length": "3s"}}], "flows": [FLOW]},
}

#: Columns shown per run beside the completion time.
SHOWN = ("completion_s", "ptos", "client_ptos", "declared_lost", "datagrams_lost", "congestion_events")


def row(result: rtolab.Result) -> dict[str, Any]:
    r = result.flows.row(0, named=True)
    if r["bytes"] != 4_000_000 or r["completion_s"] is None:
        raise SystemExit(f"the transfer did not complete: {r}")
    return {c: r[c] for c in SHOWN}


def fmt(runs: list[dict[str, Any]], column: str) -> str:
    values = [r[column] for r in runs]
    return ", ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in values)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("docs/validation.md"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    seeds = range(1, args.reps + 1)
    table = [
        "| case | side | completion (s), each run | mean (s) | difference | within 5 % | server PTOs | client PTOs | declared lost | dropped by the link | congestion events |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, spec in CASES.items():
        sim = [row(rtolab.run(spec, seed=s)) for s in seeds]
        emu = [row(emulate(spec, seed=s)) for s in seeds]
        a, b = statistics.fmean(r["completion_s"] for r in sim), statistics.fmean(r["completion_s"] for r in emu)
        diff = (b - a) / a
        verdict = "yes" if abs(diff) <= TOLERANCE else "NO"
        for side, runs, extra in (("simulated", sim, ("", "")), ("emulated", emu, (f"{diff * 100:+.2f} %", verdict))):
            mean = statistics.fmean(r["completion_s"] for r in runs)
            counts = " | ".join(fmt(runs, c) for c in SHOWN[1:])
            table.append(f"| {name if side == 'simulated' else ''} | {side} | {fmt(runs, 'completion_s')} | {mean:.4f} | {extra[0]} | {extra[1]} | {counts} |")
    text = "\n".join(
        [
            "<!-- quic-emulate:begin -->",
            "## QUIC through `rtolab emulate` against the simulation (`make validate`: `validate/quic_emulate.py`)",
            "",
            f"One 4 MB QUIC transfer (quinn-proto 0.11.19, CUBIC, the defaults of `quic = {{}}`), simulated and emulated {args.reps} times",
            f"(seeds 1..{args.reps}); the emulator runs quinn over the kernel's UDP through rtolab's links. Completion is from the",
            "client's connect to its read of the stream's end. The acceptance line (issue 44 §6) is the mean completion within 5 % of",
            "the simulation's in both cases; PTOs (each end's), declared losses, the link's drops and congestion events (both ends') are each run's.",
            "",
            *table,
            "<!-- quic-emulate:end -->",
            "",
        ]
    )
    replace_section(args.out, "<!-- quic-emulate:begin -->", "<!-- quic-emulate:end -->", text)
    print(text)


if __name__ == "__main__":
    main()
