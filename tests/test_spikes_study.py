"""Paper 003's validation: rtolab's simulator against the renewal-reward model, on the set-up
of Sec. 4.1 (studies.spikes), and the end-to-end reproduction."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from conftest import assert_graded
import pytest

from rtolab.executors import LocalExecutor
from rtolab.reproduce import reproduce
from rtolab.studies import spikes, spikes_findings, spikes_analysis as analysis
from rtolab.sweep import sweep


@pytest.fixture(scope="module")
def table_40k(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    """40 kbps, all three spike-length ranges, E(T) ∈ {10, 20, 30, 50}, p ∈ {0, 2 %},
    3 replications of 20 000 s (the sweep takes a few seconds)."""
    study = spikes.study(replications=3, duration_s=20_000, means=[10, 20, 30, 50], rates=[40_000], losses=[0.0, 0.02])
    flows = sweep(study, tmp_path_factory.mktemp("spikes") / "sweep", executor=LocalExecutor(2))
    return analysis.compare(flows)


def test_window_cap_is_the_bdp_rounded_to_a_whole_packet() -> None:
    """Sec. 4.1: R = 2 · 100 ms + one 576 B packet's time (115.2 ms at 40 kbps, 46.08 ms at
    100 kbps); Cmax·R = 40 000 · 0.3152 / 4 608 = 2.736 and 100 000 · 0.24608 / 4 608 = 5.340
    packets, by hand."""
    assert spikes.bdp_packets(40_000) == pytest.approx(2.736, abs=1e-3)
    assert spikes.bdp_packets(100_000) == pytest.approx(5.340, abs=1e-3)
    assert (spikes.window_nearest(40_000), spikes.window_nearest(100_000)) == (3, 5)
    assert (spikes.window_ceil(40_000), spikes.window_ceil(100_000)) == (3, 6)
    ablation = spikes.window_study(quick=True)
    assert {c["flows.bulk.tcp.max_window"] for c in ablation.cases} == {6}
    assert {c["flows.bulk.tcp.max_window"] for c in spikes.study(quick=True).cases} == {3, 5}


def test_lossless_model_agrees_with_simulation_at_40kbps(table_40k: pl.DataFrame) -> None:
    """Sec. 4.1: "in the low bandwidth lossless case the model and the simulations match
    exactly"; the issue asks for 3 % with spike lengths U[5, 10] s and E(T) ≥ 20 s."""
    rows = table_40k.filter((pl.col(analysis.SD_LO) == 5) & (pl.col(analysis.LOSS) == 0.0) & (pl.col(analysis.MEAN) >= 20))
    assert rows.height == 3
    for row in rows.iter_rows(named=True):
        assert abs(row["rel_error"]) < 0.03, row


@pytest.mark.parametrize("loss", [0.0, 0.02])
def test_simulated_goodput_is_monotone_like_the_model(table_40k: pl.DataFrame, loss: float) -> None:
    """Goodput falls with the spike length and rises with E(T), in simulation and model."""
    part = table_40k.filter(pl.col(analysis.LOSS) == loss)
    for column in ("sim_bps", "model_bps"):
        for (_lo, _hi), rows in part.group_by([analysis.SD_LO, analysis.SD_HI]):
            by_mean = rows.sort(analysis.MEAN)[column].to_list()
            assert by_mean == sorted(by_mean), (column, _lo, _hi)
        for (_mean,), rows in part.group_by([analysis.MEAN]):
            ordered = {(r[analysis.SD_LO], r[analysis.SD_HI]): r[column] for r in rows.iter_rows(named=True)}
            assert ordered[(1, 2)] > ordered[(1, 5)] > ordered[(5, 10)], (column, _mean)


def test_every_spike_timeout_is_spurious_without_loss(table_40k: pl.DataFrame) -> None:
    """Spikes hold packets and never drop them: without congestion loss every timeout the
    simulator counts must be spurious."""
    lossless = table_40k.filter(pl.col(analysis.LOSS) == 0.0)
    assert (lossless["timeouts_per_run"] > 0).all()
    assert (lossless["spurious_share"] == 1.0).all()


def test_reproduce_spikes_quick_end_to_end(tmp_path: Path) -> None:
    """``rtolab reproduce spikes --quick`` (2 replications of its 5, for time): every point
    compared, Figures 6–9 as PNG and SVG."""
    r = reproduce("spikes", tmp_path, quick=True, executor=LocalExecutor(2), replications=2)
    assert r.failed == 0
    assert_graded(tmp_path / "findings.csv", spikes_findings.REGISTRY)
    table = pl.read_csv(tmp_path / "comparison.csv")
    assert table.height == 2 * 3 * len(spikes.MEANS_QUICK) * 3
    assert table["rel_error"].is_finite().all()
    for figure in (6, 7, 8, 9):
        for suffix in ("png", "svg"):
            assert (tmp_path / f"figure{figure}.{suffix}").stat().st_size > 10_000
    sensitivity = pl.read_csv(tmp_path / "sensitivity.csv")
    # Sec. 4.2: uniform intervals are the worst case, the Markov-modulated process beats the
    # exponential one with the same mean.
    at_10 = {r["law"]: r["goodput_bps"] for r in sensitivity.filter((pl.col("mean_interval_s") == 10) & (pl.col("loss") == 0.0)).iter_rows(named=True)}
    assert min(at_10, key=at_10.__getitem__) == "uniform"
    assert at_10["Markov-modulated exp."] > at_10["exponential"]
