"""One sweep directory holds one study: a different study is refused before anything is
written, `--extend` adds grid points to the same study, duplicate grid points and studies whose
every run would fail are rejected at load, failed runs make the sweep exit 1, and every
malformed study file exits 2 naming its field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rtolab
from conftest import rtolab_cli, small_scenario
from rtolab.result_schema import SWEEP_COLUMNS
from rtolab.study import Study

BASE_TOML = 'name = "b"\nduration = "3s"\n[[links]]\nname = "l"\nrate = "2Mbps"\ndelay = "50ms"\n[[flows]]\nname = "f"\nroute = ["l"]\n'


def study(**overrides: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"name": "s", "scenario": small_scenario(duration="3s"), "grid": {"flows.f.tcp.iw": [3]}, "replications": 2, "seed": 4}
    d.update(overrides)
    return d


def sweep(d: dict[str, Any], out: Path, extend: bool = False) -> pl.DataFrame:
    return rtolab.sweep(d, out, executor=rtolab.LocalExecutor(1), extend=extend)


def stamps(out: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (out / "flows").glob("*.parquet")}


def test_manifest_records_the_study_by_name_and_fingerprint(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sweep(study(), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest == {"format": 1, "study": "s", "study_hash": Study.from_dict(study()).fingerprint, "extends": []}
    assert Study.from_dict(study(replications=5)).fingerprint == manifest["study_hash"]
    assert Study.from_dict(study(seed=5)).fingerprint != manifest["study_hash"]


def test_a_different_study_is_refused_naming_both_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sweep(study(), out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    other = study(name="other", grid={"flows.f.tcp.iw": [3], "links.l.rate": ["1Mbps"]})
    with pytest.raises(rtolab.SpecError) as caught:
        sweep(other, out, extend=True)
    message = str(caught.value)
    old, new = Study.from_dict(study()).fingerprint, Study.from_dict(other).fingerprint
    assert f"holds study 's' ({old}), not 'other' ({new}): different grid, name" in message
    assert "another --out" in message and "the name differs" in message
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert rtolab.load(out).height == 2


def test_added_values_suggest_extend_and_extend_reuses_every_finished_run(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    first = sweep(study(grid={"flows.f.tcp.iw": [3], "links.l.rate": ["1Mbps", "2Mbps"]}), out)
    finished = stamps(out)
    wider = study(grid={"flows.f.tcp.iw": [3, 10], "links.l.rate": ["1Mbps", "2Mbps"]})
    with pytest.raises(rtolab.SpecError, match="pass --extend to add the new grid points"):
        sweep(wider, out)
    flows = sweep(wider, out, extend=True)
    assert {p: t for p, t in stamps(out).items() if p in finished} == finished  # nothing recomputed
    assert flows.height == 2 * 2 * 2
    # points follow the extended study: the new iw value sits between the old grid points
    assert flows.group_by("point").agg(pl.col("replication").sort()).sort("point")["replication"].to_list() == [[0, 1]] * 4
    old_rows = flows.filter(pl.col("flows.f.tcp.iw") == 3).drop("point")
    assert old_rows.equals(first.drop("point"))
    assert flows.filter(pl.col("flows.f.tcp.iw") == 10)["point"].to_list() == [2, 2, 3, 3]
    assert json.loads((out / "manifest.json").read_text())["extends"] == [Study.from_dict(study(grid={"flows.f.tcp.iw": [3], "links.l.rate": ["1Mbps", "2Mbps"]})).fingerprint]


def test_after_extend_the_run_files_themselves_form_one_consistent_dataset(tmp_path: Path) -> None:
    """Other readers see what `load` sees: moved grid points and widened parameter types are
    rewritten into the older files, so every file has one schema."""
    out = tmp_path / "sw"
    sweep(study(grid={"flows.f.tcp.iw": [3], "links.l.loss": [0]}), out)
    flows = sweep(study(grid={"flows.f.tcp.iw": [2, 3], "links.l.loss": [0, 0.01]}), out, extend=True)
    direct = pl.read_parquet(out / "flows" / "*.parquet").sort("point", "replication")  # fails on mixed schemas
    assert direct.equals(flows)
    assert direct.schema["links.l.loss"] == pl.Float64
    assert direct.filter(pl.col("flows.f.tcp.iw") == 3, pl.col("links.l.loss") == 0)["point"].unique().to_list() == [2]


def test_load_is_lazy_on_request_and_duckdb_reads_the_same_directory(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    flows = sweep(study(grid={"flows.f.tcp.iw": [3, 10]}), out)
    lazy = rtolab.load(out, lazy=True)
    assert isinstance(lazy, pl.LazyFrame)
    # The sweep's own columns lead, with the types `rtolab schema --results` declares.
    declared = [(c.name, c.dtype) for c in SWEEP_COLUMNS]
    assert [(n, str(t)) for n, t in list(flows.schema.items())[: len(declared)]] == declared
    assert flows.columns[len(declared)] == "flows.f.tcp.iw"
    assert lazy.collect().equals(flows)
    assert lazy.filter(pl.col("flows.f.tcp.iw") == 10).select("goodput_bps").collect().height == 2
    duckdb = pytest.importorskip("duckdb")
    query = f"SELECT point, count(*) AS runs, avg(goodput_bps) AS goodput FROM '{out}/flows/*.parquet' GROUP BY point ORDER BY point"
    rows = duckdb.sql(query).fetchall()
    by_point = flows.group_by("point").agg(pl.len(), pl.col("goodput_bps").mean()).sort("point").rows()
    assert [(p, n) for p, n, _ in rows] == [(p, n) for p, n, _ in by_point]
    assert [g for _, _, g in rows] == pytest.approx([g for _, _, g in by_point])


def test_parameters_written_with_units_get_si_columns(tmp_path: Path) -> None:
    """Rates, durations and byte counts written with units come back as numbers too, read by
    the simulator's own parser: 1Mbps = 1e6 bit/s, 50ms = 0.05 s; a parameter that is not a
    quantity (a stack name) or already a number (iw) gets none."""
    grid = {"links.l.rate": ["1Mbps", "2Mbps"], "links.l.delay": ["10ms", "50ms"], "flows.f.tcp.iw": [3], "flows.f.tcp.stack": ["linux"]}
    flows = sweep(study(grid=grid, replications=1), tmp_path / "sw")
    by_point = flows.select("links.l.rate", "links.l.rate_bps", "links.l.delay", "links.l.delay_s").unique().sort("links.l.rate_bps", "links.l.delay_s")
    assert by_point.rows() == [("1Mbps", 1e6, "10ms", 0.01), ("1Mbps", 1e6, "50ms", 0.05), ("2Mbps", 2e6, "10ms", 0.01), ("2Mbps", 2e6, "50ms", 0.05)]
    assert not any(c.startswith(("flows.f.tcp.iw_", "flows.f.tcp.stack_")) for c in flows.columns)
    links = rtolab.load(tmp_path / "sw", "links")
    assert links["links.l.rate_bps"].dtype == pl.Float64


def test_extend_refuses_what_is_not_an_extension(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sweep(study(grid={"flows.f.tcp.iw": [3, 10]}), out)
    with pytest.raises(rtolab.SpecError, match=r"--extend only adds grid values or cases: grid.flows.f.tcp.iw no longer has 10"):
        sweep(study(grid={"flows.f.tcp.iw": [3, 4]}), out, extend=True)
    with pytest.raises(rtolab.SpecError, match=r"the parameters differ \(links.l.rate\)"):
        sweep(study(grid={"flows.f.tcp.iw": [3, 10], "links.l.rate": ["1Mbps"]}), out, extend=True)


def test_extended_parameter_types_are_read_as_the_study_has_them_now(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sweep(study(grid={"links.l.loss": [0]}), out)
    flows = sweep(study(grid={"links.l.loss": [0, 0.01]}), out, extend=True)
    assert flows.schema["links.l.loss"] == pl.Float64
    assert flows["links.l.loss"].to_list() == [0.0, 0.0, 0.01, 0.01]


def test_more_replications_extend_and_fewer_read_only_their_own(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    sweep(study(replications=3), out)
    assert sweep(study(replications=1), out).height == 1
    assert rtolab.load(out).height == 1


@pytest.mark.parametrize(
    ("cases", "grid", "message"),
    [
        ([{"tag.x": 1}, {"tag.x": 1}], {}, r"study.cases\[1\]: repeats cases\[0\] \(tag.x = 1\)"),
        ([{"links.l.rate": "1Mbps"}], {"links.l.rate": ["2Mbps"]}, r"study.cases\[0\].links.l.rate: also a grid parameter"),
        ([{"links.0.rate": "1Mbps"}, {"links.l.rate": "1Mbps"}], {}, r"grid points 0 \(links.0.rate = \"1Mbps\"\) and 1 \(links.l.rate = \"1Mbps\"\) give the same scenario"),
    ],
)
def test_duplicate_grid_points_are_an_error_at_load(cases: list[dict[str, Any]], grid: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(rtolab.SpecError, match=message):
        Study.from_dict(study(cases=cases, grid=grid)).points()
    with pytest.raises(rtolab.SpecError, match=message):
        sweep(study(cases=cases, grid=grid), tmp_path / "sw")
    assert not (tmp_path / "sw").exists()


def test_a_study_whose_every_run_would_fail_starts_none(tmp_path: Path) -> None:
    with pytest.raises(rtolab.SpecError, match=r"no run can start; every grid point fails with: links\[0\].rat: unknown field `rat`.*\(grid point 0: links.l.rat = \"1Mbps\"\)"):
        sweep(study(grid={"links.l.rat": ["1Mbps", "2Mbps"]}), tmp_path / "sw")
    assert not (tmp_path / "sw").exists()


def write_study(tmp_path: Path, text: str) -> Path:
    (tmp_path / "base.toml").write_text(BASE_TOML)
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


def test_failed_runs_exit_1_after_the_others_finish(tmp_path: Path) -> None:
    path = write_study(tmp_path, 'base = "base.toml"\n[grid]\n"links.l.rate" = ["1Mbps", "2Mbsp"]\n')
    proc = rtolab_cli("sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 run finished" in proc.stdout and "1 failed" in proc.stdout
    assert '"2Mbsp"' in proc.stderr and "1 run failed" in proc.stderr and "Traceback" not in proc.stderr


def test_a_different_study_into_the_same_out_exits_2(tmp_path: Path) -> None:
    path = write_study(tmp_path, 'base = "base.toml"\n[grid]\n"links.l.rate" = ["1Mbps"]\n')
    assert rtolab_cli("sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1").returncode == 0
    path.write_text('base = "base.toml"\n[grid]\n"links.l.rate" = ["1Mbps", "3Mbps"]\n')
    proc = rtolab_cli("sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1")
    assert proc.returncode == 2 and "--extend" in proc.stderr and "Traceback" not in proc.stderr
    proc = rtolab_cli("sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--extend")
    assert proc.returncode == 0, proc.stderr
    assert "2 runs finished" in proc.stdout


MALFORMED = {
    "scenario names a file": ('scenario = "base.toml"\n', ["study.scenario", "'base.toml'", "expected a table", 'base = "base.toml"']),
    "base of the wrong type": ("base = 3\n", ["study.base", "got 3", "expected the path of a scenario file"]),
    "base that does not exist": ('base = "nope.toml"\n', ["study.base", "no scenario file", "nope.toml"]),
    "base and scenario": ('base = "base.toml"\n[scenario]\nname = "x"\n', ["study", "both base and [scenario]", "keep one"]),
    "no base scenario": ('replications = 2\n', ["study", "no base scenario", 'base = "file.toml"']),
    "name of the wrong type": ('base = "base.toml"\nname = 5\n', ["study.name", "got 5", "expected a string"]),
    "unknown key": ('base = "base.toml"\nreplication = 3\n', ["study", "unknown field 'replication'", "replications"]),
    "replications as text": ('base = "base.toml"\nreplications = "3"\n', ["study.replications", "'3'", "positive integer"]),
    "negative seed": ('base = "base.toml"\nseed = -1\n', ["study.seed", "-1", "non-negative integer"]),
    "grid of the wrong type": ('base = "base.toml"\ngrid = 3\n', ["study.grid", "got 3", "expected a table"]),
    "empty grid list": ('base = "base.toml"\n[grid]\n"links.l.rate" = []\n', ["grid.links.l.rate", "got []", "non-empty list"]),
    "grid value not a list": ('base = "base.toml"\n[grid]\n"links.l.rate" = "1Mbps"\n', ["grid.links.l.rate", "'1Mbps'", "non-empty list"]),
    "cases of the wrong type": ('base = "base.toml"\ncases = 3\n', ["study.cases", "list of tables"]),
    "path to no element": ('base = "base.toml"\n[grid]\n"links.x.rate" = ["1Mbps"]\n', ["links.x", "no element named 'x'", "['l']"]),
    "path through a value": ('base = "base.toml"\n[grid]\n"links.l.rate.x" = [1]\n', ["links.l.rate.x", "is a value"]),
    "path to no field": ('base = "base.toml"\n[grid]\n"links.l.rat" = ["1Mbps"]\n', ["links[0].rat", "unknown field", "links.l.rat = \"1Mbps\""]),
    "repeated case": ('base = "base.toml"\n[[cases]]\n"tag.a" = 1\n[[cases]]\n"tag.a" = 1\n', ["study.cases[1]", "repeats cases[0]"]),
    "toml syntax": ('base = "base.toml\n', ["study.toml"]),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_study_exits_2_naming_the_field(case: str, tmp_path: Path) -> None:
    text, needles = MALFORMED[case]
    path = write_study(tmp_path, text)
    proc = rtolab_cli("sweep", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("error:") == 1
    flat = " ".join(proc.stderr.split())
    for needle in needles:
        assert needle in flat, proc.stderr
    assert not (tmp_path / "o").exists()


def test_schema_study_is_the_schema_studies_are_checked_against() -> None:
    proc = rtolab_cli("schema", "--study")
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert schema["$defs"]["Scenario"]["properties"].keys() == rtolab.schema()["properties"].keys()
    with pytest.raises(rtolab.SpecError, match="unknown field") as unknown:
        Study.from_dict(study(replication=3))
    assert str(sorted(schema["properties"])) in str(unknown.value)
    for field, value in (("replications", 0), ("seed", "1"), ("name", 5), ("cases", [3]), ("grid", {"links.l.rate": []})):
        assert field in schema["properties"]
        with pytest.raises(rtolab.SpecError, match=field):
            Study.from_dict(study(**{field: value}))


def test_a_grid_value_that_is_a_table_is_copied_into_each_point() -> None:
    """A later path reaching into a table an earlier grid value set changes that point's spec
    alone: the grid's table is shared by every point (found when `generators.web` and then
    `generators.web.users` ran every point at the last load)."""
    scenario = {
        "duration": "2s",
        "links": [{"name": "l", "rate": "1Mbps", "delay": "10ms"}],
        "generators": [{"kind": "web", "name": "w", "users": 1, "size": "10kB", "think": "exp(1s)", "route": ["l"]}],
    }
    table = {"cc": "newreno"}
    study = Study.from_dict({"name": "copies", "scenario": scenario, "grid": {"generators.w.tcp": [table], "generators.w.tcp.min_rto": ["200ms", "1s"]}})
    points = study.points()
    assert [p.spec["generators"][0]["tcp"] for p in points] == [{"cc": "newreno", "min_rto": "200ms"}, {"cc": "newreno", "min_rto": "1s"}]
    assert table == {"cc": "newreno"} and points[0].key != points[1].key
