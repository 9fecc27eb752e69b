"""The CLI's consoles and its one way to fail: a message, exit code 2, no traceback."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
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


#: The output-directory rule, as each writing command's help states it (``rtolab.output_dir``).
OUT_RULE = (
    "It must be new, empty, or a result rtolab wrote: rtolab replaces only its own files there, all at once, and refuses "
    "(exit 2) a directory holding anything else, the working or home directory, a root, or a directory with .git inside."
)
#: The same rule for the directories that keep many runs (a sweep's store, a reproduction).
STORE_RULE = (
    "It must be new, empty, or one rtolab wrote for the same command; rtolab never removes what it did not write and "
    "refuses (exit 2) a directory holding anything else, the working or home directory, a root, or a directory with .git inside."
)
FORCE_HELP = "Write into an --out that holds files rtolab did not write: they are kept, and only rtolab's own files are replaced."


@contextlib.contextmanager
def output_errors() -> Iterator[None]:
    """Writing a result: a refused or unwritable directory exits 2 (``OutputError``), a write
    that fails midway (a full disk) exits 1 naming the path; either way nothing is left
    half-written (``rtolab.output_dir``)."""
    from rtolab.store_lock import OutputError

    try:
        yield
    except OutputError as e:
        raise fail(f"--out {e}") from None
    except OSError as e:
        raise fail(f"--out {e.filename or ''}: writing the results failed: {e.strerror or e}; nothing was replaced", code=1) from None


def check_out(directory: Path, kind: str, force: bool = False) -> None:
    """Exits 2, before any work, when ``directory`` may not receive a result of ``kind``
    (``rtolab.output_dir``: never the working or home directory, a root or a repository; not a
    directory holding what rtolab did not write, unless ``force``) or cannot be written. A
    store's directory is created with its owner file; a whole result's is left as it was,
    its parent checked writable (it is written in a sibling and swapped in)."""
    from rtolab.output_dir import STORES, check, open_store
    from rtolab.store_lock import OutputError, writable_directory

    try:
        if kind in STORES:
            open_store(directory, kind, force)
        else:
            check(directory, kind, force)
            writable_directory(directory.parent, keep=False, named=directory)
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
