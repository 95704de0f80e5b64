"""Frozen dataclass instances made in one step, for the per-field paths of records of 100,000 arguments.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (to get past its own
``__setattr__``): three times as slow as filling the instance's attributes at once, which is what :func:`frozen`
does.  The object is the same (the same attributes, so equal, hashing and printing alike); it is for classes whose
``__init__`` does nothing else (no ``__post_init__``, no ``InitVar``), which :func:`field_names` checks.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_new = object.__new__


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of frozen dataclass ``cls`` in declaration order (what :func:`frozen` takes values for)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: frozen() makes plain frozen dataclasses without __post_init__ or slots")
    return tuple(f.name for f in dataclasses.fields(cls))


def frozen(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for a frozen dataclass ``cls`` (see the module docstring); ``values`` names every field, in
    :func:`field_names` order (the callers write it as a dict display; the tests hold each caller to ``cls(...)``)."""
    obj: T = _new(cls)
    obj.__dict__.update(values)
    return obj
