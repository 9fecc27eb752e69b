"""Every input shape gets a user's error (issue 27 §5): each field of a scenario that uses
every part (links with RED, spikes, loss and ARQ; flows with TCP settings; burst and web
generators; the radio network; output) is replaced in turn by a value of each wrong shape (a
list, a table, a text, a number, a boolean). The spec is then accepted, or refused with one
message that names a field (the one replaced, one inside it, or one the change breaks: a
renamed link's route), says what was expected or what is wrong, and speaks no Rust (no type
names, no `struct`). Numpy scalars in a Python spec are plain numbers."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from rtolab import _core
import rtolab
from conftest import rtolab_cli
from rtolab import SpecError

BASE: dict[str, Any] = {
    "name": "shapes",
    "duration": "5s",
    "links": [
        {"name": "core", "rate": "10Mbps", "delay": "10ms"},
        {
            "name": "radio", "rate": "2Mbps", "delay": "70ms",
            "queue": {"kind": "red", "limit": "50p", "thresh": 5, "maxthresh": 15},
            "spikes": {"interval": "exp(2s)", "length": "uniform(0.5s, 1s)"},
            "loss": 0.01,
            "arq": {"window": "3p", "attempts": 4},
        },
    ],
    "flows": [{"name": "bulk", "route": ["core", "radio"], "size": "100kB", "tcp": {"stack": "linux", "iw": 10, "mss": 1200, "min_rto": "200ms", "detect": ["frto"]}}],
    "generators": [
        {"kind": "burst", "flows": 2, "total": "20kB", "start": "1s", "route": ["core", "radio"]},
        {"kind": "web", "users": 2, "size": "pareto(mean=25000B, shape=1.1)", "think": "exp(1s)", "route": ["hsdpa"]},
    ],
    "radio": {"cells": 1, "scheduler": "rr"},
    "output": {"series": ["cwnd"], "events": ["timeout"], "pcap": ["radio"]},
}

WRONG: list[Any] = [["x", 1], {"a": 1}, "text", 3.5, 7, True]
#: Words of Rust's serde that a user cannot act on.
RUST = re.compile(r"\b(struct|enum|u8|u16|u32|u64|usize|i32|i64|f32|f64|Option|Vec|String|sequence|map)\b")


def leaves(node: Any, path: str = "") -> Iterator[str]:
    """Dotted paths (`links[1].queue.limit`) of every table field and list element."""
    if isinstance(node, dict):
        for k, v in node.items():
            p = f"{path}.{k}" if path else k
            yield p
            yield from leaves(v, p)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            p = f"{path}[{i}]"
            yield p
            yield from leaves(v, p)


def replaced(path: str, value: Any) -> dict[str, Any]:
    spec = copy.deepcopy(BASE)
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    node: Any = spec
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = value
    else:
        node[last] = value
    return spec


def test_the_base_scenario_is_valid() -> None:
    _core.validate(json.dumps(BASE), "json")


@pytest.mark.parametrize("path", list(leaves(BASE)))
def test_every_wrong_shape_gets_a_users_message(path: str) -> None:
    for value in WRONG:
        text = json.dumps(replaced(path, value))
        try:
            _core.validate(text, "json")
        except SpecError as e:
            message = str(e)
            # The field itself, one inside it, or one the change breaks (a renamed link: a route).
            assert e.path and ".." not in e.path and not e.path.endswith("."), f"{path} = {value!r}: {message}"
            assert not RUST.search(e.message), f"{path} = {value!r}: {message}"
            assert "expected" in e.message or "got" in e.message or "unknown" in e.message or "missing" in e.message or "needs" in e.message or "no " in e.message, f"{path} = {value!r}: {message}"


def test_numpy_scalars_are_plain_numbers() -> None:
    spec = replaced("flows[0].tcp.iw", np.int64(3))
    spec = {**spec, "links": [{**spec["links"][0], "rate": np.float64(1e7)}, spec["links"][1]]}
    rtolab.validate(spec)


def test_lists_for_tables_name_the_form() -> None:
    with pytest.raises(SpecError, match=r'links\[1\]\.queue: got the list \["droptail","5p"\], expected a table \{ kind = "droptail" \| "red" \| "codel" \| "pie" \| "fq_codel", … \}'):
        _core.validate(json.dumps(replaced("links[1].queue", ["droptail", "5p"])), "json")
    with pytest.raises(SpecError, match=r'flows\[0\]\.tcp\.iw: got the text "10", expected'):
        _core.validate(json.dumps(replaced("flows[0].tcp.iw", "10")), "json")


def test_a_duration_written_as_a_bare_number_is_said(tmp_path: Path) -> None:
    """A bare number for a duration is seconds, as the schema says; a run says so for each
    one (0 needs no unit), so `delay = 70` meant as milliseconds does not pass unseen."""
    path = tmp_path / "bare.toml"
    path.write_text('duration = "2s"\n[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = 0.07\n[[flows]]\nname = "f"\nroute = ["l"]\nsize = "10kB"\ntcp = { min_rto = 0 }\n')
    proc = rtolab_cli("run", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("note: ") == 1
    assert 'note: links[0].delay = 0.07 is read as 0.07 s (a bare number is seconds); write "0.07ms" if milliseconds were meant' in proc.stderr
