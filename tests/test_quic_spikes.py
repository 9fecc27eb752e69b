"""The QUIC-spikes study (issue 44 §7): its studies build and every point passes the scenario
check; the per-spike reduction, the paired loss, the timer rates and the window ratios on
hand-made inputs, worked by hand; the srtt rescaling's guard; and the whole ``--quick``
chain (runs, tables, figures, page), checked for consistency between page and tables."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rtolab.studies import quic_spikes as q
from rtolab.studies import quic_spikes_analysis as analysis
from rtolab.studies import quic_spikes_runs as runs
from rtolab.sweep import spec_errors


def test_every_part_builds_and_passes_the_scenario_check() -> None:
    for part, s in q.studies(quick=True).items():
        points = s.points()
        assert spec_errors(points) == {}, part
        labels = {q.transport_label(p.spec["flows"][0] if part != "hsdpa" else p.spec["generators"][0]) for p in points}
        expected = set(q.TRANSPORTS) if part != "hsdpa" else {"tcp-ns2-sack1", "quic-newreno", "quic-cubic"}
        assert labels == expected, part
    full = q.studies()
    # Each web run has the load and transport its point says, and a key of its own.
    web = full["hsdpa"].points()
    assert len({p.key for p in web}) == len(web) == 3 * 2 * 3
    assert {(p.spec["generators"][0]["users"], p.replication) for p in web} == {(u, r) for u in q.HSDPA_USERS for r in range(3)}
    assert len(full["paper003"].points()) == 5 * 2 * 2 * 10
    assert len(full["today"].points()) == 5 * 2 * 2 * 10
    # Paper 003's window: Cmax·R = 100 kbit/s / (8 · 1228 B) · (0.2 s + 98.24 ms) = 3.04 packets.
    assert q.paper_window() == 3


def test_per_spike_reads_the_window_around_each_spike() -> None:
    """Spikes [10, 12] and [12.5, 14] in a 20 s run; cwnd 10 until 11, 2 from 11, 6 from 12.5,
    8 from 13. Timers at 11 (spurious), 12.2 (genuine), 13 (spurious)."""
    spikes = pl.DataFrame({"time_s": [10.0, 12.0, 12.5, 14.0], "detail": ["start", "end", "start", "end"]})
    cwnd = pl.DataFrame({"time_s": [0.0, 11.0, 12.5, 13.0], "value": [10.0, 2.0, 6.0, 8.0]})
    timers = pl.DataFrame({"time_s": [11.0, 12.2, 13.0], "oracle": ["spurious", "genuine", "spurious"]})
    rows = runs.per_spike(spikes, cwnd, timers, 20.0)
    first, second = rows
    # The first: before 10 (value 10), 1 s after its end (13: 8), least 2; the next spike
    # starts at 12.5 < 13, so not clean; its period [10, 12.5) holds two timers, one spurious.
    assert (first["cwnd_before"], first["cwnd_after"], first["cwnd_min"], first["clean"]) == (10.0, 8.0, 2.0, False)
    assert (first["timers"], first["spurious"]) == (2, 1)
    # The second: before 12.5 (2: the sample at 12.5 is not before), after at 15 (8), least 2.
    assert (second["cwnd_before"], second["cwnd_after"], second["cwnd_min"], second["clean"]) == (2.0, 8.0, 2.0, True)
    assert (second["timers"], second["spurious"]) == (1, 1)


def _summary(transport: str, spikes: str, replication: int, goodput: float, timers: int = 0, count: int = 0, per: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    quic = transport.startswith("quic")
    flow = {"name": "bulk", "route": ["radio"], "size": "inf", **({"quic": {"cc": transport.removeprefix("quic-")}} if quic else {"tcp": {"stack": "linux"}})}
    return {
        "params": {"links.radio.loss": 0.0, "flows.bulk": flow, "tag.spikes": spikes},
        "replication": replication,
        "flow": {"transport": "quic" if quic else "tcp", "goodput_bps": goodput, "ptos": timers if quic else None, "spurious_ptos": timers if quic else None,
                 "timeouts": None if quic else timers, "spurious_timeouts": None if quic else timers, "declared_lost": None, "spurious_declared_lost": None, "undos": 0},
        "mean_srtt_s": 0.3 if not quic else 0.25,
        "spike_count": count,
        "spike_time_s": 0.0,
        "spikes": per or [],
    }


def _spike(before: float, after: float, least: float, spurious: int) -> dict[str, Any]:
    return {"start_s": 0.0, "end_s": 1.0, "cwnd_before": before, "cwnd_after": after, "cwnd_min": least, "clean": True, "timers": spurious, "spurious": spurious}


@pytest.fixture
def hand_runs() -> list[dict[str, Any]]:
    """TCP: off 100, 100; on 80, 90 (losses 0.2, 0.1), 4 and 2 timeouts over 2 spikes each;
    windows (10 → 1 → 5) and (10 → 1 → 10), then (20 → 2 → 10), (20 → 20 → 20). QUIC NewReno:
    off 100, 120; on 90, 96 (losses 0.1, 0.2), 6 PTOs over 2 spikes each, windows unchanged."""
    rows = [
        _summary("tcp", "off", 0, 100.0), _summary("tcp", "off", 1, 100.0),
        _summary("tcp", "on", 0, 80.0, 4, 2, [_spike(10, 5, 1, 2), _spike(10, 10, 1, 2)]),
        _summary("tcp", "on", 1, 90.0, 2, 2, [_spike(20, 10, 2, 2), _spike(20, 20, 20, 0)]),
        _summary("quic-newreno", "off", 0, 100.0), _summary("quic-newreno", "off", 1, 120.0),
        _summary("quic-newreno", "on", 0, 90.0, 6, 2, [_spike(10, 10, 10, 3)] * 2),
        _summary("quic-newreno", "on", 1, 96.0, 6, 2, [_spike(10, 10, 10, 3)] * 2),
    ]
    return rows


def test_loss_timers_and_window_worked_by_hand(hand_runs: list[dict[str, Any]]) -> None:
    table = analysis.spike_runs("paper003", hand_runs)
    per = analysis.spike_rows("paper003", hand_runs)
    good = analysis.goodput(table)
    tcp = good.filter(pl.col("transport") == "tcp").row(0, named=True)
    quic = good.filter(pl.col("transport") == "quic-newreno").row(0, named=True)
    # Losses 0.2 and 0.1: mean 0.15; s = 0.0707, t(0.95, 1) = 6.3138: half-width 0.3157.
    assert tcp["loss_mean"] == pytest.approx(0.15)
    assert tcp["loss_ci_high"] - tcp["loss_mean"] == pytest.approx(6.3138 * 0.070711 / 2**0.5, rel=1e-4)
    assert quic["loss_mean"] == pytest.approx(0.15)
    versus = analysis.versus(table, "quic-newreno", "tcp").row(0, named=True)
    # Differences 0.1 − 0.2 = −0.1 and 0.2 − 0.1 = +0.1: mean 0.
    assert versus["mean"] == pytest.approx(0.0, abs=1e-12)
    t = analysis.timers(table, per)
    tt = t.filter(pl.col("transport") == "tcp").row(0, named=True)
    # TCP: 2 and 1 timeouts per spike (mean 1.5); 2/2 and 1/2 spikes with a spurious one.
    assert tt["timers_per_spike_mean"] == pytest.approx(1.5)
    assert tt["spiked_share_mean"] == pytest.approx(0.75)
    assert t.filter(pl.col("transport") == "quic-newreno")["spurious_per_spike_mean"].item() == pytest.approx(3.0)
    w = analysis.window(per).filter(pl.col("transport") == "tcp").row(0, named=True)
    # Run 0: after/before 0.5, 1.0 → 0.75; run 1: 0.5, 1.0 → 0.75. Least: 0.1, 0.1 → 0.1; 0.1, 1 → 0.55.
    assert w["ratio_after_mean"] == pytest.approx(0.75)
    assert w["ratio_min_mean"] == pytest.approx(0.325)
    # Each run's mean smoothed RTT, as the worker took it from the series.
    assert table.filter(pl.col("transport") == "quic-newreno")["mean_rtt_s"].to_list() == pytest.approx([0.25] * 4)


def test_a_run_without_its_baseline_is_named(hand_runs: list[dict[str, Any]]) -> None:
    table = analysis.spike_runs("paper003", hand_runs[1:])
    with pytest.raises(analysis.AnalysisError, match="tcp replication 0"):
        analysis.pairs(table)


def _cells(page: str, heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (its header and rule left out)."""
    rows: list[list[str]] = []
    for line in page.split(heading, 1)[1].splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]


