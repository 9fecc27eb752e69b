"""rtolab: a laboratory for TCP over wireless and cellular links.

>>> import rtolab
>>> result = rtolab.run("studies/quickstart.toml", seed=7)   # doctest: +SKIP
>>> result.flows.select("name", "goodput_bps", "timeouts", "spurious_timeouts")  # doctest: +SKIP
"""

from rtolab._core import SimulationError, SpecError
from rtolab.api import run
from rtolab.executors import DaskExecutor, LocalExecutor
from rtolab.result import Result
from rtolab.spec import builtin, schema, validate
from rtolab.study import Study
from rtolab.sweep import errors, load, sweep

__all__ = [
    "DaskExecutor",
    "LocalExecutor",
    "Result",
    "SimulationError",
    "SpecError",
    "Study",
    "builtin",
    "errors",
    "load",
    "run",
    "schema",
    "sweep",
    "validate",
]
