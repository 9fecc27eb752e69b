"""The on-disk result store of a sweep.

Layout under the output directory::

    study.json            the study that produced it
    flows/<run>.parquet   one file per finished run (flow rows + run columns)
    links/<run>.parquet   the same for link directions
    errors/<run>.json     runs that failed, with their error

``<run>`` is the run key (spec hash, seed). Every file is written to a temporary name and
renamed into place, links before flows; a run counts as finished only when its flows file
exists, so a killed sweep loses at most the runs in flight and never leaves a torn file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import _core
from rtolab.study import RunPoint, Study

RUN_COLUMNS = ["run", "point", "replication", "seed", "spec_hash"]


def _atomic_write(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    write(tmp)
    os.replace(tmp, path)


def param_dtypes(study: Study) -> dict[str, pl.DataType]:
    """One dtype per parameter so every run file has the same schema: numbers stay numbers
    (floats if any value is a float), anything else is stored as text."""
    values: dict[str, list[Any]] = {p: [] for p in study.parameters}
    for combo in study.combinations():
        for k, v in combo.items():
            values[k].append(v)
    out: dict[str, pl.DataType] = {}
    for name, vs in values.items():
        if all(isinstance(v, bool) for v in vs):
            out[name] = pl.Boolean()
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in vs):
            out[name] = pl.Int64()
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
            out[name] = pl.Float64()
        else:
            out[name] = pl.String()
    return out


def _param_value(v: Any, dtype: pl.DataType) -> Any:
    if v is None or not isinstance(dtype, pl.String):
        return v
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


class Store:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def prepare(self, study: Study) -> None:
        for sub in ("flows", "links", "errors"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
            for stale in (self.root / sub).glob(".*.tmp-*"):
                stale.unlink(missing_ok=True)
        text = json.dumps(study.to_dict(), indent=2, sort_keys=True, default=str)
        self._check_same_study(json.loads(text))
        _atomic_write(self.root / "study.json", lambda p: p.write_text(text + "\n"))

    def _check_same_study(self, new: dict[str, Any]) -> None:
        """One store holds one study: the same scenario, grid, cases, seed and name; only the
        number of replications may grow (the finished runs are reused)."""
        path = self.root / "study.json"
        if not path.exists():
            return
        old = json.loads(path.read_text())
        differ = sorted(k for k in set(old) | set(new) if k != "replications" and old.get(k) != new.get(k))
        if differ:
            raise _core.SpecError(
                f"{self.root}: holds the runs of a different study ({', '.join(differ)} differ); "
                "use another --out, or remove that directory to start over"
            )

    def finished(self) -> set[str]:
        return {p.stem for p in (self.root / "flows").glob("*.parquet")}

    def _with_run_columns(self, df: pl.DataFrame, point: RunPoint, dtypes: dict[str, pl.DataType]) -> pl.DataFrame:
        run_cols = [
            pl.lit(point.key).alias("run"),
            pl.lit(point.point, dtype=pl.Int64).alias("point"),
            pl.lit(point.replication, dtype=pl.Int64).alias("replication"),
            pl.lit(point.seed, dtype=pl.UInt64).alias("seed"),
            pl.lit(point.spec_hash).alias("spec_hash"),
        ]
        params = [pl.lit(_param_value(point.params.get(n), t), dtype=t).alias(n) for n, t in dtypes.items()]
        return df.select([*run_cols, *params, pl.all()])

    def write(self, point: RunPoint, flows: pl.DataFrame, links: pl.DataFrame, dtypes: dict[str, pl.DataType]) -> None:
        key = point.key
        _atomic_write(self.root / "links" / f"{key}.parquet", self._with_run_columns(links, point, dtypes).write_parquet)
        _atomic_write(self.root / "flows" / f"{key}.parquet", self._with_run_columns(flows, point, dtypes).write_parquet)
        (self.root / "errors" / f"{key}.json").unlink(missing_ok=True)

    def write_error(self, point: RunPoint, message: str) -> None:
        record = {"run": point.key, "point": point.point, "replication": point.replication, "seed": point.seed, "params": point.params, "error": message}
        text = json.dumps(record, indent=2, sort_keys=True, default=str)
        _atomic_write(self.root / "errors" / f"{point.key}.json", lambda p: p.write_text(text + "\n"))

    def _current_keys(self) -> set[str] | None:
        """The run keys of the study in ``study.json`` (None without one): files of runs it
        no longer has, such as replications beyond its count, are not loaded."""
        path = self.root / "study.json"
        if not path.exists():
            return None
        return {p.key for p in Study.from_dict(json.loads(path.read_text())).points()}

    def load(self, table: str = "flows", keys: set[str] | None = None) -> pl.DataFrame:
        """All finished runs' rows of ``table``, in study order (point, replication, row):
        the runs in ``keys``, or by default those of the study in ``study.json``."""
        if table not in ("flows", "links"):
            raise ValueError(f"table must be 'flows' or 'links', got {table!r}")
        files = sorted((self.root / table).glob("*.parquet"))
        current = keys if keys is not None else self._current_keys()
        if current is not None:
            files = [f for f in files if f.stem in current]
        if not files:
            return pl.DataFrame()
        df = pl.concat([pl.read_parquet(f) for f in files], how="vertical")
        order = ["point", "replication", "flow"] if table == "flows" else ["point", "replication", "link", "direction"]
        return df.sort(order, maintain_order=True)

    def errors(self) -> pl.DataFrame:
        rows = [json.loads(p.read_text()) for p in sorted((self.root / "errors").glob("*.json"))]
        if not rows:
            return pl.DataFrame(schema={"run": pl.String, "point": pl.Int64, "replication": pl.Int64, "seed": pl.UInt64, "error": pl.String})
        return pl.DataFrame([{k: r[k] for k in ("run", "point", "replication", "seed", "error")} for r in rows])
