"""Studies: a base scenario, a parameter grid addressed by dotted paths, optional explicit
cases, and replications.

A path walks the scenario: mapping keys by name, list elements by their ``name`` field or by
index (``links.radio.rate``, ``flows.bulk.tcp.min_rto``, ``generators.0.flows``). Each run's
seed derives from (base seed, replication) only, so the same replication of every grid point
shares its random draws (common random numbers).

A study file's relative trace paths (in its inline scenario, grid values and cases) are read
from the study file's directory, as a scenario file's are from its own: ``from_dict`` with a
``root`` makes them absolute, so the runs, their keys and ``study.json`` do not depend on the
working directory.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtolab import _core, study_schema
from rtolab.spec import absolute_trace_value, absolute_traces, plain


def derive_seed(base_seed: int, replication: int) -> int:
    """A 63-bit seed from (base seed, replication): SHA-256, stable across processes."""
    digest = hashlib.sha256(f"rtolab-seed:{base_seed}:{replication}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text. numpy scalars are
    the numbers they hold (``spec.plain``); other values JSON has no form for (TOML dates)
    are written as text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain_or_text)


def _plain_or_text(value: Any) -> Any:
    try:
        return plain(value)
    except TypeError:
        return str(value)


def spec_hash(spec: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a scenario (keys sorted), first 16 hex digits."""
    return hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:16]


TAG_PREFIX = "tag."


