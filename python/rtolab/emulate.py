"""Kernel TCP over rtolab's links in real time, and the side-by-side with the simulator.

``emulate`` runs a scenario's flows as real sockets between two network namespaces joined
through a forwarder that applies the scenario's links with the simulator's own code
(``rtolab-emu``): TCP and UDP are the kernel's, QUIC is quinn's over the kernel's UDP; its
tables have the simulator's columns. ``compare`` runs a scenario both
ways, ``reps`` times each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import _core
from rtolab.api import run
from rtolab.result import Result
from rtolab.spec import SpecLike, absolute_traces, source_dir, text_sha256, to_text

#: Columns of the side-by-side table, per flow.
COMPARED = [
    "goodput_bps", "completion_s", "retransmits", "timeouts", "spurious_timeouts", "spurious_detected", "undos",
    "fast_retransmits", "mean_rto_s", "mean_rtt_s",
    # Datagram flows (null for TCP).
    "datagrams_lost", "delay_mean_s", "delay_p99_s", "jitter_s", "mos",
    # Bytes the receiving application read (every flow), and a QUIC transfer's PTOs and declared
    # losses, the library's own (its qlog) on both sides (null for TCP and UDP).
    "bytes", "ptos", "client_ptos", "declared_lost",
]


def emulate(spec: SpecLike, seed: int | None = None, wall_limit_s: float = 300.0) -> Result:
    """Runs ``spec`` over the kernel's TCP in real time and returns its tables.

    ``meta["emulator"]`` holds the kernel version, the settings applied and the emulator's
    accuracy (achieved rate per direction, added latency). Raises ``SpecError`` for a field the
    kernel cannot honour, ``EmulatorUnavailable`` without root or TUN, ``KeyboardInterrupt``
    on Ctrl-C (after removing the namespaces).
    """
    text, fmt = to_text(spec)
    raw, emu_meta = _core.emulate(text, fmt, seed, wall_limit_s, base=source_dir(spec))
    meta: dict[str, Any] = {
        "text_sha256": text_sha256(text, fmt),
        "rtolab_version": metadata.version("rtolab"),
        "core_version": _core.__version__,
        "engine": "kernel",
        "emulator": json.loads(emu_meta),
    }
    return Result.from_core(raw, meta)


def _tcp_items(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """The flows and generators of ``tree`` whose connections run TCP: not a UDP or QUIC flow,
    nor a generator whose kind has no ``tcp`` table in the scenario schema (calls) or that
    names ``quic`` in its place (QUIC bursts and web users, which run quinn on both sides)."""
    from rtolab.spec import schema

    kinds = schema()["$defs"]["GeneratorSpec"]["oneOf"]
    with_tcp = {k["properties"]["kind"]["const"] for k in kinds if "tcp" in k["properties"]}
    flows = [f for f in tree.get("flows", []) if "udp" not in f and "quic" not in f]
    return [*flows, *[g for g in tree.get("generators", []) if g.get("kind") in with_tcp and "quic" not in g]]


def _with_stack(spec: SpecLike, stack: str) -> dict[str, Any]:
    """The scenario as a mapping with ``tcp.stack`` set on every TCP flow and generator."""
    import tomllib

    text, fmt = to_text(spec)
    tree: dict[str, Any] = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    for item in _tcp_items(tree):
        item.setdefault("tcp", {})["stack"] = stack
    return absolute_traces(tree, source_dir(spec))


def _per_flow(result: Result, engine: str, rep: int) -> pl.DataFrame:
    return result.flows.select(
        pl.lit(engine).alias("engine"),
        pl.lit(rep).alias("rep"),
        "name",
        "goodput_bps",
        (pl.col("end_s") - pl.col("start_s")).alias("completion_s"),
        *[c for c in COMPARED if c not in ("goodput_bps", "completion_s")],
    )


@dataclass(frozen=True)
class Comparison:
    """Per flow, engine and repetition (``rows``); the first repetition's results of each."""

    rows: pl.DataFrame
    simulated: Result
    kernel: Result

    def summary(self) -> pl.DataFrame:
        """Mean over repetitions per flow, simulator and kernel side by side."""
        means = self.rows.group_by("engine", "name", maintain_order=True).agg(pl.col(COMPARED).mean())
        sim = means.filter(pl.col("engine") == "sim").drop("engine")
        ker = means.filter(pl.col("engine") == "kernel").drop("engine")
        return sim.join(ker, on="name", suffix="_kernel", how="full", coalesce=True)


def compare(spec: SpecLike, stack: str = "linux", reps: int = 1, wall_limit_s: float = 300.0) -> Comparison:
    """Runs ``spec`` in the simulator with ``stack`` and over the kernel, ``reps`` times each
    (seeds 1..reps), recording cwnd, srtt and the pacing rate for the figure."""
    tree = _with_stack(spec, stack)
    output = tree.setdefault("output", {})
    output["series"] = sorted(set(output.get("series", [])) | {"cwnd", "srtt", "pacing_rate"})
    kernel_tree = json.loads(json.dumps(tree))
    for item in _tcp_items(kernel_tree):
        item["tcp"].pop("stack", None)
    frames = []
    first: dict[str, Result] = {}
    for rep in range(1, reps + 1):
        for engine, result in (("sim", run(tree, seed=rep)), ("kernel", emulate(kernel_tree, seed=rep, wall_limit_s=wall_limit_s))):
            frames.append(_per_flow(result, engine, rep))
            first.setdefault(engine, result)
    return Comparison(rows=pl.concat(frames), simulated=first["sim"], kernel=first["kernel"])


def figure(c: Comparison, path: Path) -> Path:
    """cwnd, RTT and pacing rate over time per flow: simulated dashed, kernel solid. The
    pacing panel shows the simulator's rate only for a controller that paces (BBR); the
    kernel reports one for every controller."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 8), layout="constrained")
    axes = fig.subplots(3, 1, sharex=True)
    for engine, result, style in (("sim", c.simulated, "--"), ("kernel", c.kernel, "-")):
        s = result.series
        for i, name in enumerate(result.flows["name"].to_list()[:6]):
            color = f"C{i}"
            panels = ((axes[0], "cwnd", 1 / 1000, "cwnd (kB)"), (axes[1], "srtt", 1000, "srtt (ms)"), (axes[2], "pacing_rate", 1e-6, "pacing rate (Mbit/s)"))
            for ax, metric, scale, label in panels:
                part = s.filter((pl.col("entity") == name) & (pl.col("metric") == metric))
                if part.height:
                    ax.step(part["time_s"], part["value"] * scale, style, where="post", color=color, label=f"{name} ({engine})")
                ax.set_ylabel(label)
    axes[2].set_xlabel("time (s)")
    axes[0].legend(fontsize="small", ncol=2)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path
