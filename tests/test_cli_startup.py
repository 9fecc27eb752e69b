"""Start-up cost: importing rtolab, or the command line to print its help, loads none of the
heavy libraries; figures are drawn without pyplot and leave the user's backend alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import rtolab_cli

HEAVY = ["scipy", "matplotlib", "dask", "distributed", "polars"]


def loaded_after(code: str) -> list[str]:
    """The heavy top-level packages in ``sys.modules`` after running ``code`` in a fresh
    interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    loaded: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize("module", ["rtolab", "rtolab.cli", "rtolab.model"])
def test_importing_loads_no_heavy_library(module: str) -> None:
    assert loaded_after(f"import {module}") == []


def test_public_names_still_resolve_on_first_use() -> None:
    assert loaded_after("import rtolab; rtolab.Study; rtolab.LocalExecutor; assert callable(rtolab.sweep)") == []
    assert "scipy" in loaded_after("import rtolab.model; rtolab.model.spikes")
    # The models and the statistics are reachable from the package itself, and load on use.
    assert "scipy" in loaded_after("import rtolab; assert callable(rtolab.model.spikes) and callable(rtolab.stats.summarize)")
    assert loaded_after("import rtolab; dir(rtolab)") == []
    assert "polars" in loaded_after("from rtolab import Result")


def test_run_loads_the_tables_library_only_when_it_runs() -> None:
    """``rtolab.run`` imports polars on a helper thread while the core simulates, so the
    import costs a command-line run nothing beyond the simulation's own time."""
    assert loaded_after("from rtolab import run") == []
    tiny = 'name = "t"\nduration = "1s"\n[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = "10ms"\n[[flows]]\nname = "f"\nroute = ["l"]\nsize = "10kB"'
    assert "polars" in loaded_after(f"from rtolab import run\nassert run({tiny!r}).flows.height == 1")


def test_help_runs_without_heavy_libraries() -> None:
    proc = rtolab_cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "sweep" in proc.stdout and "model" in proc.stdout
    assert loaded_after("import sys; sys.argv = ['rtolab', '--help']\nfrom rtolab.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass") == []


def test_version_names_the_package_and_the_core() -> None:
    from importlib import metadata

    from rtolab import _core

    proc = rtolab_cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"rtolab {metadata.version('rtolab')} (core {_core.__version__})"


def test_figures_leave_the_backend_alone_and_skip_pyplot(tmp_path: Path) -> None:
    code = f"""
import sys
import matplotlib
matplotlib.use("svg")
import rtolab
from pathlib import Path
from rtolab import plots, report
from rtolab.studies import iw10_analysis, spikes_analysis
sys.path.insert(0, {str(Path(__file__).parent)!r})
from conftest import small_scenario
result = rtolab.run(small_scenario(duration="2s"))
out = Path({str(tmp_path)!r})
plots.goodput(result, out / "goodput.png")
plots.queues(result, out / "queues.png")
assert (out / "goodput.png").stat().st_size > 0
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
assert "matplotlib.pyplot" not in sys.modules
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def _command(prelude: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``rtolab.cli.command()`` with ``args`` in a fresh interpreter, after ``prelude``."""
    code = f"import sys\n{prelude}\nsys.argv = ['rtolab', *{list(args)!r}]\nfrom rtolab.cli import command\ncommand()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)


def test_the_command_skips_the_teardown_but_not_the_atexit_handlers() -> None:
    proc = _command("import atexit\natexit.register(lambda: print('atexit ran', flush=True))", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "sweep" in proc.stdout and proc.stdout.rstrip().endswith("atexit ran")
    bad = _command("", "run", "/no/such/scenario.toml")
    assert bad.returncode == 2 and "no scenario file" in bad.stderr


def test_the_command_waits_for_threads_that_are_not_daemons() -> None:
    """A thread the normal exit would wait for keeps the normal exit."""
    worker = "import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.3), print('worker done', flush=True))).start()"
    proc = _command(worker, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "worker done" in proc.stdout
