"""A simulated stack profile as a drill back end: ``rtolab._core.DrillSocket``, a listening
server that sends what its application writes, on the simulator's clock.

It plays a passive open: ``socket``, ``setsockopt``, ``bind``, ``listen``, the peer's SYN,
the SYN-ACK, the peer's ACK, ``accept``, ``write``, the ACKs that follow, the peer's data and
``read`` (the profile's receiver: its ACKs, and with ``linux`` Linux's receive window),
``close`` (this side's FIN once the data is sent) and the peer's FIN. Anything else (an active
open, a read that would block) skips the script, naming what it needs. Shell
commands map their sysctls onto the profile's settings (:mod:`rtolab.drill.sysctls`) and may
only come before the socket exists. The socket's timers fire one expiry at a time, so a timer
never fires past an inbound packet the script injects first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rtolab import _core
from rtolab.drill.backend import Refused, Sent, Skip, check_result
from rtolab.drill.script import Int, Syscall
from rtolab.drill.sysctls import StackSettings, run_command
from rtolab.drill.sysctls import Unsupported as UnsupportedCommand
from rtolab.drill.wire import Segment

#: Socket options that change nothing in the simulated socket: it sends at once, without
#: Nagle's delay, binds nothing, and takes every write whole (a send buffer that would take
#: less shows as a write result the script did not expect, never as a silent pass).
HARMLESS_OPTIONS = {"SO_REUSEADDR", "SO_REUSEPORT", "TCP_NODELAY", "SO_SNDBUF"}


class SimulatedStack:
    """The profile ``stack`` (a name of ``docs/tcp-stacks.md``) behind one listening socket."""

    def __init__(self, stack: str) -> None:
        self.settings = StackSettings(tcp={"stack": stack})
        self.sock: Any = None

    def now(self) -> int | None:
        return None

    def command(self, command: str, directory: Path) -> None:
        if self.sock is not None:
            raise Skip(f"a command after the socket exists ({command.strip()!r})")
        try:
            run_command(self.settings, command, directory)
        except UnsupportedCommand as e:
            raise Skip(str(e)) from None

    def poll(self, limit: float) -> list[Sent] | None:
        wakeup = None if self.sock is None else self.sock.next_wakeup()
        if wakeup is None or wakeup > limit:
            return None
        return self._call(self.sock.advance, wakeup)  # type: ignore[no-any-return]

    def inbound(self, now: int, seg: Segment) -> list[Sent]:
        if self.sock is None:
            raise Refused("a packet for a socket that is not listening yet")
        return [(now, s) for s in self._call(self.sock.inbound, now, seg)]

    def socket(self, fd: int) -> None:
        pass

    def setsockopt(self, fd: int, level: str, name: str, value: int | str) -> None:
        if name not in HARMLESS_OPTIONS:
            raise Skip(f"setsockopt({level}, {name})")

    def bind(self, fd: int) -> None:
        pass

    def listen(self, fd: int) -> None:
        tcp = self.settings.tcp_with(_core.drill_detectors(json.dumps(self.settings.tcp)))
        self.sock = _core.DrillSocket(json.dumps(tcp), list(self.settings.rmem))

    def accept(self, fd: int, new_fd: int) -> bool:
        return bool(self._listening("accept").accept())

    def write(self, now: int, fd: int, size: int) -> tuple[int, list[Sent]]:
        sent = self._call(self._listening("write").write, now, size)
        return size, [(now, s) for s in sent]

    def tcp_info(self, fd: int | None) -> dict[str, int]:
        return {} if self.sock is None else dict(self.sock.info())

    def other(self, now: int, call: Syscall) -> list[Sent]:
        if call.name == "close" and self.sock is not None:
            return [(now, s) for s in self._call(self.sock.close, now)]
        if call.name in ("read", "recv") and self.sock is not None:
            size = call.args[2] if len(call.args) > 2 else None
            if not isinstance(size, Int):
                raise Skip(f"{call.name}() without a byte count")
            got, sent = self._call(self.sock.read, now, size.value)
            check_result(call, got)
            return [(now, s) for s in sent]
        raise Skip(f"{call.name}()")

    def _listening(self, name: str) -> Any:
        if self.sock is None:
            raise Refused(f"{name}(): no socket is listening (listen() comes first)")
        return self.sock

    @staticmethod
    def _call(method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except _core.DrillRefused as e:
            raise Refused(f"the stack refused it: {e}") from None
        except _core.DrillUnsupported as e:
            raise Skip(str(e)) from None
