"""The on-disk result store of a sweep.

Layout under the output directory::

    study.json            the study that produced it (one study per directory: see manifest)
    manifest.json         its name and fingerprint, and those of the studies it extended
    checksums.jsonl       each run file's SHA-256 and rows, one line per write (last wins)
    flows/<run>.parquet   one file per finished run (flow rows + run columns)
    links/<run>.parquet   the same for link directions
    errors/<run>.json     runs that failed, with their error

``<run>`` is the run key (spec hash, seed, labels). Every file is written to a temporary name
and renamed into place, links before flows; a run counts as finished only when its flows file
exists, so a killed sweep loses at most the runs in flight and never leaves a torn file. A
file's checksum line is appended before the file is renamed into place, so every finished
run file has one (stores written before checksums existed are checked by shape only).

Every run file of the stored study has the columns, ``point`` numbers and parameter types of
that study as it is now: extending a study rewrites the older files whose grid point moved or
whose parameter type widened, before the new study is recorded, so other readers (DuckDB) see
one consistent dataset. Reading returns the runs of the stored study only.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import manifest
from rtolab.result_schema import SWEEP_COLUMNS
from rtolab.study import RunPoint, Study

RUN_COLUMNS = [c.name for c in SWEEP_COLUMNS]
#: The columns of ``errors()``: a failed run's key, grid point, replication, seed and message.
ERROR_COLUMNS = {"run": pl.String, "point": pl.Int64, "replication": pl.Int64, "seed": pl.UInt64, "error": pl.String}


CHECKSUMS = "checksums.jsonl"
#: Why ``scan`` refuses a run file.
DAMAGED = "bytes that differ from their checksums, or not whole Parquet files"


@dataclass(frozen=True)
class Problem:
    """Something wrong with a run file of a store: ``missing`` (a finished run without it),
    ``corrupted`` (its bytes differ from its checksum), ``damaged`` (no checksum, and not a
    whole Parquet file), ``extra`` (not a run of the stored study)."""

    path: Path
    kind: str

    @property
    def run(self) -> str:
        return self.path.stem


class StoreDamaged(RuntimeError):
    """Run files of a store are damaged: not whole Parquet files (overwritten, cut short),
    or not decodable with bytes that differ from their checksums."""


def intact(path: Path) -> bool:
    """Whether ``path`` is shaped like a whole Parquet file: ``PAR1`` at both ends. A file
    overwritten or cut short fails; a byte changed inside a data page does not (the checksum
    in ``checksums.jsonl`` finds that: ``Store.verify``)."""
    try:
        with path.open("rb") as f:
            if f.read(4) != b"PAR1":
                return False
            f.seek(-4, os.SEEK_END)
            return f.read(4) == b"PAR1"
    except OSError:
        return False


def _atomic_write(path: Path, data: bytes) -> None:
    """Writes ``data`` through a temporary sibling moved into place: ``path`` is whole or
    absent, and an interrupted write (Ctrl-C) leaves no temporary behind. Callers encode in
    memory first (``_parquet``), so no library writes files in the background."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: Path) -> None:
    """Removes ``path`` even through a second Ctrl-C: one Ctrl-C can raise KeyboardInterrupt
    twice, from polars' SIGINT handler and then from Python's."""
    while True:
        try:
            path.unlink(missing_ok=True)
            return
        except KeyboardInterrupt:
            continue


@dataclass(frozen=True)
class RunColumns:
    """The columns a run file puts in front of the simulator's: the run's identity
    (``RUN_COLUMNS``), its parameters as the study writes them, and those written with units
    in SI units, each a (name, value, dtype). Made once per run by the sweep, so that its
    worker process can encode the files (``encode_run``) and the sweep only writes bytes."""

    values: tuple[tuple[str, Any, pl.DataType], ...]

    def attach(self, df: pl.DataFrame) -> pl.DataFrame:
        """``df`` with these columns first, each repeated on every row."""
        n = df.height
        front = pl.DataFrame([pl.Series(name, [value] * n, dtype=dtype) for name, value, dtype in self.values])
        return front.hstack(df)


