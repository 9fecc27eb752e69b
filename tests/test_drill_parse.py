"""The packetdrill front end: every construct of the language parses to the tree written out
here by hand from the script, and a bad script fails with ``PATH:LINE: expected ...``."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtolab.drill import parse, parse_file
from rtolab.drill.script import (
    Action,
    BinOp,
    Call,
    Code,
    Ellipsis_,
    Event,
    Int,
    List,
    Name,
    Null,
    Packet,
    Script,
    ScriptError,
    Shell,
    Str,
    Struct,
    Syscall,
    TcpOption,
    Time,
    Unsupported,
)


def events(text: str) -> tuple[Event, ...]:
    return parse(text, "t.pkt").events


def action(line: str) -> Action:
    """The action of the one-event script ``0 <line>``."""
    return events(f"0 {line}")[0].action


def packet(line: str) -> Packet:
    got = action(line)
    assert isinstance(got, Packet)
    return got


# Times.


def test_times_of_every_kind() -> None:
    script = """0 `a`
+0.1 `b`
1.5 `c`
* > . 1:1(0) ack 1
0.1~0.2 > . 1:1(0) ack 1
+0.1~+0.25 > . 1:1(0) ack 1
+.5 `d`
2 `e`
"""
    assert [e.time for e in events(script)] == [
        Time("absolute", 0.0),
        Time("relative", 0.1),
        Time("absolute", 1.5),
        Time("any", 0.0),
        Time("absolute", 0.1, 0.2),
        Time("relative", 0.1, 0.25),
        Time("relative", 0.5),
        Time("absolute", 2.0),
    ]
    assert [e.line for e in events(script)] == [1, 2, 3, 4, 5, 6, 7, 8]


def test_a_blocking_call_has_an_end_of_its_start_kind() -> None:
    script = """0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0...0.3 write(3, ..., 100) = 100
0.5...0.75 read(3, ..., 10) = 10
"""
    e = events(script)
    assert e[1] == Event(
        Time("relative", 0.0),
        Syscall("write", (Int(3), Ellipsis_(), Int(100)), Int(100), end=Time("relative", 0.3)),
        2,
    )
    assert e[2].action == Syscall("read", (Int(3), Ellipsis_(), Int(10)), Int(10), end=Time("absolute", 0.75))


# Packets.


@pytest.mark.parametrize(
    ("flags", "written"),
    [
        ("S", "S"),
        ("S.", "S."),
        (".", "."),
        ("P.", "P."),
        ("F.", "F."),
        ("R", "R"),
        ("R.", "R."),
        ("SEW", "SEW"),
        ("SE.", "SE."),
        ("FPU.", "FPU."),
        ("SA.", "SA."),
        ("-", "-"),
        (".5", ".5"),
        ("S.2", "S.2"),
    ],
)
def test_every_flag_combination_is_kept_as_written(flags: str, written: str) -> None:
    assert action(f"> {flags} 0:0(0)") == Packet("out", written, 0, 0, 0)


def test_sequence_range_ack_win_urg() -> None:
    assert action("< P. 1:1001(1000) ack 1 win 65535 urg 10") == Packet(
        "in", "P.", 1, 1001, 1000, ack=1, win=65535, options=(), urg=10
    )
    assert action("> . 4294967295:4294967295(0) ack 4294967295") == Packet(
        "out", ".", 4294967295, 4294967295, 0, ack=4294967295
    )


def test_each_option_kind() -> None:
    line = (
        "> S. 0:0(0) ack 1 <mss 1460,sackOK,TS val 100 ecr 0,nop,wscale 7,eol,"
        "sack 1:1001 2001:3001,FO,FO 0011aabb,FOEXP 1234,md5 000102030405060708090a0b0c0d0e0f,"
        "ECN e1b 1 ceb 2 e0b 3,nop,nop>"
    )
    assert action(line) == Packet(
        "out",
        "S.",
        0,
        0,
        0,
        ack=1,
        options=(
            TcpOption("mss", (1460,)),
            TcpOption("sackOK"),
            TcpOption("TS", (100, 0)),
            TcpOption("nop"),
            TcpOption("wscale", (7,)),
            TcpOption("eol"),
            TcpOption("sack", (1, 1001, 2001, 3001)),
            TcpOption("FO", (), ""),
            TcpOption("FO", (), "0011aabb"),
            TcpOption("FOEXP", (), "1234"),
            TcpOption("md5", (), "000102030405060708090a0b0c0d0e0f"),
            TcpOption("ECN", (1, 2, 3), "e1b ceb e0b"),
            TcpOption("nop"),
            TcpOption("nop"),
        ),
    )


def test_any_options_none_written_and_ip_fields() -> None:
    assert packet("> . 1:1(0) ack 1 <...>").options is None
    assert packet("> . 1:1(0) ack 1").options == ()
    assert action("< [ect0] . 1:1(0) ack 1 win 10") == Packet("in", ".", 1, 1, 0, 1, 10, (), ip="ect0")
    assert action("> (tos 0x10,flowlabel 0x12) S 0:0(0)") == Packet(
        "out", "S", 0, 0, 0, ip="tos 0x10,flowlabel 0x12"
    )
    assert action("< 8080>9090 S 0:0(0) win 100") == Packet("in", "S", 0, 0, 0, win=100, ports=(8080, 9090))


def test_udp_icmp_and_outer_headers_are_marked_unsupported() -> None:
    script = """0 < udp (1472)
