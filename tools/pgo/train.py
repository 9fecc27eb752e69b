"""The training run of the profile-guided build (``tools/pgo/profile``), on the instrumented
extension: the benchmark scenarios, whose hot paths the profile should favour, then every
scenario file in the directories given as arguments (``tools/pgo/scenarios/``, the kernel
reference cases), so that radio links, ARQ, ICMP, RED, spikes, every stack profile, the web
generators and the result tables are seen running and are not laid out as cold code.

Any failure stops the build: a profile trained on an error path would favour the wrong code.
"""

import sys
import time
from pathlib import Path

from rtolab import _core


def main(dirs: list[str]) -> None:
    for name in _core.bench_names():
        meta, wall = _core.run_bench(name)
        print(f"{name}: {meta['data_packets']} data packets in {wall:.2f} s")
    for path in sorted(p for d in dirs for p in Path(d).glob("*.toml")):
        start = time.perf_counter()
        # Relative trace files are read from the scenario file's directory, as `rtolab run` does.
        result = _core.run(path.read_text(), "toml", None, None, base=str(path.parent))
        print(f"{path}: {result['meta']['data_packets']} data packets in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
