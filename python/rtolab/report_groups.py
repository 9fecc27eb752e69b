"""How ``rtolab report`` gathers flows into the groups it compares (kept free of heavy
imports: the command line builds its ``--by`` choices from it)."""

from __future__ import annotations

from typing import Literal

#: generator: a generator's flows together, a standalone flow alone; flow: by flow name;
#: kind: flow, burst, web; all: every flow of a grid point together.
GroupBy = Literal["generator", "flow", "kind", "all"]
GROUPINGS: tuple[GroupBy, ...] = ("generator", "flow", "kind", "all")