+0 > icmp unreachable frag_needed mtu 1500 [1:1461(1460)]
+0 < ipv4 192.0.2.1 > 192.168.0.1: gre: . 1:1(0) ack 1 win 10
+0 `x`
"""
    assert [e.action for e in events(script)] == [
        Unsupported("in", "udp", "< udp ( 1472 )"),
        Unsupported("out", "icmp", "> icmp unreachable frag_needed mtu 1500 [ 1 : 1461 ( 1460 ) ]"),
        Unsupported("in", "encapsulated", "< ipv4 192.0.2.1 > 192.168.0.1 : gre : . 1 : 1 ( 0 ) ack 1 win 10"),
        Shell("x"),
    ]


# System calls and expressions.


def test_syscalls_with_ellipsis_lists_and_names() -> None:
    script = """0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
+0 accept(3, ..., ...) = 4
+0 write(4, ..., 10000) = 10000
+0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK|0x800) = 0
+0 close(4) = 0
+0 getpid() = ...
"""
    assert [e.action for e in events(script)] == [
        Syscall("socket", (Ellipsis_(), Name("SOCK_STREAM"), Name("IPPROTO_TCP")), Int(3)),
        Syscall("setsockopt", (Int(3), Name("SOL_SOCKET"), Name("SO_REUSEADDR"), List((Int(1),)), Int(4)), Int(0)),
        Syscall("accept", (Int(3), Ellipsis_(), Ellipsis_()), Int(4)),
        Syscall("write", (Int(4), Ellipsis_(), Int(10000)), Int(10000)),
        Syscall(
            "fcntl",
            (Int(4), Name("F_SETFL"), BinOp("|", BinOp("|", Name("O_RDWR"), Name("O_NONBLOCK")), Int(0x800, hex=True))),
            Int(0),
        ),
        Syscall("close", (Int(4),), Int(0)),
        Syscall("getpid", (), Ellipsis_()),
    ]


def test_errno_and_notes() -> None:
    script = """0 getsockopt(3, SOL_SOCKET, SO_ERROR, [0], [4]) = -1 EAGAIN (Resource temporarily unavailable)
+0 fcntl(3, F_GETFL) = 0x2 (flags O_RDWR)
"""
    assert [e.action for e in events(script)] == [
        Syscall(
            "getsockopt",
            (Int(3), Name("SOL_SOCKET"), Name("SO_ERROR"), List((Int(0),)), List((Int(4),))),
            Int(-1),
            errno="EAGAIN",
            note="Resource temporarily unavailable",
        ),
        Syscall("fcntl", (Int(3), Name("F_GETFL")), Int(2, hex=True), note="flags O_RDWR"),
    ]


def test_structs_strings_calls_and_null() -> None:
    script = """0 getsockopt(3, SOL_TCP, TCP_INFO, {tcpi_state=TCP_ESTABLISHED, tcpi_rto=200000}, [256]) = 0
+0 recvmsg(4, {msg_name(...)=...,
               msg_iov(1)=[{..., 1000}],
               msg_flags=0,
               msg_control=[{cmsg_level=SOL_TCP, cmsg_type=TCP_CM_INQ, cmsg_data=9000}]}, 0) = 1000
