"""One writer per result store: an OS file lock on ``DIR/.lock``, held by the sweep process
while it writes (its Dask or local workers only compute; the sweep writes every file).

The lock is ``flock(2)`` on an open file: the kernel releases it when the process ends, however
it ends, so a killed sweep never leaves the store locked. The holder writes its process id
into the file, which the message to a second sweep names.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

LOCK_FILE = ".lock"


class StoreBusy(RuntimeError):
    """Another process holds the store's lock and the caller asked not to wait."""


class OutputError(RuntimeError):
    """The output directory cannot be created or written; the message names it and why."""


class WriteFailed(OutputError):
    """Writing a run's results failed mid-sweep (a full or vanished file system); the runs
    written before are whole and kept, and the same sweep resumes from them."""


def writable_directory(root: Path, keep: bool = True, named: Path | None = None) -> None:
    """Creates ``root`` (and its parents) if needed and checks a file can be created in it;
    without ``keep``, removes again the directories it created, so a check before a run that
    is then interrupted leaves nothing behind. Raises ``OutputError`` naming the path (or
    ``named``, the output directory ``root`` is checked for) and the cause (missing parent,
    permission, a file in the way, a full or read-only file system)."""
    created = [p for p in (root, *root.parents) if not p.exists()]
    probe = root / f".write-test-{os.getpid()}"
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
    except OSError as e:
        cause = e.strerror or type(e).__name__
        raise OutputError(f"{named or root}: cannot write results there: {cause}") from None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
        if not keep:
            for directory in created:
                with contextlib.suppress(OSError):
                    directory.rmdir()


def _holder(path: Path) -> str:
    """The process id the lock file names, or "another process"."""
    try:
        pid = path.read_text().strip()
    except OSError:
        return "another process"
    return f"process {pid}" if pid.isdigit() else "another process"


@contextlib.contextmanager
def exclusive(root: Path, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Holds ``root``'s lock for the block. When another process holds it: with ``wait``,
    calls ``on_wait`` with a message and blocks until it is released (Ctrl-C still stops the
    wait); without, raises ``StoreBusy``. ``root`` must exist (``writable_directory``)."""
    path = root / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = f"{root}: {_holder(path)} is writing to this store"
            if not wait:
                raise StoreBusy(f"{message}; rerun when it has finished (or without --no-wait to wait for it)") from None
            if on_wait is not None:
                on_wait(f"{message}; waiting for it to finish (Ctrl-C to stop waiting)")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)
