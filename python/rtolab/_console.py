"""The CLI's consoles and its one way to fail: a message, exit code 2, no traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from rich.table import Table

# Tables need width; rich assumes 80 columns when output is not a terminal.
out = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Prints ``message`` as it is (brackets such as ``[scenario]`` are text, not markup) and
    returns the exit to raise."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def new_table(title: str, **options: Any) -> Table:
    """A rich ``Table``; rich's table module loads with the first table a command prints,
    not with the command line."""
    from rich.table import Table

    return Table(title=title, **options)


def check_out(directory: Path, keep: bool = True) -> None:
    """Exits 2, before any work, when ``directory`` cannot be created or written (``keep``:
    leave it created; see ``writable_directory``)."""
    from rtolab.store_lock import OutputError, writable_directory

    try:
        writable_directory(directory, keep)
    except OutputError as e:
        raise fail(f"--out {e}") from None


def scenario_with(file: Path, overrides: list[str] | None) -> str | dict[str, object]:
    """The scenario a command runs: the file's path as it is, or with ``--set`` its fields
    changed (``rtolab.study.with_overrides``). Exits 2 for a malformed override or a path the
    scenario does not have."""
    from rtolab import _core
    from rtolab.study import with_overrides

    try:
        spec: str | dict[str, object] = with_overrides(file, overrides) if overrides else str(file)
    except _core.SpecError as e:
        raise fail(str(e)) from None
    say_notes(spec)
    return spec


def say_notes(spec: str | dict[str, object]) -> None:
    """Says on stderr what the core notes of a spec (each duration written as a bare number,
    read as seconds), so that `delay = 70` meant as milliseconds does not pass unseen."""
    from rtolab import _core
    from rtolab.spec import to_text

    try:
        text, form = to_text(spec)
    except (OSError, _core.SpecError):
        return  # the command's own reading of the spec reports it
    for note in _core.spec_notes(text, form):
        err.print(f"note: {note}", markup=False, highlight=False)
