"""``rtolab bench``: runs the built-in benchmark scenarios and reports their speed."""

from __future__ import annotations

from dataclasses import dataclass

from rtolab import _core


@dataclass(frozen=True)
class BenchResult:
    name: str
    sim_s: float
    wall_s: float
    data_packets: int
    events: int

    @property
    def packets_per_s(self) -> float:
        return self.data_packets / self.wall_s if self.wall_s else float("inf")

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s else float("inf")


def names() -> list[str]:
    return _core.bench_names()


def run(name: str) -> BenchResult:
    meta, wall = _core.run_bench(name)
    return BenchResult(name, meta["sim_time_s"], wall, meta["data_packets"], meta["events"])
