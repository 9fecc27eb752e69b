"""The study file's schema, defined once: ``Study.from_dict`` checks a study against it (every
error names the field, the value and what was expected) and ``rtolab schema --study`` prints
it as JSON Schema, with the scenario's own schema for the inline ``[scenario]`` table.

Each property's JSON Schema uses only the keywords ``check`` understands: ``type`` (string,
integer, object, array), ``minimum``, ``minItems``, ``items``, ``additionalProperties``; its
``title``, when present, is how an error names the expected value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rtolab import _core

PROPERTIES: dict[str, dict[str, Any]] = {
    "name": {"type": "string", "description": "A label for the study (default: the base scenario's name)."},
    "base": {
        "type": "string",
        "title": 'the path of a scenario file, e.g. base = "base.toml"',
        "description": "The base scenario's TOML file, relative to the study file. Give it or `scenario`, not both.",
    },
    "scenario": {"type": "object", "$ref": "#/$defs/Scenario", "description": "The base scenario inline. Give it or `base`, not both."},
    "grid": {
        "type": "object",
        "additionalProperties": {"type": "array", "minItems": 1, "description": "The values of one parameter."},
        "description": (
            "Dotted paths into the scenario (`links.radio.rate`, `flows.bulk.tcp.min_rto`, `generators.0.flows`, "
            "`generators.*.tcp.iw`; `tag.*` only labels runs) to the values to try; every combination runs."
        ),
    },
    "cases": {
        "type": "array",
        "items": {"type": "object"},
        "description": "Explicit parameter assignments (dotted path = value), each combined with the whole grid.",
    },
    "replications": {"type": "integer", "minimum": 1, "default": 1, "description": "Runs per grid point, each with its own seed."},
    "seed": {
        "type": "integer",
        "minimum": 0,
        "description": "Base seed; each replication's seed derives from it (default: the scenario's seed, or 1).",
    },
}

#: What to add to the error of a field given a value of the wrong kind.
HINTS = {"scenario": lambda value: f'; to name a file, write base = "{value}"' if isinstance(value, str) else ""}


def json_schema() -> dict[str, Any]:
    """The study file's JSON Schema, the scenario's schema among its definitions."""
    scenario = json.loads(_core.schema())
    definitions = scenario.pop("$defs", {})
    scenario.pop("$schema", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "rtolab study",
        "type": "object",
        "properties": PROPERTIES,
        "additionalProperties": False,
        "oneOf": [{"required": ["base"]}, {"required": ["scenario"]}],
        "$defs": {**definitions, "Scenario": scenario},
    }


def _expected(schema: Mapping[str, Any]) -> str:
    if "title" in schema:
        return str(schema["title"])
    kind = schema.get("type")
    if kind == "integer":
        return {0: "a non-negative integer", 1: "a positive integer"}.get(schema.get("minimum", -1), "an integer")
    if kind == "array":
        if schema.get("items", {}).get("type") == "object":
            return "a list of tables ([[cases]])"
        return "a non-empty list of values" if schema.get("minItems") else "a list"
    return {"string": "a string", "object": "a table"}.get(str(kind), str(kind))


def _fits(value: Any, schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and value >= schema.get("minimum", value)
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, list) and len(value) >= schema.get("minItems", 0) and all(_fits(v, schema.get("items", {})) for v in value)
    return True


def check_field(name: str, value: Any) -> None:
    """Raises ``SpecError`` naming ``study.<name>`` (or ``grid.<path>``) if ``value`` does not
    fit the field's schema."""
    schema = PROPERTIES[name]
    if not _fits(value, schema):
        raise _core.SpecError(f"study.{name}: got {value!r}, expected {_expected(schema)}{HINTS.get(name, lambda v: '')(value)}")
    entries = schema.get("additionalProperties")
    if isinstance(entries, Mapping):
        for key, entry in value.items():
            if not _fits(entry, entries):
                raise _core.SpecError(f"{name}.{key}: got {entry!r}, expected {_expected(entries)}")


def check(study: Mapping[str, Any]) -> None:
    """Raises ``SpecError`` for the first field of ``study`` that the schema rejects: an
    unknown key, a value of the wrong kind, neither or both of ``base`` and ``scenario``."""
    unknown = sorted(set(study) - set(PROPERTIES))
    if unknown:
        raise _core.SpecError(f"study: unknown field {unknown[0]!r}; expected one of {sorted(PROPERTIES)}")
    if "base" in study and "scenario" in study:
        raise _core.SpecError('study: both base and [scenario] are given; keep one: `base = "file.toml"` or an inline [scenario] table')
    if "base" not in study and "scenario" not in study:
        raise _core.SpecError('study: no base scenario; give it as `base = "file.toml"` or an inline [scenario] table')
    for name, value in study.items():
        check_field(name, value)
