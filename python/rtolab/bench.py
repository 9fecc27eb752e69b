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


SCALE_FLOWS = [4, 400, 4_000, 40_000]


def run_scale(flows: int) -> tuple[BenchResult, int]:
    """`scale-N` in a fresh interpreter, so its peak resident memory (KiB) is its own."""
    import json
    import subprocess
    import sys

    code = (
        "import json, resource, rtolab.bench as b; r = b.run(%r); "
        "print(json.dumps([r.sim_s, r.wall_s, r.data_packets, r.events, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))"
    ) % f"scale-{flows}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    sim_s, wall_s, packets, events, rss_kib = json.loads(out)
    return BenchResult(f"scale-{flows}", sim_s, wall_s, packets, events), int(rss_kib)


def run(name: str) -> BenchResult:
    meta, wall = _core.run_bench(name)
    return BenchResult(name, meta["sim_time_s"], wall, meta["data_packets"], meta["events"])
