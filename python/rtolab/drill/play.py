"""Plays a parsed script against a stack, as packetdrill plays one against a kernel
(``docs/drill.md``, "The language"; packetdrill's ``run.c``, ``run_packet.c``,
``run_system_call.c``). The stack is a :class:`rtolab.drill.backend.Backend`: a simulated
profile on the simulator's clock (:func:`play`) or the kernel in real time
(:mod:`rtolab.drill.kernel`).

An inbound packet or a call happens at its script time; an outbound packet is the next one
the stack sends, which must leave within packetdrill's tolerance of the script's time
(``verify_time``), and is waited for until 2 s past it (``sniff_outbound_live_packet``) or,
for ``*``, as long as the stack may still send.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rtolab.drill import wire
from rtolab.drill.backend import Backend, Refused, Sent, Skip
from rtolab.drill.script import BinOp, Code, Ellipsis_, Event, Int, List, Name, Packet, Script, Shell, Str, Syscall, Unsupported

Status = Literal["pass", "fail", "skip"]
#: packetdrill's defaults (``config.c``: ``set_default_config``).
TOLERANCE_USECS = 4000
TOLERANCE_PERCENT = 12.5
#: How long past its script time an outbound packet is waited for (``run_packet.c``:
#: ``sniff_outbound_live_packet``'s ``tolerance_secs``).
OUTBOUND_WAIT_NS = 2_000_000_000
#: ``tcpi_ca_state`` names a ``%{ }%`` block may use (``include/net/tcp.h``).
CA_STATES = {"TCP_CA_Open": 0, "TCP_CA_Disorder": 1, "TCP_CA_CWR": 2, "TCP_CA_Recovery": 3, "TCP_CA_Loss": 4}
#: The other names packetdrill gives a block (``code.c``: ``write_symbols``): ``tcpi_state``
#: values (``include/net/tcp_states.h``) and ``tcpi_options`` bits (``uapi/linux/tcp.h``).
SYMBOLS = {
    **CA_STATES,
    "TCP_ESTABLISHED": 1, "TCP_SYN_SENT": 2, "TCP_SYN_RECV": 3, "TCP_FIN_WAIT1": 4, "TCP_FIN_WAIT2": 5,
    "TCP_TIME_WAIT": 6, "TCP_CLOSE": 7, "TCP_CLOSE_WAIT": 8, "TCP_LAST_ACK": 9, "TCP_LISTEN": 10, "TCP_CLOSING": 11,
    "TCPI_OPT_TIMESTAMPS": 1, "TCPI_OPT_SACK": 2, "TCPI_OPT_WSCALE": 4, "TCPI_OPT_ECN": 8, "TCPI_OPT_ECN_SEEN": 16,
    "TCPI_OPT_SYN_DATA": 32, "TCPI_OPT_USEC_TS": 64, "TCPI_OPT_TFO_CHILD": 128,
}
#: Script options the interpreter reads or that change nothing in how it plays.
KNOWN_OPTIONS = {"tolerance_usecs", "tolerance_percent", "tcp_ts_ecr_scaled", "ip_version", "mss", "mtu", "define", "strict_segments", "non_fatal", "local_ip", "remote_ip", "bind_port", "connect_port"}
NS = 1_000_000_000


@dataclass(frozen=True)
class Outcome:
    """How one script went: ``pass``; ``fail`` with the first mismatch (``line`` and a
    message as packetdrill words it); ``skip`` with what the stack cannot play."""

    path: str
    status: Status
    message: str = ""
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"script": self.path, "status": self.status, "line": self.line, "message": self.message}


class _Mismatch(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def play(script: Script, stack: str) -> Outcome:
    """Plays ``script`` against the simulated ``stack`` (a profile name of ``docs/tcp-stacks.md``)."""
    from rtolab.drill.simulated import SimulatedStack

    return play_on(script, SimulatedStack(stack), realtime=False)


def play_on(script: Script, backend: Backend, realtime: bool) -> Outcome:
    """Plays ``script`` against ``backend``; ``realtime`` when the stack runs on the wall
    clock (its packets are waited for, not computed)."""
    try:
        _Player(script, backend, realtime).run()
    except _Mismatch as m:
        return Outcome(script.path, "fail", m.message, m.line)
    except Skip as s:
        return Outcome(script.path, "skip", str(s))
    return Outcome(script.path, "pass")


def _seconds(ns: int) -> str:
    return f"{ns / NS:.6f}"


class _Player:
    def __init__(self, script: Script, backend: Backend, realtime: bool) -> None:
        self.script = script
        self.backend = backend
        self.realtime = realtime
        self.directory = Path(script.path).parent
        options = script.options
        unknown = sorted(set(options) - KNOWN_OPTIONS)
        if unknown:
            raise Skip("script options " + ", ".join(f"--{u}" for u in unknown))
        if options.get("ip_version", "ipv4") not in ("ipv4", "ipv4-mapped-ipv6"):
            raise Skip(f"--ip_version={options['ip_version']}")
        if "mtu" in options or "mss" in options:
            raise Skip("--mtu / --mss (the stack's device has a 1500-byte MTU)")
        self.tolerance = int(options.get("tolerance_usecs", TOLERANCE_USECS)) * 1000
        self.percent = float(options.get("tolerance_percent", TOLERANCE_PERCENT))
        self.ecr_scaled = "tcp_ts_ecr_scaled" in options
        self.strict = "strict_segments" in options
        self.pending: deque[Sent] = deque()
        self.live_prev = 0
        self.script_prev: int | None = None
        self.prev_inbound = False
        self.ts_map: dict[int, int] = {}
        self.ts_first: tuple[int, int] | None = None
        self.remote_isn = 0
        self.last_fd: int | None = None
        self.blocks: list[tuple[int, str, dict[str, int]]] = []

    def run(self) -> None:
        if self.script.init_command is not None:
            try:
                self.backend.command(self.script.init_command.command, self.directory)
            except Refused as e:
                raise _Mismatch(None, f"the script's first command: {e}") from None
        events = self.script.events
        if events and events[0].time.kind == "absolute" and events[0].time.start != 0:
            raise _Mismatch(events[0].line, "the first event must be at time 0")
        for event in events:
            self.event(event)
        # packetdrill writes every block, each after its recorded tcp_info values, into one
        # Python program (``code.c``: ``code_execute``): a name one block sets, the next sees.
        namespace: dict[str, Any] = {}
        for line, source, info in self.blocks:
            self.run_block(line, source, info, namespace)

    def run_block(self, line: int, source: str, info: dict[str, int], namespace: dict[str, Any]) -> None:
        namespace.update(SYMBOLS)
        namespace.update(info)
        try:
            exec(compile(source, f"{self.script.path}:{line}", "exec"), namespace)  # noqa: S102 - the script's own assertions, as packetdrill runs them
        except AssertionError as e:
            raise _Mismatch(line, f"assertion failed in %{{ }}% block: {e or source.strip()}; tcp_info: " + ", ".join(f"{k}={v}" for k, v in info.items())) from None
        except NameError as e:
            if info and str(getattr(e, "name", "")).startswith("tcpi_"):
                raise Skip(f"line {line}: tcp_info field {e.name}") from None
            raise _Mismatch(line, f"%{{ }}% block raised NameError: {e}") from None
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
            # After an inbound packet an inbound one counts from its script time; anything
            # else from the previous event's live time (``adjust_relative_event_times``).
            base = (self.script_prev or 0) if (inbound and self.prev_inbound) else self.live_prev
        start = base + round(t.start * NS)
        end = None if t.end is None else base + round(t.end * NS)
        return start, end

    def tolerance_for(self, start: int) -> int:
        if self.script_prev is None:
            return self.tolerance
        return max(self.tolerance, round(self.percent / 100 * (start - self.script_prev)))

    def advance_to(self, now: int) -> None:
        """Lets the stack run until ``now``; what it sends meanwhile joins ``pending``."""
        while (sent := self.backend.poll(now)) is not None:
            self.pending.extend(sent)

    def wait_for_packet(self, limit: float) -> bool:
        """Waits until the stack sends something or ``limit`` passes; whether ``pending``
        holds a packet."""
        while not self.pending and (sent := self.backend.poll(limit)) is not None:
            self.pending.extend(sent)
        return bool(self.pending)

    # --- events -----------------------------------------------------------------------

    def event(self, event: Event) -> None:
        try:
            self.play_event(event)
        except Refused as e:
            raise _Mismatch(event.line, str(e)) from None
        except Skip as e:
            raise Skip(f"line {event.line}: {e}") from None

    def play_event(self, event: Event) -> None:
        action = event.action
        if isinstance(action, Unsupported):
            raise Skip(f"{action.kind} packets")
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
                self.backend.command(action.command, self.directory)
            elif isinstance(action, Code):
                self.blocks.append((event.line, action.source, self.backend.tcp_info(self.last_fd)))
            # On a stack with its own clock the event's live time is when it was done: a
            # call or an injected packet takes time (packetdrill reads the clock again,
            # ``now_usecs``); an outbound packet's is its kernel time stamp.
            now = self.backend.now()
            live = start if now is None else max(start, now)
        self.script_prev = start if start is not None else live
        self.live_prev = live
        self.prev_inbound = inbound

    def outbound(self, event: Event, p: Packet, start: int | None, end: int | None) -> int:
        unsupported = wire.unsupported_options(p.options)
        if unsupported:
            raise Skip(f"TCP options {', '.join(unsupported)}")
        # The next thing the stack sends, until 2 s past the script's time: a late packet is
        # a timing error, as packetdrill reports it (a failing script ends here, so no later
        # event is overtaken). A simulated stack computes its next packet however late.
        limit: float = math.inf if start is None or not self.realtime else (end if end is not None else start) + OUTBOUND_WAIT_NS
        if not self.wait_for_packet(limit):
            why = "" if self.realtime else ": the stack has nothing more to send and no timer armed"
            raise _Mismatch(event.line, f"timed out waiting for packet {wire.describe_script(p)}{why}")
        at, merged = self.take(event, p, limit)
        if start is not None:
            tol = self.tolerance_for(start)
            last = end if end is not None else start
            if not start - tol <= at <= last + tol:
                expected = _seconds(start) if end is None else f"{_seconds(start)}~{_seconds(end)}"
                raise _Mismatch(event.line, f"timing error: expected outbound packet at {expected} s but it happened at {_seconds(at)} s; tolerance {_seconds(tol)} s; packet: {wire.describe(merged)}")
        self.compare(event, p, merged)
        return at

    def take(self, event: Event, p: Packet, limit: float) -> Sent:
        """The live segments the script packet covers, merged (``run_packet.c``:
        ``verify_packet_fragments``, ``packet.c``: ``aggregate_packets``): in sequence,
        every one but the last of the same length and flags, summing to the script's length.
        A simulated stack's fragments leave together; a real one's are waited for."""
        at, first = self.pending.popleft()
        merged = first
        total, size = first["len"], first["len"]
        while not self.strict and p.length > 0 and total < p.length and self.wait_for_packet(limit if self.realtime else at):
            nxt_at, nxt = self.pending[0]
            if (not self.realtime and nxt_at != at) or nxt["seq"] != merged["seq"] + total or nxt["len"] > size or (nxt["flags"] & ~0x09) != (first["flags"] & ~0x09):
                break
            self.pending.popleft()
            total += nxt["len"]
            size = nxt["len"]
            merged = {**nxt, "seq": first["seq"], "len": total}
        if total != p.length and total > 0 and p.length > 0:
            raise _Mismatch(event.line, f"live packet payload: expected {p.length} bytes vs actual {total} bytes; script packet: {wire.describe_script(p)}; live: {wire.describe(merged)}")
        return at, merged

    def compare(self, event: Event, p: Packet, live: wire.Segment) -> None:
        ack_live = (live["ack"] + self.remote_isn) & 0xFFFFFFFF
        checks: list[tuple[str, object, object]] = [
            ("flags", p.flags, wire.flag_letters(live["flags"])),
            ("tcp_data_len", p.length, live["len"]),
            ("tcp_ack_seq", p.ack if p.ack is not None else 0, ack_live if live["flags"] & wire.FLAG_BITS["."] else 0),
        ]
        if not live["flags"] & wire.FLAG_BITS["S"]:
            checks.append(("tcp_seq", p.seq_start, live["seq"]))
        if p.win is not None:
            checks.append(("tcp_window", p.win, live["win"]))
        for field, expected, actual in checks:
            if field == "flags":
                same = wire.flag_bits(str(expected)) == live["flags"]
            else:
                same = expected == actual
            if not same:
                raise _Mismatch(event.line, f"live packet field {field}: expected: {expected} vs actual: {actual}; script packet: {wire.describe_script(p)}; live packet: {wire.describe(live, ack_base=self.remote_isn)}")
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
            raise _Mismatch(event.line, f"live packet TCP options: expected {wire.describe_script(p)} vs actual {wire.describe(live, ack_base=self.remote_isn)}")

    def inbound(self, event: Event, p: Packet, now: int) -> None:
        unsupported = wire.unsupported_options(p.options)
        if unsupported:
            raise Skip(f"TCP options {', '.join(unsupported)}")
        if p.flags.replace("S", "").replace(".", "").replace("R", "").replace("P", "").replace("F", ""):
            raise Skip(f"flags {p.flags} (ECN, URG)")
        if "S" in p.flags:
            self.remote_isn = p.seq_start
        ecr = None
        ts = next((o.values for o in p.options or () if o.kind == "TS"), None)
        if ts is not None and "." in p.flags:
            ecr = self.map_ecr(event, ts[1])
        self.pending.extend(self.backend.inbound(now, wire.inbound(p, p.ack or 0, ecr)))

    def map_ecr(self, event: Event, ecr: int) -> int:
        """packetdrill's TS ecr rewrite (``map_inbound_packet``)."""
        if ecr in self.ts_map:
            return self.ts_map[ecr]
        if self.ecr_scaled and self.ts_first is not None:
            return ecr - self.ts_first[0] + self.ts_first[1]
        raise _Mismatch(event.line, f"unable to infer live TS ecr for script ecr {ecr}: no outbound packet carried TS val {ecr}")

    # --- system calls -----------------------------------------------------------------

    def syscall(self, event: Event, call: Syscall, now: int) -> None:
        name = call.name
        if call.end is not None and name != "accept":
            raise Skip(f"a blocking {name}()")
        result = call.result.value if isinstance(call.result, Int) else None
        fd = call.args[0].value if call.args and isinstance(call.args[0], Int) else None
        if name == "socket":
            if not any(isinstance(a, Name) and a.symbol == "SOCK_STREAM" for a in call.args):
                raise Skip("a socket that is not SOCK_STREAM")
            if result is None:
                raise Skip("socket() without a descriptor as its result")
            self.backend.socket(result)
        elif name in ("fcntl", "ioctl"):
            pass
        elif fd is None:
            raise Skip(f"{name}() without a descriptor")
        elif name == "setsockopt":
            level, option, value = (call.args[1:4] + (Ellipsis_(),) * 3)[:3]
            if not isinstance(level, Name) or not isinstance(option, Name):
                raise Skip(f"setsockopt({_arg_text(level)}, {_arg_text(option)})")
            self.backend.setsockopt(fd, level.symbol, option.symbol, _option_value(value))
        elif name == "bind":
            self.backend.bind(fd)
        elif name == "listen":
            self.backend.listen(fd)
        elif name == "accept":
            if not self.backend.accept(fd, result if result is not None else fd + 1):
                raise _Mismatch(event.line, "accept(): no connection is established at this time")
            self.last_fd = result
        elif name in ("write", "send"):
            size = call.args[2] if len(call.args) > 2 else None
            if not isinstance(size, Int):
                raise Skip(f"{name}() without a byte count")
            taken, sent = self.backend.write(now, fd, size.value)
            self.pending.extend(sent)
            if result is not None and result != taken:
                raise _Mismatch(event.line, f"{name}(): expected result {result} but the socket took {taken} bytes")
        elif name == "getsockopt" and _is_tcp_info(call):
            self.check_tcp_info(event, call, fd)
        else:
            self.pending.extend(self.backend.other(now, call))

    def check_tcp_info(self, event: Event, call: Syscall, fd: int) -> None:
        info = self.backend.tcp_info(fd)
        if not info:
            raise _Mismatch(event.line, "getsockopt(TCP_INFO): no connection (accept() comes first)")
        struct = call.args[3]
        fields = getattr(struct, "fields", ())
        for name, expr in fields:
            if isinstance(expr, Ellipsis_):
                continue
            if name not in info:
                raise Skip(f"tcp_info field {name}")
            expected = expr.value if isinstance(expr, Int) else CA_STATES.get(getattr(expr, "symbol", ""), None)
            if expected is None:
                raise Skip(f"tcp_info value {_arg_text(expr)}")
            if info[name] != expected:
                raise _Mismatch(event.line, f"getsockopt(TCP_INFO): {name} expected {expected} vs actual {info[name]}")


def _is_tcp_info(call: Syscall) -> bool:
    return len(call.args) > 3 and isinstance(call.args[2], Name) and call.args[2].symbol == "TCP_INFO"


def _option_value(value: object) -> int | str:
    """A socket option's value as written: ``[1]`` or ``1`` an int, ``"cubic"`` a string;
    anything else is not an option rtolab can set."""
    if isinstance(value, List) and len(value.items) == 1:
        value = value.items[0]
    if isinstance(value, Int):
        return value.value
    if isinstance(value, Str):
        return value.value
    raise Skip(f"a socket option value {_arg_text(value)}")


def _arg_text(a: object) -> str:
    if isinstance(a, Name):
        return a.symbol
    if isinstance(a, Int):
        return str(a.value)
    if isinstance(a, Str):
        return repr(a.value)
    if isinstance(a, List):
        return "[" + ", ".join(_arg_text(i) for i in a.items) + "]"
    if isinstance(a, BinOp):
        return f"{_arg_text(a.lhs)} {a.op} {_arg_text(a.rhs)}"
    return "..."
