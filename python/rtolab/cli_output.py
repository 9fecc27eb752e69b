"""How the command line prints a run: the flows (generated ones summarised per generator),
links and cells tables, readable at any number of flows. Shared by `run`, `demo` and
`emulate`."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Callable

from rich.markup import escape

from rtolab._console import new_table, out

if TYPE_CHECKING:
    import polars as pl
    from rich.table import Table

    from rtolab.result import Result


def fmt(value: object, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return escape(str(value))


#: At most this many of the scenario's own flows are listed one by one without ``--all``.
LISTED_FLOWS = 20

FLOW_COLUMNS = [
    "name", "kind", "bytes", "goodput_bps", "completion_s", "retransmits", "timeouts", "spurious_timeouts",
    "spurious_detected", "undos", "fast_retransmits", "mean_rto_s",
]
GENERATOR_COLUMNS = ["generator", "kind", "flows", "finished", "goodput_median_bps", "goodput_p90_bps", "timeouts", "spurious_timeouts"]
DATAGRAM_COLUMNS = ["name", "kind", "datagrams_sent", "datagrams_lost", "datagrams_late", "delay_mean_s", "delay_p99_s", "jitter_s", "goodput_bps", "mos"]
DATAGRAM_GENERATOR_COLUMNS = ["generator", "kind", "flows", "datagrams_sent", "lost_share", "late_share", "delay_mean_median_s", "delay_p99_max_s", "mos_mean", "mos_min"]
QUIC_COLUMNS = [
    "name", "kind", "bytes", "goodput_bps", "completion_s", "datagrams_lost", "declared_lost", "spurious_declared_lost",
    "ptos", "spurious_ptos", "client_ptos", "congestion_events",
]
QUIC_GENERATOR_COLUMNS = ["generator", "kind", "flows", "finished", "goodput_median_bps", "goodput_p90_bps", "ptos", "spurious_ptos", "client_ptos", "declared_lost"]
LINK_COLUMNS = ["link", "direction", "packets_sent", "drops", "utilisation", "mean_queue", "max_queue", "spikes", "spike_time_s"]
# Shown only when some link has a radio channel or ARQ (they are zero or empty otherwise).
RADIO_COLUMNS = ["bad_share", "arq_attempts", "arq_discards", "arq_flushes", "icmp_drop", "icmp_defer"]
CELL_COLUMNS = ["name", "busy_share", "throughput_bps", "blocks_sent", "blocks_lost", "mean_users", "mean_served", "mean_sir_db", "buffer_drops"]
LEFT = {"name", "kind", "generator", "link", "direction"}
#: Times shown to the microsecond (a completion time's resolution that matters).
MICROSECONDS = {"start_s", "end_s", "completion_s"}


def result_table(title: str, df: pl.DataFrame, columns: list[str]) -> Table:
    """``columns`` of ``df`` as a rich table, numbers right-aligned."""
    shown = new_table(title)
    for c in columns:
        # Fold, never cut: a narrow terminal wraps a value or a header, it does not lose digits.
        shown.add_column(c, justify="left" if c in LEFT else "right", overflow="fold")
    for row in df.select(columns).iter_rows():
        shown.add_row(*(f"{v:.6f}" if c in MICROSECONDS and isinstance(v, float) else fmt(v) for c, v in zip(columns, row)))
    return shown


def print_result(result: Result, all_flows: bool = False) -> None:
    """The run's flows and links, readable at any number of flows: generated flows as one
    summary row per generator, the scenario's own flows one by one (up to LISTED_FLOWS);
    with ``all_flows`` every flow gets its row. TCP flows, datagram flows (UDP flows,
    calls) and QUIC flows get tables of their own columns."""
    import polars as pl

    from rtolab.flow_summary import by_generator, datagrams_by_generator, quic_by_generator

    flows = result.flows
    title = f"flows of {result.meta.get('scenario')} (seed {result.meta.get('seed')})"
    transport = pl.col("transport") if "transport" in flows.columns else pl.lit("tcp")
    _print_flows(title, flows.filter(transport == "tcp"), FLOW_COLUMNS, by_generator, GENERATOR_COLUMNS, all_flows)
    _print_flows(f"datagram {title}", flows.filter(transport == "udp"), DATAGRAM_COLUMNS, datagrams_by_generator, DATAGRAM_GENERATOR_COLUMNS, all_flows)
    _print_flows(f"QUIC {title}", flows.filter(transport == "quic"), QUIC_COLUMNS, quic_by_generator, QUIC_GENERATOR_COLUMNS, all_flows)
    links = result.links
    radio = links["arq_attempts"].sum() > 0 or links["bad_share"].is_not_null().any()
    out.print(result_table("links", links, LINK_COLUMNS + (RADIO_COLUMNS if radio else [])))
    if result.cells.height:
        out.print(result_table("cells", result.cells, CELL_COLUMNS))


def _print_flows(
    title: str, flows: pl.DataFrame, columns: list[str], summary: Callable[[pl.DataFrame], pl.DataFrame], summary_columns: list[str], all_flows: bool
) -> None:
    """``flows`` one by one (the scenario's own, up to LISTED_FLOWS, or all with
    ``all_flows``), the rest as one ``summary`` row per generator."""
    import polars as pl

    own = flows.filter(pl.col("generator").is_null())
    listed = flows if all_flows else own if own.height <= LISTED_FLOWS else own.clear()
    if listed.height:
        out.print(result_table(title, listed, columns))
    if listed.height < flows.height:
        # The scenario's own flows get a summary row only when they are not listed.
        summarised = flows if listed.height == 0 else flows.filter(pl.col("generator").is_not_null())
        out.print(result_table(f"{title} by generator", summary(summarised), summary_columns))
        out.print(f"{summarised.height} of {flows.height} flows summarised by generator; --all lists every flow")


class Format(StrEnum):
    """How a command prints a run's tables."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


