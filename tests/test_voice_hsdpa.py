"""The voice-over-HSDPA study (python/rtolab/studies/voice_hsdpa.py): its grid builds and every
point passes the scenario check, its base is paper 000's calibrated scenario at 100 users, and
the whole chain (sweep, delay-series pass, tables, figures, page) runs on the --quick path cut
to 20 s runs and 2 replications. No claim about what the study finds."""

from __future__ import annotations

import pytest

import copy
import subprocess
import sys
from pathlib import Path

import polars as pl

from rtolab.studies import minrto_hsdpa_calibration as calibration
from rtolab.studies import voice_hsdpa as v
from rtolab.studies.voice_hsdpa_analysis import KEYS, METRICS
from rtolab.sweep import spec_errors

POINTS = len(v.UDP_LEVELS) * len(v.SCHEDULERS) * len(v.MIN_RTOS) * len(v.VOICE_CALLS)


def test_the_grid_builds_and_every_point_passes_the_scenario_check() -> None:
    s = v.study()
    points = s.points()
    assert s.replications == v.REPLICATIONS and len(points) == POINTS * s.replications
    assert s.base["duration"] == "300s" and s.seed == v.SEED
    assert spec_errors(points) == {}
    first = {p.point: p for p in points}
    for p in first.values():
        flows = p.spec["flows"]
        assert len(flows) == (0 if p.params[v.UDP] == "none" else v.UDP_FLOWS)
        assert all(f["udp"]["rate"] == v.UDP_RATE and ("on" in f["udp"]) == (p.params[v.UDP] == "on-off") for f in flows)
        assert p.spec["generators"][1]["users"] == p.params[v.VOICE]


def test_without_voice_and_udp_the_scenario_is_paper_000s_at_100_users() -> None:
    """The base is the reproduction's own builder at its frozen reading: take the voice
    generator (no calls) and the empty flow list away and paper 000's scenario is left."""
    base = copy.deepcopy(v.base_scenario())
    voice = base["generators"].pop()
    assert (voice["kind"], voice["users"]) == ("voip", 0) and base.pop("flows") == []
    paper = calibration.scenario(calibration.calibrated())
    paper["generators"][0]["users"] = v.LOAD_USERS
    assert base == paper


@pytest.mark.slow  # one of the longest end-to-end checks (5-7 s); `make test-all` runs it
def test_the_quick_chain_fills_its_tables(tmp_path: Path) -> None:
    out, docs = tmp_path / "out", tmp_path / "docs"
    proc = subprocess.run(
        [sys.executable, "-m", "rtolab.studies.voice_hsdpa", str(out), "--quick", "--docs", str(docs), "--workers", "2", "--duration", "20", "--replications", "2"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    runs = pl.read_csv(out / "runs.csv")
    assert runs.height == POINTS * 2
    assert runs.select(KEYS).unique().height == POINTS
    assert set(METRICS) <= set(runs.columns)
    assert runs["spurious_per_transfer"].null_count() == 0 and runs["timeouts_per_transfer"].null_count() == 0
    with_calls = runs.filter(pl.col("calls") > 0)
    assert with_calls["mos_mean"].null_count() == 0 and runs.filter(pl.col("calls") == 0)["mos_mean"].null_count() == runs.height - with_calls.height
    assert runs.filter(pl.col("udp") != "none")["udp_loss_share"].null_count() == 0
    summary = pl.read_csv(out / "summary.csv")
    assert summary.height == POINTS * len(METRICS)
    calls = pl.read_csv(out / "calls.csv")
    assert calls.height == sum(v.VOICE_CALLS) * POINTS // len(v.VOICE_CALLS) * 2
    assert calls["mos"].null_count() == 0 and (calls["mos"] > 0).all()
    effects = pl.read_csv(out / "effects.csv")
    assert set(effects["verdict"].unique()) <= {"higher", "lower", "not distinguished"} and effects.height > 0
    tails = pl.read_csv(out / "tails.csv")
    assert tails.height == POINTS // len(v.MIN_RTOS) and (tails["packets"] > 0).all()
    page = (docs / "voice-hsdpa.md").read_text()
    assert page.count("<!-- voice-hsdpa: generated") == 1 and "<!-- end of voice-hsdpa -->" in page and "--quick" in page
    assert sorted(p.name for p in (docs / "figures").iterdir()) == [f"voice-hsdpa-{n}.png" for n in ("delay", "mos", "spurious", "timeouts", "transfers")]
