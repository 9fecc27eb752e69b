"""The output-directory rule: rtolab replaces only what it wrote itself; nothing else is lost.

Every command and API that writes a result directory (``run``, ``demo``, ``emulate``,
``compare``, ``sweep``, ``reproduce``, ``report`` and ``Result.save``) goes through here:

- **Ownership.** A directory rtolab writes holds ``OWNER_FILE``: which kind of result it is
  and, for a whole result, the files rtolab wrote there. Only those files are ever replaced or
  removed; a store (a sweep's or a reproduction's) is added to run by run and never deletes
  what it did not write.
- **Always refused** (``OutputRefused``, exit 2), whatever ``force`` says: the working
  directory or a directory that holds it, the home directory or one that holds it, a file
  system root, a directory with ``.git`` inside, and a path that is a file.
- **Refused unless ``force``**: an existing directory holding anything rtolab did not write
  (the message names it). With ``force`` rtolab writes beside those entries and replaces only
  its own files; an entry of the user's where rtolab would write a file is still refused.
  A directory of another kind (a sweep's store, where a single run would go) is refused.
- **Whole or nothing.** A whole result is written into a staging sibling and swapped with
  the old one in one ``renameat2(RENAME_EXCHANGE)`` (two renames where the file system lacks
  it), so a writer killed at any point leaves the old result or the new one. Beside entries
  of the user's (``force``) the swap cannot be whole: each file is replaced by a rename and the
  owner file, written last, lists the new set. A writer killed before the swap leaves its
  staging directory, which the next writer of that path removes.
- **Permissions.** Directories are made with ``mkdir``'s default mode, so they and every file
  in them follow the umask (``tempfile.mkdtemp`` would make them 0700).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from rtolab.store_lock import LOCK_FILE, OutputError

#: The file that marks a directory as rtolab's: ``{"rtolab": 1, "kind": ..., "files": [...]}``.
OWNER_FILE = ".rtolab-owned.json"
#: Kinds of whole results: any one may replace any other (each is one command's output).
WHOLE = frozenset({"run", "compare", "report"})
#: Kinds of stores: written into run by run, resumed, never replaced as a whole.
STORES = frozenset({"sweep", "reproduce"})
#: How many of the entries in the way a refusal names.
NAMED = 5


class OutputRefused(OutputError):
    """The output directory is one rtolab never writes into, or it holds something rtolab did
    not write; the message names the path, what is in the way and what to do."""


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _holds(outer: Path, inner: Path) -> bool:
    return inner == outer or outer in inner.parents


def forbidden(target: Path) -> str | None:
    """Why ``target`` is never an output directory, or None: the working directory, the home
    directory, a file system root or a directory holding any of them, a directory with
    ``.git`` inside, or a file."""
    real = _resolved(target)
    if real.parent == real:
        return "is a file system root"
    cwd, home = _resolved(Path.cwd()), Path(os.path.expanduser("~"))
    home = _resolved(home) if home != Path("~") else cwd
    for place, name in ((home, "home"), (cwd, "working")):
        if real == place:
            return f"is the {name} directory"
    for place, name in ((cwd, "working"), (home, "home")):
        if _holds(real, place):
            return f"holds the {name} directory"
    if real.exists() and not real.is_dir():
        return "is a file, not a directory"
    if (real / ".git").exists():
        return "has a .git inside (a repository)"
    return None


def owner(directory: Path) -> dict[str, object] | None:
    """What ``directory``'s owner file says, or None (no file, or not one of rtolab's)."""
    try:
        record = json.loads((directory / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("rtolab") != 1 or not isinstance(record.get("kind"), str):
        return None
    return record


def _legacy_kind(directory: Path) -> str | None:
    """The kind of a directory an rtolab older than the owner file wrote, recognised only by
    the files no one else writes: a sweep's ``study.json`` with its ``manifest.json``; a
    reproduction's ``findings.csv`` with a sweep store or a paper's reproduction beside it; a
    sweep's ``report`` directory holding only a report's files."""
    if (directory / "study.json").is_file() and (directory / "manifest.json").is_file():
        return "sweep"
    if (directory / "findings.csv").is_file() and any((d / "study.json").is_file() or (d / "findings.csv").is_file() for d in directory.iterdir() if d.is_dir()):
        return "reproduce"
    if directory.name == "report" and (directory.parent / "study.json").is_file():
        if all(p.is_file() and (p.suffix in (".csv", ".png") or p.name == "index.html") for p in directory.iterdir()):
            return "report"
    return None


def _owned_files(directory: Path) -> set[str]:
    record = owner(directory)
    files = record.get("files", []) if record else []
    return {f for f in files if isinstance(f, str)} if isinstance(files, list) else set()


def _entries(directory: Path) -> list[str]:
    """Every file and directory under ``directory``, as relative POSIX paths."""
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*"))


def foreign(directory: Path, kind: str) -> list[str]:
    """The entries of ``directory`` (relative paths) that are not rtolab's own for a writer of
    ``kind``: for a whole result, everything but the files its owner file lists and the
    directories that hold them; for a store of its own kind, nothing."""
    record = owner(directory)
    stored = str(record["kind"]) if record else _legacy_kind(directory)
    if stored is not None and stored == kind and (kind in STORES or record is None):
        return []
    owned = _owned_files(directory) if record and stored in WHOLE else set()
    holders = {parent.as_posix() for f in owned for parent in Path(f).parents if parent != Path(".")}
    ours = {OWNER_FILE, LOCK_FILE} if kind in STORES else {OWNER_FILE}
    return [e for e in _entries(directory) if e not in owned and e not in holders and e not in ours]


def _describe(entries: list[str]) -> str:
    """The top-level names of ``entries``: "a", "a and b", "a, b and 3 more"."""
    tops = sorted({e.split("/")[0] for e in entries})
    shown = tops[:NAMED]
    if len(tops) > NAMED:
        return f"{', '.join(shown)} and {len(tops) - NAMED} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def check(target: Path, kind: str, force: bool = False) -> None:
    """Raises ``OutputRefused`` when a writer of ``kind`` may not write into ``target``
    (module docstring); writes nothing."""
    why = forbidden(target)
    if why is not None:
        raise OutputRefused(f"{target}: {why}; rtolab never writes its results there (choose a new directory for --out)")
    if not target.is_dir():
        return
    record = owner(target)
    stored = str(record["kind"]) if record else _legacy_kind(target)
    if stored is not None and stored != kind and not (stored in WHOLE and kind in WHOLE):
        raise OutputRefused(f"{target}: holds {_kind_text(stored)}, not {_kind_text(kind)}; rtolab does not replace one with the other (choose another --out)")
    if force:
        return
    in_the_way = foreign(target, kind)
    if in_the_way:
        raise OutputRefused(
            f"{target}: holds {_describe(in_the_way)}, which rtolab did not write; move "
            f"{'it' if len({e.split('/')[0] for e in in_the_way}) == 1 else 'them'}, choose another --out, "
            "or add --force to write beside them (only rtolab's own files are replaced)"
        )


def _kind_text(kind: str) -> str:
    return {"sweep": "a sweep's store", "reproduce": "a reproduction", "report": "a report"}.get(kind, "a result")


def open_store(target: Path, kind: str, force: bool = False) -> None:
    """Makes ``target`` ready for a store of ``kind`` (``check``, then created with its owner
    file); a store of that kind, new or written by an older rtolab (adopted), resumes. Raises ``OutputRefused`` or
    ``OutputError`` (cannot be created or written)."""
    check(target, kind, force)
    try:
        legacy = target.is_dir() and owner(target) is None and _legacy_kind(target) == kind
        target.mkdir(parents=True, exist_ok=True)
        if owner(target) is None:
            _write_owner(target, kind, [], adopted=legacy)
    except OSError as e:
        raise OutputError(f"{target}: cannot write results there: {e.strerror or type(e).__name__}") from None


def _write_owner(directory: Path, kind: str, files: list[str], adopted: bool = False) -> None:
    """Writes the owner file (whole: a rename). ``adopted``: a store an rtolab older than the
    owner file wrote, whose files of the names rtolab writes are its own."""
    record: dict[str, object] = {"rtolab": 1, "kind": kind, "files": files}
    if adopted:
        record["adopted"] = True
    tmp = directory / f".{OWNER_FILE}.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, directory / OWNER_FILE)


_STAGING = re.compile(r"^\.(?P<name>.+)\.rtolab-(?P<pid>\d+)-[0-9a-f]+(?P<old>-old)?$")


def _staging_path(parent: Path, name: str) -> Path:
    return parent / f".{name}.rtolab-{os.getpid()}-{secrets.token_hex(4)}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clear_stale(parent: Path, name: str) -> None:
    """Removes the staging directories named for ``name`` that a killed writer left in
    ``parent`` (they hold only rtolab's files); an old result set aside whose replacement
    never arrived goes back to ``parent/name``."""
    if not parent.is_dir():
        return
    for path in parent.iterdir():
        m = _STAGING.match(path.name)
        if m is None or m["name"] != name or _alive(int(m["pid"])):
            continue
        if m["old"] and not (parent / name).exists():
            with contextlib.suppress(OSError):
                os.rename(path, parent / name)
                continue
        _remove_tree(path)


def _remove_tree(path: Path) -> None:
    """Removes a tree of rtolab's own, even through a second Ctrl-C."""
    while True:
        try:
            shutil.rmtree(path, ignore_errors=True)
            return
        except KeyboardInterrupt:
            continue


def _staged_files(staging: Path) -> list[str]:
    return [p.relative_to(staging).as_posix() for p in sorted(staging.rglob("*")) if p.is_file() and p.name != OWNER_FILE]


@contextlib.contextmanager
def replacing(target: str | os.PathLike[str], kind: str = "run", force: bool = False) -> Iterator[Path]:
    """Yields an empty staging directory for a whole result of ``kind``; when the block ends
    without an exception, the staged files replace rtolab's own in ``target`` (module
    docstring), otherwise the staging directory goes and ``target`` is untouched. Raises
    ``OutputRefused`` before the block for a ``target`` it may not write."""
    # A link to a directory is written through: the swap replaces the directory it names.
    path = _resolved(Path(target)) if Path(target).is_symlink() else Path(target)
    check(path, kind, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    _clear_stale(path.parent, path.name)
    staging = _staging_path(path.parent, path.name)
    staging.mkdir()
    committing = False
    try:
        yield staging
        files = _staged_files(staging)
        _write_owner(staging, kind, files)
        committing = True
        _commit(staging, path, kind, force, files)
    except BaseException as e:
        if not (committing and isinstance(e, OutputRefused)):
            _remove_tree(staging)
        raise


@contextlib.contextmanager
def staged_into_store(store: Path, kind: str) -> Iterator[Path]:
    """Yields an empty staging directory inside ``store`` (opened with ``open_store``) for the
    files a store keeps beside its runs (a reproduction's tables and figures); when the block
    ends without an exception, each staged file replaces its namesake by a rename, the owner
    file lists them, and rtolab's files of the previous call that this one did not write go.
    Entries of the user's are never touched: one in the way of a file is refused, and the
    staged files are kept where the message says."""
    _clear_stale(store, "staging")
    staging = _staging_path(store, "staging")
    staging.mkdir()
    committing = False
    try:
        yield staging
        committing = True
        _place(staging, store, kind, _staged_files(staging))
    except BaseException as e:
        if not (committing and isinstance(e, OutputRefused)):
            _remove_tree(staging)
        raise


def _commit(staging: Path, target: Path, kind: str, force: bool, files: list[str]) -> None:
    """Puts the staged result in place of ``target``'s own files (checked again: the directory
    may have changed while the result was made); refused, it keeps the staged result and
    says where."""
    try:
        check(target, kind, force)
    except OutputRefused as e:
        raise OutputRefused(f"{e}; nothing was replaced, and the new result is in {staging}") from None
    if not target.exists():
        os.rename(staging, target)
        return
    if foreign(target, kind):
        _place(staging, target, kind, files)
        return
    old = staging
    if not _exchange(staging, target):
        old = staging.with_name(staging.name + "-old")
        os.rename(target, old)
        os.rename(staging, target)
    _remove_tree(old)


def _place(staging: Path, target: Path, kind: str, files: list[str]) -> None:
    """Moves each staged file onto its namesake in ``target`` (each whole: a rename), then
    lists them in the owner file and removes rtolab's previous files that are not among
    them. A file of the user's in the way of one is refused before anything moves."""
    previous = _owned_files(target)
    adopted = bool((owner(target) or {}).get("adopted"))
    theirs = [
        f for f in files
        if ((target / f).exists() and f not in previous and not adopted) or any((target / p).is_file() for p in Path(f).parents if p != Path("."))
    ]
    if theirs:
        raise OutputRefused(
            f"{target}: holds {_describe(theirs)}, which rtolab did not write, where it would write its own; "
            f"nothing was replaced, and the new files are in {staging}"
        )
    for f in files:
        (target / f).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / f, target / f)
    _write_owner(target, kind, files)
    for f in sorted(previous - set(files)):
        with contextlib.suppress(OSError):
            (target / f).unlink()
    for d in sorted({p for f in previous - set(files) for p in Path(f).parents if p != Path(".")}, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            (target / d).rmdir()
    _remove_tree(staging)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps the directories ``a`` and ``b`` atomically (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``); False where the C library or the file system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))