@pytest.mark.slow
def test_the_quick_chain_writes_a_consistent_page(tmp_path: Path) -> None:
    out, docs = tmp_path / "out", tmp_path / "docs"
    assert q.main([str(out), "--quick", "--docs", str(docs), "--workers", "1"]) == 0
    page = (docs / "quic-spikes.md").read_text()
    for name in ("loss", "timers", "window", "hsdpa"):
        figure = docs / "figures" / "quic-spikes" / f"{name}.png"
        assert figure.stat().st_size > 10_000, name
        assert f"figures/quic-spikes/{name}.png" in page
    good = pl.read_csv(out / "good.csv")
    # Every goodput row of the page is the table's, to the digit shown.
    shown = _cells(page, "## Goodput")
    assert len(shown) == good.height
    for row, cells in zip(good.iter_rows(named=True), shown):
        assert cells[:3] == [row["part"], row["setting"], row["transport"]]
        assert cells[5].split(" ± ")[0] == f"{row['loss_mean'] * 100:.1f}"
    # A second call reuses every run.
    assert q.main([str(out), "--quick", "--workers", "1"]) == 0
    timing = (out / "timing.json").read_text()
    assert '"runs_made": 0' not in timing  # the first call's costs are kept, not overwritten
    # The page's run count is the studies'.
    total = sum(len(s.points()) for s in q.studies(quick=True).values())
    assert re.search(rf"\b{total} runs; wall time", page)
