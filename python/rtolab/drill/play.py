"""Plays a parsed script against a simulated stack (``rtolab._core.DrillSocket``) on the
simulator's clock, as packetdrill plays one against a kernel (``docs/drill.md``, "The
language"; packetdrill's ``run.c``, ``run_packet.c``, ``run_system_call.c``).

The simulated socket is a listening server that sends what its application writes, so the
scripts it plays are those of a passive open: ``socket``, ``setsockopt``, ``bind``,
``listen``, the peer's SYN, the socket's SYN-ACK, the peer's ACK, ``accept``, ``write`` and
the ACKs that follow. Anything else (an active open, data from the peer, ``close``, UDP,
fast open) *skips* the script, naming what it needs.

Time is the simulator's: an inbound packet or a call happens exactly at its script time;
an outbound packet leaves when the socket sends it, which must be within packetdrill's
tolerance of the script's time (``verify_time``). The socket's timers fire one expiry at a
time, so a timer never fires past an inbound packet the script injects first.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rtolab import _core
from rtolab.drill import wire
from rtolab.drill.script import Code, Ellipsis_, Event, Int, List, Name, Packet, Script, Shell, Syscall, Unsupported
from rtolab.drill.sysctls import StackSettings, run_command
from rtolab.drill.sysctls import Unsupported as UnsupportedCommand

Status = Literal["pass", "fail", "skip"]
#: packetdrill's defaults (``config.c``: ``set_default_config``).
TOLERANCE_USECS = 4000
TOLERANCE_PERCENT = 12.5
#: ``tcpi_ca_state`` names a ``%{ }%`` block may use (``include/net/tcp.h``).
CA_STATES = {"TCP_CA_Open": 0, "TCP_CA_Disorder": 1, "TCP_CA_CWR": 2, "TCP_CA_Recovery": 3, "TCP_CA_Loss": 4}
#: Socket options that change nothing in the simulated socket (it sends at once, without
#: Nagle's delay, and binds nothing).
HARMLESS_OPTIONS = {"SO_REUSEADDR", "SO_REUSEPORT", "TCP_NODELAY"}
NS = 1_000_000_000


@dataclass(frozen=True)
class Outcome:
    """How one script went: ``pass``; ``fail`` with the first mismatch (``line`` and a
    message as packetdrill words it); ``skip`` with what the simulated stack does not model."""

    path: str
    status: Status
    message: str = ""
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"script": self.path, "status": self.status, "line": self.line, "message": self.message}


class _Mismatch(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _Skip(Exception):
    pass


def play(script: Script, stack: str) -> Outcome:
    """Plays ``script`` against the simulated ``stack`` (a profile name of ``docs/tcp-stacks.md``)."""
    try:
        _Player(script, stack).run()
    except _Mismatch as m:
        return Outcome(script.path, "fail", m.message, m.line)
    except (_Skip, UnsupportedCommand, _core.DrillUnsupported) as s:
        return Outcome(script.path, "skip", str(s))
    return Outcome(script.path, "pass")


def _seconds(ns: int) -> str:
    return f"{ns / NS:.6f}"


class _Player:
    def __init__(self, script: Script, stack: str) -> None:
        self.script = script
        self.directory = Path(script.path).parent
        options = script.options
        unknown = sorted(set(options) - {"tolerance_usecs", "tolerance_percent", "tcp_ts_ecr_scaled", "ip_version", "mss", "mtu", "define", "strict_segments", "non_fatal", "local_ip", "remote_ip", "bind_port", "connect_port"})
        if unknown:
            raise _Skip("script options " + ", ".join(f"--{u}" for u in unknown))
        if options.get("ip_version", "ipv4") not in ("ipv4", "ipv4-mapped-ipv6"):
            raise _Skip(f"--ip_version={options['ip_version']}")
        if "mtu" in options or "mss" in options:
            raise _Skip("--mtu / --mss (the simulated socket has a 1500-byte MTU)")
        self.tolerance = int(options.get("tolerance_usecs", TOLERANCE_USECS)) * 1000
        self.percent = float(options.get("tolerance_percent", TOLERANCE_PERCENT))
        self.ecr_scaled = "tcp_ts_ecr_scaled" in options
        self.strict = "strict_segments" in options
        self.settings = StackSettings(tcp={"stack": stack})
        self.socket: Any = None
        self.pending: deque[tuple[int, wire.Segment]] = deque()
        self.live_prev = 0
        self.script_prev: int | None = None
        self.prev_inbound = False
        self.ts_map: dict[int, int] = {}
        self.ts_first: tuple[int, int] | None = None
        self.remote_isn = 0
        self.blocks: list[tuple[int, str, dict[str, int]]] = []

    def run(self) -> None:
        if self.script.init_command is not None:
            run_command(self.settings, self.script.init_command.command, self.directory)
        events = self.script.events
        if events and events[0].time.kind == "absolute" and events[0].time.start != 0:
            raise _Mismatch(events[0].line, "the first event must be at time 0")
        for event in events:
            self.event(event)
        for line, source, info in self.blocks:
            namespace: dict[str, Any] = {**CA_STATES, **info}
            try:
                exec(compile(source, f"{self.script.path}:{line}", "exec"), namespace)  # noqa: S102 - the script's own assertions, as packetdrill runs them
            except AssertionError as e:
                raise _Mismatch(line, f"assertion failed in %{{ }}% block: {e or source.strip()}; tcp_info: " + ", ".join(f"{k}={v}" for k, v in info.items())) from None
            except Exception as e:  # noqa: BLE001 - any error of the block fails the script, as in packetdrill
                raise _Mismatch(line, f"%{{ }}% block raised {type(e).__name__}: {e}") from None

    # --- time -------------------------------------------------------------------------

    def times(self, event: Event, inbound: bool) -> tuple[int | None, int | None]:
        """The event's script time and range end in ns (None for ``*``), after the relative
        offset (``run.c``: ``adjust_relative_event_times``)."""
        t = event.time
        if t.kind == "any":
            return None, None
        base = 0
        if t.kind == "relative":
            base = (self.script_prev or 0) if (inbound and self.prev_inbound) else self.live_prev
        start = base + round(t.start * NS)
        end = None if t.end is None else base + round(t.end * NS)
        return start, end

    def tolerance_for(self, start: int) -> int:
        if self.script_prev is None:
            return self.tolerance
        return max(self.tolerance, round(self.percent / 100 * (start - self.script_prev)))

    def fire_next(self, limit: float) -> bool:
        """Fires the socket's next timer if it is due by ``limit`` (what it sends joins
        ``pending``); whether one fired."""
        wakeup = None if self.socket is None else self.socket.next_wakeup()
        if wakeup is None or wakeup > limit:
            return False
        self.pending.extend(self.socket.advance(wakeup))
        return True

    def advance_to(self, now: int) -> None:
        """Fires the socket's timers due by ``now``, one expiry at a time."""
        while self.fire_next(now):
            pass

    # --- events -----------------------------------------------------------------------

    def event(self, event: Event) -> None:
        try:
            self.play_event(event)
        except _core.DrillRefused as e:
            raise _Mismatch(event.line, f"the stack refused it: {e}") from None
        except _core.DrillUnsupported as e:
            raise _Skip(f"line {event.line}: {e}") from None

    def play_event(self, event: Event) -> None:
        action = event.action
        if isinstance(action, Unsupported):
            raise _Skip(f"line {event.line}: {action.kind} packets")
        inbound = isinstance(action, Packet) and action.direction == "in"
        start, end = self.times(event, inbound)
        if isinstance(action, Packet) and action.direction == "out":
            live = self.outbound(event, action, start, end)
        else:
            assert start is not None  # the parser allows * and ranges on outbound packets only
            self.advance_to(start)
            if isinstance(action, Packet):
                self.inbound(event, action, start)
            elif isinstance(action, Syscall):
                self.syscall(event, action, start)
            elif isinstance(action, Shell):
                if self.socket is not None:
                    raise _Skip(f"line {event.line}: a command after the socket exists ({action.command.strip()!r})")
                run_command(self.settings, action.command, self.directory)
            elif isinstance(action, Code):
                self.blocks.append((event.line, action.source, self.info()))
            live = start
        self.script_prev = start if start is not None else live
        self.live_prev = live
        self.prev_inbound = inbound

    def outbound(self, event: Event, p: Packet, start: int | None, end: int | None) -> int:
        unsupported = wire.unsupported_options(p.options)
        if unsupported:
            raise _Skip(f"line {event.line}: TCP options {', '.join(unsupported)}")
        # The next thing the socket sends, however late: a late packet is a timing error, as
        # packetdrill reports it (a failing script ends here, so no later event is overtaken).
        while not self.pending and self.fire_next(math.inf):
            pass
        if not self.pending:
            raise _Mismatch(event.line, f"timed out waiting for packet {wire.describe_script(p)}: the stack has nothing more to send and no timer armed")
        at, merged = self.take(event, p)
        if start is not None:
            tol = self.tolerance_for(start)
            last = end if end is not None else start
            if not start - tol <= at <= last + tol:
                expected = _seconds(start) if end is None else f"{_seconds(start)}~{_seconds(end)}"
                raise _Mismatch(event.line, f"timing error: expected outbound packet at {expected} s but it happened at {_seconds(at)} s; tolerance {_seconds(tol)} s; packet: {wire.describe(merged)}")
        self.compare(event, p, merged)
        return at

    def take(self, event: Event, p: Packet) -> tuple[int, wire.Segment]:
        """The live segments the script packet covers, merged (``run_packet.c``:
        ``verify_packet_fragments``, ``packet.c``: ``aggregate_packets``): back to back,
        every one but the last of the same length, summing to the script's length."""
        at, first = self.pending.popleft()
        merged = first
        total, size = first["len"], first["len"]
        while not self.strict and p.length > 0 and total < p.length and self.pending and self.pending[0][0] == at:
            _, nxt = self.pending[0]
            if nxt["seq"] != merged["seq"] + total or nxt["len"] > size or (nxt["flags"] & ~0x09) != (first["flags"] & ~0x09):
                break
            self.pending.popleft()
            total += nxt["len"]
            size = nxt["len"]
            merged = {**nxt, "seq": first["seq"], "len": total}
        if total != p.length and total > 0 and p.length > 0:
            raise _Mismatch(event.line, f"live packet payload: expected {p.length} bytes vs actual {total} bytes; script packet: {wire.describe_script(p)}; live: {wire.describe(merged)}")
        return at, merged

    def compare(self, event: Event, p: Packet, live: wire.Segment) -> None:
        syn = bool(live["flags"] & wire.FLAG_BITS["S"])
        ack_live = live["ack"] + (self.remote_isn if syn else 0)
        checks: list[tuple[str, object, object]] = [
            ("flags", p.flags, wire.flag_letters(live["flags"])),
            ("tcp_data_len", p.length, live["len"]),
            ("tcp_ack_seq", p.ack if p.ack is not None else 0, ack_live if live["flags"] & wire.FLAG_BITS["."] else 0),
        ]
        if not syn:
            checks.append(("tcp_seq", p.seq_start, live["seq"]))
        if p.win is not None:
            checks.append(("tcp_window", p.win, live["win"]))
        for field, expected, actual in checks:
            if field == "flags":
                same = wire.flag_bits(str(expected)) == live["flags"]
            else:
                same = expected == actual
            if not same:
                raise _Mismatch(event.line, f"live packet field {field}: expected: {expected} vs actual: {actual}; script packet: {wire.describe_script(p)}; live packet: {wire.describe(live)}")
        if p.options is not None:
            self.compare_options(event, p, live)
        script_ts = next((o.values for o in p.options or () if o.kind == "TS"), None)
        live_ts = next((v for k, v in live["options"] if k == "TS"), None)
        if script_ts is not None and live_ts is not None:
            self.ts_map.setdefault(script_ts[0], live_ts[0])
            if self.ts_first is None:
                self.ts_first = (script_ts[0], live_ts[0])

    def compare_options(self, event: Event, p: Packet, live: wire.Segment) -> None:
        written = [(o.kind, list(o.values)) for o in p.options or ()]
        sent = live["options"]
        same = len(written) == len(sent) and all(
            wk == lk and (wk == "TS" or wv == list(lv)) for (wk, wv), (lk, lv) in zip(written, sent)
        )
        if not same:
            raise _Mismatch(event.line, f"live packet TCP options: expected {wire.describe_script(p)} vs actual {wire.describe(live)}")

    def inbound(self, event: Event, p: Packet, now: int) -> None:
        unsupported = wire.unsupported_options(p.options)
        if unsupported:
            raise _Skip(f"line {event.line}: TCP options {', '.join(unsupported)}")
        if p.flags.replace("S", "").replace(".", "").replace("R", "").replace("P", "").replace("F", ""):
            raise _Skip(f"line {event.line}: flags {p.flags} (ECN, URG)")
        if self.socket is None:
            raise _Mismatch(event.line, "a packet for a socket that is not listening yet")
        syn = "S" in p.flags
        if syn:
            self.remote_isn = p.seq_start
        ecr = None
        ts = next((o.values for o in p.options or () if o.kind == "TS"), None)
        if ts is not None and "." in p.flags:
            ecr = self.map_ecr(event, ts[1])
        seg = wire.inbound(p, p.ack or 0, ecr)
        self.pending.extend((now, s) for s in self.socket.inbound(now, seg))

    def map_ecr(self, event: Event, ecr: int) -> int:
        """packetdrill's TS ecr rewrite (``map_inbound_packet``)."""
        if ecr in self.ts_map:
            return self.ts_map[ecr]
        if self.ecr_scaled and self.ts_first is not None:
            return ecr - self.ts_first[0] + self.ts_first[1]
        raise _Mismatch(event.line, f"unable to infer live TS ecr for script ecr {ecr}: no outbound packet carried TS val {ecr}")

    def info(self) -> dict[str, int]:
        if self.socket is None:
            return {}
        return dict(self.socket.info())

    # --- system calls -----------------------------------------------------------------

    def syscall(self, event: Event, call: Syscall, now: int) -> None:
        name = call.name
        if call.end is not None and name != "accept":
            raise _Skip(f"line {event.line}: a blocking {name}()")
        result = call.result.value if isinstance(call.result, Int) else None
        if name == "socket":
            if not any(isinstance(a, Name) and a.symbol == "SOCK_STREAM" for a in call.args):
                raise _Skip(f"line {event.line}: a socket that is not SOCK_STREAM")
        elif name in ("bind", "fcntl", "ioctl") or (name == "setsockopt" and self.harmless_option(call)):
            pass
        elif name == "setsockopt":
            raise _Skip(f"line {event.line}: setsockopt({', '.join(_arg_text(a) for a in call.args[1:3])})")
        elif name == "listen":
            tcp = self.settings.tcp_with(_core.drill_detectors(json.dumps(self.settings.tcp)))
            self.socket = _core.DrillSocket(json.dumps(tcp), self.settings.rmem_max)
        elif self.socket is None and name in ("accept", "write", "send", "getsockopt"):
            raise _Mismatch(event.line, f"{name}(): no socket is listening (listen() comes first)")
        elif name == "accept":
            if not self.socket.accept():
                raise _Mismatch(event.line, "accept(): no connection is established at this time")
        elif name in ("write", "send"):
            size = call.args[2] if len(call.args) > 2 else None
            if not isinstance(size, Int):
                raise _Skip(f"line {event.line}: {name}() without a byte count")
            sent = self.socket.write(now, size.value)
            self.pending.extend((now, s) for s in sent)
            if result is not None and result != size.value:
                raise _Mismatch(event.line, f"{name}(): expected result {result} but the socket took {size.value} bytes")
        elif name == "getsockopt" and _is_tcp_info(call):
            self.check_tcp_info(event, call)
        else:
            raise _Skip(f"line {event.line}: {name}()")

    def harmless_option(self, call: Syscall) -> bool:
        return len(call.args) > 2 and isinstance(call.args[2], Name) and call.args[2].symbol in HARMLESS_OPTIONS

    def check_tcp_info(self, event: Event, call: Syscall) -> None:
        info = self.info()
        struct = call.args[3]
        fields = getattr(struct, "fields", ())
        for name, expr in fields:
            if isinstance(expr, Ellipsis_):
                continue
            if name not in info:
                raise _Skip(f"line {event.line}: tcp_info field {name}")
            expected = expr.value if isinstance(expr, Int) else CA_STATES.get(getattr(expr, "symbol", ""), None)
            if expected is None:
                raise _Skip(f"line {event.line}: tcp_info value {_arg_text(expr)}")
            if info[name] != expected:
                raise _Mismatch(event.line, f"getsockopt(TCP_INFO): {name} expected {expected} vs actual {info[name]}")


def _is_tcp_info(call: Syscall) -> bool:
    return len(call.args) > 3 and isinstance(call.args[2], Name) and call.args[2].symbol == "TCP_INFO"


def _arg_text(a: object) -> str:
    if isinstance(a, Name):
        return a.symbol
    if isinstance(a, Int):
        return str(a.value)
    if isinstance(a, List):
        return "[" + ", ".join(_arg_text(i) for i in a.items) + "]"
    return "..."
