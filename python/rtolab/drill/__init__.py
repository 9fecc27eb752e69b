"""packetdrill scripts for ``rtolab drill``: the script language's front end.

:func:`parse` turns script text into the typed tree of :mod:`rtolab.drill.script`;
``docs/drill.md`` says what the language means when a script is played.
"""

from rtolab.drill.parse import parse, parse_file
from rtolab.drill.script import Script, ScriptError

__all__ = ["Script", "ScriptError", "parse", "parse_file"]
