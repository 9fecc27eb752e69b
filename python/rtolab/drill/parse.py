"""A recursive-descent parser from packetdrill script text to :class:`~rtolab.drill.script.Script`.

It follows the grammar of ``gtests/net/packetdrill/parser.y`` (google/packetdrill), rule by
rule where it matters (the rule is named in each method's docstring), and makes the same
semantic checks packetdrill makes while parsing (``semantic_error`` there): negative or
backwards times, ``*`` and ranges on anything but an outbound packet, inconsistent
``start:end(length)``, out-of-range fields, invalid flag letters, a missing ``win`` on an
inbound packet, ``<...>`` on an inbound one, bad fast-open cookies. Any error is one
:class:`ScriptError` ``PATH:LINE: expected ..., found ...``.

Differences from packetdrill, all on purpose:

- keywords are recognised by their place, so a symbol may be spelt like one (``ack``);
- ``--define`` symbols are substituted by the parser (:func:`parse`'s ``defines`` and
  the script's own ``--define`` lines) rather than by the scanner;
- UDP and ICMP packets and packets with an outer header become :class:`Unsupported`,
  skipped to the end of their line without checking them;
- a syscall's note may hold any tokens up to its ``)``, not only words;
- the struct literals packetdrill knows by their field names (``sockaddr``, ``msghdr``,
  ``pollfd``, ``linger``, ``cmsg``, ``sock_extended_err``, ``epoll_event``, ...) are one
  general :class:`Struct`; the interpreter gives them their meaning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from rtolab.drill.script import (
    Action,
    BinOp,
    Call,
    Code,
    Direction,
    Ellipsis_,
    Event,
    Expr,
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
    UnsupportedKind,
)
from rtolab.drill.tokens import Token, tokenize

_FLAG_LETTERS = ".FSRPEWAU01234567"  # valid_tcp_flags in tcp_packet.c
_ENCAPSULATIONS = ("ipv4", "ipv6", "gre", "GREv0", "mpls", "encap")
_ECN_COUNTERS = ("e0b", "ceb", "e1b")
_IP_ECN = ("ect0", "ect1", "ce", "noecn", "ect01")
_HEX = re.compile(r"[0-9a-fA-F]*")
_U16, _U32 = 1 << 16, 1 << 32


def parse(text: str, path: str = "<script>", defines: Mapping[str, str] | None = None) -> Script:
    """The script in ``text``; ``path`` names it in errors.

    ``defines`` are packetdrill's ``-D NAME=value`` (``--define``) symbols, given on the
    command line; the script's own ``--define=NAME=value`` lines add to them and win. A word
    that names a symbol is replaced by the symbol's value, read as a token (so ``MSS=1000``
    makes ``<mss MSS>`` read ``<mss 1000>``, ``C="reno"`` a string, ``S=`cmd``` a command),
    as packetdrill's scanner does (``word`` in ``lexer.l``).
    """
    tokens = tokenize(text, path)
    symbols = dict(defines or {})
    for token in tokens:
        if token.kind != "OPTION":
            break
        if token.text == "define" and token.value and "=" in token.value:
            name, value = token.value.split("=", 1)
            symbols[name] = value
    return _Parser(_substitute(tokens, symbols, path), path).script()


def parse_file(path: str | Path, defines: Mapping[str, str] | None = None) -> Script:
    """The script in the file at ``path`` (UTF-8)."""
    return parse(Path(path).read_text(encoding="utf-8"), str(path), defines)


def _substitute(tokens: list[Token], symbols: Mapping[str, str], path: str) -> list[Token]:
    """``tokens`` with each word that names a symbol replaced by its value's token (or by a
    word holding the value when the value is not one token)."""
    if not symbols:
        return tokens
    out = []
    for token in tokens:
        if token.kind == "WORD" and token.text in symbols:
            value = tokenize(symbols[token.text], path)
            single = value[0] if len(value) == 2 else Token("WORD", symbols[token.text], token.line)
            token = Token(single.kind, single.text, token.line, single.value)
        out.append(token)
    return out


def _describe(token: Token) -> str:
    if token.kind == "EOF":
        return "the end of the file"
    if token.kind == "STRING":
        return f'"{token.text}"'
    if token.kind == "BACKQ":
        return "a `command`"
    if token.kind == "CODE":
        return "a %{ code }% block"
    if token.kind == "OPTION":
        return f"'--{token.text}'"
    return f"'{token.text}'"


class _Parser:
    """One pass over the tokens; ``pos`` is the next token. Invariant: ``tokens`` ends with
    ``EOF``, which is never consumed."""

    def __init__(self, tokens: list[Token], path: str) -> None:
        self.tokens = tokens
        self.path = path
        self.pos = 0

    # Token helpers.

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        token = self.peek()
        if token.kind != "EOF":
            self.pos += 1
        return token

    def at(self, text: str, ahead: int = 0) -> bool:
        """The token ``ahead`` is the punctuation or word ``text``."""
        token = self.peek(ahead)
        return token.kind in ("PUNCT", "WORD", "ELLIPSIS") and token.text == text

    def fail(self, expected: str, token: Token | None = None) -> ScriptError:
        token = token or self.peek()
        return ScriptError(self.path, token.line, f"expected {expected}, found {_describe(token)}")

    def semantic(self, line: int, message: str) -> ScriptError:
        return ScriptError(self.path, line, message)

    def expect(self, text: str, expected: str | None = None) -> Token:
        if not self.at(text):
            raise self.fail(expected or f"'{text}'")
        return self.take()

    def integer(self, what: str, limit: int | None = None) -> int:
        """An ``INTEGER`` in [0, limit) (any sign when ``limit`` is None)."""
        token = self.peek()
        if token.kind != "INT":
            hint = " (a symbol not given with --define?)" if token.kind == "WORD" else ""
            raise ScriptError(self.path, token.line, f"expected {what}, found {_describe(token)}{hint}")
        self.take()
        value = int(token.text)
        if limit is not None and not 0 <= value < limit:
            raise self.semantic(token.line, f"{what} out of range: {value} is not in [0, {limit - 1}]")
        return value

    # The script.

    def script(self) -> Script:
        """``script: opt_options opt_init_command events opt_cleanup_command``."""
        option_list: list[tuple[str, str]] = []
        while self.peek().kind == "OPTION":
            token = self.take()
            option_list.append((token.text, token.value if token.value is not None else ""))
        init = self.shell() if self.peek().kind == "BACKQ" else None
        events: list[Event] = []
        while self.starts_time():
            events.append(self.event())
        if not events:
            raise self.fail("an event time (such as 0, +0.1 or *)")
        cleanup = self.shell() if self.peek().kind == "BACKQ" else None
        if self.peek().kind == "OPTION":
            raise self.fail("options (--name=value) only before the first event")
        if self.peek().kind != "EOF":
            raise self.fail("an event time (such as 0, +0.1 or *) or the end of the file")
        return Script(self.path, dict(option_list), tuple(events), tuple(option_list), init, cleanup)

    def shell(self) -> Shell:
        return Shell(self.take().text)

    def starts_time(self) -> bool:
        token = self.peek()
        return token.kind in ("INT", "FLOAT") or self.at("+") or self.at("*")

    # Events and times.

    def event(self) -> Event:
        """``event: event_time action`` with the checks of ``event`` in ``parser.y``."""
        line = self.peek().line
        time = self.event_time()
        action = self.action(time)
        outbound = isinstance(action, (Packet, Unsupported)) and action.direction == "out"
        if time.kind == "any" and not outbound:
            raise self.semantic(line, "event time * can only be used with outbound packets")
        if time.end is not None and not outbound:
            raise self.semantic(line, "event time range can only be used with outbound packets")
        return Event(time, action, line)

    def event_time(self) -> Time:
        """``event_time``: ``time``, ``+time``, ``*``, ``time~time``, ``+time~+time``."""
        if self.at("*"):
            self.take()
            return Time("any", 0.0)
        relative = self.at("+")
        if relative:
            self.take()
        line = self.peek().line
        start = self.time()
        end = None
        if self.at("~"):
            self.take()
            if relative:
                self.expect("+", "'+' before the end of a relative time range")
            end = self.time()
            if end < start:
                raise self.semantic(line, f"time range is backwards: {end:g} is before {start:g}")
        return Time("relative" if relative else "absolute", start, end)

    def time(self) -> float:
        """``time: FLOAT | INTEGER``, in seconds, not negative."""
        token = self.peek()
        if token.kind not in ("INT", "FLOAT"):
            raise self.fail("a time in seconds")
        self.take()
        value = float(token.text)
        if value < 0:
            raise self.semantic(token.line, f"negative time {token.text}")
        return value

    def action(self, time: Time) -> Action:
        """``action: packet_spec | syscall_spec | command_spec | code_spec``."""
        token = self.peek()
        if self.at("<") or self.at(">"):
            return self.packet()
        if token.kind == "BACKQ":
            return self.shell()
        if token.kind == "CODE":
            self.take()
            return Code(token.text)
        if token.kind == "ELLIPSIS" or (token.kind == "WORD" and self.at("(", 1)):
            return self.syscall(time)
        raise self.fail("a packet ('<' or '>'), a system call, a `command` or a %{ code }% block")

    # Packets.

    def packet(self) -> Packet | Unsupported:
        """``tcp_packet_spec`` (``udp_packet_spec``, ``icmp_packet_spec`` and outer headers
        become :class:`Unsupported`)."""
        arrow = self.take()
        direction: Direction = "in" if arrow.text == "<" else "out"
        if self.peek().text in _ENCAPSULATIONS:
            return self.unsupported(direction, "encapsulated", arrow)
        ip = self.ip_info(direction)
        if self.peek().text == "encap":
            return self.unsupported(direction, "encapsulated", arrow)
        ports = None
        if self.peek().kind == "INT" and self.at(">", 1):
            src = self.integer("a source port", _U16)
            self.take()
            ports = (src, self.integer("a destination port", _U16))
        if self.peek().text in ("udp", "icmp"):
            return self.unsupported(direction, "udp" if self.peek().text == "udp" else "icmp", arrow)
        flags = self.flags()
        seq_line = self.peek().line
        start = self.integer("a sequence range start:end(length)", _U32)
        self.expect(":", "':' in start:end(length)")
        end = self.integer("the end of start:end(length)", _U32)
        self.expect("(", "'(' in start:end(length)")
        length = self.integer("the payload length in start:end(length)", _U16)
        self.expect(")", "')' after the payload length")
        if end != start + length:
            raise self.semantic(seq_line, f"inconsistent TCP sequence numbers and payload size: {start}+{length} != {end}")
        ack = self.keyword_value("ack", "an ack sequence number", _U32)
        win = self.keyword_value("win", "a window", _U16)
        urg = self.keyword_value("urg", "an urgent pointer", _U16)
        if win is None and direction == "in":
            raise self.semantic(arrow.line, "window must be specified for inbound packets: expected 'win N'")
        options = self.tcp_options(direction)
        return Packet(direction, flags, start, end, length, ack, win, options, urg, ip, ports)

    def unsupported(self, direction: Direction, kind: UnsupportedKind, arrow: Token) -> Unsupported:
        """The rest of the packet's line, unchecked."""
        words = [arrow.text]
        while self.peek().kind != "EOF" and self.peek().line == arrow.line:
            words.append(self.take().text)
        return Unsupported(direction, kind, " ".join(words))

    def keyword_value(self, keyword: str, what: str, limit: int) -> int | None:
        if not self.at(keyword):
            return None
        self.take()
        return self.integer(what, limit)

    def ip_info(self, direction: Direction) -> str | None:
        """``opt_ip_info``: ``[ect0]``, ``(ce)``, ``[tos 0x10,flowlabel 0x1]``, ``[ttl 64]``."""
        if not (self.at("[") or self.at("(")):
            return None
        close = "]" if self.take().text == "[" else ")"
        items = []
        while True:
            token = self.peek()
            if token.text in _IP_ECN:
                self.take()
                if token.text == "ect01" and direction == "in":
                    raise self.semantic(token.line, "[ect01] can only be used with outbound packets")
                items.append(token.text)
            elif token.text in ("tos", "flowlabel"):
                self.take()
                value = self.peek()
                if value.kind != "HEX":
                    raise self.fail(f"a hex value after '{token.text}'")
                self.take()
                items.append(f"{token.text} {value.text}")
            elif token.text == "ttl":
                self.take()
                items.append(f"ttl {self.integer('a TTL', 256)}")
            else:
                raise self.fail("an IP field (ect0, ect1, ce, noecn, ect01, tos 0x.., flowlabel 0x.., ttl N)")
            if not self.at(","):
                break
            self.take()
        self.expect(close, f"'{close}' after the IP fields")
        return ",".join(items)

    def flags(self) -> str:
        """``flags: WORD opt_ack_flag | opt_word ack_and_ace | '.' | '-'``, checked as
        ``is_tcp_flags_spec_valid`` in ``tcp_packet.c`` does."""
        token = self.peek()
        if self.at(".") or self.at("-"):
            self.take()
            return token.text
        if token.kind == "FLOAT" and token.text.startswith("."):
            self.take()
            text = token.text
        elif token.kind == "WORD":
            self.take()
            text = token.text
            following = self.peek()
            if self.at("."):
                self.take()
                text += "."
            elif following.kind == "FLOAT" and following.text.startswith("."):
                self.take()
                text += following.text
        else:
            raise self.fail("TCP flags (such as S, S., ., P., F., R or -)")
        bad = [c for c in text if c not in _FLAG_LETTERS]
        if bad:
            raise self.semantic(token.line, f"invalid TCP flag '{bad[0]}' in '{text}': expected letters of {_FLAG_LETTERS}")
        digits = [c for c in text if c.isdigit()]
        if len(digits) > 1 or (digits and any(c in "EWA" for c in text)):
            raise self.semantic(token.line, f"conflicting TCP flags in '{text}': one AccECN digit, without E, W or A")
        return text

    def tcp_options(self, direction: Direction) -> tuple[TcpOption, ...] | None:
        """``opt_tcp_options``: nothing, ``<...>`` or ``<option, ...>``."""
        if not self.at("<"):
            return ()
        opening = self.take()
        if self.peek().kind == "ELLIPSIS":
            self.take()
            self.expect(">", "'>' after '<...'")
            if direction == "in":
                raise self.semantic(opening.line, "<...> for TCP options can only be used with outbound packets")
            return None
        options = [self.tcp_option()]
        while self.at(","):
            self.take()
            options.append(self.tcp_option())
        self.expect(">", "',' or '>' after a TCP option")
        size = sum(_option_bytes(o) for o in options)
        if size % 4:
            raise self.semantic(opening.line, f"TCP options are not padded correctly to ensure TCP header is a multiple of 4 bytes: {size % 4} excess bytes")
        return tuple(options)

    def tcp_option(self) -> TcpOption:
        """``tcp_option`` of ``parser.y``."""
        token = self.peek()
        name = token.text if token.kind == "WORD" else ""
        if name in ("nop", "eol", "sackOK"):
            self.take()
            return TcpOption(name)
        if name == "mss":
            self.take()
            return TcpOption(name, (self.integer("an mss value", _U16),))
        if name == "wscale":
            self.take()
            return TcpOption(name, (self.integer("a window scale shift count", 256),))
        if name == "sack":
            self.take()
            blocks: list[int] = []
            while self.peek().kind == "INT" or not blocks:
                blocks.append(self.integer("a SACK block left:right", _U32))
                self.expect(":", "':' in a SACK block left:right")
                blocks.append(self.integer("a SACK block right edge", _U32))
            return TcpOption(name, tuple(blocks))
        if name == "TS":
            self.take()
            self.expect("val", "'val' after 'TS'")
            val = self.integer("a TS val", _U32)
            self.expect("ecr", "'ecr' after the TS val")
            return TcpOption(name, (val, self.integer("a TS ecr", _U32)))
        if name in ("FO", "FOEXP", "md5"):
            self.take()
            return TcpOption(name, (), self.hex_blob(name, token.line))
        if name == "ECN":
            self.take()
            return self.accecn_option(token.line)
        raise self.fail("a TCP option (mss, wscale, sackOK, sack, TS, nop, eol, FO, FOEXP, md5, ECN)")

    def hex_blob(self, name: str, line: int) -> str:
        """``hex_blob: WORD | INTEGER``, optional after ``FO``/``FOEXP``, required after
        ``md5``; an even number of hex digits (``new_tcp_fast_open_option``)."""
        token = self.peek()
        if token.kind in ("WORD", "INT"):
            self.take()
            blob = token.text
        elif name == "md5":
            raise self.fail("an MD5 digest in hex after 'md5'")
        else:
            blob = ""
        if not _HEX.fullmatch(blob) or len(blob) % 2:
            raise self.semantic(line, f"{name} value '{blob}' is not an even number of hex digits")
        return blob

    def accecn_option(self, line: int) -> TcpOption:
        """``accecn_option``: ``ECN e0b N [ceb N [e1b N]]`` or ``ECN e1b N [ceb N [e0b N]]``."""
        names: list[str] = []
        values: list[int] = []
        while self.peek().text in _ECN_COUNTERS:
            names.append(self.take().text)
            values.append(self.integer(f"a value after '{names[-1]}'", 1 << 24))
        allowed = [["e0b"], ["e0b", "ceb"], ["e0b", "ceb", "e1b"], ["e1b"], ["e1b", "ceb"], ["e1b", "ceb", "e0b"]]
        if names not in allowed:
            raise self.semantic(line, "expected 'ECN e0b N [ceb N [e1b N]]' or 'ECN e1b N [ceb N [e0b N]]'")
        return TcpOption("ECN", tuple(values), " ".join(names))

    # System calls and expressions.

    def syscall(self, time: Time) -> Syscall:
        """``syscall_spec: opt_end_time function_name function_arguments '=' expression
        opt_errno opt_note``."""
        end = None
        if self.peek().kind == "ELLIPSIS":
            self.take()
            end = Time("relative" if time.kind == "relative" else "absolute", self.time())
        name = self.peek()
        if name.kind != "WORD":
            raise self.fail("a system call name")
        self.take()
        self.expect("(", f"'(' after '{name.text}'")
        args = self.expressions(")")
        self.expect("=", f"'=' and the result of {name.text}()")
        result = self.expression()
        errno = None
        if self.peek().kind == "WORD":
            errno = self.take().text
            if not self.at("("):
                raise self.fail(f"a note in parentheses after {errno}, such as (Resource temporarily unavailable)")
        note = self.note() if self.at("(") else None
        return Syscall(name.text, args, result, errno, note, end)

    def note(self) -> str:
        """``note: '(' word_list ')'`` (here any tokens up to the ``)``)."""
        self.take()
        words = []
        while not self.at(")"):
            if self.peek().kind == "EOF":
                raise self.fail("')' to close the note")
            words.append(self.take().text)
        self.take()
        if not words:
            raise self.fail("words in the note", self.tokens[self.pos - 1])
        return " ".join(words)

    def expressions(self, close: str) -> tuple[Expr, ...]:
        """``expression_list`` up to and including ``close``, possibly empty."""
        items: list[Expr] = []
        if self.at(close):
            self.take()
            return ()
        while True:
            items.append(self.expression())
            if self.at(close):
                self.take()
                return tuple(items)
            self.expect(",", f"',' or '{close}'")

    def expression(self) -> Expr:
        """``expression``, with ``expression '|' expression`` left-associative."""
        expr = self.primary()
        while self.at("|"):
            self.take()
            expr = BinOp("|", expr, self.primary())
        return expr

    def primary(self) -> Expr:
        token = self.peek()
        if token.kind == "ELLIPSIS":
            self.take()
            return Ellipsis_()
        if token.kind in ("INT", "HEX"):
            self.take()
            return Int(int(token.text, 0) if token.kind == "HEX" else int(token.text), token.kind == "HEX")
        if token.kind == "STRING":
            value = ""
            while self.peek().kind == "STRING":
                value += self.take().text
            if self.peek().kind == "ELLIPSIS":
                self.take()
                return Str(value, prefix=True)
            return Str(value)
        if self.at("["):
            self.take()
            return List(self.expressions("]"))
        if self.at("{"):
            return self.struct()
        if token.kind == "WORD":
            self.take()
            if self.at("("):
                self.take()
                return Call(token.text, self.expressions(")"))
            if self.at("="):
                self.take()
                return BinOp("=", Name(token.text), self.expression())
            return Null() if token.text == "NULL" else Name(token.text)
        raise self.fail("an expression (a number, a symbol, a \"string\", ..., [list] or {struct})")

    def struct(self) -> Struct:
        """``{...}``: packetdrill's ``sub_expr_list`` and its named struct literals."""
        self.take()
        fields: list[tuple[str, Expr]] = []
        if self.at("}"):
            self.take()
            return Struct(())
        while True:
            fields.append(self.field())
            if self.at("}"):
                self.take()
                return Struct(tuple(fields))
            self.expect(",", "',' or '}'")

    def field(self) -> tuple[str, Expr]:
        """``name=value``, ``name(arg)=value`` or a value without a name."""
        token = self.peek()
        if token.kind == "WORD" and self.at("=", 1):
            self.take()
            self.take()
            return token.text, self.expression()
        if token.kind == "WORD" and self.at("(", 1):
            start = self.pos
            self.take()
            self.take()
            args = self.expressions(")")
            if self.at("="):
                key = "".join(t.text for t in self.tokens[start : self.pos])
                self.take()
                return key, self.expression()
            expr: Expr = Call(token.text, args)
            while self.at("|"):
                self.take()
                expr = BinOp("|", expr, self.primary())
            return "", expr
        return "", self.expression()


def _option_bytes(option: TcpOption) -> int:
    """The bytes an option takes on the wire, as ``new_tcp_packet`` (``tcp_packet.c``) sums
    them to require a header of whole 32-bit words: EOL and NOP 1, MSS 4, window scale 3,
    SACK-permitted 2, timestamps 10 (RFC 7323), SACK 2 + 8 per block (RFC 2018), fast open 2
    + the cookie (RFC 7413; 4 + the cookie in the experimental form), MD5 18 (RFC 2385),
    AccECN 2 + 3 per counter."""
    fixed = {"eol": 1, "nop": 1, "mss": 4, "wscale": 3, "sackOK": 2, "TS": 10, "md5": 18}
    if option.kind in fixed:
        return fixed[option.kind]
    if option.kind == "sack":
        return 2 + 4 * len(option.values)
    if option.kind in ("FO", "FOEXP"):
        return (2 if option.kind == "FO" else 4) + len(option.data or "") // 2
    return 2 + 3 * len(option.values)
