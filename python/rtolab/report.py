"""``rtolab report``: figures and tables for a finished (or partial) sweep.

For each headline metric it draws one box plot per grid point (median, quartiles, whiskers
at min–max, as the papers' figures) and tabulates the mean with its Student-t interval. With
``html=True`` the figures are embedded in one page that opens from disk with no server.
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from rtolab import stats
from rtolab.store import Store

METRICS = {
    "goodput_bps": "goodput (bit/s)",
    "elapsed_s": "transfer time (s)",
    "timeouts": "timeouts per flow",
    "spurious_timeouts": "spurious timeouts per flow",
    "retransmits": "retransmitted segments per flow",
}


@dataclass(frozen=True)
class Section:
    metric: str
    title: str
    png: bytes
    table: pl.DataFrame


def _parameters(directory: Path) -> list[str]:
    study = json.loads((directory / "study.json").read_text())
    names = list(dict.fromkeys(k for c in study.get("cases", []) for k in c))
    return names + [k for k in study.get("grid", {}) if k not in names]


def _label(row: dict[str, object], params: list[str]) -> str:
    return "\n".join(f"{p.rsplit('.', 1)[-1]}={row[p]}" for p in params) or "all"


def sections(directory: Path) -> list[Section]:
    flows = Store(directory).load("flows")
    if flows.is_empty():
        return []
    params = _parameters(directory)
    flows = flows.with_columns((pl.col("end_s") - pl.col("start_s")).alias("elapsed_s"))
    out = []
    for metric, title in METRICS.items():
        table = stats.summarize(flows, metric, params)
        groups = flows.group_by(params, maintain_order=True) if params else [((), flows)]
        data, labels = [], []
        for keys, group in groups:
            values = group[metric].drop_nulls().to_numpy()
            data.append(values)
            labels.append(_label(dict(zip(params, keys)), params))
        fig = Figure(figsize=(max(6.0, 0.9 * len(data) + 2), 4.2))
        ax = fig.subplots()
        ax.boxplot(data, whis=(0, 100), showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=7)
        ax.set_ylabel(title)
        ax.set_title(f"{title}: median, quartiles, min–max; ▲ mean")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        out.append(Section(metric, title, buf.getvalue(), table))
    return out


def _html_table(df: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)

    def cell(v: object) -> str:
        return f"{v:.4g}" if isinstance(v, float) else html.escape(str(v))

    rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in df.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def write(directory: str | Path, html_page: bool = False) -> list[Path]:
    """Writes ``report/<metric>.png`` and ``report/<metric>.csv`` (and ``report/index.html``)
    under the sweep directory; returns the files written."""
    d = Path(directory)
    target = d / "report"
    target.mkdir(exist_ok=True)
    written = []
    parts = sections(d)
    for s in parts:
        (target / f"{s.metric}.png").write_bytes(s.png)
        s.table.write_csv(target / f"{s.metric}.csv")
        written += [target / f"{s.metric}.png", target / f"{s.metric}.csv"]
    if html_page:
        errors = Store(d).errors()
        body = [f"<h1>rtolab report: {html.escape(d.name)}</h1>", f"<p>{Store(d).load('flows')['run'].n_unique() if parts else 0} runs; {errors.height} failed.</p>"]
        for s in parts:
            img = base64.b64encode(s.png).decode()
            body += [f"<h2>{html.escape(s.title)}</h2>", f'<img alt="{html.escape(s.title)}" src="data:image/png;base64,{img}">', _html_table(s.table)]
        if errors.height:
            body += ["<h2>Failed runs</h2>", _html_table(errors)]
        style = "body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}img{max-width:100%}"
        page = f"<!doctype html><html><head><meta charset='utf-8'><title>rtolab report</title><style>{style}</style></head><body>{''.join(body)}</body></html>"
        (target / "index.html").write_text(page, encoding="utf-8")
        written.append(target / "index.html")
    return written
