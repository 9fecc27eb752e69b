"""Every code block of the README and of docs/*.md is executed or parsed (issue 27 §7):

- a TOML scenario runs (its duration cut to 2 s); a TOML study builds its runs from its base
  (a fragment of one, such as a lone ``[grid]``, over the quickstart study);
- every ``rtolab`` command line parses against the real command line (its command, options
  and values), and the cheap ones run in a scratch copy of the repository's studies: the
  quickstart run, the model, the README's sweep (one replication) and its report;
- Python blocks run in that scratch directory, after the commands and studies before them;
- ``make`` targets exist in the Makefile; the SQL block's table and columns exist;
- any other block is a diagram, and holds no command.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import rtolab
from conftest import ROOT, rtolab_cli
from rtolab.study import Study

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"^(?:\.venv/bin/)?(rtolab|make)\b")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} ({self.lang or 'plain'})"


def blocks() -> list[Block]:
    out = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("```"):
                lang, start = lines[i][3:].strip(), i
                i += 1
                body = []
                while not lines[i].startswith("```"):
                    body.append(lines[i])
                    i += 1
                out.append(Block(path, start + 1, lang, "\n".join(body)))
            i += 1
    return out


ALL = blocks()


def commands(block: Block) -> list[list[str]]:
    """The block's command lines as argument lists, comments dropped."""
    return [shlex.split(line, comments=True) for line in block.text.splitlines() if COMMAND.match(line.strip())]


def is_study(doc: dict[str, Any]) -> bool:
    return any(k in doc for k in ("base", "scenario", "grid", "cases", "replications"))


def test_the_docs_have_examples_of_every_kind() -> None:
    kinds = {b.lang for b in ALL}
    assert {"toml", "python", "sh", "sql", ""} <= kinds
    assert len(ALL) >= 15


def test_every_command_line_parses() -> None:
    """Each ``rtolab`` line names a command, options and values the command line accepts
    (click parses it without running it); each ``make`` target exists."""
    from rtolab.cli import app
    import typer.main

    cli = typer.main.get_command(app)
    makefile = (ROOT / "Makefile").read_text()
    seen = 0
    for block in ALL:
        for argv in commands(block):
            seen += 1
            program, args = Path(argv[0]).name, argv[1:]
            if program == "make":
                assert all(re.search(rf"^{re.escape(t)}:", makefile, re.M) for t in args), f"{block}: make {args}"
                continue
            group: Any = cli
            ctx = group.make_context("rtolab", list(args), resilient_parsing=False)
            with ctx:
                name, sub, rest = group.resolve_command(ctx, list(args))
                while hasattr(sub, "list_commands"):  # a group: rtolab model spikes ...
                    group = sub
                    name, sub, rest = group.resolve_command(ctx, rest)
                assert sub is not None, f"{block}: no command {name!r}"
                sub.make_context(name, rest, parent=ctx)
    assert seen >= 10


def test_every_toml_scenario_runs_and_every_study_builds(tmp_path: Path) -> None:
    shutil.copy(ROOT / "studies" / "quickstart.toml", tmp_path / "quickstart.toml")
    checked = 0
    for block in [b for b in ALL if b.lang == "toml"]:
        doc = tomllib.loads(block.text)
        if is_study(doc):
            if "base" not in doc and "scenario" not in doc:
                doc = {"name": "fragment", "base": "quickstart.toml", **doc}
            study = Study.from_dict(doc, root=tmp_path)
            points = study.points()
            assert points, block
            for p in points[:: max(1, len(points) // 4)]:
                rtolab.run({**p.spec, "duration": "1s"})
        else:
            r = rtolab.run({**doc, "duration": "2s"})
            assert r.flows.height > 0, block
        checked += 1
    assert checked >= 4


def _scratch(tmp_path: Path) -> Path:
    """A directory laid out as the docs assume: studies/, validate/, the README's study."""
    shutil.copytree(ROOT / "studies", tmp_path / "studies")
    shutil.copytree(ROOT / "validate" / "kernel", tmp_path / "validate" / "kernel")
    study = next(b for b in ALL if b.path.name == "README.md" and b.lang == "toml" and "rto-vs-rate" in b.text)
    # One replication of the README's study: the command is the README's, the runs fewer.
    text = study.text.replace("replications = 10", "replications = 1").replace('base = "quickstart.toml"', 'base = "studies/quickstart.toml"')
    (tmp_path / "study.toml").write_text(text)
    return tmp_path


@pytest.mark.slow  # one of the longest end-to-end checks (5-7 s); `make test-all` runs it
def test_the_readme_runs_in_order(tmp_path: Path) -> None:
    """The README's commands and Python, in its order, in a scratch copy: each command that
    runs in seconds runs (exit 0), the others were parsed above; each Python block runs."""
    here = _scratch(tmp_path)
    runs = {"run", "model", "sweep", "report"}
    ran = []
    for block in [b for b in ALL if b.path.name == "README.md"]:
        if block.lang == "toml" and "flows.bulk.tcp.stack" in block.text:
            # The README's stack comparison (a [grid] over the quickstart), swept as it says.
            (here / "stacks.toml").write_text(f'name = "stacks"\nbase = "studies/quickstart.toml"\nreplications = 1\n{block.text}\n')
            proc = rtolab_cli("sweep", "stacks.toml", "--out", "out/stacks", "--workers", "2", cwd=here)
            assert proc.returncode == 0, proc.stderr
        for argv in commands(block):
            if Path(argv[0]).name == "rtolab" and argv[1] in runs:
                proc = rtolab_cli(*argv[1:], cwd=here)
                assert proc.returncode == 0, f"{block}: {' '.join(argv)}\n{proc.stderr}"
                ran.append(argv[1])
        if block.lang == "python":
            proc = subprocess.run([sys.executable, "-c", block.text], cwd=here, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, f"{block}\n{proc.stderr}"
            ran.append("python")
        if block.lang == "sql":
            table, columns = re.search(r"FROM '([^']+)'", block.text), re.findall(r'"([^"]+)"|\b(\w+_bps)\b', block.text)
            assert table is not None and list(here.glob(table.group(1))), block
            names = set(rtolab.load(here / "out" / "sweep").columns)
            assert {a or b for a, b in columns} <= names, block
            ran.append("sql")
    assert {"run", "model", "sweep", "report", "python", "sql"} <= set(ran)
    assert (here / "out" / "quick" / "flows.parquet").exists() and (here / "out" / "sweep" / "report" / "index.html").exists()


def test_other_blocks_are_diagrams_without_commands() -> None:
    for block in ALL:
        if block.lang == "" and not commands(block):
            assert not any(COMMAND.match(line.strip()) for line in block.text.splitlines()), block


@pytest.mark.parametrize("block", [b for b in ALL if b.lang == "python"], ids=str)
def test_python_blocks_compile(block: Block) -> None:
    compile(block.text, str(block), "exec")