+0 connect(3, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("192.0.2.1")}, 16) = 0
+0 setsockopt(3, SOL_TCP, TCP_CONGESTION, "re" "no", 4) = 0
+0 getsockopt(3, SOL_TCP, TCP_CONGESTION, "cub"..., [16]) = 0
+0 poll([{fd=3, events=POLLIN, revents=POLLIN}], 1, 0) = 1
+0 sendmsg(3, NULL, 0) = -1 EFAULT (Bad address)
+0 f(x=1) = 0
"""
    got = [e.action for e in events(script)]
    assert got == [
        Syscall(
            "getsockopt",
            (
                Int(3),
                Name("SOL_TCP"),
                Name("TCP_INFO"),
                Struct((("tcpi_state", Name("TCP_ESTABLISHED")), ("tcpi_rto", Int(200000)))),
                List((Int(256),)),
            ),
            Int(0),
        ),
        Syscall(
            "recvmsg",
            (
                Int(4),
                Struct(
                    (
                        ("msg_name(...)", Ellipsis_()),
                        ("msg_iov(1)", List((Struct((("", Ellipsis_()), ("", Int(1000)))),))),
                        ("msg_flags", Int(0)),
                        (
                            "msg_control",
                            List(
                                (
                                    Struct(
                                        (
                                            ("cmsg_level", Name("SOL_TCP")),
                                            ("cmsg_type", Name("TCP_CM_INQ")),
                                            ("cmsg_data", Int(9000)),
                                        )
                                    ),
                                )
                            ),
                        ),
                    )
                ),
                Int(0),
            ),
            Int(1000),
        ),
        Syscall(
            "connect",
            (
                Int(3),
                Struct(
                    (
                        ("sa_family", Name("AF_INET")),
                        ("sin_port", Call("htons", (Int(8080),))),
                        ("sin_addr", Call("inet_addr", (Str("192.0.2.1"),))),
                    )
                ),
                Int(16),
            ),
            Int(0),
        ),
        Syscall("setsockopt", (Int(3), Name("SOL_TCP"), Name("TCP_CONGESTION"), Str("reno"), Int(4)), Int(0)),
        Syscall(
            "getsockopt",
            (Int(3), Name("SOL_TCP"), Name("TCP_CONGESTION"), Str("cub", prefix=True), List((Int(16),))),
            Int(0),
        ),
        Syscall(
            "poll",
            (
                List((Struct((("fd", Int(3)), ("events", Name("POLLIN")), ("revents", Name("POLLIN")))),)),
                Int(1),
                Int(0),
            ),
            Int(1),
        ),
        Syscall("sendmsg", (Int(3), Null(), Int(0)), Int(-1), errno="EFAULT", note="Bad address"),
        Syscall("f", (BinOp("=", Name("x"), Int(1)),), Int(0)),
    ]


# Shell, code, comments, options, the whole script.


def test_shell_blocks_code_blocks_and_comments() -> None:
    script = """// a comment line
0 `sysctl -q net.ipv4.tcp_sack=1`  // a trailing comment
/* a block
   comment */ +0 `echo one
echo two`
+0 %{ assert tcpi_rto == 200000 }%
+0 %{
x = 1
}%
"""
    assert events(script) == (
        Event(Time("absolute", 0.0), Shell("sysctl -q net.ipv4.tcp_sack=1"), 2),
        Event(Time("relative", 0.0), Shell("echo one\necho two"), 4),
        Event(Time("relative", 0.0), Code("assert tcpi_rto == 200000"), 6),
        Event(Time("relative", 0.0), Code("\nx = 1\n"), 7),
    )


def test_options_init_and_cleanup_commands() -> None:
    script = """--tolerance_usecs=10000
--mss=1000
--local_ip=fd::1
--strict_segments  // a flag without a value
--define=CC="reno"
`./defaults.sh
./more.sh`
0 `a`
`cleanup.sh`
"""
    assert parse(script, "t.pkt") == Script(
        "t.pkt",
        {"tolerance_usecs": "10000", "mss": "1000", "local_ip": "fd::1", "strict_segments": "", "define": 'CC="reno"'},
        (Event(Time("absolute", 0.0), Shell("a"), 8),),
        (
            ("tolerance_usecs", "10000"),
            ("mss", "1000"),
            ("local_ip", "fd::1"),
            ("strict_segments", ""),
            ("define", 'CC="reno"'),
        ),
        Shell("./defaults.sh\n./more.sh"),
        Shell("cleanup.sh"),
    )


def test_defines_are_substituted_like_packetdrill_symbols() -> None:
    script = """--define=COOKIE=0011aabb
0 > S 0:0(0) <mss MSS,FO COOKIE,nop,nop>
+0 setsockopt(3, SOL_TCP, TCP_CONGESTION, CC, 4) = 0
"""
    got = parse(script, "t.pkt", defines={"MSS": "1000", "CC": '"reno"'}).events
    assert got[0].action == Packet("out", "S", 0, 0, 0, options=(TcpOption("mss", (1000,)), TcpOption("FO", (), "0011aabb"), TcpOption("nop"), TcpOption("nop")))
    assert got[1].action == Syscall("setsockopt", (Int(3), Name("SOL_TCP"), Name("TCP_CONGESTION"), Str("reno"), Int(4)), Int(0))


def test_a_handshake_script_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "handshake.pkt"
    path.write_text(
        """0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 29200 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>
