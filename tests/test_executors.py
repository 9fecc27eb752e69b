"""Executors are `concurrent.futures.Executor`s: rtolab's own, a plain process pool and Dask's
client executor all run a sweep to the same tables; stopping early stops the runs in flight."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

import rtolab
from rtolab.store import Store
from rtolab.executors import LocalExecutor, run_all
from test_sweep import study_dict


def test_rtolab_executors_are_concurrent_futures_executors() -> None:
    distributed = pytest.importorskip("dask.distributed")
    assert isinstance(LocalExecutor(2), cf.Executor)
    with distributed.Client(processes=False, dashboard_address=None) as client:
        executor = rtolab.DaskExecutor(client)
        assert isinstance(executor, cf.Executor)
        assert sorted(executor.map(abs, [-2, 1, -3])) == [1, 2, 3]


def test_any_executor_runs_a_sweep_to_the_same_tables(tmp_path: Path) -> None:
    serial = rtolab.sweep(study_dict(), tmp_path / "serial", executor=LocalExecutor(1))
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pooled = rtolab.sweep(study_dict(), tmp_path / "pool", executor=pool)
    assert_frame_equal(serial, pooled)


def test_one_worker_yields_each_result_before_the_next_call(tmp_path: Path) -> None:
    """So a sweep on one worker writes each run as it finishes and Ctrl-C keeps them."""
    calls: list[int] = []

    def record(x: int) -> int:
        calls.append(x)
        return x

    results = run_all(LocalExecutor(1), record, range(5))
    assert next(results) == 0 and calls == [0]
    results.close()
    assert calls == [0]


def test_stopping_early_terminates_the_runs_in_flight() -> None:
    others = set(multiprocessing.active_children())
    executor = LocalExecutor(2)
    results = run_all(executor, time.sleep, [0, 60, 60, 60])
    assert next(results) is None
    started = time.monotonic()
    results.close()  # the caller stops while two calls run and one waits
    assert time.monotonic() - started < 5
    assert set(multiprocessing.active_children()) <= others
    assert next(run_all(executor, abs, [-4])) == 4, "the executor starts fresh workers"
    executor.shutdown()


class SecondCtrlC(LocalExecutor):
    """A second Ctrl-C arrives while the executor stops its workers."""

    def terminate_workers(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(100_000))  # Python's handler would run here
        super().terminate_workers()


def test_a_second_ctrl_c_does_not_cut_the_clean_up_short() -> None:
    others = set(multiprocessing.active_children())
    results = run_all(SecondCtrlC(2), time.sleep, [0, 60, 60])
    assert next(results) is None
    results.close()
    assert set(multiprocessing.active_children()) <= others
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _die_on_three(item: int) -> int:
    """A worker function whose call for item 3 kills its own process, every time."""
    if item == 3:
        os._exit(1)
    time.sleep(0.05)
    return item * 10


def test_a_call_whose_worker_dies_is_retried_then_reported_lost() -> None:
    """Item 3 kills its worker on every attempt: the calls the broken pool held run again,
    alone, on fresh workers; the other items all come back (item 5, queued behind item 3,
    too), and item 3 is handed to ``lost`` after its three starts."""
    breakages: list[int] = []
    with LocalExecutor(2) as pool:
        got = list(run_all(pool, _die_on_three, range(6), lost=lambda item, attempts: -(item * 100 + attempts), attempts=3, on_retry=breakages.append))
    assert sorted(got) == [-303, 0, 10, 20, 40, 50]
    # One breakage among the batch sent every call it held round again (item 3 at least);
    # item 3's own breakages, alone, are its attempts.
    assert len(breakages) == 1 and breakages[0] >= 1


def test_a_broken_pool_is_raised_without_lost() -> None:
    with LocalExecutor(2) as pool:
        with pytest.raises(cf.process.BrokenProcessPool):
            list(run_all(pool, _die_on_three, range(6)))


#: A script that sweeps at its top level with two local workers.
SCRIPT = """import rtolab
scenario = {{'duration': '1s', 'links': [{{'name': 'l', 'rate': '1Mbps', 'delay': '10ms'}}], 'flows': [{{'name': 'f', 'route': ['l'], 'size': '10kB'}}]}}
study = {{'name': 'x', 'scenario': scenario, 'grid': {{'flows.f.tcp.iw': [3, 10]}}, 'replications': 1}}
flows = rtolab.sweep(study, {out!r}, executor=rtolab.LocalExecutor(2))
print('rows', flows.height)
"""


def test_a_script_without_a_main_guard_exits_non_zero_with_one_message(tmp_path: Path) -> None:
    """Local workers import the user's script; one that sweeps at its top level would reach
    the sweep again in every worker. The sweep sees it first (the calling line lies outside
    an ``if __name__ == "__main__":`` block) and raises ``SweepFailed`` naming the script,
    the line and the fix, before any worker starts or anything is written."""
    out = tmp_path / "out"
    script = tmp_path / "sweep_script.py"
    script.write_text(SCRIPT.format(out=str(out)))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count('if __name__ == "__main__":') == 1, proc.stderr
    assert f"rtolab.sweep.SweepFailed: {script}, line 4: rtolab.sweep is reached from the script's top level" in proc.stderr
    assert "rows" not in proc.stdout and not out.exists()


def test_the_same_script_guarded_or_on_standard_input_sweeps(tmp_path: Path) -> None:
    """With the guard the workers import the script without sweeping. Read from standard
    input the script has no file the workers could import (each used to die with a
    FileNotFoundError traceback); they run rtolab's own functions without it, so the sweep
    simply works."""
    guarded = tmp_path / "guarded.py"
    guarded.write_text(SCRIPT.format(out=str(tmp_path / "a")).replace("flows = rtolab", 'if __name__ == "__main__":\n    flows = rtolab').replace("print('rows'", "    print('rows'"))
    proc = subprocess.run([sys.executable, str(guarded)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and "rows 2" in proc.stdout, proc.stderr
    text = SCRIPT.format(out=str(tmp_path / "b"))
    proc = subprocess.run([sys.executable, "-"], input=text, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and "rows 2" in proc.stdout, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr


class _BrokenPool(cf.Executor):
    """Every call fails as if its worker process had died."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        future: cf.Future[object] = cf.Future()
        future.set_exception(cf.process.BrokenProcessPool("a worker died"))
        return future


def test_a_sweep_whose_every_run_is_lost_raises_with_the_cause_and_the_fix(tmp_path: Path) -> None:
    from rtolab.sweep import MAIN_GUARD

    study = {"name": "x", "scenario": {"duration": "1s", "links": [{"name": "l", "rate": "1Mbps", "delay": "10ms"}], "flows": [{"name": "f", "route": ["l"], "size": "10kB"}]}, "replications": 2}
    with pytest.raises(rtolab.SweepFailed, match="all 2 runs were lost: their worker processes died") as failed:
        rtolab.sweep(study, tmp_path / "out", executor=_BrokenPool())
    assert MAIN_GUARD in str(failed.value) and "rtolab.errors(" in str(failed.value)
    assert Store(tmp_path / "out").errors().height == 2
