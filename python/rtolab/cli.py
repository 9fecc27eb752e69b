"""The ``rtolab`` command line: run, schema, bench, demo, sweep, report, reproduce, model,
emulate, compare, drill, trace.

Bad input prints one message naming the field, the value and the expected form, exits with
code 2 and writes nothing.

Each command imports what it needs when it runs: ``rtolab --help`` loads typer and rich only,
never polars, scipy, matplotlib or dask.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shlex
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional, cast

import typer
from rich.markup import escape

from rtolab import _core
from rtolab._console import FORCE_HELP, OUT_RULE, STORE_RULE, check_out, err, fail as _fail, new_table, out, output_errors as _output_errors, scenario_with
from rtolab.cli_calibrate import register as register_calibration
from rtolab.cli_drill import register as register_drill
from rtolab.cli_emulate import register as register_emulation
from rtolab.cli_model import model_app
from rtolab.cli_output import Format, TableName, print_result, print_run
from rtolab.cli_trace import trace_app
from rtolab.papers import ALL as ALL_PAPERS, PAPERS
from rtolab.report_groups import GROUPINGS, GroupBy

if TYPE_CHECKING:
    import polars as pl
    from rich.table import Table

    from concurrent.futures import Executor

    from rtolab.result import Result

app = typer.Typer(add_completion=False, no_args_is_help=True, help="rtolab: TCP over wireless and cellular links.")
app.add_typer(model_app, name="model")
app.add_typer(trace_app, name="trace")
register_emulation(app)
register_drill(app)
register_calibration(app)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib import metadata

        out.print(f"rtolab {metadata.version('rtolab')} (core {_core.__version__})")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """rtolab: TCP over wireless and cellular links."""


def _save(result: Result, out_dir: Path, force: bool) -> None:
    """``Result.save`` for a command: its failures as one message and an exit code."""
    with _output_errors():
        result.save(out_dir, force)


def _execute(spec: str | dict[str, object], seed: Optional[int]) -> Result:
    """Runs `spec` with a progress bar on a terminal; Ctrl-C ends it with exit 130 (SIGTERM
    and SIGHUP likewise: see `main`) and nothing written."""
    from rtolab._progress import RunProgress
    from rtolab.api import run as run_scenario

    progress = RunProgress() if sys.stderr.isatty() else None
    try:
        return run_scenario(spec, seed=seed, progress=progress)
    except _core.SpecError as e:
        raise _fail(str(e)) from None
    except _core.SimulationError as e:
        raise _fail(f"simulation failed: {e}", code=1) from None
    except KeyboardInterrupt:
        err.print("interrupted; nothing written")
        raise typer.Exit(130) from None
    finally:
        if progress is not None:
            progress.close()



def _lost(e: Exception, dask: Optional[str], out_dir: Path) -> str:
    """The message for an executor lost mid-sweep: what was written stays, and how to go on."""
    where = f"--dask {dask}: " if dask else ""
    return f"{where}{e}; the runs written to {out_dir} are kept, and the same command resumes from them once it is back"


@contextlib.contextmanager
def _executor(workers: Optional[int], dask: Optional[str], dask_timeout_s: float = 10.0) -> Iterator[Executor]:
    """A Dask client when given a scheduler address, else local worker processes, for the
    ``with`` block. Exits 2 when the scheduler does not answer within ``dask_timeout_s``.

    The executor is shut down when the block ends, a local pool's processes and manager thread
    joined, so that none is left for the interpreter's exit: Python 3.11's exit hook wakes
    each pool still running, which races the clean-up of a pool whose executor was just
    collected and can print "Bad file descriptor" (CPython gh-125451). A Dask client's calls
    are cancelled instead of awaited when the block fails (its scheduler may be gone)."""
    from rtolab.executors import DaskExecutor, ExecutorUnavailable, LocalExecutor

    if not dask:
        executor: Executor = LocalExecutor(workers)
    else:
        try:
            executor = DaskExecutor(dask, timeout_s=dask_timeout_s)
        except ExecutorUnavailable as e:
            raise _fail(f"--dask {e}") from None
        # The client and its network library log reconnection attempts and reset connections
        # (with tracebacks) when a scheduler goes away; the command says what happened itself.
        # Dask sets its loggers' levels as it starts, so this comes after.
        for name in ["distributed", "tornado", *(n for n in logging.root.manager.loggerDict if n.startswith(("distributed.", "tornado.")))]:
            logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        yield executor
    except BaseException:
        executor.shutdown(wait=not dask)
        raise
    executor.shutdown(wait=True)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    seed: Annotated[Optional[int], typer.Option(help="Override the scenario's seed.")] = None,
    out_dir: Annotated[Optional[Path], typer.Option("--out", help=f"Write Parquet tables, meta.json and pcaps here. {OUT_RULE}")] = None,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    all_flows: Annotated[bool, typer.Option("--all", help="List every flow, not one summary row per generator.")] = False,
    form: Annotated[Format, typer.Option("--format", help="table (the terminal view), csv (one table, see --table), json (meta and every table), markdown.")] = Format.table,
    table: Annotated[TableName, typer.Option("--table", help="With --format csv: which table.")] = TableName.flows,
    overrides: Annotated[Optional[list[str]], typer.Option("--set", help="KEY=VALUE: set a field first (a dotted path as in a study's grid, e.g. links.radio.rate=2Mbps); repeatable.", show_default=False)] = None,
) -> None:
    """Run one scenario: print its flows (generated ones summarised per generator) and links."""
    if out_dir is not None:
        check_out(out_dir, "run", force)
    result = _execute(scenario_with(file, overrides), seed)
    try:
        print_run(result, form, all_flows, table)
    except ValueError as e:
        raise _fail(str(e)) from None
    if out_dir is not None:
        _save(result, out_dir, force)
        out.print(f"results written to {out_dir}/")


@app.command()
def schema(
    results: Annotated[bool, typer.Option("--results", help="The result tables instead: each column's type, unit and meaning, and the series metrics.")] = False,
    study: Annotated[bool, typer.Option("--study", help="The JSON Schema of study files instead.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --results: JSON instead of tables.")] = False,
) -> None:
    """Print the JSON Schema of scenario files; of study files with --study; the result tables' columns with --results."""
    if results and study:
        raise _fail("give --results or --study, not both")
    if study:
        from rtolab.study_schema import json_schema

        typer.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))
        return
    if not results:
        from rtolab.spec import schema as spec_schema

        typer.echo(json.dumps(spec_schema(), indent=2))
        return
    from rtolab import result_schema

    if as_json:
        typer.echo(json.dumps(result_schema.as_json(), indent=2, ensure_ascii=False))
        return
    sweep = ("sweep (before each table's own columns, then one per study parameter, then those written with units in SI units)", result_schema.SWEEP_COLUMNS + result_schema.QUANTITY_COLUMNS)
    for name, columns in [*result_schema.tables().items(), sweep]:
        table = new_table(name, title_justify="left")
        for header in ("column", "type", "unit", "description"):
            table.add_column(header, overflow="fold")
        for c in columns:
            table.add_row(c.name, c.dtype + (" (nullable)" if c.nullable else ""), escape(c.unit), escape(c.description))
        out.print(table)
    metrics = new_table("series metrics (the unit of `value`)", title_justify="left")
    for header in ("metric", "unit", "description"):
        metrics.add_column(header, overflow="fold")
    for m in result_schema.series_metrics():
        metrics.add_row(m.name, escape(m.unit), escape(m.description))
    out.print(metrics)


