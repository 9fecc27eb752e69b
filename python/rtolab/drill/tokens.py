"""The tokens of a packetdrill script, with the line each starts on.

The rules follow packetdrill's scanner (``gtests/net/packetdrill/lexer.l``): at each point
the longest match wins and, between matches of equal length, the earlier rule of
:data:`_RULES`; so ``1:1001(1000)`` is ``1`` ``:`` ``1001`` ``(`` ``1000`` ``)``,
``0...0.1`` is ``0`` ``...`` ``0.1``, ``0x1f`` a hex integer and ``0a1b`` a word. Unlike
packetdrill, keywords (``ack``, ``win``, ``mss``, ...) stay words here and the parser looks
at their text, and an option's value is taken whole (``--local_ip=fd::1``). Whitespace,
``// ...`` and ``/* ... */`` comments are dropped. Invariant: the last token is ``EOF``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rtolab.drill.script import ScriptError

Kind = Literal[
    "INT", "HEX", "FLOAT", "IPV4", "WORD", "STRING", "BACKQ", "CODE", "OPTION", "ELLIPSIS", "PUNCT", "EOF"
]


@dataclass(frozen=True)
class Token:
    """``text`` is the token as written, except: ``STRING`` and ``BACKQ`` without their
    quotes, ``CODE`` without ``%{ }%`` and the spaces and tabs inside them, ``OPTION`` the
    name after ``--``. ``value`` is an ``OPTION``'s value (``None`` when none is given, the
    quotes of a value that is one quoted string removed)."""

    kind: Kind
    text: str
    line: int
    value: str | None = None


_QUOTED = r'"(?:\\.|[^"\\])*"'
_BACKQUOTED = r"`(?:\\.|[^`\\])*`"
_RULES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("ELLIPSIS", re.compile(r"\.\.\.")),
    ("OPTION", re.compile(rf"--(\w+)(?:=((?:{_QUOTED}|{_BACKQUOTED}|[^\s\"`])+))?")),
    ("FLOAT", re.compile(r"-?[0-9]*\.[0-9]+")),
    ("INT", re.compile(r"-?[0-9]+")),
    ("HEX", re.compile(r"0x[0-9a-fA-F]+")),
    ("WORD", re.compile(r"[A-Za-z0-9_]+")),
    ("STRING", re.compile(_QUOTED, re.S)),
    ("BACKQ", re.compile(_BACKQUOTED, re.S)),
    ("IPV4", re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")),
)
_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CODE = re.compile(r"%\{(.*?)\}%", re.S)
_OPENERS = {"/*": "comment '/* ... */'", "%{": "code block '%{ ... }%'", '"': "string", "`": "command '`...`'"}


def tokenize(text: str, path: str) -> list[Token]:
    """The tokens of ``text``; an unterminated comment, code block, string or command is a
    :class:`ScriptError` at the line it starts on."""
    tokens: list[Token] = []
    pos, line = 0, 1
    while pos < len(text):
        skip = _SPACE.match(text, pos) or _LINE_COMMENT.match(text, pos) or _BLOCK_COMMENT.match(text, pos)
        if skip:
            line += skip.group().count("\n")
            pos = skip.end()
            continue
        token, end = _next(text, pos, line, path)
        tokens.append(token)
        line += text.count("\n", pos, end)
        pos = end
    tokens.append(Token("EOF", "", line))
    return tokens


def _next(text: str, pos: int, line: int, path: str) -> tuple[Token, int]:
    """The token at ``pos`` and where it ends."""
    code = _CODE.match(text, pos)
    if code:
        return Token("CODE", code.group(1).strip(" \t"), line), code.end()
    best: tuple[Kind, re.Match[str]] | None = None
    for kind, rule in _RULES:
        m = rule.match(text, pos)
        if m and (best is None or m.end() > best[1].end()):
            best = (kind, m)
    if best is None:
        _unterminated(text, pos, line, path)
        return Token("PUNCT", text[pos], line), pos + 1
    return _token(best[0], best[1], line), best[1].end()


def _token(kind: Kind, m: re.Match[str], line: int) -> Token:
    if kind in ("STRING", "BACKQ"):
        return Token(kind, m.group()[1:-1], line)
    if kind == "OPTION":
        value = m.group(2)
        if value is not None and re.fullmatch(_QUOTED, value, re.S):
            value = value[1:-1]
        return Token(kind, m.group(1), line, value)
    return Token(kind, m.group(), line)


def _unterminated(text: str, pos: int, line: int, path: str) -> None:
    for opener, what in _OPENERS.items():
        if text.startswith(opener, pos):
            raise ScriptError(path, line, f"unterminated {what}: expected its end, found the end of the file")
