"""``rtolab trace …``: packet-delivery traces for trace-driven links (``docs/traces.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from rtolab._console import fail, new_table, out

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

trace_app = typer.Typer(no_args_is_help=True, help="Packet-delivery traces: statistics, synthesis, conversion of a run's series.")


def _quantity(option: str, kind: str, text: str) -> float:
    from rtolab import _core

    try:
        return _core.parse_quantity(kind, text)
    except ValueError as e:
        raise fail(f"{option}: {e}") from None


def _list(option: str, kind: str, text: str) -> list[float]:
    return [_quantity(option, kind, part.strip()) for part in text.split(",") if part.strip()]


def _written(path: Path, times: NDArray[np.int64]) -> None:
    from rtolab import traces

    try:
        traces.write(path, times)
    except OSError as e:
        raise fail(f"cannot write {str(path)!r}: {e.strerror}") from None
    i = traces.info(times)
    out.print(f"wrote {path}: {i.opportunities} opportunities over {i.duration_s:g} s, mean {i.mean_bps / 1e6:.3f} Mbit/s", highlight=False)


@trace_app.command()
def info(
    file: Annotated[Path, typer.Argument(help="Trace file (one opportunity per line, its time in ms).")],
    plot: Annotated[Optional[Path], typer.Option(help="Save a figure of the rate over 100 ms windows here (.png).")] = None,
) -> None:
    """Duration, opportunities, mean rate, and the 5/50/95th percentile rates over 100 ms
    windows (1500-byte datagrams, one per opportunity)."""
    from rtolab import traces

    try:
        times = traces.read(file)
    except traces.TraceError as e:
        raise fail(str(e)) from None
    i = traces.info(times)
    table = new_table(str(file))
    table.add_column("")
    table.add_column("value", justify="right")
    for name, value in [
        ("duration (s)", f"{i.duration_s:g}"),
        ("opportunities", f"{i.opportunities}"),
        ("mean rate (Mbit/s)", f"{i.mean_bps / 1e6:.3f}"),
        (f"p5 rate, {traces.WINDOW_MS} ms windows (Mbit/s)", f"{i.p5_bps / 1e6:.3f}"),
        (f"p50 rate, {traces.WINDOW_MS} ms windows (Mbit/s)", f"{i.p50_bps / 1e6:.3f}"),
        (f"p95 rate, {traces.WINDOW_MS} ms windows (Mbit/s)", f"{i.p95_bps / 1e6:.3f}"),
    ]:
        table.add_row(name, value)
    out.print(table)
    if plot is not None:
        try:
            traces.plot(times, plot, str(file.name))
        except OSError as e:
            raise fail(f"--plot: cannot write {str(plot)!r}: {e.strerror}") from None
        out.print(f"wrote {plot}", highlight=False)


@trace_app.command()
def synth(
    out_file: Annotated[Path, typer.Argument(metavar="OUT", help="The trace file to write.")],
    csv: Annotated[Optional[Path], typer.Option(help="A rate series: CSV with the header time_s,rate_bps, starting at 0; each rate holds until the next row.")] = None,
    states: Annotated[Optional[str], typer.Option(help='Markov states\' rates, e.g. "1Mbps,10Mbps,40Mbps".')] = None,
    holding: Annotated[Optional[str], typer.Option(help='Mean holding time of each state, e.g. "2s,1s,0.5s" (exponential).')] = None,
    duration: Annotated[Optional[str], typer.Option(help='Length of the trace, e.g. "60s" (required with --states; with --csv the default is the last row\'s time plus the step before it).')] = None,
    seed: Annotated[int, typer.Option(help="Seed of the Markov process.")] = 1,
) -> None:
    """A trace from a rate series (--csv) or from a Markov-modulated rate process (--states,
    --holding, --duration, --seed; from state 0, each stay exponential, then a move to
    another state chosen uniformly). Same input, same trace."""
    from rtolab import traces

    if (csv is None) == (states is None):
        raise fail("give --csv (a rate series) or --states with --holding and --duration (a Markov process), not both")
    try:
        if csv is not None:
            times_s, rates = traces.read_rate_csv(csv)
            if duration is not None:
                end_s = _quantity("--duration", "duration", duration)
            else:
                end_s = float(times_s[-1] + (times_s[-1] - times_s[-2] if len(times_s) > 1 else 1.0))
        else:
            assert states is not None
            if holding is None or duration is None:
                raise fail("--states needs --holding and --duration")
            end_s = _quantity("--duration", "duration", duration)
            times_s, rates = traces.markov_rates(_list("--states", "rate", states), _list("--holding", "duration", holding), end_s, seed)
        times = traces.from_rates(times_s, rates, end_s)
    except traces.TraceError as e:
        raise fail(str(e)) from None
    _written(out_file, times)


@trace_app.command("from-series")
def from_series(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A run's --out directory (its series.parquet), or the Parquet file.")],
    out_file: Annotated[Path, typer.Argument(metavar="OUT", help="The trace file to write.")],
    entity: Annotated[Optional[str], typer.Option(help='The mobile user, e.g. "hsdpa.ue0" (default: the only one with a rate series).')] = None,
    tti: Annotated[str, typer.Option(help="The radio network's TTI (radio.tti).")] = "2ms",
    duration: Annotated[Optional[str], typer.Option(help="Length of the trace (default: the end of the last TTI in the series).")] = None,
) -> None:
    """A trace of what a simulated radio network delivered to one mobile user: its ``rate``
    series (``output.series = ["rate"]``, one row per TTI served) as bytes at the end of each
    TTI, so the radio network can be replayed as a link."""
    import polars as pl

    from rtolab import traces

    path = run_dir / "series.parquet" if run_dir.is_dir() else run_dir
    try:
        series = pl.read_parquet(path).filter(pl.col("metric").cast(pl.String) == "rate")
    except (OSError, pl.exceptions.PolarsError) as e:
        raise fail(f"cannot read a series table at {str(path)!r}: {e}") from None
    names = sorted(series["entity"].cast(pl.String).unique().to_list())
    if entity is None:
        if len(names) != 1:
            raise fail(f"{path}: rate series of {names}; choose one with --entity" if names else f"{path}: no rate series; run with output.series = [\"rate\"]")
        entity = names[0]
    elif entity not in names:
        raise fail(f"--entity: got {entity!r}, expected one of {names}")
    rows = series.filter(pl.col("entity").cast(pl.String) == entity).sort("time_s")
    tti_s = _quantity("--tti", "duration", tti)
    t, r = rows["time_s"].to_numpy(), rows["value"].to_numpy()
    end_s = _quantity("--duration", "duration", duration) if duration is not None else float(t[-1] + tti_s)
    try:
        times = traces.from_rate_series(t, r, tti_s, end_s)
    except traces.TraceError as e:
        raise fail(str(e)) from None
    _written(out_file, times)
