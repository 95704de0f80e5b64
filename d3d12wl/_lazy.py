"""A package's exports imported when first used (PEP 562): ``__getattr__`` and ``__dir__`` for a package whose
``__init__`` holds a table ``name -> "module:attribute"`` and, for the type checker, the same names as imports under
``TYPE_CHECKING`` (tests/test_layering.py holds the two equal).  A command then pays only for what it uses: ``import
d3d12wl`` imports no stage, and asking ``d3d12wl.importers.recognize`` what a file is imports no importer."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["exports"]


def exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` of the package named ``package`` for the exports ``table``; a name resolved
    once is kept in the package's namespace (the next use is an ordinary attribute)."""

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = target.split(":")
        value = getattr(importlib.import_module(module), attr)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return __getattr__, __dir__