#: The core's benchmark scenarios, the choices of ``rtolab bench`` (mypy cannot see members
#: computed at import).
BenchName = StrEnum("BenchName", {name: name for name in _core.bench_names()})  # type: ignore[misc]


@app.command()
def bench(
    names: Annotated[Optional[list[BenchName]], typer.Argument(help="Scenarios to run (default: all).", show_default=False)] = None,
    scale: Annotated[bool, typer.Option("--scale", help="Cost as the number of flows grows: 4 to 40 000 bulk flows on 1 Gbps, 100 s each.")] = False,
    peers: Annotated[bool, typer.Option("--peers", help="`rtolab run` of the 1000 s bulk-lte scenario against ns-2.35 on the same scenario, as whole processes.")] = False,
    repeats: Annotated[int, typer.Option(min=1, help="With --peers: runs of each side; the median wall time is shown.")] = 3,
) -> None:
    """Run the benchmark scenarios and report simulated packets and events per second."""
    from rtolab import bench as bench_mod

    if scale:
        _bench_scale()
        return
    if peers:
        _bench_peers(repeats)
        return
    chosen = [n.value for n in names] if names else bench_mod.names()
    table = new_table("rtolab bench")
    for c in ("scenario", "sim s", "wall s", "data packets", "events", "packets/s", "events/s"):
        table.add_column(c, justify="right")
    for name in chosen:
        r = bench_mod.run(name)
        table.add_row(name, f"{r.sim_s:.0f}", f"{r.wall_s:.3f}", f"{r.data_packets:,}", f"{r.events:,}", f"{r.packets_per_s:,.0f}", f"{r.events_per_s:,.0f}")
    out.print(table)


