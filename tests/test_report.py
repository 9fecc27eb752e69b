"""``rtolab report``: intervals over replications (a hand-computed example), groups, the
warm-up cut, unbounded and unfinished flows, the axis rule, and the page in a real browser."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from conftest import rtolab_cli
from rtolab import report, report_data
from rtolab.report_figures import wants_log
from rtolab.study import Study
from rtolab.executors import LocalExecutor
from rtolab.sweep import sweep


def synthetic(goodputs: dict[str, list[float]]) -> report_data.Flows:
    """One group, one grid point; ``goodputs`` maps each run to its flows' goodputs."""
    rows = [{"run": run, "group": "web", "goodput_bps": g} for run, values in goodputs.items() for g in values]
    return report_data.Flows("t", [], pl.DataFrame(rows), 0.0, 0)


def test_the_interval_takes_replications_not_flows_as_samples() -> None:
    """Run means 2, 5, 2 (from 2 + 3 + 1 flows): mean 3, s = √3, t(0.95, 2) = 2.919986 (a
    t table), half-width 2.919986 · √3 / √3; pooled over the six flows the mean would be 2.5."""
    row = report_data.summary(synthetic({"a": [1, 3], "b": [5], "c": [2, 2, 2]}), "goodput_bps").row(0, named=True)
    assert row["replications"] == 3 and row["flows"] == 6
    assert row["mean"] == pytest.approx(3.0)
    assert row["ci_low"] == pytest.approx(3 - 2.919986, abs=1e-5)
    assert row["ci_high"] == pytest.approx(3 + 2.919986, abs=1e-5)
    assert row["flow median"] == pytest.approx(2.0)


def test_one_replication_has_no_interval() -> None:
    row = report_data.summary(synthetic({"a": [1, 3]}), "goodput_bps").row(0, named=True)
    assert row["replications"] == 1 and row["mean"] == 2.0 and np.isnan(row["ci_low"])


def test_the_axis_goes_log_only_for_a_wide_positive_spread() -> None:
    assert wants_log(np.array([1.0, 10.0, 1000.0, 5000.0]))
    assert not wants_log(np.array([10.0, 20.0, 500.0]))
    assert not wants_log(np.array([0.0, 1.0, 1e6]))


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bulk flow, a burst of 3 and 2 web users for 15 s, at two rates, 3 replications."""
    scenario = {
        "name": "report-check",
        "duration": "15s",
        "links": [{"name": "l", "rate": "2Mbps", "delay": "50ms", "queue": {"kind": "droptail", "limit": "20p"}}],
        "flows": [{"name": "bulk", "route": ["l"]}],
        "generators": [
            {"kind": "burst", "flows": 3, "total": "90kB", "start": "1s", "route": ["l"]},
            {"kind": "web", "users": 2, "size": "pareto(mean=25000B, shape=1.1)", "think": "exp(1s)", "route": ["l"]},
        ],
    }
    out = tmp_path_factory.mktemp("report") / "sweep"
    sweep(Study.from_dict({"name": "report-check", "scenario": scenario, "grid": {"links.l.rate": ["1Mbps", "2Mbps"]}, "replications": 3, "seed": 5}), out, executor=LocalExecutor(1))
    return out


def test_groups_points_and_the_warm_up_cut(swept: Path) -> None:
    flows = report_data.load(swept, "generator")
    assert set(flows.table["group"]) == {"bulk", "burst0", "web1"}
    by_kind = report_data.summary(report_data.load(swept, "kind"), "goodput_bps")
    assert set(by_kind["group"]) == {"flow", "burst", "web"} and set(by_kind["replications"]) == {3}
    cut = report_data.load(swept, "generator", warm_up_s=2.0)
    assert cut.left_out == flows.table.filter(pl.col("start_s") < 2.0).height > 0
    assert cut.table.filter(pl.col("start_s") < 2.0).is_empty()


def test_unbounded_flows_have_no_completion_time_and_unfinished_ones_are_counted(swept: Path) -> None:
    flows = report_data.load(swept)
    bulk = flows.table.filter(pl.col("group") == "bulk")
    assert bulk["completion_s"].null_count() == bulk.height and not bulk["unfinished"].any()
    done = report_data.summary(flows, "completion_s")
    assert "bulk" not in set(done["group"])
    events = report_data.events(flows)
    unfinished = flows.table.group_by("links.l.rate", "group").agg(pl.col("unfinished").sum())
    assert events["unfinished"].sum() == unfinished["unfinished"].sum()


def test_the_command_writes_a_page_and_replaces_an_older_report(swept: Path) -> None:
    (swept / "report").mkdir(exist_ok=True)
    (swept / "report" / "elapsed_s.png").write_bytes(b"old")
    proc = rtolab_cli("report", str(swept), "--html", "--warm-up", "1")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in (swept / "report").iterdir()}
    assert "elapsed_s.png" not in names
    assert {"index.html", "goodput_bps.csv", "completion_s.csv", "events.csv", "goodput_bps.png", "events.png"} <= names
    page = (swept / "report" / "index.html").read_text()
    assert "<title>rtolab report: report-check</title>" in page and "90 %" in page and ">nan<" not in page and ">None<" not in page


def _chromium() -> str | None:
    return os.environ.get("RTOLAB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def test_the_page_renders_in_a_real_browser(swept: Path) -> None:
    """Loads report/index.html in Chromium (Playwright): no script or console error, every
    figure decoded with a size, every table with rows."""
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (make validate installs it)")
    browser_path = _chromium()
    if browser_path is None:
        pytest.skip("no chromium on this machine (apt-get install -y chromium; make validate installs it)")
    report.write(swept, html_page=True)
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto((swept / "report" / "index.html").as_uri())
        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        rows = page.evaluate("Array.from(document.querySelectorAll('table')).map(t => t.tBodies[0].rows.length)")
        title = page.title()
        browser.close()
    assert errors == []
    assert title == "rtolab report: report-check"
    assert len(images) >= 5 and all(done and w > 0 and h > 0 for done, w, h in images)
    assert len(rows) == 3 and all(n > 0 for n in rows)