def run_columns(point: RunPoint, dtypes: Mapping[str, pl.DataType], quantities: Mapping[str, tuple[str, str]]) -> RunColumns:
    """``point``'s run columns, with its parameters as ``dtypes`` says and the SI columns of
    ``quantities`` (column → (parameter, kind))."""
    from rtolab.sweep_quantities import si_value

    identity: list[tuple[str, Any, pl.DataType]] = [
        ("run", point.key, pl.String()),
        ("point", point.point, pl.Int64()),
        ("replication", point.replication, pl.Int64()),
        ("seed", point.seed, pl.UInt64()),
        ("spec_hash", point.spec_hash, pl.String()),
    ]
    params = [(n, _param_value(point.params.get(n), t), t) for n, t in dtypes.items()]
    si: list[tuple[str, Any, pl.DataType]] = [(name, si_value(point.params, source, kind), pl.Float64()) for name, (source, kind) in quantities.items()]
    return RunColumns(tuple([*identity, *params, *si]))


@dataclass(frozen=True)
class EncodedRun:
    """One run's flows and links files as Parquet bytes, with their row counts."""

    flows: bytes
    flows_rows: int
    links: bytes
    links_rows: int


def encode_run(columns: RunColumns, flows: pl.DataFrame, links: pl.DataFrame) -> EncodedRun:
    """The run files' bytes: each table with ``columns`` in front."""
    return EncodedRun(_parquet(columns.attach(flows)), flows.height, _parquet(columns.attach(links)), links.height)


