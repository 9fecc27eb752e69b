"""Faults a user meets that are not bad input: an output directory that cannot be written, two
sweeps into one store, an unreachable Dask scheduler, a worker that dies, SIGTERM and SIGHUP,
damaged run files, a disk that fills; and a failed grid value corrected in place.
Each ends with one message naming the path, the documented exit code, no traceback, and
nothing lost or done twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import rtolab
from conftest import rtolab_cli
from test_emulate import _missing, _start_long_run, ours
from rtolab.executors import LocalExecutor
from rtolab.store import StoreDamaged
from rtolab.store_lock import LOCK_FILE, OutputError, StoreBusy, exclusive, writable_directory
from rtolab.sweep import load, sweep


#: A small study: one bulk flow for 20 s over a 1 or 2 Mbit/s link, 2 replications each.
STUDY = """name = "faults"
replications = 2

[grid]
"links.l.rate" = ["1Mbps", "2Mbps"]

[scenario]
name = "small"
duration = "20s"

[[scenario.links]]
name = "l"
rate = "2Mbps"
delay = "50ms"

[[scenario.flows]]
name = "f"
route = ["l"]
"""


def write_study(tmp_path: Path) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(STUDY)
    return path


def assert_clean_failure(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Error:" not in proc.stderr.replace("error:", ""), proc.stderr
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)


@pytest.mark.parametrize("where", ["/proc/rtolab-out", "file-in-the-way/out"])
def test_unwritable_out_exits_2_before_any_run(tmp_path: Path, where: str) -> None:
    """`/proc` refuses new directories; a file where a parent directory should be is the
    other common case (a typo, an old result file)."""
    (tmp_path / "file-in-the-way").write_text("not a directory")
    out = Path(where) if where.startswith("/") else tmp_path / where
    study = write_study(tmp_path)
    commands = [
        ["sweep", str(study), "--out", str(out), "--workers", "1"],
        ["run", "studies/quickstart.toml", "--out", str(out)],
        ["demo", "--out", str(out)],
        ["emulate", "studies/quickstart.toml", "--out", str(out)],
        ["compare", "studies/quickstart.toml", "--out", str(out)],
        ["reproduce", "spikes", "--quick", "--out", str(out)],
    ]
    for args in commands:
        started = time.monotonic()
        proc = rtolab_cli(*args, cwd=Path(__file__).parents[1])
        assert_clean_failure(proc, 2, str(out), "cannot write results there")
        assert time.monotonic() - started < 30  # refused before running (the quickstart alone takes longer on a busy machine)
    with pytest.raises(OutputError, match="cannot write results there"):
        writable_directory(out)


def test_a_second_sweep_with_no_wait_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    study = write_study(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    with exclusive(out):
        proc = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1", "--no-wait")
        assert_clean_failure(proc, 2, str(out), f"process {os.getpid()} is writing to this store", "--no-wait")
        assert not (out / "flows").exists() and not (out / "study.json").exists()
        with pytest.raises(StoreBusy):
            with exclusive(out, wait=False):
                pass


def test_a_second_sweep_waits_for_the_first_and_reuses_its_runs(tmp_path: Path) -> None:
    """The waiting sweep says whom it waits for, starts when the lock is released, and finds
    the runs the first one finished: it runs none of them again."""
    study = write_study(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    first = sweep(study, out, progress=False)
    files = sorted((out / "flows").iterdir())
    stamps = [p.stat().st_mtime_ns for p in files]
    with exclusive(out):
        waiting = subprocess.Popen([str(Path(sys.executable).with_name("rtolab")), "sweep", str(study), "--out", str(out), "--workers", "1"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        time.sleep(3)
        assert waiting.poll() is None, waiting.communicate()
    stdout, stderr = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, stderr
    assert "is writing to this store; waiting for it to finish" in stderr
    assert f"{first['run'].n_unique()} runs finished" in stdout
    assert sorted((out / "flows").iterdir()) == files and [p.stat().st_mtime_ns for p in files] == stamps
    assert load(out).equals(first)


def test_the_lock_dies_with_its_holder(tmp_path: Path) -> None:
    """A killed sweep leaves no lock behind: the kernel drops flock(2) locks with the process."""
    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"from pathlib import Path; from rtolab.store_lock import exclusive\nwith exclusive(Path({str(out)!r})):\n    print('held', flush=True)\n    import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with pytest.raises(StoreBusy, match=f"process {holder.pid} is writing"):
        with exclusive(out, wait=False):
            pass
    holder.kill()
    holder.communicate()
    with exclusive(out, wait=False):
        assert (out / LOCK_FILE).read_text().strip() == str(os.getpid())


def test_an_unreachable_dask_scheduler_exits_2_within_the_timeout(tmp_path: Path) -> None:
    """Port 9 (discard) has no scheduler: the sweep names the address and how to start one,
    within the timeout asked for plus start-up, and writes nothing."""
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    started = time.monotonic()
    proc = rtolab_cli("sweep", str(write_study(tmp_path)), "--out", str(out), "--dask", "tcp://127.0.0.1:9", "--dask-timeout", "2")
    assert_clean_failure(proc, 2, "tcp://127.0.0.1:9", "no Dask scheduler answered within 2 s", "dask scheduler")
    assert time.monotonic() - started < 20
    assert not out.exists()


ENDLESS = 'duration = "1e9s"\n[[links]]\nname = "l"\nrate = "10Mbps"\ndelay = "10ms"\n[[flows]]\nname = "f"\nroute = ["l"]\n'

#: Each run simulates an hour of a lossy bulk transfer: about a second of work.
SLOW_STUDY = (
    'name = "signals"\nreplications = 12\nseed = 5\n[scenario]\nduration = "3600s"\n'
    '[[scenario.links]]\nname = "l"\nrate = "2Mbps"\ndelay = "50ms"\nloss = 0.01\n'
    '[[scenario.flows]]\nname = "f"\nroute = ["l"]\n'
)


def start_slow_sweep(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    """`rtolab sweep` of ``SLOW_STUDY`` on 2 workers in its own session, returned (with the
    study file and the output directory) once its first run is written."""
    study = tmp_path / "study.toml"
    study.write_text(SLOW_STUDY)
    out = tmp_path / "sw"
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("rtolab")), "sweep", str(study), "--out", str(out), "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "flows").glob("*.parquet")):
        time.sleep(0.02)
    return proc, study, out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_a_run_as_ctrl_c_does(tmp_path: Path, signum: int) -> None:
    """Exit 128 + the signal's number (143, 129), at once, nothing written, no traceback."""
    spec = tmp_path / "endless.toml"
    spec.write_text(ENDLESS)
    proc = subprocess.Popen([str(Path(sys.executable).with_name("rtolab")), "run", str(spec), "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # well inside the simulation
    sent = time.monotonic()
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signum, stderr
    assert time.monotonic() - sent < 2.0 and "Traceback" not in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_a_sweep_and_keep_what_finished(tmp_path: Path, signum: int) -> None:
    """Sent to the sweep process alone (as `kill` or a batch system does): it exits 128 + the
    signal's number at once, its workers go with it, the finished runs stay, and the next
    sweep runs only the rest."""
    proc, study, out = start_slow_sweep(tmp_path)
    proc.send_signal(signum)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, stderr
    assert time.monotonic() - sent < 2.0 and "Traceback" not in stderr
    time.sleep(0.2)
    assert subprocess.run(["pgrep", "-g", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True).stdout.split() == []
    kept = len(list((out / "flows").glob("*.parquet")))
    assert 1 <= kept < 12 and load(out).height == kept
    assert not list(out.rglob(".*.tmp-*"))
    assert sweep(study, out, executor=LocalExecutor(2)).height == 12


@pytest.mark.parametrize("damage", ["overwritten", "truncated", "scrambled inside"])
def test_a_damaged_run_file_is_named_and_the_next_sweep_redoes_only_that_run(tmp_path: Path, damage: str) -> None:
    """One flows file overwritten with junk, cut short, or scrambled inside (PAR1 at both ends
    still): loading names the file and the repair (or leaves it out with a warning when
    asked); `rtolab report` exits 2 with the same message; the same sweep again says it
    re-runs one run and gives back the table the undamaged store had."""
    study = write_study(tmp_path)
    out = tmp_path / "out"
    whole = sweep(study, out, executor=LocalExecutor(1))
    victim = sorted((out / "flows").glob("*.parquet"))[1]
    data = victim.read_bytes()
    middle = len(data) // 2
    damaged = {
        "overwritten": b"not a parquet file" * 10,
        "truncated": data[:middle],
        "scrambled inside": data[: middle - 100] + b"\xab" * 200 + data[middle + 100 :],  # whole in shape: only the checksum shows it
    }
    victim.write_bytes(damaged[damage])
    with pytest.raises(StoreDamaged, match=f"1 run file of {out} is damaged.*{victim.name}.*rtolab sweep STUDY --out"):
        load(out)
    with pytest.warns(UserWarning, match=victim.name):
        partial = load(out, skip_damaged=True)
    assert partial["run"].n_unique() == whole["run"].n_unique() - 1
    proc = rtolab_cli("report", str(out))
    assert_clean_failure(proc, 2, victim.name)
    proc = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "re-running 1 finished run(s) whose files are missing, corrupted or damaged" in proc.stderr
    assert load(out).equals(whole)


def test_a_worker_killed_mid_sweep_has_its_runs_redone(tmp_path: Path) -> None:
    """kill -9 of one worker process (as the out-of-memory killer does): the sweep says so,
    runs that worker's runs again on fresh workers, and ends with every run done (exit 0) and
    the same table a sweep without the fault gives."""
    proc, study, out = start_slow_sweep(tmp_path)
    workers = subprocess.run(["pgrep", "-g", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True).stdout.split()
    assert workers, "the sweep's workers must be running"
    os.kill(int(workers[0]), signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    assert "a worker process died; running its" in stderr and "Traceback" not in stderr
    assert "12 runs finished" in stdout and "0 failed" in stdout
    reference = sweep(study, tmp_path / "reference", executor=LocalExecutor(2))
    assert load(out).drop("run").equals(reference.drop("run")) and load(out)["run"].to_list() == reference["run"].to_list()


def test_check_finds_every_kind_of_damage_and_repair_restores_the_table(tmp_path: Path) -> None:
    """A flipped byte inside a flows file (only its checksum shows it), a links file cut
    short, a deleted links file, and a foreign file: `rtolab check` names each (exit 1);
    `--repair` runs the three runs again and the table is the undamaged one (exit 0); the
    foreign file is reported, not removed."""
    study = write_study(tmp_path)
    out = tmp_path / "out"
    whole = sweep(study, out, executor=LocalExecutor(1))
    whole_links = load(out, "links")
    flows = sorted((out / "flows").glob("*.parquet"))
    flipped, cut, deleted = flows[0], out / "links" / f"{flows[1].stem}.parquet", out / "links" / f"{flows[2].stem}.parquet"
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x01
    flipped.write_bytes(bytes(data))
    cut.write_bytes(cut.read_bytes()[:100])
    deleted.unlink()
    (out / "flows" / "notes.txt").write_text("mine")
    proc = rtolab_cli("check", str(out))
    assert_clean_failure(proc, 1, "3 damaged run files", "--repair")
    assert f"corrupted: {flipped}" in proc.stdout and f"corrupted: {cut}" in proc.stdout and f"missing: {deleted}" in proc.stdout
    assert f"extra: {out / 'flows' / 'notes.txt'}" in proc.stdout
    proc = rtolab_cli("check", str(out), "--repair", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert load(out).equals(whole) and load(out, "links").equals(whole_links)
    assert (out / "flows" / "notes.txt").exists()
    assert rtolab_cli("check", str(out)).returncode == 0


def test_check_refuses_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    assert_clean_failure(rtolab_cli("check", str(tmp_path)), 2, "is not a sweep directory")


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A 4 MiB tmpfs (root only), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_a_disk_that_fills_mid_sweep_exits_1_keeps_what_was_written_and_resumes(small_disk: Path, tmp_path: Path) -> None:
    """A filler leaves room for only a few of the 40 runs (each takes about 30 KB of tmpfs
    pages, 1.2 MB in all): the sweep stops with exit 1 and a message naming the directory and
    the cause, leaves no temporary file, and what it wrote loads; once the filler is gone the
    same sweep finishes the rest."""
    study = tmp_path / "study.toml"
    study.write_text(STUDY.replace("replications = 2", "replications = 20"))
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (4 * 2**20 - 200_000))
    out = small_disk / "out"
    proc = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert_clean_failure(proc, 1, str(out), "No space left on device", "resumes")
    assert not list(out.rglob(".*.tmp-*"))
    kept = load(out)
    assert 0 < kept["run"].n_unique() < 40
    filler.unlink()
    proc = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert load(out)["run"].n_unique() == 40


def test_a_grid_value_whose_runs_all_failed_can_be_corrected_in_place(tmp_path: Path) -> None:
    """A typo ("1 sec") fails its runs; the corrected study replaces that value without
    --extend, reuses the runs that finished, runs the corrected ones and forgets the failed
    ones; the sweep's summary says what it ran and reused. Dropping a value that has finished
    runs is still refused."""
    study = tmp_path / "study.toml"
    study.write_text(STUDY.replace('"links.l.rate" = ["1Mbps", "2Mbps"]', '"links.l.delay" = ["50ms", "1 sec"]'))
    out = tmp_path / "out"
    first = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert first.returncode == 1 and "2 runs finished" in first.stdout and "2 failed" in first.stdout, first.stderr
    study.write_text(STUDY.replace('"links.l.rate" = ["1Mbps", "2Mbps"]', '"links.l.delay" = ["50ms", "1s"]'))
    second = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert second.returncode == 0, second.stderr
    assert 'replaces grid.links.l.delay = "1 sec"' in second.stderr
    assert "4 runs finished" in second.stdout and "(2 run now, 2 reused); 0 failed" in second.stdout
    assert rtolab.errors(out).height == 0 and load(out)["links.l.delay"].unique().sort().to_list() == ["1s", "50ms"]
    study.write_text(STUDY.replace('"links.l.rate" = ["1Mbps", "2Mbps"]', '"links.l.delay" = ["1s", "2s"]'))
    third = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert_clean_failure(third, 2, 'no longer has "50ms"')


def test_extend_counts_the_runs_it_reused_even_when_it_rewrote_their_files(tmp_path: Path) -> None:
    """A value added in front of the grid moves the finished runs' grid points, so --extend
    rewrites their files (their point column); they are still reused, not run again, and the
    summary says so (it once told them by their files' modification times)."""
    study = tmp_path / "study.toml"
    study.write_text(STUDY)
    out = tmp_path / "out"
    first = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1")
    assert first.returncode == 0 and "(4 run now, 0 reused)" in first.stdout, first.stderr
    study.write_text(STUDY.replace('"links.l.rate" = ["1Mbps", "2Mbps"]', '"links.l.rate" = ["0.5Mbps", "1Mbps", "2Mbps"]'))
    second = rtolab_cli("sweep", str(study), "--out", str(out), "--workers", "1", "--extend")
    assert second.returncode == 0, second.stderr
    assert "6 runs finished" in second.stdout and "(2 run now, 4 reused); 0 failed" in second.stdout, second.stdout
    assert load(out).filter(pl.col("links.l.rate") == "1Mbps")["point"].unique().to_list() == [1], "the reused runs' files were rewritten with their new point"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_dask_scheduler_lost_mid_sweep_exits_2_and_the_sweep_resumes(tmp_path: Path) -> None:
    """A scheduler and one worker started here; the scheduler is killed once a run is
    written: the sweep exits 2 naming the address, no traceback (the client's reconnection
    logging included), the runs written stay, and the same sweep resumes on local workers."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("dask's command line is not installed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([str(dask), "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        study = tmp_path / "study.toml"
        study.write_text(SLOW_STUDY)
        out = tmp_path / "sw"
        proc = subprocess.Popen([str(Path(sys.executable).with_name("rtolab")), "sweep", str(study), "--out", str(out), "--dask", address, "--dask-timeout", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not ((out / "flows").is_dir() and list((out / "flows").glob("*.parquet"))):
            time.sleep(0.05)
        scheduler.kill()
        scheduler.wait()
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 2, stderr
        assert address in stderr and "gave up the runs it held" in stderr and "Traceback" not in stderr
        kept = load(out)["run"].n_unique()
        assert kept >= 1
    finally:
        for p in (scheduler, worker):
            p.kill()
            p.wait()
    assert sweep(study, out, executor=LocalExecutor(2)).height == 12


@pytest.mark.parametrize("command", ["emulate", "compare"])
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_ctrl_c_sigterm_and_sighup_stop_emulate_and_compare_and_remove_their_namespaces(tmp_path: Path, signum: int, code: int, command: str) -> None:
    """The kernel side of `emulate` and `compare` (root and TUN; skipped elsewhere)."""
    if _missing() is not None:
        pytest.skip(_missing() or "")
    proc = _start_long_run(tmp_path, command)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=10)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    assert time.monotonic() - sent < 2.0
    assert not any(f"-{proc.pid}-" in n for n in ours())
    assert not (tmp_path / "out").exists()


def test_a_read_only_out_exits_2_before_any_run(tmp_path: Path) -> None:
    """An --out on a read-only file system (root can write anywhere else): exit 2 naming the
    path and the cause, before any run."""
    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(mount)], capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        proc = rtolab_cli("sweep", str(write_study(tmp_path)), "--out", str(mount / "out"), "--workers", "1")
        assert_clean_failure(proc, 2, str(mount / "out"), "Read-only file system")
    finally:
        subprocess.run(["umount", str(mount)], check=True)