def _bench_scale() -> None:
    """flows × data packets/s × peak memory, each point in its own process; memory per flow
    is the growth over the 4-flow run divided by the added flows."""
    from rtolab import bench as bench_mod

    table = new_table("rtolab bench --scale (1 Gbps, 100 s)")
    for c in ("flows", "wall s", "data packets", "packets/s", "events/packet", "peak RSS MiB", "KiB per flow"):
        table.add_column(c, justify="right")
    base: Optional[tuple[int, int]] = None
    for flows in bench_mod.SCALE_FLOWS:
        r, rss = bench_mod.run_scale(flows)
        per_flow = f"{(rss - base[1]) / (flows - base[0]):.1f}" if base else "–"
        base = base or (flows, rss)
        table.add_row(f"{flows:,}", f"{r.wall_s:.2f}", f"{r.data_packets:,}", f"{r.packets_per_s:,.0f}", f"{r.events / r.data_packets:.2f}", f"{rss / 1024:.0f}", per_flow)
    out.print(table)


def _bench_peers(repeats: int) -> None:
    """Whole-process wall times of rtolab and ns-2.35 on bulk-lte, their ratio, and the data
    packets each simulated; ns-2 is skipped, with the reason, where it cannot run."""
    from rtolab import bench_peers

    missing = bench_peers.ns2_missing()
    runs = [bench_peers.rtolab_whole_process(repeats), bench_peers.rtolab_in_process(repeats)]
    if missing is None:
        runs.append(bench_peers.ns2_whole_process(repeats))
    table = new_table(f"rtolab bench --peers: {bench_peers.SCENARIO} (4 bulk flows, 50 Mbps / 15 ms, 1000 s simulated)")
    table.add_column("run")
    for c in (f"wall s (median of {repeats})", "data packets", "packets/s"):
        table.add_column(c, justify="right")
    for r in runs:
        table.add_row(r.name, f"{r.wall_s:.3f}", f"{r.data_packets:,}", f"{r.packets_per_s:,.0f}")
    out.print(table)
    whole = runs[0]
    if missing is not None:
        out.print(f"ns-2.35 skipped: {missing}", highlight=False, markup=False)
        return
    ns2 = runs[-1]
    out.print(
        f"as whole processes rtolab is {ns2.wall_s / whole.wall_s:.2f}× as fast as ns-2.35 "
        f"({whole.wall_s:.2f} s against {ns2.wall_s:.2f} s); their data packets differ by "
        f"{100 * abs(whole.data_packets - ns2.data_packets) / ns2.data_packets:.2f} %",
        highlight=False,
    )


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help=f"Where to write tables and plots. {OUT_RULE}")] = Path("demo-out"),
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    all_flows: Annotated[bool, typer.Option("--all", help="List every flow, not one summary row per generator.")] = False,
) -> None:
    """Run the built-in quickstart scenario, print its tables and write plots."""
    import polars as pl

    from rtolab import plots
    from rtolab.spec import builtin

    from rtolab.output_dir import replacing

    check_out(out_dir, "run", force)
    result = _execute(builtin("quickstart"), None)
    print_result(result, all_flows)
    bulk = result.flows.filter(pl.col("kind") == "flow")["name"][0]
    with _output_errors(), replacing(out_dir, "run", force) as staging:
        result.write_into(staging)
        written = [
            plots.flow_timeline(result, bulk, staging / f"timeline-{bulk}.png"),
            plots.queues(result, staging / "queues.png"),
            plots.goodput(result, staging / "goodput.png"),
        ]
    out.print(f"tables and pcaps in {out_dir}/; plots: " + ", ".join(str(out_dir / p.name) for p in written))


