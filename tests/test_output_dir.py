"""Nothing of the user's is lost (issue 47): every command and API that writes a result
directory keeps what rtolab did not write, refuses the places it must never write, replaces
its own files all at once, and follows the umask (``rtolab.output_dir``)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest

import rtolab
from conftest import rtolab_cli
from rtolab import output_dir, reproduce as reproduce_mod
from rtolab.findings import Measured
from rtolab.output_dir import OWNER_FILE, OutputRefused
from rtolab.reproduce import Context, Outcome
from rtolab.study import Study

ROOT = Path(__file__).parents[1]

#: One short flow: a run takes milliseconds, and its result has a pcap (a subdirectory).
SCENARIO = """name = "tiny"
duration = "2s"

[[links]]
name = "l"
rate = "2Mbps"
delay = "20ms"

[[flows]]
name = "f"
route = ["l"]
size = "50kB"

[output]
pcap = ["l"]
"""

STUDY = """name = "tiny-sweep"
replications = 2

[grid]
"links.l.rate" = ["1Mbps", "2Mbps"]

[scenario]
name = "tiny"
duration = "2s"

[[scenario.links]]
name = "l"
rate = "2Mbps"
delay = "20ms"

[[scenario.flows]]
name = "f"
route = ["l"]
size = "50kB"
"""


def snapshot(root: Path) -> dict[str, str]:
    """Every path under ``root`` with its content's hash (directories as "dir")."""
    return {
        p.relative_to(root).as_posix(): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
    }


def users_directory(path: Path) -> dict[str, str]:
    """A directory of the user's: a note and a subdirectory with a file."""
    (path / "sub").mkdir(parents=True)
    (path / "notes.txt").write_text("my notes\n")
    (path / "sub" / "paper.tex").write_text("\\section{Results}\n")
    return snapshot(path)


@pytest.fixture
def files(tmp_path: Path) -> SimpleNamespace:
    (tmp_path / "tiny.toml").write_text(SCENARIO)
    (tmp_path / "study.toml").write_text(STUDY)
    return SimpleNamespace(scenario=tmp_path / "tiny.toml", study=tmp_path / "study.toml")


def writers(f: SimpleNamespace, out: str) -> dict[str, list[str]]:
    """Every command that writes a result directory, writing into ``out``."""
    return {
        "run": ["run", str(f.scenario), "--out", out],
        "demo": ["demo", "--out", out],
        "emulate": ["emulate", str(f.scenario), "--out", out],
        "compare": ["compare", str(f.scenario), "--out", out],
        "sweep": ["sweep", str(f.study), "--out", out, "--workers", "1"],
        "reproduce": ["reproduce", "spikes", "--quick", "--out", out, "--workers", "1"],
    }


WRITERS = ["run", "demo", "emulate", "compare", "sweep", "reproduce"]


def assert_refused(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)


@pytest.mark.parametrize("writer", WRITERS)
def test_foreign_files_are_kept_and_named(tmp_path: Path, files: SimpleNamespace, writer: str) -> None:
    out = tmp_path / "existing"
    before = users_directory(out)
    proc = rtolab_cli(*writers(files, str(out))[writer], cwd=ROOT)
    assert_refused(proc, str(out), "notes.txt and sub", "which rtolab did not write", "--force")
    assert snapshot(out) == before


