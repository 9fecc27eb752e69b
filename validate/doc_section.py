"""The validation scripts' name for ``rtolab.doc_section`` (they run as plain scripts)."""

from rtolab.doc_section import replace_section

__all__ = ["replace_section"]
