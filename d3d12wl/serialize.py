"""The one serializer: the trace, the violations and the reports as JSON-ready data (every ``--json`` output).

:func:`to_jsonable` turns dataclasses (``slots`` ones too), named tuples, mappings, sequences, enums, bytes, paths
and numpy values into dicts, lists, strings, numbers, booleans and None.  Two hooks on a dataclass shape its JSON
without a hand-written ``to_dict``:

* a field whose ``metadata`` has ``json=False`` is left out (``field(default=..., metadata=NOT_JSON)``);
* a class attribute ``JSON_PROPERTIES = ("status", ...)`` names properties that are written after the fields.

Enums are written as the value of a ``str`` enum (``"GRAPHICS"``), else by member name; bytes as hex.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["NOT_JSON", "to_jsonable"]

#: field metadata that keeps a dataclass field out of its JSON
NOT_JSON: Mapping[str, Any] = MappingProxyType({"json": False})


#: types written as they are (exact types: ``bool`` and ``int`` subclasses such as enums take the general path)
_PLAIN = frozenset({int, float, str, bool, type(None)})
#: per class: None, or a dataclass's (JSON field names, JSON_PROPERTIES), found once per class (traces hold
#: millions of objects of a few classes; ``dataclasses.fields`` per object was most of the cost)
_PLANS: dict[type, tuple[tuple[str, ...], tuple[str, ...]] | None] = {}


def _plan(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    try:
        return _PLANS[cls]
    except KeyError:
        pass
    plan = None
    if dataclasses.is_dataclass(cls):
        plan = (tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("json", True)),
                tuple(getattr(cls, "JSON_PROPERTIES", ())))
    _PLANS[cls] = plan
    return plan


def to_jsonable(obj: Any) -> Any:
    """``obj`` as JSON-ready data (see the module docstring); raises TypeError naming what it cannot write."""
    cls = type(obj)
    if cls in _PLAIN:
        return obj
    if cls is list or cls is tuple:
        return [to_jsonable(v) for v in obj]
    if cls is dict:
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    plan = _plan(cls)
    if plan is not None:
        names, properties = plan
        out = {name: to_jsonable(getattr(obj, name)) for name in names}
        for name in properties:
            out[name] = to_jsonable(getattr(obj, name))
        return out
    if isinstance(obj, (bool, int, float, str)) and not isinstance(obj, enum.Enum):
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value if isinstance(obj.value, str) else obj.name
    if isinstance(obj, tuple) and hasattr(obj, "_asdict"):  # a NamedTuple
        return {k: to_jsonable(v) for k, v in obj._asdict().items()}
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj).hex()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if callable(getattr(obj, "tolist", None)):  # numpy scalars and arrays
        return to_jsonable(obj.tolist())
    raise TypeError(f"d3d12wl.serialize: cannot write a {type(obj).__name__} as JSON")
