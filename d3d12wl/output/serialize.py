"""The one serializer: the trace, the violations and the reports as JSON-ready data (every ``--json`` output).

:func:`to_jsonable` turns dataclasses (``slots`` ones too), named tuples, mappings, sequences, enums, bytes, paths
and numpy values into dicts, lists, strings, numbers, booleans and None.  Two hooks on a dataclass shape its JSON
without a hand-written ``to_dict``:

* a field whose ``metadata`` has ``json=False`` is left out (``field(default=..., metadata=NOT_JSON)``), and one
  with ``json="if-set"`` is left out where it is None (``field(default=None, metadata=IF_SET)``: a member a view
  has only sometimes); ``json_name`` in a field's metadata is the key it is written under (a key that is no Python
  name: ``from``);
* a class attribute ``JSON_PROPERTIES = ("status", ...)`` names properties that are written after the fields.

Enums are written as the value of a ``str`` enum (``"GRAPHICS"``), else by member name; bytes as hex.

:func:`json_text` writes JSON-ready data as ``json.dumps(data, indent=N)`` does, in a fraction of the time for the
large outputs (``layout --json`` of 100,000 arguments): Python's C encoder does not indent.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
from collections.abc import Mapping
from json.encoder import encode_basestring_ascii as _string
from types import MappingProxyType
from typing import Any

__all__ = ["IF_SET", "NOT_JSON", "json_text", "to_jsonable"]

#: field metadata that keeps a dataclass field out of its JSON
NOT_JSON: Mapping[str, Any] = MappingProxyType({"json": False})
#: field metadata that keeps a dataclass field out of its JSON where it is None
IF_SET: Mapping[str, Any] = MappingProxyType({"json": "if-set"})


#: types written as they are (exact types: ``bool`` and ``int`` subclasses such as enums take the general path)
_PLAIN = frozenset({int, float, str, bool, type(None)})
#: per class: None, or a dataclass's (JSON field names, JSON_PROPERTIES, the fields left out where None), found once
#: per class (traces hold millions of objects of a few classes; ``dataclasses.fields`` per object was most of the
#: cost)
_PLANS: dict[type, tuple[tuple[tuple[str, str], ...], tuple[str, ...], frozenset[str]] | None] = {}


def _plan(cls: type) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], frozenset[str]] | None:
    try:
        return _PLANS[cls]
    except KeyError:
        pass
    plan = None
    if dataclasses.is_dataclass(cls):
        fields = dataclasses.fields(cls)
        plan = (tuple((f.name, f.metadata.get("json_name", f.name)) for f in fields if f.metadata.get("json", True)),
                tuple(getattr(cls, "JSON_PROPERTIES", ())),
                frozenset(f.name for f in fields if f.metadata.get("json") == "if-set"))
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
        names, properties, if_set = plan
        if if_set:
            out = {key: to_jsonable(value) for name, key in names
                   if (value := getattr(obj, name)) is not None or name not in if_set}
        else:
            out = {key: to_jsonable(getattr(obj, name)) for name, key in names}
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
    raise TypeError(f"d3d12wl.output.serialize: cannot write a {type(obj).__name__} as JSON")


class _NotPlain(Exception):
    """Data :func:`json_text` leaves to ``json.dumps`` (a subclass, a non-string key, a cycle)."""


_float_repr = float.__repr__
_int_repr = int.__repr__


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return _float_repr(value)


def _text(value: Any, newline: str, step: str) -> str:
    """``value`` as ``json.dumps(..., indent=len(step))`` writes it inside a container whose lines start with
    ``newline``; raises :class:`_NotPlain` for what only ``json.dumps`` writes the same."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return _int_repr(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is float:
        return _float(value)
    inner = newline + step
    parts = []
    if kind is dict:
        if not value:
            return "{}"
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            kind = type(item)
            text = _string(item) if kind is str else _int_repr(item) if kind is int else _text(item, inner, step)
            parts.append(f"{_string(key)}: {text}")
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        for item in value:
            kind = type(item)
            parts.append(_string(item) if kind is str else _int_repr(item) if kind is int
                         else _text(item, inner, step))
        return "[" + inner + ("," + inner).join(parts) + newline + "]"
    raise _NotPlain


def json_text(data: Any, *, indent: int = 2) -> str:
    """``json.dumps(data, indent=indent)``: the same text (keys in order, ASCII, NaN and Infinity as ``json``
    writes them), written by one pass that does not go through the encoder's per-value generators; what it does
    not handle itself (subclasses of the JSON types, non-string keys, a reference cycle) goes to ``json.dumps``."""
    try:
        return _text(data, "\n", " " * indent)
    except (_NotPlain, RecursionError):
        return json.dumps(data, indent=indent)
