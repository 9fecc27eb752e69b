"""``rtolab report``: figures and tables of a finished (or partial) sweep.

Flows are grouped by grid point and by generator (or by flow, kind, or not at all); each
summary is a mean over *replications* with its Student-t interval, the level stated
(``report_data``). For goodput and completion time (and, where datagram flows ran, their
one-way delay, the share of datagrams lost or late, and calls' MOS): a box plot and CDFs over
flows, and a table; for TCP's events (timeouts, spurious ones, detected, undone, retransmissions) the
mean per flow. Unbounded flows have no completion time; transfers unfinished at the end
count in goodput at their goodput so far and are counted in the events table. With
``html=True`` the figures are embedded in one page that opens from disk with no server.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab import report_figures as figures
from rtolab.report_data import DISTRIBUTIONS, QUIC_EVENTS, Flows, events, load, summary
from rtolab.report_groups import GroupBy
from rtolab.store import Store

LEVEL = 0.9


@dataclass(frozen=True)
class Section:
    """One part of the report: its file stem, its title, a sentence on how to read it, its
    figures (PNG) and its table."""

    name: str
    title: str
    note: str
    figures: list[bytes]
    table: pl.DataFrame


def _percent(level: float) -> str:
    return f"{level * 100:g} %"


def sections(directory: Path, by: GroupBy = "generator", warm_up_s: float = 0.0, level: float = LEVEL) -> tuple[Flows, list[Section]]:
    """The report's sections for the sweep in ``directory``."""
    flows = load(directory, by, warm_up_s)
    if flows.table.is_empty():
        return flows, []
    pct = _percent(level)
    out = []
    for metric, (title, unit) in DISTRIBUTIONS.items():
        table = summary(flows, metric, level)
        if table.is_empty():
            continue
        drawn = [f for f in (figures.boxes(flows, metric, title, unit), figures.cdf(flows, metric, title, unit)) if f is not None]
        note = f"Mean over replications of each run's mean over its flows [{unit}], with its {pct} Student-t interval; flow median over all flows."
        out.append(Section(metric, title, note, drawn, table))
    table = events(flows, level)
    if not table.is_empty():
        drawn = [f for f in (figures.events(table, flows),) if f is not None]
        note = f"Mean count per TCP flow over replications; ± is the half-width of its {pct} Student-t interval over replications. 'spurious (oracle)' is the simulator's verdict, 'detected spurious' the sender's."
        out.append(Section("events", "TCP events per flow", note, drawn, table))
    table = events(flows, level, "quic", QUIC_EVENTS)
    if not table.is_empty():
        shown = {c: n for c, n in QUIC_EVENTS.items() if c != "congestion_events"}
        drawn = [f for f in (figures.events(table, flows, shown, "PTOs and lost packets, and what the oracle made of them"),) if f is not None]
        note = f"Mean count per QUIC flow over replications (PTOs per end, losses of both ends); ± is the half-width of its {pct} Student-t interval over replications. 'spurious' is the oracle's verdict: a PTO that waited for nothing lost, a declared loss whose datagram arrived."
        out.append(Section("quic-events", "QUIC events per flow", note, drawn, table))
    return flows, out


def _cell(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4g}" if isinstance(v, float) else html.escape(str(v))


def _html_table(df: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c.rsplit('.', 1)[-1])}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>" for r in df.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:0 1em}"
    "table{border-collapse:collapse;font-size:12px;margin:0.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}img{max-width:100%;display:block}"
    "p.note{color:#444;font-size:13px}"
)


def _page(directory: Path, flows: Flows, parts: list[Section], by: GroupBy, level: float) -> str:
    errors = Store(directory).errors()
    runs = flows.table["run"].n_unique() if not flows.table.is_empty() else 0
    cut = f" Flows that started before {flows.warm_up_s:g} s are left out ({flows.left_out})." if flows.warm_up_s else ""
    body = [
        f"<h1>{html.escape(flows.study)}</h1>",
        f"<p>{runs} runs, {errors.height} failed; {flows.table.height} flows grouped by {by} and grid point; "
        f"intervals at {_percent(level)} over replications.{cut}</p>",
    ]
    for s in parts:
        body += [f'<h2 id="{s.name}">{html.escape(s.title)}</h2>', f'<p class="note">{html.escape(s.note)}</p>']
        body += [f'<img alt="{html.escape(s.title)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">' for png in s.figures]
        body.append(_html_table(s.table))
    if errors.height:
        body += ['<h2 id="failed">Failed runs</h2>', _html_table(errors)]
    title = html.escape(f"rtolab report: {flows.study}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>"


def write(directory: str | Path, html_page: bool = False, by: GroupBy = "generator", warm_up_s: float = 0.0, level: float = LEVEL, force: bool = False) -> list[Path]:
    """Writes ``report/<section>.csv`` and its figures ``report/<section>[-N].png`` (and
    ``report/index.html``) under the sweep directory, in place of an earlier report's, all at
    once (``rtolab.output_dir``: a ``report`` directory holding files rtolab did not write is
    refused unless ``force``, which keeps them); returns the files written."""
    from rtolab.output_dir import replacing

    d = Path(directory)
    flows, parts = sections(d, by, warm_up_s, level)
    target = d / "report"
    names = []
    with replacing(target, "report", force) as staging:
        for s in parts:
            s.table.write_csv(staging / f"{s.name}.csv")
            names.append(f"{s.name}.csv")
            for i, png in enumerate(s.figures):
                name = f"{s.name}.png" if i == 0 else f"{s.name}-{i + 1}.png"
                (staging / name).write_bytes(png)
                names.append(name)
        if html_page:
            (staging / "index.html").write_text(_page(d, flows, parts, by, level), encoding="utf-8")
            names.append("index.html")
    return [target / name for name in names]
