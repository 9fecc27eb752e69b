"""The README speaks of the repository only: every path it names is in the repository, the
design document included, and it links nothing outside."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_links_nothing_outside_the_repository() -> None:
    assert "../" not in README
    assert not re.search(r"https?://", README)


def test_every_path_the_readme_names_exists() -> None:
    named = re.findall(r"`((?:docs|validate|studies|python|crates|tests)/[^`\s*]*)`", README)
    assert "docs/design.md" in named
    assert [p for p in named if not (ROOT / p).exists()] == []
