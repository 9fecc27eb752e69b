"""Scenario input: a TOML file, TOML text, or a Python mapping (the same schema, checked once
in Rust). Quantities are strings with units (``"2Mbps"``, ``"70ms"``) or plain SI numbers."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Union

from rtolab import _core

SpecLike = Union[Mapping[str, Any], str, "os.PathLike[str]"]


def plain(value: Any) -> Any:
    """A value JSON can write, for ``json.dumps(default=plain)``: numpy scalars (``int64``,
    ``float32``, ``bool_``) become the Python number or bool they hold, numpy arrays lists.
    Raises ``TypeError`` naming the type for anything else."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"a scenario value of type {type(value).__name__} ({value!r}): expected a number, string, bool, list or table")


def to_text(spec: SpecLike) -> tuple[str, str]:
    """(text, format) for the core: mappings become JSON (numpy scalars as the numbers they
    hold); a path is read as TOML; a string with a newline or an ``=`` is TOML text, any other
    string is a path."""
    if isinstance(spec, Mapping):
        return json.dumps(spec, default=plain), "json"
    if isinstance(spec, str) and ("\n" in spec or "=" in spec):
        return spec, "toml"
    path = Path(spec)
    try:
        return path.read_text(encoding="utf-8"), "toml"
    except FileNotFoundError:
        raise _core.SpecError(f"no scenario file at {str(path)!r}") from None
    except (IsADirectoryError, UnicodeDecodeError) as e:
        raise _core.SpecError(f"cannot read scenario {str(path)!r}: {e}") from None


def source_dir(spec: SpecLike) -> str | None:
    """The directory a scenario's relative trace files are read from: a scenario file's own
    directory; None (the working directory) for a mapping or TOML text."""
    if isinstance(spec, Mapping) or (isinstance(spec, str) and ("\n" in spec or "=" in spec)):
        return None
    return str(Path(spec).resolve().parent)


def absolute_traces(tree: dict[str, Any], base: str | None) -> dict[str, Any]:
    """``tree`` (a scenario read from ``base``) with each link's relative ``trace`` path made
    absolute, so that it keeps its meaning when the tree is handed on as a mapping."""
    if base is None:
        return tree
    for link in tree.get("links", []):
        for holder in (link, link.get("reverse") or {}):
            trace = holder.get("trace")
            if isinstance(trace, str) and not Path(trace).is_absolute():
                holder["trace"] = str(Path(base) / trace)
            elif isinstance(trace, dict) and isinstance(trace.get("file"), str) and not Path(trace["file"]).is_absolute():
                trace["file"] = str(Path(base) / trace["file"])
    return tree


def absolute_trace_value(path: str, value: Any, base: str) -> Any:
    """The value a study sets at dotted ``path`` with the relative trace files it names made
    absolute from ``base``, as ``absolute_traces`` makes a scenario's: a link's or its
    ``reverse``'s ``trace`` (a file, or a ``{ file, loop }`` table, or the ``file`` alone),
    or a whole link, ``reverse`` table or list of links that holds one. Any other value comes
    back as it is (the scenario's check then judges it)."""
    parts = path.split(".")
    if parts[0] != "links":
        return value
    value = copy.deepcopy(value)
    if len(parts) == 1:
        if _are_links(value):
            absolute_traces({"links": value}, base)
        return value
    reverse = parts[2:3] == ["reverse"]
    field = tuple(parts[3:] if reverse else parts[2:])
    if field not in ((), ("trace",), ("trace", "file")):
        return value
    holder = value
    for key in reversed(field):
        holder = {key: holder}
    link = {"reverse": holder} if reverse else holder
    if not _are_links([link]):
        return value
    absolute_traces({"links": [link]}, base)
    for key in field:
        holder = holder[key]
    return holder


def _are_links(value: Any) -> bool:
    """Whether ``value`` has the shape ``absolute_traces`` walks: a list of tables, each
    ``reverse`` a table."""
    return isinstance(value, list) and all(isinstance(link, dict) and isinstance(link.get("reverse") or {}, dict) for link in value)


def text_sha256(text: str, fmt: str) -> str:
    """SHA-256 (hex) of a scenario as the core received it: its format, a newline, its text.
    A run records it as ``meta["text_sha256"]``. Not ``rtolab.study.spec_hash``, which hashes
    a mapping's canonical JSON (keys sorted) to key a sweep's runs."""
    return hashlib.sha256(f"{fmt}\n{text}".encode()).hexdigest()


def validate(spec: SpecLike) -> None:
    """Raises ``SpecError`` naming the field path if ``spec`` cannot run."""
    _core.validate(*to_text(spec), base=source_dir(spec))


def schema() -> dict[str, Any]:
    """The JSON Schema of scenarios."""
    result: dict[str, Any] = json.loads(_core.schema())
    return result


def builtin(name: str) -> str:
    """The TOML text of a scenario shipped with rtolab (e.g. ``"quickstart"``)."""
    return resources.files("rtolab.scenarios").joinpath(f"{name}.toml").read_text(encoding="utf-8")