@app.command()
def sweep(
    study: Annotated[Path, typer.Argument(help="Study TOML file: base scenario, \\[grid], \\[\\[cases]], replications.")],
    out_dir: Annotated[Path, typer.Option("--out", help=f"Result directory (a Parquet dataset); reused to resume. {STORE_RULE}")],
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    workers: Annotated[Optional[int], typer.Option(help="Local worker processes (default: all cores).")] = None,
    dask: Annotated[Optional[str], typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    dask_timeout: Annotated[float, typer.Option("--dask-timeout", min=0.1, help="Seconds to wait for the Dask scheduler to answer before exiting 2.")] = 10.0,
    extend: Annotated[bool, typer.Option("--extend", help="Add new grid values or cases to the study already in --out.")] = False,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="Exit 2 at once if another sweep is writing to --out, instead of waiting for it.")] = False,
) -> None:
    """Run every run of a study in parallel; rerunning skips finished runs. Exits 1 if runs
    failed (after finishing the others) or writing failed mid-sweep (a full disk: what was
    written is kept), 2 for a study that cannot run into --out, an --out that cannot be
    written, or (with --no-wait) an --out another sweep is writing to."""
    from rtolab.executors import ExecutorLost
    from rtolab.store_lock import OutputError, StoreBusy, WriteFailed
    from rtolab.sweep import RunsFailed, SweepFailed, SweepInterrupted, errors as sweep_errors, sweep as run_sweep

    todo: set[str] = set()
    try:
        with _executor(workers, dask, dask_timeout) as executor, warnings.catch_warnings():
            warnings.simplefilter("ignore", RunsFailed)  # the summary below says it
            flows = run_sweep(study, out_dir, executor=executor, progress=True, extend=extend, wait=not no_wait, on_todo=todo.update, force=force)
    except ExecutorLost as e:
        raise _fail(_lost(e, dask, out_dir)) from None
    except (WriteFailed, SweepFailed) as e:
        raise _fail(str(e), code=1) from None
    except (_core.SpecError, OutputError, StoreBusy) as e:
        raise _fail(str(e)) from None
    except SweepInterrupted as e:
        resume = " ".join(["rtolab sweep", shlex.quote(str(study)), "--out", shlex.quote(str(out_dir)), *(["--extend"] if extend else [])])
        err.print(
            f"stopped: {e.kept} of {e.runs} runs kept in {out_dir}/ ({e.made} made now); {e.lost} in flight lost, {e.left} not started. "
            f"To resume: {resume}",
            markup=False, highlight=False, soft_wrap=True,
        )
        raise
    failed = sweep_errors(out_dir)
    finished = set(flows["run"].unique().to_list()) if flows.height else set()
    reused = len(finished - todo)
    out.print(f"{len(finished)} run{'' if len(finished) == 1 else 's'} finished in {out_dir}/ ({len(finished) - reused} run now, {reused} reused); {failed.height} failed")
    if failed.height:
        for row in failed.head(5).iter_rows(named=True):
            err.print(f"  run {row['run']} (point {row['point']}, replication {row['replication']}): {row['error']}", highlight=False, markup=False)
        raise _fail(f"{failed.height} run{'s' if failed.height != 1 else ''} failed (rtolab.errors({str(out_dir)!r}) lists them); rerunning the sweep retries only those", code=1)


