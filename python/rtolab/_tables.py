"""Turns the columnar dicts of ``rtolab._core`` into polars DataFrames without creating a
Python object per cell: numeric columns arrive as little-endian buffers (numpy views), string
columns as lists, optional values with a validity mask."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

_DTYPES = {"f64": "<f8", "u64": "<u8"}


def column(name: str, spec: tuple[str, Any, Any]) -> pl.Series:
    dtype, data, mask = spec
    if dtype == "str":
        return pl.Series(name, data, dtype=pl.String)
    series = pl.Series(name, np.frombuffer(data, dtype=_DTYPES[dtype]))
    if mask is not None:
        missing = np.flatnonzero(np.frombuffer(mask, dtype=np.uint8) == 0)
        if missing.size:
            series = series.scatter(missing, None)
    return series


def table(columns: dict[str, tuple[str, Any, Any]]) -> pl.DataFrame:
    return pl.DataFrame([column(name, spec) for name, spec in columns.items()])


def series_table(raw: dict[str, Any]) -> pl.DataFrame:
    """The long-format series table: time_s, entity, metric, value."""
    codes = table(raw["series"])

    def categories(name: str, labels: list[str]) -> pl.Series:
        values = pl.Series(name, labels, dtype=pl.Enum(labels or [""]))
        return values.gather(codes[name].cast(pl.UInt32))

    return pl.DataFrame(
        {
            "time_s": codes["time_s"],
            "entity": categories("entity", raw["series_entities"]),
            "metric": categories("metric", raw["series_metrics"]),
            "value": codes["value"],
        }
    )
