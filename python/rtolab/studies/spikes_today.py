"""Writes ``docs/spikes-today.md`` and its figures from a sweep of ``studies/spikes-today.toml``
(issue 29 §4: paper 003's question on trace-driven LTE-like links, CUBIC and BBR)::

    rtolab sweep studies/spikes-today.toml --out out/spikes-today --workers 2
    python -m rtolab.studies.spikes_today out/spikes-today --docs docs

The page goes to ``DOCS/spikes-today.md``, the figures to ``DOCS/figures/spikes-today/``.
A directory that holds no sweep of this study, or a sweep with runs missing, is refused with
one message and exit status 2, before anything is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import _core
from rtolab.manifest import stored_study
from rtolab.store import StoreDamaged
from rtolab.studies import spikes_today_analysis as analysis
from rtolab.studies import spikes_today_figures as figures
from rtolab.studies.spikes_today_analysis import AnalysisError, Tables
from rtolab.studies.spikes_today_doc import Setup, render, write
from rtolab.sweep import load

PAGE = "spikes-today.md"
FIGURES = Path("figures") / "spikes-today"


def _radio(base: dict[str, Any]) -> dict[str, Any]:
    """The study scenario's link ``radio`` (empty when it has none)."""
    return next((x for x in base.get("links", []) if isinstance(x, dict) and x.get("name") == "radio"), {})


def _reverse(link: dict[str, Any]) -> str:
    """What the ACK direction of ``link`` delivers at: its trace's file name, or its rate."""
    reverse = link.get("reverse") or {}
    trace = reverse.get("trace")
    if isinstance(trace, dict):
        trace = trace.get("file")
    return f"traces/{Path(trace).name}" if isinstance(trace, str) else str(reverse.get("rate", link.get("rate", "the forward direction's rate")))


def analyse(root: Path) -> tuple[Setup, Tables, pl.DataFrame]:
    """The set-up, the tables and the paired replications of the sweep in ``root``."""
    study = stored_study(root)
    if study is None:
        raise AnalysisError(f"{root}: no sweep here (no study.json); run `rtolab sweep studies/spikes-today.toml --out {root}` first")
    flows, links = load(root), load(root, "links")
    if flows.is_empty():
        raise AnalysisError(f"{root}: the sweep of study {study.name!r} has no finished runs yet; run it again to finish them")
    table = analysis.runs(flows, links)
    duration_s = analysis.duration(study.base)
    law = analysis.spike_law(flows)
    tables = analysis.tabulate(table, duration_s, law)
    link = _radio(study.base)
    setup = Setup(
        traces=tables.good["trace"].unique(maintain_order=True).to_list(),
        ccs=tables.good["cc"].unique(maintain_order=True).to_list(),
        queues=tables.good["queue"].unique(maintain_order=True).to_list(),
        reverse=_reverse(link),
        delay=str(link.get("delay", "0s")),
        law=law,
        duration_s=duration_s,
        replications=int(table["replication"].n_unique()),
        seed=study.seed,
        runs=table.height,
    )
    return setup, tables, analysis.pairs(table)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtolab.studies.spikes_today", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("sweep", type=Path, help="the sweep's --out directory")
    parser.add_argument("--docs", type=Path, default=Path("docs"), help="where the page goes (figures under figures/spikes-today/); default docs")
    args = parser.parse_args(argv)
    try:
        setup, tables, paired = analyse(args.sweep)
    except (AnalysisError, StoreDamaged, _core.SpecError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.docs / FIGURES
    out.mkdir(parents=True, exist_ok=True)
    written = figures.goodput_figure(tables.good, out) + figures.timer_figure(tables.timer, out) + figures.loss_figure(paired, setup.duration_s, out)
    write(args.docs / PAGE, render(setup, tables, FIGURES.as_posix()))
    print(f"wrote {args.docs / PAGE} and {len(written)} figures in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