@app.command()
def check(
    directory: Annotated[Path, typer.Argument(help="A sweep's result directory.")],
    repair: Annotated[bool, typer.Option("--repair", help="Run again every run whose files are missing, corrupted or damaged, and the runs not yet done.")] = False,
    workers: Annotated[Optional[int], typer.Option(help="Local worker processes for --repair (default: all cores).")] = None,
) -> None:
    """Verify a sweep's store: every finished run's files present and equal to their
    checksums, files that belong to no run, failed runs. Exits 0 when the store is whole
    (after --repair), 1 when problems remain, 2 for a directory that is not a store."""
    from rtolab import manifest
    from rtolab.store import Store
    from rtolab.sweep import RunsFailed, SweepFailed, sweep as run_sweep

    study = manifest.stored_study(directory) if directory.is_dir() else None
    if study is None:
        raise _fail(f"{directory} is not a sweep directory (no {manifest.STUDY_FILE})")
    store = Store(directory)
    keys = {p.key for p in study.points()}
    finished = store.finished() & keys
    problems = store.verify(finished)
    extra = store.extra(keys)
    failed = store.errors().height
    out.print(f"{directory}: {len(finished)} of {len(keys)} runs finished, {failed} failed; {len(problems)} damaged run file{'s' if len(problems) != 1 else ''}; {len(extra)} file{'s' if len(extra) != 1 else ''} of no run", highlight=False)
    for p in [*problems, *extra][:20]:
        out.print(f"  {p.kind}: {p.path}", markup=False, highlight=False)
    if repair and (problems or len(finished) + failed < len(keys)):
        for p in problems:
            store.discard(p.run)
        try:
            with _executor(workers, None) as executor, warnings.catch_warnings():
                warnings.simplefilter("ignore", RunsFailed)  # the count below says it
                run_sweep(study, directory, executor=executor, progress=True)
        except _core.SpecError as e:
            raise _fail(str(e)) from None
        except SweepFailed as e:
            raise _fail(str(e), code=1) from None
        finished = store.finished() & keys
        problems = store.verify(finished)
        out.print(f"repaired: {len(finished)} of {len(keys)} runs finished; {len(problems)} damaged run files", highlight=False)
    if problems:
        raise _fail(f"{len(problems)} damaged run file{'s' if len(problems) != 1 else ''} in {directory}; rtolab check {directory} --repair runs them again", code=1)


#: ``rtolab report --by``'s choices.
ReportGrouping = StrEnum("ReportGrouping", {g: g for g in GROUPINGS})  # type: ignore[misc]


@app.command()
def report(
    directory: Annotated[Path, typer.Argument(help="A sweep's result directory.")],
    html_page: Annotated[bool, typer.Option("--html", help="Also write report/index.html with the figures embedded.")] = False,
    by: Annotated[ReportGrouping, typer.Option("--by", help="Group flows by generator (a standalone flow is its own group), by flow name, by kind, or not at all.")] = ReportGrouping("generator"),
    warm_up: Annotated[float, typer.Option("--warm-up", min=0.0, help="Leave out flows that start before this many seconds.")] = 0.0,
    force: Annotated[bool, typer.Option("--force", help="Write into a DIR/report that holds files rtolab did not write: they are kept, and only rtolab's own files are replaced.")] = False,
) -> None:
    """Figures and tables of a finished sweep, written into DIR/report (rtolab replaces only its own files there, all at once): per grid point and group, means over
    replications with 90 % intervals, distributions over flows, timeouts and what became
    of them."""
    from rtolab import report as report_mod

    if not (directory / "study.json").exists():
        raise _fail(f"{directory} is not a sweep directory (no study.json)")
    from rtolab.store import StoreDamaged

    try:
        with _output_errors():
            written = report_mod.write(directory, html_page=html_page, by=cast("GroupBy", by.value), warm_up_s=warm_up, force=force)
    except StoreDamaged as e:
        raise _fail(str(e)) from None
    out.print(f"wrote {len(written)} files under {directory / 'report'}/")


#: ``rtolab reproduce``'s choices: every paper of the registry, and all of them.
StudyName = StrEnum("StudyName", {name: name for name in [*PAPERS, ALL_PAPERS]})  # type: ignore[misc]


