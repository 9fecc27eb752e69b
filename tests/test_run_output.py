"""What `rtolab run` and `rtolab demo` print: the scenario's own flows one by one, generated
flows as one summary row per generator, every flow only with `--all`."""

from __future__ import annotations

import io

from pathlib import Path

import polars as pl
import pytest

import rtolab
from conftest import QUICKSTART, rtolab_cli
from rtolab.flow_summary import SCENARIO_FLOWS, by_generator


def test_summary_counts_quantiles_and_sums_per_generator() -> None:
    flows = pl.DataFrame(
        {
            "name": ["bulk", *(f"web.{i}" for i in range(11))],
            "kind": ["flow", *["web"] * 11],
            "generator": [None, *["web"] * 11],
            "end_s": [None, *[1.0] * 10, None],
            "goodput_bps": [5e6, *(float(i) for i in range(1, 11)), None],
            "timeouts": [2, *[1] * 11],
            "spurious_timeouts": [1, *[0] * 10, 1],
        },
        schema_overrides={"timeouts": pl.UInt64, "spurious_timeouts": pl.UInt64},
    )
    summary = by_generator(flows)
    assert summary["generator"].to_list() == [SCENARIO_FLOWS, "web"]
    web = summary.row(1, named=True)
    assert (web["kind"], web["flows"], web["finished"]) == ("web", 11, 10)
    assert web["goodput_median_bps"] == pytest.approx(5.5)  # the flow that never started is left out
    assert web["goodput_p90_bps"] == pytest.approx(9.1)  # linear between the 9th and 10th
    assert (web["timeouts"], web["spurious_timeouts"]) == (11, 1)
    assert summary.row(0, named=True)["goodput_median_bps"] == 5e6


def flows_section(stdout: str) -> str:
    return stdout[: stdout.index("links")]


def test_run_summarises_hundreds_of_web_flows() -> None:
    proc = rtolab_cli("run", str(QUICKSTART))
    assert proc.returncode == 0, proc.stderr
    flows = flows_section(proc.stdout)
    assert "bulk" in flows  # the scenario's own flow keeps its row
    assert "web1.u" not in flows and "burst0.0" not in flows
    web = next(line for line in flows.splitlines() if "web1" in line)
    assert "190" in web
    assert "--all lists every flow" in flows
    assert SCENARIO_FLOWS not in flows  # listed one by one, so not summarised again
    assert "196 of 197 flows summarised" in flows  # QUICKSTART: 1 bulk, 6 burst, 190 web
    assert len(proc.stdout.splitlines()) < 40


def test_many_own_flows_are_one_summary_row_named_literally(tmp_path: Path) -> None:
    """More own flows than are listed: they become the `[[flows]]` row, printed as written
    (brackets in names are text, not terminal markup)."""
    flows = "".join(f'[[flows]]\nname = "f[{i}]"\nroute = ["l"]\nsize = "10kB"\n' for i in range(21))
    scenario = tmp_path / "many.toml"
    scenario.write_text(f'name = "many"\nduration = "5s"\n[[links]]\nname = "l"\nrate = "10Mbps"\ndelay = "10ms"\n{flows}')
    proc = rtolab_cli("run", str(scenario))
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in flows_section(proc.stdout).splitlines() if SCENARIO_FLOWS in line)
    assert row.split("│")[3].strip() == "21"
    listed = rtolab_cli("run", str(scenario), "--all")
    assert "f[20]" in flows_section(listed.stdout)


def test_run_all_lists_every_flow() -> None:
    proc = rtolab_cli("run", str(QUICKSTART), "--all")
    assert proc.returncode == 0, proc.stderr
    flows = flows_section(proc.stdout)
    names = [line.split()[1] for line in flows.splitlines() if line.startswith("│")]
    assert len(names) == 1 + 6 + 190
    assert "web1.u1.0" in names and "burst0.5" in names
    assert "by generator" not in flows


def test_demo_prints_summaries_not_every_web_flow(tmp_path: Path) -> None:
    proc = rtolab_cli("demo", "--out", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stderr
    assert "web1.u" not in flows_section(proc.stdout)
    assert len(proc.stdout.splitlines()) < 40
    assert (tmp_path / "demo" / "goodput.png").exists()


def test_run_prints_csv_json_and_markdown_that_parse(quickstart: Path) -> None:
    """`--format csv` is the flows table itself (every flow, full precision: it equals the
    saved table), `--format json` holds meta and every table, `--format markdown` one
    table per heading."""
    import json

    r = rtolab.run(quickstart)
    csv = rtolab_cli("run", str(quickstart), "--format", "csv")
    assert csv.returncode == 0, csv.stderr
    assert pl.read_csv(io.StringIO(csv.stdout)).equals(pl.read_csv(io.StringIO(r.flows.write_csv())))
    links = rtolab_cli("run", str(quickstart), "--format", "csv", "--table", "links")
    assert pl.read_csv(io.StringIO(links.stdout)).height == r.links.height
    doc = json.loads(rtolab_cli("run", str(quickstart), "--format", "json").stdout)
    assert set(doc) == {"meta", "flows", "links"} and len(doc["flows"]) == r.flows.height and doc["meta"]["seed"] == r.meta["seed"]
    md = rtolab_cli("run", str(quickstart), "--format", "markdown").stdout
    assert md.count("## ") == 2 and f"| {' | '.join(r.links.columns)} |" in md
    bad = rtolab_cli("run", str(quickstart), "--format", "csv", "--table", "cells")
    assert bad.returncode == 2 and "no cells table" in bad.stderr


def test_the_terminal_view_folds_at_80_columns_and_cuts_nothing(quickstart: Path) -> None:
    """On an 80-column terminal a value or header wraps inside its cell; rich's ellipsis
    (a cut value) never appears."""
    from rich.console import Console

    from rtolab.cli_output import FLOW_COLUMNS, LINK_COLUMNS, result_table

    r = rtolab.run(quickstart)
    console = Console(width=80, record=True)
    console.print(result_table("flows", r.flows.head(5), FLOW_COLUMNS))
    console.print(result_table("links", r.links, LINK_COLUMNS))
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_set_overrides_fields_of_the_scenario_file(quickstart: Path) -> None:
    """`--set` takes a study's dotted paths and TOML values (else text): halving the radio
    link's rate halves what the lone bulk flow can carry; a malformed override or a missing
    path exits 2 naming it."""
    import io

    def bulk_goodput(*sets: str) -> float:
        proc = rtolab_cli("run", str(quickstart), "--format", "csv", *(a for s in sets for a in ("--set", s)))
        assert proc.returncode == 0, proc.stderr
        flows = pl.read_csv(io.StringIO(proc.stdout))
        return float(flows.filter(pl.col("name") == "bulk")["goodput_bps"][0])

    full, half = bulk_goodput(), bulk_goodput("links.radio.rate=1Mbps")
    assert half < 0.6 * full  # 2 Mbit/s → 1 Mbit/s, shared with the same bursts and web users
    assert bulk_goodput('flows.bulk.tcp.stack="linux"', "flows.bulk.tcp.iw=3") > 0
    for bad, words in (("radio.rate", "expected KEY=VALUE"), ("links.zzz.rate=1Mbps", "no element named 'zzz'")):
        proc = rtolab_cli("run", str(quickstart), "--set", bad)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
