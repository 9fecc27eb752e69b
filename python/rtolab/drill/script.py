"""The typed tree of a packetdrill script: what :func:`rtolab.drill.parse.parse` returns.

These classes are the contract between the parser and the interpreter, so their names and
meanings stay put; new fields come with defaults. Every class is a frozen dataclass, so two
trees compare equal exactly when the scripts say the same thing.

The grammar they follow is packetdrill's (``gtests/net/packetdrill/parser.y`` and
``lexer.l`` of google/packetdrill); what the events *mean* when played (timing tolerance,
sequence numbers relative to the ISN, the TS ecr mapping, outbound merging, what an omitted
``win`` or ``<...>`` leaves unchecked) is written down in ``docs/drill.md``, "The language",
with the packetdrill file and function each rule comes from.

Invariants the parser guarantees (a script that breaks one is a :class:`ScriptError`):

- a :class:`Time` of kind ``"any"`` or with an ``end`` is only on an outbound packet
  (``event`` in ``parser.y``), and ``end >= start``; times are never negative;
- a :class:`Packet` has ``seq_end == seq_start + length``, all three in [0, 2**32);
  ``win`` is given on every inbound packet and ``options is None`` (``<...>``) only on an
  outbound one (``new_tcp_packet`` in ``tcp_packet.c``, ``tcp_packet_spec`` in ``parser.y``);
- ``flags`` holds only the letters packetdrill knows (``.FSRPEWAU`` and one AccECN digit
  ``0``-``7``, never a digit together with ``E``, ``W`` or ``A``), or is ``"-"`` (no flag).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

TimeKind = Literal["absolute", "relative", "any"]
Direction = Literal["in", "out"]
UnsupportedKind = Literal["udp", "icmp", "encapsulated"]


class ScriptError(ValueError):
    """A script that is not packetdrill: ``str(e)`` is ``PATH:LINE: message``, the message
    saying what was expected and what was found."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Time:
    """When an event happens, in seconds. ``absolute`` counts from the script's start,
    ``relative`` (written ``+0.1``) from the previous event, ``any`` (written ``*``) matches
    any time and has ``start == 0``. ``end`` is set for a range: ``0.1~0.2`` (absolute) or
    ``+0.1~+0.2`` (relative, both ends from the previous event)."""

    kind: TimeKind
    start: float
    end: float | None = None


@dataclass(frozen=True)
class TcpOption:
    """One TCP option as written between ``<`` and ``>``.

    ``kind`` is packetdrill's name: ``mss``, ``wscale``, ``sackOK``, ``nop``, ``eol``,
    ``TS``, ``sack``, ``FO``, ``FOEXP``, ``md5``, ``ECN``. ``values`` holds the numbers:
    ``mss`` (bytes,), ``wscale`` (shift,), ``TS`` (val, ecr), ``sack`` (left1, right1,
    left2, right2, ...), ``ECN`` the AccECN counters in the order written. ``data`` holds
    the text that is not a number: the hex cookie of ``FO``/``FOEXP`` (``""`` when none is
    written), the hex digest of ``md5``, and for ``ECN`` the counters' names in the order
    written, space-separated (``"e0b ceb e1b"``)."""

    kind: str
    values: tuple[int, ...] = ()
    data: str | None = None


@dataclass(frozen=True)
class Packet:
    """A TCP segment the script injects (``direction == "in"``, written ``<``) or expects
    the stack to send (``"out"``, written ``>``).

    ``flags`` is as written: ``S``, ``S.``, ``.``, ``P.``, ``F.``, ``R``, ``R.``, ``SEW``,
    ``.5`` (AccECN ACE value 5), or ``-`` for a segment with no flag. ``seq_start``,
    ``seq_end`` and ``length`` are ``seq_start:seq_end(length)``. ``ack`` is ``None`` when
    no ``ack N`` is written (packetdrill then puts 0 in the field), ``win`` is ``None`` when
    no ``win N`` is written (only allowed outbound, where the window is then not checked).
    ``options`` is ``None`` for ``<...>`` (any options, outbound only) and ``()`` when no
    options are written (the segment has none). ``urg`` is ``urg N``, ``ip`` the IP-level
    field written in brackets (``ect0``, ``ect1``, ``ce``, ``noecn``, ``ect01``,
    ``tos 0x10``, ``ttl 64``, ``flowlabel 0x12345``, comma-joined), ``ports`` an explicit
    ``src>dst`` port pair."""

    direction: Direction
    flags: str
    seq_start: int
    seq_end: int
    length: int
    ack: int | None = None
    win: int | None = None
    options: tuple[TcpOption, ...] | None = ()
    urg: int | None = None
    ip: str | None = None
    ports: tuple[int, int] | None = None
    protocol: Literal["tcp"] = "tcp"


