"""The result of one run: polars tables, metadata and captures, and saving them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl



@dataclass(frozen=True)
class Result:
    """Tables of one run.

    ``flows``: one row per flow; ``links``: one row per link direction; ``cells``: one row
    per cell of the radio network (empty without one); ``series``: long
    format (time_s, entity, metric, value), empty unless asked for; ``events``: one row per
    event of the kinds ``output.events`` asks for (timeouts with the oracle's and the
    sender's verdicts, undos, retransmissions, drops, spikes), empty otherwise; ``meta``: seed, simulated
    time, events, versions; ``pcaps``: link direction → pcap file bytes. The columns, their
    units and meanings: ``rtolab schema --results``.
    """

    flows: pl.DataFrame
    links: pl.DataFrame
    cells: pl.DataFrame
    series: pl.DataFrame
    events: pl.DataFrame
    meta: dict[str, Any]
    pcaps: dict[str, bytes] = field(default_factory=dict)

    def __repr__(self) -> str:
        """A summary, not the data: the tables' shapes, the run's scenario and seed, and the
        captures' sizes (a capture is megabytes of bytes)."""
        tables = ", ".join(f"{name} {df.height}×{df.width}" for name, df in (("flows", self.flows), ("links", self.links), ("cells", self.cells), ("series", self.series), ("events", self.events)))
        pcaps = ", ".join(f"{name} {len(data):,} B" for name, data in self.pcaps.items()) or "none"
        return f"Result(scenario {self.meta.get('scenario')!r}, seed {self.meta.get('seed')}: {tables}; pcaps: {pcaps})"

    @classmethod
    def from_core(cls, raw: dict[str, Any], meta: dict[str, Any]) -> Result:
        """From ``_core.run``'s dict: each table is an Arrow record batch that polars takes
        over through the Arrow PyCapsule interface (numeric columns without a copy)."""
        return cls(
            flows=pl.DataFrame(raw["flows"]),
            links=pl.DataFrame(raw["links"]),
            cells=pl.DataFrame(raw["cells"]),
            series=pl.DataFrame(raw["series"]),
            events=pl.DataFrame(raw["events"]),
            meta={**raw["meta"], **meta},
            pcaps=dict(raw["pcaps"]),
        )

    def save(self, directory: str | os.PathLike[str], force: bool = False) -> Path:
        """Writes flows/links/series (and cells, with a radio network; events, when logged) as
        Parquet, ``meta.json`` and ``pcap/*.pcap`` into ``directory`` and returns its path.

        ``directory`` is new, empty, or a result rtolab wrote; it replaces rtolab's own files
        there and nothing else (``rtolab.output_dir``): a directory holding anything else is
        refused (``OutputRefused``) unless ``force``, which writes beside those entries. The
        working or home directory, a file system root or a repository are always refused.
        Written into a staging sibling and swapped in, so an interrupted save leaves the old
        result or the new one."""
        from rtolab.output_dir import replacing

        with replacing(directory, "run", force) as staging:
            self.write_into(staging)
        return Path(directory)

    def write_into(self, staging: Path) -> None:
        """Writes the result's files into ``staging``, an empty directory (``save``)."""
        self.flows.write_parquet(staging / "flows.parquet")
        self.links.write_parquet(staging / "links.parquet")
        if self.cells.height:
            self.cells.write_parquet(staging / "cells.parquet")
        self.series.write_parquet(staging / "series.parquet")
        if self.events.height:
            self.events.write_parquet(staging / "events.parquet")
        (staging / "meta.json").write_text(json.dumps(self.meta, indent=2, sort_keys=True) + "\n")
        if self.pcaps:
            (staging / "pcap").mkdir()
            for name, data in self.pcaps.items():
                (staging / "pcap" / f"{name}.pcap").write_bytes(data)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Result:
        """Reads a directory written by ``save``."""
        d = Path(directory)
        pcaps = {p.stem: p.read_bytes() for p in sorted((d / "pcap").glob("*.pcap"))}
        return cls(
            flows=pl.read_parquet(d / "flows.parquet"),
            links=pl.read_parquet(d / "links.parquet"),
            cells=pl.read_parquet(d / "cells.parquet") if (d / "cells.parquet").exists() else pl.DataFrame(),
            series=pl.read_parquet(d / "series.parquet"),
            events=pl.read_parquet(d / "events.parquet") if (d / "events.parquet").exists() else pl.DataFrame(),
            meta=json.loads((d / "meta.json").read_text()),
            pcaps=pcaps,
        )