+.1 < . 1:1(0) ack 1 win 229
"""
    )
    script = parse_file(path)
    assert script.path == str(path)
    assert [e.action for e in script.events[3:]] == [
        Packet(
            "in",
            "S",
            0,
            0,
            0,
            win=29200,
            options=(
                TcpOption("mss", (1000,)),
                TcpOption("sackOK"),
                TcpOption("nop"),
                TcpOption("nop"),
                TcpOption("nop"),
                TcpOption("wscale", (7,)),
            ),
        ),
        Packet(
            "out",
            "S.",
            0,
            0,
            0,
            ack=1,
            options=(
                TcpOption("mss", (1460,)),
                TcpOption("nop"),
                TcpOption("nop"),
                TcpOption("sackOK"),
                TcpOption("nop"),
                TcpOption("wscale", (8,)),
            ),
        ),
        Packet("in", ".", 1, 1, 0, ack=1, win=229),
    ]


# Bad scripts.


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("0 `a`\n+0 < S 0:0(0) <mss 1000>\n", 2, "window must be specified for inbound packets"),
        ("0 `a`\n\n+0 > S 0:10(0)\n", 3, "inconsistent TCP sequence numbers and payload size"),
        ("0 `a`\n+0 > S 0:0(0) <mss 1000,wscal 7>\n", 2, "expected a TCP option (mss, wscale"),
        ("0 `a`\n+0 > S 0:0(0) <mss 1000 wscale 7>\n", 2, "expected ',' or '>' after a TCP option, found 'wscale'"),
        ("0 `a`\n+0 write(3, ..., 10 = 10\n", 2, "expected ',' or ')', found '='"),
        ("0 `a`\n+0 close(3) 0\n", 2, "expected '=' and the result of close(), found '0'"),
        ("0 `a`\n* close(3) = 0\n", 2, "event time * can only be used with outbound packets"),
        ("0 `a`\n0.2~0.1 > . 1:1(0)\n", 2, "time range is backwards"),
        ("0 `a`\n+0.1~0.2 > . 1:1(0)\n", 2, "expected '+' before the end of a relative time range, found '0.2'"),
        ("0 `a`\n+0 < . 1:1(0) ack 1 win 10 <...>\n", 2, "<...> for TCP options can only be used with outbound packets"),
        ("0 `a`\n+0 > SX 0:0(0)\n", 2, "invalid TCP flag 'X' in 'SX'"),
        ("0 `a`\n+0 > S 0:0(0) <mss 70000>\n", 2, "an mss value out of range: 70000"),
        ("0 `a`\n+0 connect(3, ..., ...) = -1 EINPROGRESS\n+0 `b`\n", 3, "expected a note in parentheses after EINPROGRESS"),
        ("0 `a`\n+0 > S 0:0(0) <FO abc>\n", 2, "FO value 'abc' is not an even number of hex digits"),
        ("0 `a`\n+0 > S 0:0(0) <mss MSS>\n", 2, "expected an mss value, found 'MSS' (a symbol not given with --define?)"),
        ("// nothing\n", 2, "expected an event time (such as 0, +0.1 or *), found the end of the file"),
        ("0 `a`\n+0 hello\n", 2, "expected a packet ('<' or '>'), a system call, a `command` or a %{ code }% block"),
        ("0 `a`\n--mss=1000\n", 2, "expected options (--name=value) only before the first event, found '--mss'"),
        ("0 `a`\n+0 `unterminated\n", 2, "unterminated command '`...`'"),
        ("0 `a`\n/* open\n", 2, "unterminated comment"),
        ("0 `a`\n-1 `b`\n", 2, "negative time -1"),
    ],
)
def test_a_bad_script_names_its_line_and_what_was_expected(text: str, line: int, message: str) -> None:
    with pytest.raises(ScriptError) as caught:
        parse(text, "bad.pkt")
    error = caught.value
    assert (error.path, error.line) == ("bad.pkt", line)
    assert message in error.message
    assert str(error).startswith(f"bad.pkt:{line}: ")
    assert isinstance(error, ValueError)


def test_options_must_fill_whole_words() -> None:
    # mss (4) + sackOK (2) = 6 bytes: two past a 32-bit word (tcp_packet.c: new_tcp_packet)
    with pytest.raises(ScriptError) as e:
        parse("0 < S 0:0(0) win 100 <mss 1000,sackOK>\n", "t.pkt")
    assert str(e.value) == "t.pkt:1: TCP options are not padded correctly to ensure TCP header is a multiple of 4 bytes: 2 excess bytes"
