"""Which study a sweep directory holds, and whether another study may run into it.

A directory holds one study: ``study.json`` is the study as last run, ``manifest.json`` its
name and fingerprint (``Study.fingerprint``) and the fingerprints it grew from. A study with
the same fingerprint (at most the replication count differs) resumes the directory. With
``extend``, a study that only adds grid values or cases to the stored one also does: every
run of the stored study is a run of the new one, so nothing finished is lost or mixed. A
study that drops only grid values or cases none of whose runs finished (a typo that failed
them all) corrects the stored one in place, adding values if it likes, and says what it
replaced. Any other study is refused before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rtolab import _core
from rtolab.study import Study, canonical_json

STUDY_FILE = "study.json"
MANIFEST_FILE = "manifest.json"
FORMAT = 1


def stored_study(root: Path) -> Study | None:
    """The study in ``root/study.json``, or None for a directory without one."""
    path = root / STUDY_FILE
    return Study.from_dict(json.loads(path.read_text())) if path.exists() else None


def _differing_fields(old: Study, new: Study) -> list[str]:
    a, b = old.to_dict(), new.to_dict()
    return sorted(k for k in a if k != "replications" and canonical_json(a[k]) != canonical_json(b[k]))


def extension_problem(old: Study, new: Study, replaceable: Callable[[str, Any], bool] | None = None) -> str | None:
    """Why ``new`` does not extend ``old`` (None when it does): the same name, scenario, seed
    and parameters, every grid value and every case of ``old`` still present, except those
    ``replaceable(path, value)`` allows to go (``path`` is ``"cases"`` for a case)."""
    for name in ("name", "base", "seed"):
        if canonical_json(getattr(old, name)) != canonical_json(getattr(new, name)):
            return f"the {'scenario' if name == 'base' else name} differs"
    if set(old.parameters) != set(new.parameters):
        return f"the parameters differ ({', '.join(sorted(set(old.parameters) ^ set(new.parameters)))})"
    may_go = replaceable or (lambda path, value: False)
    for path, values in old.grid.items():
        kept = {canonical_json(v) for v in new.grid[path]}
        dropped = [v for v in values if canonical_json(v) not in kept and not may_go(path, v)]
        if dropped:
            return f"grid.{path} no longer has {json.dumps(dropped[0], default=str)}"
    kept_cases = {canonical_json(c) for c in new.cases}
    for i, case in enumerate(old.cases):
        if canonical_json(case) not in kept_cases and not may_go("cases", case):
            return f"cases[{i}] of the stored study is gone"
    return None


def unfinished_values(old: Study, finished: set[str]) -> Callable[[str, Any], bool]:
    """Whether a grid value (or, for ``"cases"``, a case) of ``old`` has no finished run: every
    run of it failed or never ran, so a study may drop it (a corrected typo) and lose
    nothing."""
    done_params = [p.params for p in old.points() if p.key in finished]
    done_values = {(path, canonical_json(v)) for params in done_params for path, v in params.items()}
    done_cases = {canonical_json(c) for c in old.cases if any(all(canonical_json(params.get(k)) == canonical_json(v) for k, v in c.items()) for params in done_params)}

    def replaceable(path: str, value: Any) -> bool:
        if path == "cases":
            return canonical_json(value) not in done_cases
        return (path, canonical_json(value)) not in done_values

    return replaceable


def check(root: Path, study: Study, extend: bool = False, finished: set[str] | None = None) -> str | None:
    """Raises ``SpecError`` unless ``study`` may run into ``root`` (see the module doc); the
    message names both studies and says how to proceed. A study that drops only grid values
    or cases none of whose runs finished (``finished``: the run keys with results) corrects
    the stored one: it may also add values, without ``extend``; the return value then says
    what it replaced."""
    old = stored_study(root)
    if old is None or old.fingerprint == study.fingerprint:
        return None
    problem = extension_problem(old, study)
    if extend and problem is None:
        return None
    if finished is not None and problem is not None:
        may_go = unfinished_values(old, finished)
        if extension_problem(old, study, may_go) is None:
            gone = [f"grid.{path} = {json.dumps(v, default=str)}" for path, vs in old.grid.items() for v in vs if canonical_json(v) not in {canonical_json(x) for x in study.grid[path]}]
            gone += [f"case {json.dumps(c, default=str)}" for c in old.cases if canonical_json(c) not in {canonical_json(x) for x in study.cases}]
            return f"replaces {', '.join(gone)} of the stored study (none of its runs had finished)"
    held = f"{root} holds study {old.name!r} ({old.fingerprint}), not {study.name!r} ({study.fingerprint})"
    differ = f"different {', '.join(_differing_fields(old, study))}"
    if problem is None:
        advice = "sweep into another --out, or pass --extend to add the new grid points to it"
    else:
        advice = f"sweep into another --out, or remove {root} to start over (--extend only adds grid values or cases: {problem})"
    raise _core.SpecError(f"{held}: {differ}; {advice}")


def record(root: Path, study: Study) -> dict[str, Any]:
    """The manifest to write for ``study`` in ``root``: its name and fingerprint, and the
    fingerprints of the studies it extended."""
    path = root / MANIFEST_FILE
    previous = json.loads(path.read_text()) if path.exists() else {}
    grew_from = list(previous.get("extends", []))
    old = previous.get("study_hash")
    if old is None and (old_study := stored_study(root)) is not None:
        old = old_study.fingerprint
    if old is not None and old != study.fingerprint and old not in grew_from:
        grew_from.append(old)
    return {"format": FORMAT, "study": study.name, "study_hash": study.fingerprint, "extends": grew_from}