def _parquet(df: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.write_parquet(buffer)
    return buffer.getvalue()


def _parameter_values(study: Study) -> dict[str, list[Any]]:
    """Each parameter of ``study`` and the values it takes, one per combination."""
    values: dict[str, list[Any]] = {p: [] for p in study.parameters}
    for combo in study.combinations():
        for k, v in combo.items():
            values[k].append(v)
    return values


def param_dtypes(study: Study) -> dict[str, pl.DataType]:
    """One dtype per parameter so every run file has the same schema: numbers stay numbers
    (floats if any value is a float), anything else is stored as text."""
    values = _parameter_values(study)
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


def param_quantities(study: Study) -> dict[str, tuple[str, str]]:
    """The study's parameters written with units, as SI columns: column → (parameter, kind)
    (``sweep_quantities``)."""
    from rtolab.sweep_quantities import quantity_columns

    return quantity_columns(_parameter_values(study))


def _param_value(v: Any, dtype: pl.DataType) -> Any:
    if v is None or not isinstance(dtype, pl.String):
        return v
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


class Store:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def prepare(self, study: Study, extend: bool = False) -> str | None:
        """Makes the directory ready for ``study``; refuses (``SpecError``, nothing written)
        a directory that holds another study, unless ``extend`` and ``study`` only adds grid
        points to it, or ``study`` corrects grid values or cases none of whose runs finished
        (see ``rtolab.manifest``): then the failed runs' records go, and the return value
        says what was replaced."""
        replaced = manifest.check(self.root, study, extend, self.finished() if (self.root / "flows").is_dir() else set())
        for sub in ("flows", "links", "errors"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
            for stale in (self.root / sub).glob(".*.tmp-*"):
                stale.unlink(missing_ok=True)
        old = manifest.stored_study(self.root)
        if old is not None and old.fingerprint != study.fingerprint:
            self._conform(study)
        record = json.dumps(manifest.record(self.root, study), indent=2, sort_keys=True)
        text = json.dumps(study.to_dict(), indent=2, sort_keys=True, default=str)
        _atomic_write(self.root / manifest.STUDY_FILE, (text + "\n").encode())
        _atomic_write(self.root / manifest.MANIFEST_FILE, (record + "\n").encode())
        if replaced is not None:
            keys = {p.key for p in study.points()}
            for path in (self.root / "errors").glob("*.json"):
                if path.stem not in keys:
                    path.unlink(missing_ok=True)
        return replaced

    def _conform(self, study: Study) -> None:
        """Rewrites the run files of ``study`` whose point, parameter types or column order
        differ from what ``write`` gives it today (after an extension). Idempotent, so an
        interrupted extension is completed by the next one."""
        points = {p.key: p.point for p in study.points()}
        dtypes = param_dtypes(study)
        for table in ("flows", "links"):
            for path in sorted((self.root / table).glob("*.parquet")):
                if path.stem not in points:
                    continue
                schema = pl.read_parquet_schema(path)
                order = [*RUN_COLUMNS, *dtypes, *(c for c in schema if c not in RUN_COLUMNS and c not in dtypes)]
                stored = pl.read_parquet(path, columns=["point"], n_rows=1)["point"].to_list()
                if stored == [points[path.stem]] and list(schema) == order and all(schema[n] == t for n, t in dtypes.items()):
                    continue
                df = pl.read_parquet(path).with_columns(pl.lit(points[path.stem], dtype=pl.Int64).alias("point"))
                df = df.cast({n: t for n, t in dtypes.items() if n in df.columns}).select([c for c in order if c in df.columns])
                self._write_run_file(table, path.stem, _parquet(df), df.height)

    def finished(self) -> set[str]:
        return {p.stem for p in (self.root / "flows").glob("*.parquet")}

    def discard(self, key: str) -> None:
        """Removes a run's files, so that the next sweep runs it again."""
        for table in ("flows", "links"):
            (self.root / table / f"{key}.parquet").unlink(missing_ok=True)

    def write(self, point: RunPoint, flows: pl.DataFrame, links: pl.DataFrame, dtypes: dict[str, pl.DataType], quantities: Mapping[str, tuple[str, str]] | None = None) -> None:
        """One run's flows and links with the run's columns, its parameters as written
        (``dtypes``) and those written with units in SI units (``quantities``)."""
        self.write_encoded(point.key, encode_run(run_columns(point, dtypes, quantities or {}), flows, links))

    def write_encoded(self, key: str, run: EncodedRun) -> None:
        """One run's files as ``encode_run`` made them (in a sweep's worker process)."""
        self._write_run_file("links", key, run.links, run.links_rows)
        self._write_run_file("flows", key, run.flows, run.flows_rows)
        (self.root / "errors" / f"{key}.json").unlink(missing_ok=True)

    def _write_run_file(self, table: str, key: str, data: bytes, rows: int) -> None:
        """One run file, its checksum line first (see the module doc)."""
        line = json.dumps({"file": f"{table}/{key}.parquet", "sha256": hashlib.sha256(data).hexdigest(), "rows": rows}, sort_keys=True)
        fd = os.open(self.root / CHECKSUMS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
        _atomic_write(self.root / table / f"{key}.parquet", data)

    def checksums(self) -> dict[str, str]:
        """Run file (``flows/<run>.parquet``) → its last recorded SHA-256. A line cut short by
        a killed process is skipped."""
        out: dict[str, str] = {}
        try:
            text = (self.root / CHECKSUMS).read_text()
        except FileNotFoundError:
            return out
        for line in text.splitlines():
            try:
                record = json.loads(line)
                out[record["file"]] = record["sha256"]
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def verify(self, keys: set[str]) -> list[Problem]:
        """The problems of the finished runs ``keys`` (``problem``), in file order."""
        sums = self.checksums()
        found = (self.problem(self.root / table / f"{key}.parquet", sums) for key in sorted(keys) for table in ("flows", "links"))
        return [p for p in found if p is not None]

    def problem(self, path: Path, sums: dict[str, str]) -> Problem | None:
        """What is wrong with the run file ``path`` given the store's ``checksums``: missing,
        bytes that differ from its checksum, or, without a checksum, not a whole Parquet
        file; None when nothing is."""
        if not path.exists():
            return Problem(path, "missing")
        name = f"{path.parent.name}/{path.name}"
        if name in sums:
            return Problem(path, "corrupted") if hashlib.sha256(path.read_bytes()).hexdigest() != sums[name] else None
        return None if intact(path) else Problem(path, "damaged")

    def extra(self, keys: set[str]) -> list[Problem]:
        """Files under ``flows/`` and ``links/`` that are not run files of the runs ``keys``
        (another study's runs, foreign files), temporaries of a write in progress aside."""
        return [
            Problem(p, "extra")
            for table in ("flows", "links")
            for p in sorted((self.root / table).glob("*"))
            if not p.name.startswith(".") and not (p.suffix == ".parquet" and p.stem in keys)
        ]

    def write_error(self, point: RunPoint, message: str) -> None:
        record = {"run": point.key, "point": point.point, "replication": point.replication, "seed": point.seed, "params": point.params, "error": message}
        text = json.dumps(record, indent=2, sort_keys=True, default=str)
        _atomic_write(self.root / "errors" / f"{point.key}.json", (text + "\n").encode())

    def _runs(self, study: Study | None, points: Sequence[RunPoint] | None) -> dict[str, int] | None:
        """Run key → grid point of ``study`` (default: the stored one); None for a directory
        without a study, whose every file is read."""
        study = study or manifest.stored_study(self.root)
        if study is None:
            return None
        return {p.key: p.point for p in (points if points is not None else study.points())}

    def scan(self, table: str = "flows", study: Study | None = None, points: Sequence[RunPoint] | None = None, skip_damaged: bool = False) -> pl.LazyFrame:
        """All finished runs' rows of ``table`` as one lazy scan of their files, in study order
        (point, replication, row): the runs of ``study`` (default: the stored one; ``points``,
        if given, are its points). A file that differs from its checksum or is not whole raises ``StoreDamaged`` naming it
        and the repair, or with ``skip_damaged`` is left out with a warning."""
        if table not in ("flows", "links"):
            raise ValueError(f"table must be 'flows' or 'links', got {table!r}")
        files = self._files(table, study, points)
        files = self._without(files, self._damaged(files), DAMAGED, skip_damaged)
        return self._scan(table, files)

    def _damaged(self, files: list[Path]) -> list[Path]:
        """The ``files`` with a ``problem``: bytes that differ from their checksum (a page
        scrambled inside may still decode, into wrong rows), or, stored without a checksum,
        not a whole Parquet file."""
        sums = self.checksums()
        return [f for f in files if self.problem(f, sums) is not None]

    def _files(self, table: str, study: Study | None, points: Sequence[RunPoint] | None) -> list[Path]:
        files = sorted((self.root / table).glob("*.parquet"))
        runs = self._runs(study, points)
        return files if runs is None else [f for f in files if f.stem in runs]

    def _without(self, files: list[Path], bad: list[Path], why: str, skip_damaged: bool) -> list[Path]:
        """``files`` without the damaged ``bad`` ones, which raise ``StoreDamaged`` naming
        the first and the repair, or with ``skip_damaged`` are left out with a warning."""
        if not bad:
            return files
        what = f"{len(bad)} run file{'s' if len(bad) != 1 else ''} of {self.root} {'are' if len(bad) != 1 else 'is'} damaged ({why}), the first {bad[0]}"
        if not skip_damaged:
            raise StoreDamaged(f"{what}; running the same sweep again (rtolab sweep STUDY --out {self.root}) redoes just those runs, or load with skip_damaged=True to read the rest")
        warnings.warn(f"{what}; left out", stacklevel=4)
        return [f for f in files if f not in bad]

    @staticmethod
    def _scan(table: str, files: list[Path]) -> pl.LazyFrame:
        if not files:
            return pl.LazyFrame()
        order = ["point", "replication", "flow"] if table == "flows" else ["point", "replication", "link", "direction"]
        # Runs stored by an earlier version may lack a column added since: null there.
        return pl.scan_parquet(files, missing_columns="insert").sort(order, maintain_order=True)

    def batches(self, study: Study, table: str = "flows", runs_per_batch: int = 32) -> Iterator[pl.DataFrame]:
        """The finished runs' rows of ``table`` for ``study``, ``runs_per_batch`` whole runs at a
        time, in study order (point, replication, row): what ``load`` gives, concatenated, for a
        study too large to hold at once. A damaged file raises ``StoreDamaged``."""
        finished = self.finished()
        ordered = [p for p in sorted(study.points(), key=lambda p: (p.point, p.replication)) if p.key in finished]
        for i in range(0, len(ordered), runs_per_batch):
            part = ordered[i:i + runs_per_batch]
            files = [self.root / table / f"{p.key}.parquet" for p in part]
            files = self._without(files, self._damaged(files), DAMAGED, False)
            yield self._scan(table, files).collect()

    def load(self, table: str = "flows", study: Study | None = None, points: Sequence[RunPoint] | None = None, skip_damaged: bool = False) -> pl.DataFrame:
        """``scan``, collected: every file checked against its checksum first, so a file
        damaged inside is named (or left out with ``skip_damaged``), never read as rows."""
        return self.scan(table, study, points, skip_damaged).collect()

    def errors(self, study: Study | None = None, points: Sequence[RunPoint] | None = None) -> pl.DataFrame:
        """The failed runs of ``study`` (default: the stored one) with their error message, in
        study order."""
        runs = self._runs(study, points)
        rows = [json.loads(p.read_text()) for p in sorted((self.root / "errors").glob("*.json"))]
        if runs is not None:
            rows = [{**r, "point": runs[r["run"]]} for r in rows if r["run"] in runs]
        df = pl.DataFrame([{k: r[k] for k in ERROR_COLUMNS} for r in rows], schema=ERROR_COLUMNS)
        return df.sort("point", "replication", maintain_order=True)
