"""The registry behind ``tests/test_call_requirements.py`` (issue 14): one :class:`Breaker` per call-time
requirement of the audit table in ``docs/executor.md``.

A breaker builds, from a random draw, a call that keeps every requirement (``broken=False``) or a call that breaks
exactly its own (``broken=True``); everything else about the two calls is the same.  The test requires the broken
call to report the breaker's finding kind and the kept one not to, on both engines, so every check is proved to fail
without it.  Breakers live in ``tests/breakers_wl.py`` (Work Lists) and ``tests/breakers_ei.py`` (ExecuteIndirect).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import ValidationHooks
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, ExecuteIndirectCall


@dataclass
class Call:
    """Everything :func:`d3d12wl.executor.run` takes."""

    memory: GpuMemory
    device: DeviceCaps
    objects: ObjectSet
    state: CommandListState
    call: DispatchListCall | ExecuteIndirectCall
    hooks: ValidationHooks | None = None

    def run_args(self) -> tuple[Any, ...]:
        return self.memory, self.device, self.objects, self.state, self.call


@dataclass(frozen=True)
class Breaker:
    """``build(rng, broken)``: the call that keeps (``broken=False``) or breaks (``broken=True``) the requirement
    whose finding is ``kind``."""

    kind: str
    name: str
    build: Callable[[random.Random, bool], Call]


BREAKERS: list[Breaker] = []


def breaks(kind: str) -> Callable[[Callable[[random.Random, bool], Call]], Callable[[random.Random, bool], Call]]:
    """Register the decorated ``build(rng, broken)`` as a breaker of the requirement reported as ``kind``."""

    def register(build: Callable[[random.Random, bool], Call]) -> Callable[[random.Random, bool], Call]:
        BREAKERS.append(Breaker(kind, build.__name__, build))
        return build

    return register
