"""Plays every script of validate/drill/ (and gaps/) against this machine's kernel (`rtolab
drill --kernel`, three times each, recording the kernel's version) and every simulated stack
profile, and writes the table into docs/drill.md ("Results per profile"). Run by `make
validate`. Without root or /dev/net/tun the kernel's column says it was not run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rtolab.doc_section import replace_section
from rtolab.drill import parse_file
from rtolab.drill.device import unavailable
from rtolab.drill.kernel import kernel_version, play_all
from rtolab.drill.play import play

HERE = Path(__file__).resolve().parent
STACKS = ["linux", "rfc", "freebsd", "ns3", "ns2-sack1", "ns2-newreno"]
BEGIN, END = "<!-- drill-results:begin -->", "<!-- drill-results:end -->"


def cell(status: str, line: int | None) -> str:
    return {"pass": "pass", "skip": "skip"}.get(status, f"fail (line {line})")


def kernel_cells(scripts: list[Path], runs: int) -> tuple[str, list[str]]:
    """The kernel column's heading and one cell per script: how many of ``runs`` passed, or
    the first failure."""
    reason = unavailable()
    if reason is not None:
        return "kernel (not run)", [f"not run: {reason}"] * len(scripts)
    rounds = [play_all(scripts) for _ in range(runs)]
    cells = []
    for outcomes in zip(*rounds):
        passed = sum(o.status == "pass" for o in outcomes)
        failed = next((o for o in outcomes if o.status != "pass"), None)
        cells.append(f"pass ({passed}/{runs})" if failed is None else f"{cell(failed.status, failed.line)}, {passed}/{runs} passed")
    return f"kernel {kernel_version()}", cells


def table(runs: int) -> str:
    scripts = sorted(HERE.glob("*.pkt")) + sorted(HERE.glob("gaps/*.pkt"))
    heading, kernel = kernel_cells(scripts, runs)
    rows = [f"| script | {heading} | " + " | ".join(STACKS) + " |", "| --- | --- |" + " --- |" * len(STACKS)]
    for path, kernel_cell in zip(scripts, kernel):
        parsed = parse_file(path)
        outcomes = [play(parsed, stack) for stack in STACKS]
        name = str(path.relative_to(HERE))
        rows.append(f"| `{name}` | {kernel_cell} | " + " | ".join(cell(o.status, o.line) for o in outcomes) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=HERE.parent.parent / "docs" / "drill.md")
    parser.add_argument("--kernel-runs", type=int, default=3, help="how many times each script is played on the kernel")
    args = parser.parse_args()
    text = (
        f"{BEGIN}\n## Results per profile (`make validate`: `validate/drill/results.py`)\n\n"
        "The kernel column is `rtolab drill --kernel` on the machine that ran `make validate`, each\n"
        "script played several times. Scripts of `gaps/` pass on the kernel and name a behaviour\n"
        "the `linux` profile lacks. The other profiles are other stacks: where they fail, the line\n"
        "is where their behaviour departs from Linux's (an RFC 3390 initial window, no tail loss\n"
        "probe, ns-2's agents).\n\n"
        f"{table(args.kernel_runs)}\n{END}\n"
    )
    replace_section(args.out, BEGIN, END, text)
    print(f"drill results written to {args.out}")


if __name__ == "__main__":
    main()