def set_path(spec: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` in ``spec`` in place. A ``*`` step sets it in every element of a list
    (``generators.*.tcp.iw``). Raises ``SpecError`` naming the path if a step is missing (a
    list element with no such name or index). Paths starting with ``tag.`` only label runs
    and leave the spec alone.

    Invariant: ``spec`` holds a copy of ``value``, never the object itself, so a later path
    that reaches into a table set here (``generators.web`` then ``generators.web.users``)
    changes this spec alone, not the grid's value that every other point shares."""
    if path.startswith(TAG_PREFIX):
        return
    _set(spec, path.split("."), 0, path, value)


def _set(node: Any, parts: list[str], depth: int, path: str, value: Any) -> None:
    part = parts[depth]
    last = depth == len(parts) - 1
    where = ".".join(parts[: depth + 1])
    if isinstance(node, list):
        indices = range(len(node)) if part == "*" else [_list_index(node, part, where)]
        for index in indices:
            if last:
                node[index] = copy.deepcopy(value)
            else:
                _set(node[index], parts, depth + 1, path, value)
    elif isinstance(node, dict):
        if last:
            node[part] = copy.deepcopy(value)
        else:
            _set(node.setdefault(part, {}), parts, depth + 1, path, value)
    else:
        raise _core.SpecError(f"grid path {path!r}: {where!r} is a value, not a table or list")


def _list_index(items: list[Any], part: str, where: str) -> int:
    if part.isdigit():
        if int(part) < len(items):
            return int(part)
        raise _core.SpecError(f"grid path {where!r}: index {part} is beyond the {len(items)} elements")
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("name") == part:
            return i
    names = [item.get("name") for item in items if isinstance(item, dict)]
    raise _core.SpecError(f"grid path {where!r}: no element named {part!r}; names are {names}")


def _read_toml(path: Path, where: str, what: str) -> dict[str, Any]:
    """Parses a TOML file; a missing file or a syntax error is one `SpecError` prefixed by
    ``where`` (the field that named the file, if any)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _core.SpecError(f"{where}no {what} at {str(path)!r}") from None
    except tomllib.TOMLDecodeError as e:
        raise _core.SpecError(f"{where}{path}: {e}") from None


@dataclass(frozen=True)
class RunPoint:
    """One run of a study: its grid point (the index of its parameter combination, shared by
    its replications), parameter values, replication, seed and materialised spec. The spec is
    not changed after the point is made (a caller that needs another copies it): its hash and
    the key are computed once."""

    point: int
    params: dict[str, Any]
    replication: int
    seed: int
    spec: dict[str, Any]

    @functools.cached_property
    def spec_hash(self) -> str:
        return spec_hash(self.spec)

    @functools.cached_property
    def key(self) -> str:
        """The run's identity: (spec hash, seed), and its ``tag.*`` labels when it has any, so
        that cases differing only in labels are separate runs."""
        key = f"{self.spec_hash}-{self.seed:016x}"
        tags = {k: v for k, v in self.params.items() if k.startswith(TAG_PREFIX)}
        if tags:
            key += "-" + hashlib.sha256(json.dumps(tags, sort_keys=True, default=str).encode()).hexdigest()[:8]
        return key


def describe_params(params: Mapping[str, Any]) -> str:
    """`path = value, …` of a parameter assignment, for messages."""
    return ", ".join(f"{k} = {json.dumps(v, default=str)}" for k, v in params.items()) or "no parameters"


def _check_cases(cases: list[dict[str, Any]], grid: Mapping[str, Any]) -> None:
    """Each case is a distinct assignment that the grid does not override: a repeated case or
    a case key that is also a grid key would give runs identical to others."""
    seen: dict[str, int] = {}
    for i, case in enumerate(cases):
        shared = sorted(set(case) & set(grid))
        if shared:
            raise _core.SpecError(f"study.cases[{i}].{shared[0]}: also a grid parameter, whose values would replace the case's; set it in one place")
        first = seen.setdefault(canonical_json(case), i)
        if first != i:
            raise _core.SpecError(f"study.cases[{i}]: repeats cases[{first}] ({describe_params(case)}); every case needs its own values")


@dataclass(frozen=True)
class Study:
    """A study: base scenario, grid, cases, replications and base seed. Every grid point is a
    distinct run of the simulator (no two share a scenario and labels)."""

    name: str
    base: dict[str, Any]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    cases: list[dict[str, Any]] = field(default_factory=list)
    replications: int = 1
    seed: int = 1

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], root: Path | None = None) -> Study:
        study_schema.check(d)
        if "base" in d:
            base_path = Path(d["base"])
            if root is not None and not base_path.is_absolute():
                base_path = root / base_path
            base = absolute_traces(_read_toml(base_path, "study.base: ", "scenario file"), str(base_path.resolve().parent))
        else:
            base = dict(d["scenario"])
        grid = dict(d.get("grid", {}))
        cases = [dict(c) for c in d.get("cases", [])]
        _check_cases(cases, grid)
        if root is not None:
            here = str(root.resolve())
            if "scenario" in d:
                base = absolute_traces(copy.deepcopy(base), here)
            grid = {path: [absolute_trace_value(path, v, here) for v in values] for path, values in grid.items()}
            cases = [{path: absolute_trace_value(path, v, here) for path, v in case.items()} for case in cases]
        replications = d.get("replications", 1)
        seed = d.get("seed", base.get("seed", 1))
        study_schema.check_field("seed", seed)
        return cls(str(d.get("name", base.get("name", "study"))), base, grid, cases, replications, seed)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Study:
        p = Path(path)
        return cls.from_dict(_read_toml(p, "", "study file"), root=p.parent)

    @property
    def parameters(self) -> list[str]:
        """Dotted paths that vary, in a stable order: case keys first, then the grid."""
        names = list(dict.fromkeys(k for c in self.cases for k in c))
        return names + [k for k in self.grid if k not in names]

    def combinations(self) -> Iterator[dict[str, Any]]:
        """Each parameter assignment: every case (or one empty case) × the Cartesian grid."""
        keys = list(self.grid)
        for case in self.cases or [{}]:
            for values in itertools.product(*(self.grid[k] for k in keys)):
                yield {**case, **dict(zip(keys, values))}

    def points(self) -> list[RunPoint]:
        """Every run, grid point by grid point, replications innermost. Raises ``SpecError``
        if two grid points give the same scenario and labels (paths that reach one field by
        two names, such as ``links.0.rate`` and ``links.radio.rate``)."""
        out = []
        first: dict[str, RunPoint] = {}
        for point, params in enumerate(self.combinations()):
            spec = copy.deepcopy(self.base)
            spec.pop("seed", None)
            for path, value in params.items():
                set_path(spec, path, value)
            runs = [RunPoint(point, params, r, derive_seed(self.seed, r), spec) for r in range(self.replications)]
            same = first.setdefault(runs[0].key, runs[0])
            if same is not runs[0]:
                raise _core.SpecError(
                    f"study: grid points {same.point} ({describe_params(same.params)}) and {point} ({describe_params(params)}) "
                    "give the same scenario; every grid point needs its own values"
                )
            out += runs
        return out

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the canonical JSON of the study without its replication count, first 16
        hex digits: studies with the same fingerprint have the same runs, replication by
        replication, so more or fewer replications stay the same study."""
        spec = {k: v for k, v in self.to_dict().items() if k != "replications"}
        return hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scenario": self.base,
            "grid": self.grid,
            "cases": self.cases,
            "replications": self.replications,
            "seed": self.seed,
        }


def with_overrides(path: Path, overrides: Sequence[str]) -> dict[str, Any]:
    """The scenario in the TOML file ``path`` with each ``KEY=VALUE`` of ``overrides`` set
    (dotted paths as in a study's grid: ``links.radio.rate=2Mbps``, ``flows.*.tcp.iw=10``).
    VALUE is read as a TOML value (``10``, ``true``, ``"linux"``, ``["a", "b"]``), else as
    text. Raises ``SpecError`` naming the override that is malformed or whose path is
    missing."""
    spec = _read_toml(path, "", "scenario file")
    for item in overrides:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _core.SpecError(f"--set {item!r}: expected KEY=VALUE, e.g. links.radio.rate=2Mbps")
        try:
            value: Any = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = text.strip()
        try:
            set_path(spec, key, value)
        except _core.SpecError as e:
            raise _core.SpecError(f"--set {item!r}: {str(e).removeprefix('grid path ')}") from None
    return absolute_traces(spec, str(path.resolve().parent))
