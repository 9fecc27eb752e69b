"""Type stubs of the compiled core (checked against it by ``mypy.stubtest`` in ``make test``)."""

from typing import Any

__all__ = ["SpecError", "SimulationError", "__version__", "validate", "schema", "run", "bench_names", "run_bench", "_panic_for_test"]

__version__: str

class SpecError(ValueError):
    """A scenario that cannot run; ``path`` names the field and ``message`` says why."""

    path: str
    message: str

class SimulationError(RuntimeError):
    """A run that failed: budget exceeded, invariant violated or internal error."""

def validate(text: str, format: str) -> None: ...
def schema() -> str: ...
def run(text: str, format: str, seed: int | None = None) -> dict[str, Any]: ...
def bench_names() -> list[str]: ...
def run_bench(name: str) -> tuple[dict[str, Any], float]: ...
def _panic_for_test() -> None: ...
