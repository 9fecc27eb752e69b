"""Replaces one generated section of a Markdown file, the text between its begin and end
markers (the markers included), or appends the section when the file has none yet."""

from __future__ import annotations

from pathlib import Path


def replace_section(path: Path, begin: str, end: str, section: str) -> None:
    """`section` must start with `begin` and end with `end` and a newline."""
    text = path.read_text() if path.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end) + 1 :]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
