"""The Python API: running specs from files, text and dicts; tables; determinism; saving."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rtolab
from conftest import small_scenario
from rtolab import result_schema


def test_quickstart_file_runs_with_all_tables(quickstart: Path) -> None:
    r = rtolab.run(quickstart)
    declared = {name: [c.name for c in columns] for name, columns in result_schema.tables().items()}
    assert (r.flows.columns, r.links.columns, r.series.columns) == (declared["flows"], declared["links"], declared["series"])
    assert r.meta["seed"] == 7 and r.meta["sim_time_s"] == 120.0
    assert set(r.series["metric"].unique()) == {"cwnd", "ssthresh", "srtt", "rto", "queue"}
    assert list(r.pcaps) == ["radio"]
    # the unbounded flow has no end; finished bursts delivered exactly their share
    bulk = r.flows.filter(pl.col("name") == "bulk").row(0, named=True)
    assert bulk["end_s"] is None and bulk["size"] is None
    bursts = r.flows.filter(pl.col("kind") == "burst")
    assert bursts.height == 6
    assert (bursts["bytes"] == 30_000).all()


def test_printing_a_result_summarises_it(quickstart: Path) -> None:
    """``print(result)`` names the tables' shapes and the captures' sizes, not their bytes."""
    r = rtolab.run(quickstart, seed=7)
    text = repr(r)
    assert len(text) < 300, text
    assert f"flows {r.flows.height}×{r.flows.width}" in text and "radio" in text and f"{len(r.pcaps['radio']):,} B" in text


def test_dict_and_toml_text_give_the_same_result() -> None:
    text = """
duration = "20s"
name = "small"
[[links]]
name = "l"
rate = "2Mbps"
delay = "50ms"
queue = { kind = "droptail", limit = "20p" }
[[flows]]
name = "f"
route = ["l"]
"""
    a = rtolab.run(small_scenario())
    b = rtolab.run(text)
    assert_frame_equal(a.flows, b.flows)
    assert_frame_equal(a.links, b.links)


def test_numpy_scalars_in_a_mapping_are_the_numbers_they_hold() -> None:
    """A spec built with numpy (a grid from ``np.arange``, a value from a DataFrame) runs as
    the same spec written with Python numbers, and hashes the same in a study."""
    np = pytest.importorskip("numpy")
    from rtolab.study import spec_hash

    plain = small_scenario()
    plain["flows"][0]["tcp"] = {"iw": 10, "max_window": 20}
    with_numpy = small_scenario()
    with_numpy["flows"][0]["tcp"] = {"iw": np.int64(10), "max_window": np.int32(20)}
    assert_frame_equal(rtolab.run(plain).flows, rtolab.run(with_numpy).flows)
    assert spec_hash(plain) == spec_hash(with_numpy)
    with pytest.raises(TypeError, match="type set"):
        rtolab.run({**plain, "name": {"a"}})


def test_lossless_goodput_matches_link_arithmetic() -> None:
    """2 Mb/s with 1448 B payload in 1500 B packets: at most 1.9307 Mb/s of goodput; a
    20-packet queue above a 17-packet BDP keeps the link busy after slow start."""
    r = rtolab.run(small_scenario(duration="60s"))
    goodput = r.flows["goodput_bps"][0]
    assert 0.97 * 2e6 * 1448 / 1500 <= goodput <= 2e6 * 1448 / 1500


def test_same_seed_identical_tables_different_seed_different_draws() -> None:
    spec = small_scenario(links=[{"name": "l", "rate": "2Mbps", "delay": "50ms", "loss": 0.01}])
    a, b, c = rtolab.run(spec, seed=5), rtolab.run(spec, seed=5), rtolab.run(spec, seed=6)
    assert_frame_equal(a.flows, b.flows)
    assert_frame_equal(a.links, b.links)
    assert a.flows["retransmits"][0] != c.flows["retransmits"][0] or a.links["loss_drops"][0] != c.links["loss_drops"][0]


def test_save_and_load_round_trip(tmp_path: Path, quickstart: Path) -> None:
    r = rtolab.run(quickstart)
    out = r.save(tmp_path / "run")
    assert sorted(p.name for p in out.iterdir()) == [".rtolab-owned.json", "flows.parquet", "links.parquet", "meta.json", "pcap", "series.parquet"]
    back = rtolab.Result.load(out)
    assert_frame_equal(back.flows, r.flows)
    assert_frame_equal(back.series, r.series, check_dtypes=False)
    assert back.meta == r.meta
    assert back.pcaps == r.pcaps
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "staging directory left behind"


def test_schema_describes_the_spec() -> None:
    s = rtolab.schema()
    assert {"links", "flows", "generators", "output", "duration", "seed"} <= set(s["properties"])


def test_rust_panic_surfaces_as_simulation_error() -> None:
    with pytest.raises(rtolab.SimulationError, match="deliberate test panic"):
        rtolab._core._panic_for_test()


def test_event_budget_fails_loudly() -> None:
    with pytest.raises(rtolab.SimulationError, match="budget of 1000 events"):
        rtolab.run(small_scenario(limits={"max_events": 1000}))