class TableName(StrEnum):
    """A run's tables, for ``--table``."""

    flows = "flows"
    links = "links"
    cells = "cells"
    events = "events"


def _tables(result: Result) -> dict[str, pl.DataFrame]:
    tables = {"flows": result.flows, "links": result.links}
    if result.cells.height:
        tables["cells"] = result.cells
    if result.events.height:
        tables["events"] = result.events
    return tables


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def print_frame(df: pl.DataFrame, form: Format) -> None:
    """One table on standard output as ``form`` (csv, json rows or markdown), every column at
    full precision."""
    if form == Format.csv:
        sys.stdout.write(df.write_csv())
    elif form == Format.json:
        sys.stdout.write(json.dumps(df.to_dicts(), default=str) + "\n")
    else:
        sys.stdout.write(_markdown(df) + "\n")


def _markdown(df: pl.DataFrame) -> str:
    lines = ["| " + " | ".join(df.columns) + " |", "|" + " --- |" * df.width]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in df.iter_rows()]
    return "\n".join(lines) + "\n"


def print_run(result: Result, form: Format, all_flows: bool = False, table: TableName = TableName.flows) -> None:
    """The run's tables on standard output: ``table`` as the terminal view above; ``csv`` the
    one table named ``table`` (every column, every flow, full precision); ``json`` an object
    of the run's ``meta`` and every table as a list of rows; ``markdown`` every table under
    its name."""
    if form == Format.table:
        print_result(result, all_flows)
        return
    tables = _tables(result)
    if form == Format.csv:
        if table not in tables:
            raise ValueError(f"--table: got {table.value!r}, but the run has no {table.value} table (cells come with a radio network, events with output.events)")
        sys.stdout.write(tables[table].write_csv())
    elif form == Format.json:
        doc = {"meta": result.meta, **{name: df.to_dicts() for name, df in tables.items()}}
        sys.stdout.write(json.dumps(doc, default=str) + "\n")
    else:
        for name, df in tables.items():
            sys.stdout.write(f"## {name}\n\n{_markdown(df)}\n")
