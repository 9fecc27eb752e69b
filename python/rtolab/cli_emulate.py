"""The ``emulate`` and ``compare`` commands: kernel TCP over rtolab's links."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, Optional, TypeVar

import typer

from rtolab import _core
from rtolab._console import FORCE_HELP, OUT_RULE, check_out, err, fail, new_table, out, output_errors, scenario_with
from rtolab.cli_output import Format, TableName, print_frame, print_run

if TYPE_CHECKING:
    from rtolab.emulate import Comparison

T = TypeVar("T")

#: The named stacks of the scenario schema, the choices of ``compare --stack`` (mypy cannot
#: see members computed at import).
StackName = StrEnum("StackName", {name: name for name in json.loads(_core.schema())["$defs"]["Stack"]["enum"]})  # type: ignore[misc]


def _fmt(v: object) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _guarded(call: Callable[[], T], failure: str) -> T:
    """Runs ``call``; a bad spec or a machine that cannot emulate exits 2, a failed run 1."""
    try:
        return call()
    except (_core.SpecError, _core.EmulatorUnavailable) as e:
        raise fail(str(e)) from None
    except _core.SimulationError as e:
        raise fail(f"{failure}: {e}", code=1) from None


def emulate(
    file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help=f"Write Parquet tables, meta.json and pcaps here. {OUT_RULE}")] = None,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    seed: Annotated[Optional[int], typer.Option(help="Override the scenario's seed.")] = None,
    time_limit: Annotated[float, typer.Option(help="Wall-clock limit in seconds (beyond `duration`, if set).")] = 300.0,
    overrides: Annotated[Optional[list[str]], typer.Option("--set", help="KEY=VALUE: set a field first (a dotted path as in a study's grid); repeatable.", show_default=False)] = None,
    form: Annotated[Format, typer.Option("--format", help="table (the terminal view), csv (one table, see --table), json (meta and every table), markdown.")] = Format.table,
    table: Annotated[TableName, typer.Option("--table", help="With --format csv: which table.")] = TableName.flows,
) -> None:
    """Run a scenario over the kernel's own TCP and UDP (QUIC: quinn over UDP) in real time (root, /dev/net/tun)."""
    from rtolab.emulate import emulate as run_emulation

    if not file.exists():
        raise fail(f"{file}: no such scenario file")
    if out_dir is not None:
        check_out(out_dir, "run", force)
    spec = scenario_with(file, overrides)
    result = _guarded(lambda: run_emulation(spec, seed=seed, wall_limit_s=time_limit), "emulation failed")
    try:
        print_run(result, form, table=table)
    except ValueError as e:
        raise fail(str(e)) from None
    emu = result.meta["emulator"]
    acc = ", ".join(f"{a['direction']} {a['rate_error_pct']:+.3f} %" for a in emu["accuracy"] if a["rate_error_pct"] is not None)
    # The emulator's own account goes with the terminal view, or to stderr beside CSV/JSON.
    (out if form == Format.table else err).print(
        f"kernel {emu['kernel']}; added latency median {emu['added_latency_median_us']:.0f} µs, "
        f"p99 {emu['added_latency_p99_us']:.0f} µs; {emu['late_packets']} of {emu['released_packets']} releases > 1 ms late; "
        f"rate error {acc or '– (no back-to-back packets)'}"
    )
    if out_dir is not None:
        with output_errors():
            result.save(out_dir, force)
        out.print(f"results written to {out_dir}/")


def compare(
    file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    stack: Annotated[StackName, typer.Option(help="Stack profile of the simulated side.")] = StackName("linux"),
    reps: Annotated[int, typer.Option(min=1, help="Runs of each side (seeds 1..N).")] = 1,
    out_dir: Annotated[Path, typer.Option("--out", help=f"Where compare.csv and the figure go. {OUT_RULE}")] = Path("compare-out"),
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    time_limit: Annotated[float, typer.Option(help="Wall-clock limit per kernel run, in seconds.")] = 300.0,
    overrides: Annotated[Optional[list[str]], typer.Option("--set", help="KEY=VALUE: set a field first (a dotted path as in a study's grid); repeatable.", show_default=False)] = None,
    form: Annotated[Format, typer.Option("--format", help="table (the terminal view), csv, json or markdown: the side-by-side summary, every column.")] = Format.table,
) -> None:
    """Run a scenario in the simulator and over the kernel; print them side by side."""
    from rtolab.emulate import COMPARED, compare as run_compare

    if not file.exists():
        raise fail(f"{file}: no such scenario file")
    check_out(out_dir, "compare", force)
    spec = scenario_with(file, overrides)
    c = _guarded(lambda: run_compare(spec, stack=stack.value, reps=reps, wall_limit_s=time_limit), "run failed")
    summary = c.summary()
    if form != Format.table:
        print_frame(summary, form)
        _write_comparison(c, out_dir, force)
        return
    table = new_table(f"{file.name}: simulated ({stack.value}) vs kernel {c.kernel.meta['emulator']['kernel']}, mean of {reps}")
    for col, justify in (("flow", "left"), ("metric", "left"), ("simulated", "right"), ("kernel", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for row in summary.iter_rows(named=True):
        # A metric neither side has for this flow (a datagram column of a TCP flow), or a TCP
        # counter of a UDP or QUIC flow (0 by definition), is left out of its rows.
        datagram = any(row[c] is not None or row[c + "_kernel"] is not None for c in ("delay_mean_s", "ptos"))
        shown = [col for col in COMPARED if (row[col] is not None or row[col + "_kernel"] is not None) and not (datagram and col in TCP_ONLY)]
        for i, col in enumerate(shown):
            table.add_row(row["name"] if i == 0 else "", col, _fmt(row[col]), _fmt(row[col + "_kernel"]), end_section=i == len(shown) - 1)
    out.print(table)
    _write_comparison(c, out_dir, force)


#: The compared columns that only TCP flows have a use for.
TCP_ONLY = {"retransmits", "timeouts", "spurious_timeouts", "spurious_detected", "undos", "fast_retransmits", "mean_rto_s", "mean_rtt_s"}


def _write_comparison(c: Comparison, out_dir: Path, force: bool) -> None:
    """``compare.csv`` and the figure, replacing rtolab's own files in ``out_dir`` at once."""
    from rtolab.emulate import figure
    from rtolab.output_dir import replacing

    with output_errors(), replacing(out_dir, "compare", force) as staging:
        c.rows.write_csv(staging / "compare.csv")
        written = figure(c, staging / "cwnd-rtt.png")
    err.print(f"compare.csv and {written.name} in {out_dir}/")


def register(app: typer.Typer) -> None:
    app.command()(emulate)
    app.command()(compare)
