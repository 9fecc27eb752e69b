"""rtolab: a laboratory for TCP over wireless and cellular links.

>>> import rtolab
>>> result = rtolab.run("studies/quickstart.toml", seed=7)   # doctest: +SKIP
>>> result.flows.select("name", "goodput_bps", "timeouts", "spurious_timeouts")  # doctest: +SKIP

Importing the package loads only the core and the sweep entry points; polars, scipy,
matplotlib and dask load with the first name that needs them.
"""

from typing import TYPE_CHECKING

from rtolab._core import SimulationError, SpecError
from rtolab._lazy import lazy_attributes
from rtolab.sweep import RunsFailed, SweepFailed, errors, load, sweep

if TYPE_CHECKING:
    from rtolab import model, stats
    from rtolab.api import run
    from rtolab.executors import DaskExecutor, LocalExecutor
    from rtolab.result import Result
    from rtolab.spec import builtin, schema, validate
    from rtolab.study import Study

__getattr__, __dir__ = lazy_attributes(
    __name__,
    {
        "DaskExecutor": "rtolab.executors",
        "LocalExecutor": "rtolab.executors",
        "Result": "rtolab.result",
        "Study": "rtolab.study",
        "builtin": "rtolab.spec",
        "model": "rtolab.model",
        "run": "rtolab.api",
        "schema": "rtolab.spec",
        "stats": "rtolab.stats",
        "validate": "rtolab.spec",
    },
)

__all__ = [
    "DaskExecutor",
    "LocalExecutor",
    "Result",
    "RunsFailed",
    "SimulationError",
    "SpecError",
    "Study",
    "SweepFailed",
    "builtin",
    "errors",
    "load",
    "model",
    "run",
    "schema",
    "stats",
    "sweep",
    "validate",
]