@dataclass(frozen=True)
class Unsupported:
    """A packet line rtolab does not play: UDP, ICMP, or one with an outer header
    (``ipv4 ... > ...:``, ``ipv6``, ``gre``, ``mpls``, ``encap psp``). ``kind`` names which;
    ``text`` is the line's tokens from the arrow on, space-separated."""

    direction: Direction
    kind: UnsupportedKind
    text: str


@dataclass(frozen=True)
class Int:
    """An integer; ``hex`` when written ``0x...``."""

    value: int
    hex: bool = False


@dataclass(frozen=True)
class Name:
    """A symbol such as ``SOCK_STREAM`` or ``TCP_INFO``: resolved by the interpreter
    (packetdrill's table is ``symbols_linux.c``)."""

    symbol: str


@dataclass(frozen=True)
class Ellipsis_:
    """``...``: any value (an argument the interpreter fills in, or a result not checked)."""


@dataclass(frozen=True)
class Null:
    """The word ``NULL``."""


@dataclass(frozen=True)
class Str:
    """A string literal (adjacent literals are joined); ``prefix`` when written ``"..."...``
    (the value is a prefix of what is expected)."""

    value: str
    prefix: bool = False


@dataclass(frozen=True)
class List:
    """``[a, b, ...]``: an array, or a pointer to one value (``[1]`` for an int option)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Struct:
    """``{name=value, ...}``. A field written without a name (``{..., 0}`` for an iovec)
    has the name ``""``; a field name with an argument keeps it, without spaces
    (``msg_iov(1)``, ``msg_name(...)``)."""

    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class BinOp:
    """``lhs | rhs`` (bitwise or of flags, left-associative) or ``name = value`` outside
    braces."""

    op: Literal["|", "="]
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Call:
    """A helper written as a call inside an argument: ``htons(8080)``,
    ``inet_addr("192.0.2.1")``, ``inet6_addr("::1")``."""

    name: str
    args: tuple[Expr, ...]


Expr: TypeAlias = Int | Name | Ellipsis_ | Null | Str | List | Struct | BinOp | Call


@dataclass(frozen=True)
class Syscall:
    """``name(args) = result [ERRNO (note)] [(note)]``.

    ``errno`` is the symbolic error (``EAGAIN``) a ``-1`` result must come with; ``note``
    is the parenthesised text after it or after the result (informational). ``end`` is set
    for a blocking call written ``START...END name(...)``: its kind is the start's kind, so
    a relative ``+0...0.1`` has its end counted, like its start, from the previous event."""

    name: str
    args: tuple[Expr, ...]
    result: Expr
    errno: str | None = None
    note: str | None = None
    end: Time | None = None


@dataclass(frozen=True)
class Shell:
    """A back-quoted command line, run with ``/bin/sh -c`` (may span lines; the back quotes
    are removed, backslash escapes are kept as written)."""

    command: str


@dataclass(frozen=True)
class Code:
    """A ``%{ ... }%`` Python block; spaces and tabs at both ends are stripped, as
    packetdrill does (``code`` in ``lexer.l``)."""

    source: str


Action: TypeAlias = Packet | Unsupported | Syscall | Shell | Code


@dataclass(frozen=True)
class Event:
    """One timed line; ``line`` is the line of its time stamp (1-based)."""

    time: Time
    action: Action
    line: int


@dataclass(frozen=True)
class Script:
    """A parsed script.

    ``options`` are the ``--name=value`` lines before the first event (a bare ``--name`` has
    the value ``""``; a repeated name keeps its last value, and ``option_list`` keeps them
    all in order). ``init_command`` is a back-quoted command before the first event without
    a time (the Linux self-tests' ``\\`./defaults.sh\\```), ``cleanup_command`` one after the
    last event."""

    path: str
    options: dict[str, str]
    events: tuple[Event, ...]
    option_list: tuple[tuple[str, str], ...] = ()
    init_command: Shell | None = None
    cleanup_command: Shell | None = None
