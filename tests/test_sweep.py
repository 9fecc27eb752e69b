"""Studies and sweeps: grid expansion, seeds, hashing, resume after kill -9, executors agree,
failed runs recorded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rtolab
from rtolab.study import Study, derive_seed, set_path, spec_hash
from conftest import rtolab_cli, small_scenario


def study_dict(**overrides: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": "t",
        "scenario": small_scenario(duration="5s", links=[{"name": "l", "rate": "2Mbps", "delay": "50ms", "loss": 0.01}]),
        "grid": {"links.l.rate": ["1Mbps", "2Mbps"], "flows.f.tcp.rto": ["linux", "rfc6298", "ns2"]},
        "replications": 2,
        "seed": 9,
    }
    d.update(overrides)
    return d


def test_grid_expands_cartesian_with_replications_innermost() -> None:
    points = Study.from_dict(study_dict()).points()
    assert len(points) == 2 * 3 * 2
    assert [p.params for p in points[:4]] == [
        {"links.l.rate": "1Mbps", "flows.f.tcp.rto": "linux"},
        {"links.l.rate": "1Mbps", "flows.f.tcp.rto": "linux"},
        {"links.l.rate": "1Mbps", "flows.f.tcp.rto": "rfc6298"},
        {"links.l.rate": "1Mbps", "flows.f.tcp.rto": "rfc6298"},
    ]
    assert points[0].spec["links"][0]["rate"] == "1Mbps"
    assert points[0].spec["flows"][0]["tcp"] == {"rto": "linux"}


def test_cases_combine_with_the_grid() -> None:
    s = Study.from_dict(study_dict(grid={"flows.f.tcp.iw": [3, 10]}, cases=[{"links.0.rate": "1Mbps"}, {"links.0.rate": "5Mbps", "links.0.delay": "10ms"}], replications=1))
    assert [p.params for p in s.points()] == [
        {"links.0.rate": "1Mbps", "flows.f.tcp.iw": 3},
        {"links.0.rate": "1Mbps", "flows.f.tcp.iw": 10},
        {"links.0.rate": "5Mbps", "links.0.delay": "10ms", "flows.f.tcp.iw": 3},
        {"links.0.rate": "5Mbps", "links.0.delay": "10ms", "flows.f.tcp.iw": 10},
    ]
    assert s.parameters == ["links.0.rate", "links.0.delay", "flows.f.tcp.iw"]


def test_seed_depends_on_base_seed_and_replication_only() -> None:
    points = Study.from_dict(study_dict()).points()
    by_rep = {p.replication: p.seed for p in points}
    assert all(p.seed == by_rep[p.replication] for p in points)  # common random numbers
    assert by_rep[0] != by_rep[1]
    assert derive_seed(9, 0) == by_rep[0] and derive_seed(10, 0) != by_rep[0]


def test_seed_and_hash_are_stable_across_processes() -> None:
    spec = small_scenario()
    code = "import sys, json; from rtolab.study import derive_seed, spec_hash; print(derive_seed(9, 3), spec_hash(json.loads(sys.argv[1])))"
    import json

    out = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(derive_seed(9, 3)), spec_hash(spec)]
    # key order does not change the hash
    assert spec_hash(dict(reversed(list(spec.items())))) == spec_hash(spec)


def test_star_sets_every_element_and_tags_only_label() -> None:
    spec = small_scenario(generators=[{"kind": "burst", "flows": 1, "total": "9kB", "route": ["l"]} for _ in range(2)])
    set_path(spec, "generators.*.tcp.iw", 10)
    set_path(spec, "tag.link", "EDGE")
    assert [g["tcp"]["iw"] for g in spec["generators"]] == [10, 10]
    assert "tag" not in spec
    s = Study.from_dict(study_dict(grid={}, cases=[{"tag.link": "EDGE", "links.l.rate": "160kbps"}], replications=1))
    assert s.points()[0].params == {"tag.link": "EDGE", "links.l.rate": "160kbps"}


def test_bad_grid_paths_are_named() -> None:
    with pytest.raises(rtolab.SpecError, match="links.radio.*no element named 'radio'"):
        set_path(small_scenario(), "links.radio.rate", "1Mbps")
    with pytest.raises(rtolab.SpecError, match="index 4 is beyond"):
        set_path(small_scenario(), "flows.4.size", "1kB")


def test_study_tables_of_the_wrong_type_are_named(tmp_path: Path) -> None:
    """A file name where a table belongs gets one error naming the field and the fix."""
    with pytest.raises(rtolab.SpecError, match=r'study.scenario: got \'base.toml\', expected a table; to name a file, write base = "base.toml"'):
        Study.from_dict({"scenario": "base.toml"})
    with pytest.raises(rtolab.SpecError, match="study.grid: got 3, expected a table"):
        Study.from_dict({"scenario": small_scenario(), "grid": 3})
    with pytest.raises(rtolab.SpecError, match=r"study.cases: .* expected a list of tables"):
        Study.from_dict({"scenario": small_scenario(), "cases": {"tag.x": 1}})
    study = tmp_path / "study.toml"
    study.write_text('scenario = "base.toml"\n')
    proc = rtolab_cli("sweep", str(study), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "study.scenario" in proc.stderr


def test_point_is_the_grid_point_and_tags_make_separate_runs(tmp_path: Path) -> None:
    """`point` numbers parameter combinations, so grouping by it pools replications; two
    cases that differ only in `tag.*` labels are two runs (they used to share a key)."""
    cases = [{"tag.label": "a"}, {"tag.label": "b"}]
    study = study_dict(grid={"links.l.rate": ["1Mbps", "2Mbps"]}, cases=cases, replications=2)
    flows = rtolab.sweep(study, tmp_path / "sw", executor=rtolab.LocalExecutor(1))
    assert flows.height == 2 * 2 * 2  # cases × rates × replications, one flow each
    per_point = flows.group_by("point").agg(pl.col("replication").sort(), pl.col("tag.label").first()).sort("point")
    assert per_point["point"].to_list() == [0, 1, 2, 3]
    assert per_point["replication"].to_list() == [[0, 1]] * 4
    assert per_point["tag.label"].to_list() == ["a", "a", "b", "b"]
    # same spec and seed under both labels: identical simulations, separate rows
    a, b = (flows.filter(pl.col("tag.label") == t).sort("point", "replication") for t in ("a", "b"))
    assert a["goodput_bps"].to_list() == b["goodput_bps"].to_list()


def test_one_store_holds_one_study(tmp_path: Path) -> None:
    """Adding a grid parameter and sweeping into the same directory is refused with one error
    (it used to mix two studies' rows); more replications of the same study extend it."""
    out = tmp_path / "sw"
    small = {"links.l.rate": ["1Mbps"], "flows.f.tcp.rto": ["linux"]}
    assert rtolab.sweep(study_dict(grid=small, replications=1), out, executor=rtolab.LocalExecutor(1)).height == 1
    wider = {**small, "flows.f.tcp.iw": [3, 10]}
    with pytest.raises(rtolab.SpecError, match=r"holds study 't' \(\w+\), not 't' \(\w+\): different grid"):
        rtolab.sweep(study_dict(grid=wider, replications=1), out, executor=rtolab.LocalExecutor(1))
    assert rtolab.load(out).height == 1
    assert rtolab.sweep(study_dict(grid=small, replications=3), out, executor=rtolab.LocalExecutor(1)).height == 3


def test_sweep_writes_one_row_per_flow_per_run_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    flows = rtolab.sweep(study_dict(), out, executor=rtolab.LocalExecutor(1))
    assert flows.height == 12
    assert {"run", "point", "replication", "seed", "spec_hash", "links.l.rate", "flows.f.tcp.rto"} <= set(flows.columns)
    stamps = {p: p.stat().st_mtime_ns for p in (out / "flows").glob("*.parquet")}
    again = rtolab.sweep(study_dict(), out, executor=rtolab.LocalExecutor(1))
    assert_frame_equal(again, flows)
    assert {p: p.stat().st_mtime_ns for p in (out / "flows").glob("*.parquet")} == stamps  # nothing recomputed
    links = rtolab.load(out, "links")
    assert links.height == 12 * 2


def test_a_failing_grid_point_is_recorded_and_the_rest_complete(tmp_path: Path) -> None:
    d = study_dict(grid={"links.l.rate": ["1Mbps", "2Mbsp", "3Mbps"]}, replications=1)
    with pytest.warns(rtolab.RunsFailed, match=r"1 of 3 runs failed and are left out; rtolab.errors\(.*\) lists them") as told:
        flows = rtolab.sweep(d, tmp_path / "sw", executor=rtolab.LocalExecutor(1))
    assert (told[0].message.failed, told[0].message.runs) == (1, 3)  # type: ignore[union-attr]
    assert told[0].filename == __file__, "the warning points at the caller's line"
    assert sorted(flows["links.l.rate"].to_list()) == ["1Mbps", "3Mbps"]
    errs = rtolab.errors(tmp_path / "sw")
    assert errs.height == 1
    assert "links[0].rate" in errs["error"][0] and '"2Mbsp"' in errs["error"][0]


def test_local_processes_and_dask_give_identical_tables(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    serial = rtolab.sweep(study_dict(), tmp_path / "serial", executor=rtolab.LocalExecutor(1))
    pooled = rtolab.sweep(study_dict(), tmp_path / "pool", executor=rtolab.LocalExecutor(2))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        dasked = rtolab.sweep(study_dict(), tmp_path / "dask", executor=rtolab.DaskExecutor(client))
    assert_frame_equal(serial, pooled)
    assert_frame_equal(serial, dasked)
    assert_frame_equal(rtolab.load(tmp_path / "serial", "links"), rtolab.load(tmp_path / "dask", "links"))


def test_kill_9_mid_sweep_then_resume_gives_exactly_one_row_per_run(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text(
        'name = "kill"\nreplications = 40\nseed = 3\n[scenario]\nduration = "20s"\n'
        '[[scenario.links]]\nname = "l"\nrate = "2Mbps"\ndelay = "50ms"\nloss = 0.01\n'
        '[[scenario.flows]]\nname = "f"\nroute = ["l"]\n[grid]\n"links.l.rate" = ["1Mbps", "2Mbps"]\n'
    )
    out = tmp_path / "sw"
    exe = Path(sys.executable).with_name("rtolab")
    proc = subprocess.Popen([str(exe), "sweep", str(study), "--out", str(out), "--workers", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "flows").glob("*.parquet"))) < 5:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(list((out / "flows").glob("*.parquet")))
    assert 5 <= partial < 80, "the kill must land mid-sweep"
    rtolab.load(out)  # what was written is readable
    flows = rtolab.sweep(study, out, executor=rtolab.LocalExecutor(2))
    assert flows.height == 80
    assert flows.select("spec_hash", "seed").n_unique() == 80
    assert not list(out.rglob(".*.tmp-*"))


def test_batches_read_a_store_in_whole_runs_in_study_order(tmp_path: Path) -> None:
    """A study too large to hold at once is read a few runs at a time: the batches, one after
    the other, are exactly what ``load`` returns, and no run is split between two."""
    from rtolab.store import Store
    from rtolab.study import Study

    d = study_dict()
    out = tmp_path / "sw"
    assert rtolab.sweep(d, out, executor=rtolab.LocalExecutor(1), load=False).is_empty()
    parts = list(Store(out).batches(Study.from_dict(d), runs_per_batch=5))
    assert [p["run"].n_unique() for p in parts] == [5, 5, 2]
    assert_frame_equal(pl.concat(parts), rtolab.load(out))
