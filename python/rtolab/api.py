"""Running scenarios."""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rtolab import _core
from rtolab.spec import SpecLike, source_dir, text_sha256, to_text

if TYPE_CHECKING:
    from rtolab.result import Result


@functools.cache
def _provenance() -> dict[str, str | None]:
    """The versions and the source tree's commit recorded in every run's ``meta``; they do not
    change while the process lives, so ``git`` runs once per process, not once per run."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        git_hash = out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        git_hash = None
    return {"rtolab_version": metadata.version("rtolab"), "core_version": _core.__version__, "git_hash": git_hash}


def _prepare_tables() -> None:
    """Imports the result tables' module (and with it polars) and gathers the provenance."""
    import rtolab.result  # noqa: F401

    _provenance()


def run(spec: SpecLike, seed: int | None = None, progress: Callable[[float, int, float | None], object] | None = None) -> Result:
    """Runs one scenario and returns its tables.

    ``spec`` is a mapping, a path to a TOML file, or TOML text. ``seed`` overrides the
    scenario's seed (default 1). Same spec and seed give bit-identical tables.
    ``progress(simulated_seconds, events, stop_seconds)`` is called about every 50 ms while the
    run goes on (``stop_seconds`` is None when the scenario has no ``duration``).
    Ctrl-C stops the run within a few milliseconds and raises ``KeyboardInterrupt``.
    Raises ``SpecError`` for a spec that cannot run and ``SimulationError`` for a failed run.
    """
    if seed is not None and not 0 <= seed < 2**64:
        raise _core.SpecError(f"seed: got {seed}, expected an integer in [0, 2^64)")
    text, fmt = to_text(spec)
    # The core simulates on its own thread with the GIL released; meanwhile a helper thread
    # does the process's one-time Python work (importing polars, running git), so a command
    # line run pays for the longer of the two, not their sum. A daemon: Ctrl-C never waits.
    # Later runs of the process (a sweep's worker) find it done and start no thread.
    if "rtolab.result" not in sys.modules:
        threading.Thread(target=_prepare_tables, name="rtolab-prepare", daemon=True).start()
    raw = _core.run(text, fmt, seed, progress, base=source_dir(spec))
    from rtolab.result import Result

    meta: dict[str, Any] = {"text_sha256": text_sha256(text, fmt), **_provenance()}
    return Result.from_core(raw, meta)
