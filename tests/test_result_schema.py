"""The result tables' one schema (defined in Rust): `rtolab schema --results` lists exactly the
columns `rtolab.run` returns, with the dtypes it returns them in; optional values are nulls;
series labels are Enums of the run's entities and of every metric."""

from __future__ import annotations

import json
from typing import Any

import polars as pl
import pytest

import rtolab
from conftest import rtolab_cli
from rtolab import result_schema

#: Fills every table: a Gilbert–Elliott link (with FQ-CoDel for its ACKs, for the sojourn
#: series), a radio network, flows of every kind, every series metric, every kind of event.
EVERY_TABLE: dict[str, Any] = {
    "duration": "4s",
    "seed": 3,
    "links": [
        {
            "name": "radio",
            "rate": "2Mbps",
            "delay": "50ms",
            "loss": {"kind": "gilbert-elliott", "good": "exp(1s)", "bad": "exp(0.2s)", "ber_good": 1e-6, "ber_bad": 1e-4},
            "reverse": {"queue": {"kind": "fq_codel"}},
        }
    ],
    "flows": [
        {"name": "bulk", "route": ["radio"]},
        {"name": "short", "route": ["hsdpa"], "size": "30kB"},
        # A controller that paces, for the pacing_rate series.
        {"name": "paced", "route": ["radio"], "size": "30kB", "tcp": {"stack": "linux", "cc": "bbr"}},
        # A QUIC transfer, for the rttvar series and the pto and lost events.
        {"name": "quic", "route": ["radio"], "size": "60kB", "quic": {"cc": "newreno"}},
    ],
    "generators": [{"kind": "web", "users": 2, "size": "20kB", "think": "exp(0.5s)", "route": ["radio"]}],
    "radio": {"cells": 1},
    "output": {"series": [m.name for m in result_schema.series_metrics()], "events": ["timeout", "spurious", "undo", "retransmit", "drop", "spike", "pto", "lost"]},
}

#: The dtypes a result column may have (Enum only for the series' labels).
PLAIN_DTYPES = {pl.UInt64, pl.Float64, pl.String, pl.Boolean}


@pytest.fixture(scope="module")
def result() -> rtolab.Result:
    return rtolab.run(EVERY_TABLE)


@pytest.fixture(scope="module")
def printed() -> dict[str, Any]:
    proc = rtolab_cli("schema", "--results", "--json")
    assert proc.returncode == 0, proc.stderr
    schemas: dict[str, Any] = json.loads(proc.stdout)
    return schemas


def frames(r: rtolab.Result) -> dict[str, pl.DataFrame]:
    return {"flows": r.flows, "links": r.links, "cells": r.cells, "series": r.series, "events": r.events}


def test_schema_results_lists_every_column_run_returns_with_its_dtype(result: rtolab.Result, printed: dict[str, Any]) -> None:
    tables = frames(result)
    assert list(printed) == [*tables, "sweep"]  # the sweep's columns: test_study_store
    for name, df in tables.items():
        assert df.height > 0, f"{name} is empty"
        columns = printed[name]["columns"]
        assert [c["name"] for c in columns] == df.columns, name
        assert [c["dtype"] for c in columns] == [str(dtype.base_type()) for dtype in df.dtypes], name
        assert all(c["description"] for c in columns), name


def test_columns_are_plain_dtypes_and_nulls_only_where_nullable(result: rtolab.Result) -> None:
    for name, columns in result_schema.tables().items():
        df = frames(result)[name]
        for c in columns:
            if name == "series" and c.name in ("entity", "metric"):
                continue
            assert df.schema[c.name] in PLAIN_DTYPES, f"{name}.{c.name}: {df.schema[c.name]}"
            assert c.nullable or df[c.name].null_count() == 0, f"{name}.{c.name} has nulls"


def test_optional_values_are_nulls(result: rtolab.Result) -> None:
    bulk = result.flows.filter(pl.col("name") == "bulk").row(0, named=True)
    assert bulk["end_s"] is None and bulk["size"] is None and bulk["generator"] is None
    web = result.flows.filter(pl.col("kind") == "web")
    assert web["generator"].null_count() == 0


def test_series_labels_are_enums_of_the_entities_and_every_metric(result: rtolab.Result) -> None:
    links = [f"{link}.{direction}" for link, direction in result.links.select("link", "direction").iter_rows()]
    # One mobile user, the flow "short" into the radio network, with the per-user series.
    assert result.series.schema["entity"] == pl.Enum([*result.flows["name"], *links, "hsdpa.ue0"])
    assert result.series.schema["metric"] == pl.Enum([m.name for m in result_schema.series_metrics()])
    assert set(result.series["metric"].unique()) == {m.name for m in result_schema.series_metrics()}


def test_schema_results_prints_every_table_and_metric(printed: dict[str, Any]) -> None:
    proc = rtolab_cli("schema", "--results")
    assert proc.returncode == 0, proc.stderr
    for name, table in printed.items():
        assert name in proc.stdout
        for c in table["columns"]:
            assert c["name"] in proc.stdout
    for m in printed["series"]["metrics"]:
        assert m["name"] in proc.stdout and m["unit"] in proc.stdout

