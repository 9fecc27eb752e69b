"""Type stubs of the compiled core (checked against it by ``mypy.stubtest`` in ``make test``)."""

from typing import Any, Callable

__all__ = ["SpecError", "SimulationError", "__version__", "validate", "spec_notes", "schema", "run", "bench_names", "run_bench", "parse_quantity", "parse_duration_rv", "_panic_for_test", "EmulatorUnavailable", "emulate", "result_schemas", "series_metrics"]

__version__: str

class SpecError(ValueError):
    """A scenario that cannot run; ``path`` names the field and ``message`` says why."""

    path: str
    message: str

class SimulationError(RuntimeError):
    """A run that failed: budget exceeded, invariant violated or internal error."""

class EmulatorUnavailable(RuntimeError):
    """This machine cannot emulate (no root, no /dev/net/tun or no iproute2)."""

def validate(text: str, format: str) -> None: ...
def schema() -> str: ...
def spec_notes(text: str, format: str) -> list[str]: ...
def run(text: str, format: str, seed: int | None = None, progress: Callable[[float, int, float | None], object] | None = None) -> dict[str, Any]:
    """Table name → Arrow record batch (``__arrow_c_array__``), ``meta`` → dict, ``pcaps`` → dict."""

def result_schemas() -> list[tuple[str, Any, list[tuple[str, str, bool, str, str]]]]:
    """Per table: name, an empty record batch, and (column, Arrow type, nullable, unit, description)."""

def series_metrics() -> list[tuple[str, str, str]]: ...
def bench_names() -> list[str]: ...
def run_bench(name: str) -> tuple[dict[str, Any], float]: ...
def parse_quantity(kind: str, text: str) -> float: ...
def parse_duration_rv(text: str) -> tuple[str, list[tuple[str, float]]]: ...
def _panic_for_test() -> None: ...
def emulate(text: str, format: str, seed: int | None = None, wall_limit_s: float = 300.0) -> tuple[dict[str, Any], str]: ...