@app.command()
def reproduce(
    study: Annotated[StudyName, typer.Argument(metavar="NAME", help="Which study, or all five (then also the scorecard).", show_default=False)],
    out_dir: Annotated[Optional[Path], typer.Option("--out", help=f"Output directory (default: out/NAME, out/NAME-quick with --quick). {STORE_RULE}")] = None,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Fewer points and replications (minutes, not hours).")] = False,
    workers: Annotated[Optional[int], typer.Option(help="Local worker processes (default: all cores).")] = None,
    dask: Annotated[Optional[str], typer.Option(help="Dask scheduler address.")] = None,
    dask_timeout: Annotated[float, typer.Option("--dask-timeout", min=0.1, help="Seconds to wait for the Dask scheduler to answer before exiting 2.")] = 10.0,
    replications: Annotated[Optional[int], typer.Option(min=1, help="Override the number of replications.")] = None,
    docs: Annotated[Optional[Path], typer.Option(help="Also write the graded findings into the papers' pages in this directory (and, with all, scorecard.md and scorecard.csv); only when every run succeeded.")] = None,
) -> None:
    """Reproduce a paper's study end to end: sweep, analysis, figures, findings graded against
    the paper (findings.csv). ``all`` runs the five and writes the scorecard."""
    from rtolab.executors import ExecutorLost
    from rtolab.reproduce import IN_MEMORY_ERRORS, all_findings, reproduce as run_one, reproduce_all, write_docs
    from rtolab.store_lock import OutputError, StoreBusy
    from rtolab.scorecard import tally
    from rtolab.sweep import SweepFailed, SweepInterrupted

    if docs is not None and not docs.is_dir():
        raise _fail(f"--docs: {docs} is not a directory")
    name = str(study.value)
    # A quick and a full run are different studies; one directory holds one study.
    target = out_dir or Path("out") / (f"{name}-quick" if quick else name)
    command = " ".join(["rtolab reproduce", name, *(["--quick"] if quick else []), *([f"--replications {replications}"] if replications else [])])
    check_out(target, "reproduce", force)
    try:
        with _executor(workers, dask, dask_timeout) as executor:
            if name == ALL_PAPERS:
                done = reproduce_all(target, quick=quick, executor=executor, replications=replications, progress=True, command=command, force=force)
            else:
                done = {name: run_one(name, target, quick=quick, executor=executor, replications=replications, progress=True, force=force)}
    except (_core.SpecError, StoreBusy, OutputError) as e:
        raise _fail(str(e)) from None
    except SweepFailed as e:
        raise _fail(str(e), code=1) from None
    except SweepInterrupted as e:
        resume = " ".join([command, *(["--out", shlex.quote(str(out_dir))] if out_dir else [])])
        err.print(f"stopped: {e.kept} of {e.runs} runs of the sweep in {e.out}/ kept ({e.made} made now); {e.lost} in flight lost, {e.left} not started. To resume: {resume}", markup=False, highlight=False, soft_wrap=True)
        raise
    except ExecutorLost as e:
        raise _fail(_lost(e, dask, target)) from None
    failed = 0
    for paper, r in done.items():
        out.print(f"{PAPERS[paper].paper} {paper}: {r.runs} runs ({r.made} made now, {r.failed} failed) in {r.wall_s:.1f} s wall; findings {tally(r.findings)}; {len(r.figures)} figures in {r.out}/")
        failed += r.failed
    if name == ALL_PAPERS:
        out.print(f"all: findings {tally(all_findings(done))}; {target}/scorecard.md")
    if failed:
        raise _fail(f"{failed} run{'s' if failed != 1 else ''} failed, nothing written to --docs (rtolab.errors(DIR) lists them for each sweep directory under {target}, and {IN_MEMORY_ERRORS} those of the runs kept in memory)", code=1)
    if docs is not None:
        write_docs(docs, done, command)
        out.print(f"findings written into the papers' pages in {docs}/" + (" and its scorecard.md" if name == ALL_PAPERS else ""))


#: The terminating signal a command received (SIGTERM or SIGHUP), if any.
_stopped_by: list[int] = []


def _stop(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP stop a command as Ctrl-C does, by the same code path (runs stop at
    once, the sweep's workers with them, nothing half-written); `main` then exits 128 + the
    signal's number instead of 130."""
    _stopped_by.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """Entry point; a missing file or bad option also exits with code 2. Ctrl-C exits 130,
    SIGTERM 143 and SIGHUP 129, each after stopping as Ctrl-C does."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop)
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(128 + _stopped_by[0] if _stopped_by else 130)
    except SystemExit as e:
        if e.code == 130 and _stopped_by:
            sys.exit(128 + _stopped_by[0])
        raise


def command() -> NoReturn:
    """The ``rtolab`` command: `main`, then its exit without the interpreter's teardown.

    Clearing the modules a command loaded (polars, scipy, matplotlib) takes about 0.1 s and
    does nothing a finished command needs: the files it wrote are closed, and the atexit
    handlers still run here. When a thread that is not a daemon is still alive (the normal
    exit would wait for it), the exit is the normal one.
    """
    try:
        main()
        code: str | int | None = 0
    except SystemExit as e:
        code = e.code
    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    if isinstance(code, int):
        status = code
    elif code is None:
        status = 0
    else:  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    command()
