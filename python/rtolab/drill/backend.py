"""What the interpreter (:mod:`rtolab.drill.play`) needs of a stack to play a script
against it: a simulated profile (:mod:`rtolab.drill.simulated`) or the machine's kernel
(:mod:`rtolab.drill.kernel`).

Times are in ns on the script's clock (0 at its first event). Segments are
:class:`rtolab.drill.wire.Segment` dicts in the script's numbering: the local side's sequence
numbers relative to its ISN (the SYN-ACK's is 0), the peer's as the script writes them, an
outbound ACK number relative to the peer's ISN, inbound SACK blocks relative to the local
ISN, and an inbound TS ecr already mapped onto the stack's own clock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rtolab.drill.script import Int, Syscall
from rtolab.drill.wire import Segment

#: A segment the stack sent, with the time it left.
Sent = tuple[int, Segment]


class Skip(Exception):
    """The stack cannot play this: the script is skipped, with the message as the reason."""


class Refused(Exception):
    """The stack refused what the script did (an error result, a reset): the script fails
    at that line with this message."""


def check_result(call: Syscall, got: int) -> None:
    """A call's result against the one the script wrote (if it wrote a number)."""
    expected = call.result.value if isinstance(call.result, Int) else None
    if expected is not None and got != expected:
        raise Refused(f"{call.name}(): expected result {expected} but got {got}")


class Backend(Protocol):
    """A stack a script plays against.

    Invariant: every segment the stack sends is returned exactly once, by :meth:`poll` or by
    the call that caused it, in the order sent."""

    def now(self) -> int | None:
        """The stack's own clock, for one that runs on the wall clock (the kernel); None for
        a simulated stack, whose time is the script's."""

    def command(self, command: str, directory: Path) -> None:
        """Runs a shell command of the script (its sysctls select the stack's settings)."""

    def poll(self, limit: float) -> list[Sent] | None:
        """Lets time pass towards ``limit`` until the stack does something: what it sent
        (possibly nothing, when a timer fired without sending), or None when nothing happens
        by ``limit`` (``math.inf``: nothing is left to happen)."""

    def inbound(self, now: int, seg: Segment) -> list[Sent]:
        """The peer's segment arrives at ``now``."""

    def socket(self, fd: int) -> None: ...

    def setsockopt(self, fd: int, level: str, name: str, value: int | str) -> None: ...

    def bind(self, fd: int) -> None: ...

    def listen(self, fd: int) -> None: ...

    def accept(self, fd: int, new_fd: int) -> bool:
        """Whether a connection was ready (it now has ``new_fd``)."""

    def write(self, now: int, fd: int, size: int) -> tuple[int, list[Sent]]:
        """Bytes the socket took and what it sent at once."""

    def tcp_info(self, fd: int | None) -> dict[str, int]:
        """``struct tcp_info`` of socket ``fd`` (None: the last connection), fields by name;
        empty before there is a connection."""

    def other(self, now: int, call: Syscall) -> list[Sent]:
        """Any other system call; raises :class:`Skip` when the stack cannot make it."""
