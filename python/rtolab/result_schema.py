"""The result tables' schemas as the core defines them (one definition per table, in Rust):
each column's name, polars dtype, Arrow type, nullability, unit and description, and the
series metrics with the unit of their values. ``rtolab schema --results`` prints them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import polars as pl

from rtolab import _core
from rtolab.sweep_quantities import KINDS


@dataclass(frozen=True)
class Column:
    """One column of a result table; ``dtype`` is the polars dtype ``rtolab.run`` gives it."""

    name: str
    dtype: str
    arrow: str
    nullable: bool
    unit: str
    description: str


@dataclass(frozen=True)
class Metric:
    """One series metric: its name in ``output.series`` and the ``metric`` column, the unit
    of its ``value`` and what it records."""

    name: str
    unit: str
    description: str


#: The columns ``rtolab sweep`` (and ``rtolab.load``) put before every table's own, followed by
#: one column per grid or case parameter, named by its dotted path, as written; then, for each
#: parameter written with units throughout, its value in SI units (``sweep_quantities``):
#: ``<path>_bps`` (bit/s), ``<path>_s`` (s) or ``<path>_bytes`` (bytes), Float64.
SWEEP_COLUMNS = [
    Column("run", "String", "Utf8", False, "", "The run's key: the hash of its scenario, its seed and its tag.* labels."),
    Column("point", "Int64", "Int64", False, "", "The grid point (parameter combination), the same for each of its replications."),
    Column("replication", "Int64", "Int64", False, "", "Which replication of its point the run is, from 0."),
    Column("seed", "UInt64", "UInt64", False, "", "The run's seed."),
    Column("spec_hash", "String", "Utf8", False, "", "The hash of the run's whole scenario: the first 16 hex digits of the SHA-256 of its canonical JSON (keys sorted)."),
]

#: After the parameters: each one written with units throughout, in SI units.
QUANTITY_COLUMNS = [
    Column(f"<parameter>_{suffix}", "Float64", "Float64", True, unit, f"A study parameter whose values are all {kind}s written with units, in {unit}; its text stays in <parameter>.")
    for kind, (suffix, unit) in KINDS.items()
]


def dtypes() -> dict[str, pl.Schema]:
    """Each table's polars schema, as ``rtolab.run`` returns it (``entity`` an Enum of the
    run's own flows and links, here empty)."""
    return {table: pl.DataFrame(empty).schema for table, empty, _ in _core.result_schemas()}


def tables() -> dict[str, list[Column]]:
    """Each table's columns, in the order a run returns tables and columns."""
    out: dict[str, list[Column]] = {}
    for table, empty, columns in _core.result_schemas():
        schema = pl.DataFrame(empty).schema
        out[table] = [Column(name, str(schema[name].base_type()), arrow, nullable, unit, description) for name, arrow, nullable, unit, description in columns]
    return out


def series_metrics() -> list[Metric]:
    """Every series metric, in the order of the ``metric`` column's categories."""
    return [Metric(*m) for m in _core.series_metrics()]


def as_json() -> dict[str, Any]:
    """``{table: {"columns": [...]}}``, the series with its ``metrics`` too."""
    out: dict[str, Any] = {table: {"columns": [asdict(c) for c in columns]} for table, columns in tables().items()}
    out["series"]["metrics"] = [asdict(m) for m in series_metrics()]
    out["sweep"] = {"columns": [asdict(c) for c in SWEEP_COLUMNS], "quantities": [asdict(c) for c in QUANTITY_COLUMNS]}
    return out
