"""The HSDPA radio network from Python: the cells table, saving it, the CLI's cells table,
and bad radio input exiting 2 with the field named."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

import rtolab
from rtolab.cli import app

HSDPA = {
    "duration": "20s",
    "radio": {"scheduler": "max-sir"},
    "generators": [
        {"kind": "web", "users": 30, "size": "pareto(mean=25000B, shape=1.1)", "think": "exp(1.5s)", "route": ["hsdpa"], "tcp": {"stack": "ns2-sack1"}}
    ],
}


def test_cells_table_has_one_row_per_cell_and_balances() -> None:
    r = rtolab.run(HSDPA)
    assert r.cells.height == 7
    assert r.cells["name"].to_list() == [f"hsdpa.cell{c}" for c in range(7)]
    # Every byte the cells carried was sent over the wired path first (IP bytes, headers
    # included), and not more: intact blocks carry each byte once.
    wired = r.links.filter((pl.col("link") == "hsdpa.wired") & (pl.col("direction") == "forward"))["bytes_sent"].item()
    assert 0 < r.cells["bytes"].sum() <= wired
    assert (r.cells["blocks_lost"] <= r.cells["blocks_sent"]).all()


def test_cells_survive_save_and_load(tmp_path: Path) -> None:
    r = rtolab.run(HSDPA)
    back = rtolab.Result.load(r.save(tmp_path / "run"))
    assert_frame_equal(back.cells, r.cells)


def test_cli_prints_the_cells(tmp_path: Path) -> None:
    spec = tmp_path / "hsdpa.toml"
    spec.write_text(
        'duration = "5s"\n[radio]\ncells = 1\n[[flows]]\nname = "f"\nroute = ["hsdpa"]\nsize = "200kB"\n'
    )
    result = CliRunner().invoke(app, ["run", str(spec)])
    assert result.exit_code == 0, result.output
    assert "cells" in result.output and "hsdpa.cell0" in result.output


@pytest.mark.parametrize(
    ("radio", "field"),
    [("cells = 0", "radio.cells"), ('radius = "-500m"', "radio.radius"), ("bler = 1.5", "radio.bler"), ('scheduler = "fifo"', "radio.scheduler"), ("users_per_tti = 16", "radio.users_per_tti"), ("common_power = 1", "radio.common_power")],
)
def test_bad_radio_input_exits_2_naming_the_field(tmp_path: Path, radio: str, field: str) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(f'duration = "5s"\n[radio]\n{radio}\n[[flows]]\nname = "f"\nroute = ["hsdpa"]\nsize = "20kB"\n')
    result = CliRunner().invoke(app, ["run", str(spec)])
    assert result.exit_code == 2
    assert field in result.output
    assert "Traceback" not in result.output
