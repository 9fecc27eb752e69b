"""Package attributes that import their module on first use (PEP 562).

Importing a package that uses them costs only its own module: each name in ``origins`` is
imported from its module the first time it is read, then cached on the package, so later
reads are plain attribute lookups. ``dir()`` lists the lazy names beside the loaded ones.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, origins: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(``__getattr__``, ``__dir__``) for ``package``: ``origins`` maps each public name to
    the module (absolute or relative to ``package``) that defines it; a name whose origin is
    the package's submodule of that name (``"model": "rtolab.model"``) is that submodule."""

    def __getattr__(name: str) -> Any:
        origin = origins.get(name)
        if origin is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(origin, package)
        value = module if module.__name__ == f"{package}.{name}" else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(origins))

    return __getattr__, __dir__
