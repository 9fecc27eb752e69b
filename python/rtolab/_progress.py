"""The progress bar of a single long run, on stderr: simulated time reached, events per
second and the time left. It appears only on a terminal, and only once the run has taken
``DELAY_S``, so short runs and piped output stay quiet."""

from __future__ import annotations

import time
from typing import Any

DELAY_S = 2.0


class RunProgress:
    """A ``progress(simulated_seconds, events, stop_seconds)`` callback for ``rtolab.run``."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, sim_s: float, events: int, stop_s: float | None) -> None:
        elapsed = time.monotonic() - self.started
        if elapsed < DELAY_S:
            return
        if self.bar is None:
            self._open(stop_s)
        rate = events / elapsed
        self.bar.update(self.task, completed=sim_s, rate=f"{rate / 1e6:.2f} M events/s", sim=f"t = {sim_s:,.1f} s")

    def _open(self, stop_s: float | None) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        from rtolab._console import err

        self.bar = Progress(
            TextColumn("simulating"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        )
        self.task = self.bar.add_task("run", total=stop_s, sim="", rate="")
        self.bar.start()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
