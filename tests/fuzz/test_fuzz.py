"""The fuzz suite, bounded for CI (design.md, "Output": no bare exception reaches a user; issue: hostile input never
escapes).  Bundled captures and descriptions with hostile members and hostile record bytes (``engine``) go through
everything a user runs on them; each must finish as ``ok`` or as a clean :class:`~d3d12wl.errors.D3D12WLError`.

Derandomized, so CI runs the same inputs every time; ``tools/fuzz.py`` runs long campaigns of the same engine.
"""

from __future__ import annotations

import json
import random

import engine
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_SETTINGS = settings(derandomize=True, max_examples=300, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(name=st.sampled_from(engine.CAPTURES), rng=st.randoms(use_true_random=False))
def test_mutated_captures_never_escape(name: str, rng: random.Random) -> None:
    assert engine.exercise("capture", engine.mutated(name, rng)) in ("ok", "error")


@_SETTINGS
@given(name=st.sampled_from(engine.DESCRIPTIONS), rng=st.randoms(use_true_random=False))
def test_mutated_descriptions_never_escape(name: str, rng: random.Random) -> None:
    assert engine.exercise("description", engine.mutated(name, rng)) in ("ok", "error")


def test_the_engine_mutates() -> None:
    """The engine changes its input (a fuzz suite that ran the examples unchanged would prove nothing)."""
    for name in (*engine.CAPTURES, *engine.DESCRIPTIONS):
        base = engine.load_example(name)
        assert sum(engine.mutated(name, random.Random(seed)) != base for seed in range(20)) >= 14, name


def test_byte_mutations_reach_the_executor() -> None:
    """Some mutated captures still load and run: record bytes, not only structure, are fuzzed."""
    results = [engine.exercise("capture", engine.mutated("culling_capture.json", random.Random(seed)))
               for seed in range(40)]
    assert results.count("ok") >= 5 and results.count("error") >= 5


def _has_integral_float(value: object) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_integral_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_integral_float(v) for v in value)
    return False


@_SETTINGS
@given(name=st.sampled_from(engine.DESCRIPTIONS), rng=st.randoms(use_true_random=False))
def test_the_fast_schema_check_agrees_with_the_python_validator(name: str, rng: random.Random) -> None:
    """description.validate_schema skips the Python validator when jsonschema-rs calls a document valid: the two
    must agree on every document, except that the Python one (the package's integer) refuses 1.0, which the loader
    then refuses on the fast path."""
    from d3d12wl import inputs
    from d3d12wl.model import description

    doc = engine.mutated(name, rng)
    slow_valid = not list(inputs.schema_validator(description.schema()).iter_errors(doc))
    if description.fast_valid(doc) and not slow_valid:
        assert _has_integral_float(doc)
        with pytest.raises(description.DescriptionErrors):
            description.load(doc)
    elif slow_valid:  # the fast check may decline a valid document it cannot take (a lone surrogate)
        assert description.fast_valid(doc) or "\ud800" in json.dumps(doc)
