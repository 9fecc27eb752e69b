"""rtolab: a laboratory for TCP over wireless and cellular links.

>>> import rtolab
>>> result = rtolab.run("studies/quickstart.toml", seed=7)   # doctest: +SKIP
>>> result.flows.select("name", "goodput_bps", "timeouts", "spurious_timeouts")  # doctest: +SKIP
"""

from rtolab._core import SimulationError, SpecError
from rtolab.api import run
from rtolab.result import Result
from rtolab.spec import builtin, schema, validate

__all__ = ["Result", "SimulationError", "SpecError", "builtin", "run", "schema", "validate"]