def test_report_keeps_foreign_files_in_its_directory(tmp_path: Path, files: SimpleNamespace) -> None:
    out = tmp_path / "sweep"
    assert rtolab_cli(*writers(files, str(out))["sweep"]).returncode == 0
    before = users_directory(out / "report")
    proc = rtolab_cli("report", str(out))
    assert_refused(proc, str(out / "report"), "notes.txt and sub")
    assert snapshot(out / "report") == before
    forced = rtolab_cli("report", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    after = snapshot(out / "report")
    assert {k: after[k] for k in before} == before
    assert any(name.endswith(".csv") for name in after)


@pytest.mark.parametrize("writer", WRITERS)
def test_out_dot_in_a_git_clone_changes_nothing(tmp_path: Path, files: SimpleNamespace, writer: str) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    (clone / "README.md").write_text("mine\n")
    before = snapshot(clone)
    proc = rtolab_cli(*writers(files, ".")[writer], cwd=clone)
    assert_refused(proc, "is the working directory", "never writes its results there")
    assert snapshot(clone) == before


def test_a_repository_home_root_and_parents_of_the_working_directory_are_refused(tmp_path: Path, files: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "work")
    cases = {clone: "has a .git inside", home: "is the home directory", tmp_path: "holds the working directory", Path("/"): "is a file system root", files.scenario: "is a file"}
    for target, why in cases.items():
        with pytest.raises(OutputRefused, match=why):
            output_dir.check(target, "run", force=True)
        with pytest.raises(OutputRefused, match=why):
            output_dir.open_store(target, "sweep", force=True)
    assert sorted(p.name for p in clone.iterdir()) == [".git"]


def test_a_second_run_replaces_its_own_files_and_only_those(tmp_path: Path, files: SimpleNamespace) -> None:
    out = tmp_path / "run"
    first = rtolab_cli("run", str(files.scenario), "--out", str(out), "--seed", "1")
    assert first.returncode == 0, first.stderr
    assert (out / "pcap" / "l.pcap").exists()
    second = rtolab_cli("run", str(files.scenario), "--out", str(out), "--seed", "2", "--set", "output.pcap=[]")
    assert second.returncode == 0, second.stderr
    assert rtolab.Result.load(out).meta["seed"] == 2
    assert not (out / "pcap").exists(), "the first run's capture is rtolab's own and goes with it"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no staging directory is left"


def test_force_writes_beside_foreign_files_and_replaces_only_rtolabs(tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    before = users_directory(out)
    r1 = rtolab.run(SCENARIO, seed=1)
    r2 = rtolab.run(SCENARIO.replace('pcap = ["l"]', "pcap = []"), seed=2)
    with pytest.raises(OutputRefused, match="notes.txt and sub"):
        r1.save(out)
    r1.save(out, force=True)
    assert rtolab.Result.load(out).meta["seed"] == 1 and (out / "pcap" / "l.pcap").exists()
    r2.save(out, force=True)
    assert rtolab.Result.load(out).meta["seed"] == 2
    assert not (out / "pcap").exists(), "rtolab's own capture of the first save is gone"
    after = snapshot(out)
    assert {k: after[k] for k in before} == before, "the user's files are untouched"


def test_force_never_replaces_a_foreign_file_of_a_name_rtolab_writes(tmp_path: Path) -> None:
    out = tmp_path / "clash"
    out.mkdir()
    (out / "meta.json").write_text('{"mine": true}\n')
    with pytest.raises(OutputRefused, match="meta.json"):
        rtolab.run(SCENARIO, seed=1).save(out, force=True)
    assert (out / "meta.json").read_text() == '{"mine": true}\n'


def test_a_sweep_store_is_never_replaced_by_a_single_result(tmp_path: Path, files: SimpleNamespace) -> None:
    out = tmp_path / "sweep"
    assert rtolab_cli(*writers(files, str(out))["sweep"]).returncode == 0
    before = snapshot(out)
    proc = rtolab_cli("run", str(files.scenario), "--out", str(out), "--force")
    assert_refused(proc, "a sweep's store")
    assert snapshot(out) == before


def test_a_store_written_before_the_owner_file_resumes(tmp_path: Path, files: SimpleNamespace) -> None:
    out = tmp_path / "old-sweep"
    assert rtolab_cli(*writers(files, str(out))["sweep"]).returncode == 0
    (out / OWNER_FILE).unlink()
    again = rtolab_cli(*writers(files, str(out))["sweep"])
    assert again.returncode == 0, again.stderr
    assert "0 run now, 4 reused" in again.stdout
    assert output_dir.owner(out) is not None


#: Saves two different results into one directory, alternately, until killed.
SAVER = """
import sys
import rtolab
scenario = open(sys.argv[1]).read()
a = rtolab.run(scenario, seed=1)
b = rtolab.run(scenario.replace('pcap = ["l"]', "pcap = []"), seed=2)
a.save(sys.argv[2])
print("ready", flush=True)
while True:
    b.save(sys.argv[2])
    a.save(sys.argv[2])
"""


def test_killing_the_writer_midway_leaves_the_old_or_the_new_result(tmp_path: Path, files: SimpleNamespace) -> None:
    """SIGKILL at 8 moments of a loop of saves: the directory always loads as one of the two
    results, whole (its own files, no others), and the next save clears what the killed one
    left beside it."""
    out = tmp_path / "result"
    script = tmp_path / "saver.py"
    script.write_text(SAVER)
    for i in range(8):
        with subprocess.Popen([sys.executable, str(script), str(files.scenario), str(out)], stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
            time.sleep(0.01 + 0.023 * i)
            proc.send_signal(signal.SIGKILL)
        assert_whole(out)
    rtolab.run(SCENARIO, seed=3).save(out)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "stale staging directories are cleared"


def assert_whole(out: Path) -> int:
    """``out`` loads as a whole result: the seed-2 one has no capture, the others one; with
    exactly the files its owner file lists; returns the seed."""
    seed = int(rtolab.Result.load(out).meta["seed"])
    listed = set(output_dir.owner(out)["files"])  # type: ignore[index,arg-type]
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != OWNER_FILE}
    assert on_disk == listed and ("pcap/l.pcap" in listed) == (seed != 2), (seed, on_disk, listed)
    return seed


#: Saves the seed-1 result, then dies (os._exit) at one step of saving the seed-2 one over it.
DIER = """
import os, sys
import rtolab
from rtolab import output_dir
scenario = open(sys.argv[1]).read()
a = rtolab.run(scenario, seed=1)
b = rtolab.run(scenario.replace('pcap = ["l"]', "pcap = []"), seed=2)
a.save(sys.argv[2])
step = sys.argv[3]
def die(*args):
    os._exit(9)
if step == "writing":
    rtolab.Result.write_into = lambda self, staging: (self.flows.write_parquet(staging / "flows.parquet"), die())
elif step == "before-swap":
    output_dir._exchange = die
elif step == "after-swap":
    exchange = output_dir._exchange
    output_dir._remove_tree = die
    output_dir._exchange = lambda x, y: exchange(x, y)
elif step == "between-renames":
    output_dir._exchange = lambda x, y: False
    rename, calls = os.rename, []
    def second_dies(x, y):
        calls.append(x)
        if len(calls) == 2:
            die()
        rename(x, y)
    os.rename = second_dies
b.save(sys.argv[2])
"""


@pytest.mark.parametrize(("step", "seed"), [("writing", 1), ("before-swap", 1), ("after-swap", 2), ("between-renames", None)])
def test_a_writer_killed_at_each_step_leaves_a_whole_result(tmp_path: Path, files: SimpleNamespace, step: str, seed: int | None) -> None:
    """Each window of a save, hit on purpose: while the files are written, before and after the
    swap, and between the two renames of the fallback for file systems without an atomic
    exchange (there the directory is briefly absent; the next writer puts the old one back
    first, and it is never lost)."""
    out = tmp_path / "result"
    script = tmp_path / "dier.py"
    script.write_text(DIER)
    proc = subprocess.run([sys.executable, str(script), str(files.scenario), str(out), step], capture_output=True, text=True, check=False)
    assert proc.returncode == 9, proc.stderr
    if seed is None:
        assert not out.exists() and len([p for p in tmp_path.iterdir() if p.name.endswith("-old")]) == 1
        output_dir._clear_stale(tmp_path, out.name)
        seed = 1
    assert assert_whole(out) == seed
    rtolab.run(SCENARIO, seed=3).save(out)
    assert assert_whole(out) == 3
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_new_directories_and_files_follow_the_umask(tmp_path: Path, files: SimpleNamespace) -> None:
    code = textwrap.dedent(
        f"""
        import os, sys
        os.umask(0o022)
        from rtolab.cli import main
        sys.argv = ["rtolab", *sys.argv[1:]]
        main()
        """
    )
    for args, out in (
        (["run", str(files.scenario), "--out", str(tmp_path / "a" / "run")], tmp_path / "a"),
        (["sweep", str(files.study), "--out", str(tmp_path / "b" / "sweep"), "--workers", "1"], tmp_path / "b"),
    ):
        proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=False)
        assert proc.returncode == 0, proc.stderr
        for p in [out, *out.rglob("*")]:
            mode = p.stat().st_mode & 0o777
            assert mode == (0o755 if p.is_dir() else 0o644), (p, oct(mode))


def test_a_reproduction_keeps_foreign_files_and_replaces_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A toy paper: its sweep goes into the reproduction's directory and resumes; its tables
    and figures are staged and each replaces its namesake at the end, its files of an earlier
    call that this one does not write go, and the user's file stays."""
    calls: list[Path] = []

    def toy(ctx: Context) -> Outcome:
        flows = ctx.sweep(Study.from_dict(tomllib_loads(STUDY)))
        calls.append(ctx.out)
        table = flows.group_by("point").agg(pl.len()).sort("point")
        table.write_csv(ctx.out / "summary.csv")
        if len(calls) == 1:
            (ctx.out / "first-only.csv").write_text("x\n")
        (ctx.out / "figure.png").write_bytes(b"png")
        return Outcome(table, {"toy": Measured(1.0, "one")}, [ctx.out / "figure.png"])

    module = SimpleNamespace(REGISTRY=[], reproduce=toy)
    monkeypatch.setitem(reproduce_mod.PAPERS, "toy", SimpleNamespace(reproduction=lambda: module, paper="toy"))
    monkeypatch.setattr(reproduce_mod, "grade", lambda registry, measured: pl.DataFrame({"id": ["toy"]}))
    monkeypatch.setattr(reproduce_mod, "ablation_table", lambda registry, measured: pl.DataFrame({"id": ["toy"]}))
    out = tmp_path / "toy"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(OutputRefused, match="notes.txt"):
        reproduce_mod.reproduce("toy", out)
    first = reproduce_mod.reproduce("toy", out, force=True)
    assert first.figures == [out / "figure.png"] and (out / "first-only.csv").exists()
    second = reproduce_mod.reproduce("toy", out)
    assert second.made == 0 and second.runs == 4, "the sweep resumed"
    assert (out / "notes.txt").read_text() == "mine\n"
    assert not (out / "first-only.csv").exists(), "rtolab's own file of the first call goes"
    assert sorted(p.name for p in out.iterdir()) == sorted([OWNER_FILE, "notes.txt", "sweep", "summary.csv", "figure.png", "findings.csv", "ablations.csv"])
    assert pl.read_csv(out / "summary.csv").height == 2


def tomllib_loads(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)
