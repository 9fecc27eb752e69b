"""Plays every script of validate/drill/ (and gaps/) against every simulated stack profile and
writes the table into docs/drill.md ("Results per profile"). Run by `make validate`.

The kernel's column is the README's record (packetdrill built from source, see
validate/drill/README.md): this script does not run the kernel.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rtolab.doc_section import replace_section
from rtolab.drill import parse_file
from rtolab.drill.play import play

HERE = Path(__file__).resolve().parent
STACKS = ["linux", "rfc", "freebsd", "ns3", "ns2-sack1", "ns2-newreno"]
BEGIN, END = "<!-- drill-results:begin -->", "<!-- drill-results:end -->"


def cell(status: str, line: int | None) -> str:
    return {"pass": "pass", "skip": "skip"}.get(status, f"fail (line {line})")


def table() -> str:
    scripts = sorted(HERE.glob("*.pkt")) + sorted(HERE.glob("gaps/*.pkt"))
    rows = ["| script | " + " | ".join(STACKS) + " |", "| --- |" + " --- |" * len(STACKS)]
    for path in scripts:
        parsed = parse_file(path)
        outcomes = [play(parsed, stack) for stack in STACKS]
        name = str(path.relative_to(HERE))
        rows.append(f"| `{name}` | " + " | ".join(cell(o.status, o.line) for o in outcomes) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=HERE.parent.parent / "docs" / "drill.md")
    args = parser.parse_args()
    text = (
        f"{BEGIN}\n## Results per profile (`make validate`: `validate/drill/results.py`)\n\n"
        "Every script of `validate/drill/` passes on kernel 6.18 (`validate/drill/README.md`);\n"
        "those of `gaps/` pass on the kernel and name a behaviour the `linux` profile lacks. The\n"
        "other profiles are other stacks: where they fail, the line is where their behaviour\n"
        "departs from Linux's (an RFC 3390 initial window, no tail loss probe, ns-2's agents).\n\n"
        f"{table()}\n{END}\n"
    )
    replace_section(args.out, BEGIN, END, text)
    print(f"drill results written to {args.out}")


if __name__ == "__main__":
    main()
