"""The fuzz suite, bounded for CI (design.md, "Output": no bare exception reaches a user; issue: hostile input never
escapes).  Bundled captures and descriptions with hostile members and hostile record bytes (``engine``) go through
everything a user runs on them; each must finish as ``ok`` or as a clean :class:`~d3d12wl.errors.D3D12WLError`.

Derandomized, so CI runs the same inputs every time; ``tools/fuzz.py`` runs long campaigns of the same engine.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

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


# ---- hostile driver libraries (d3d12wl messages check --driver) ------------------------------------------------

#: a few fixed inputs for CI (tools/fuzz.py --surface driver draws them at random; tests/test_messages_c_driver.py
#: tests the feature-count bound and the 64 MiB description directly): each is (hostilities, exit)
_HOSTILE_CI = [
    (("CONSTRUCTOR_CRASH",), 2),
    (("CONSTRUCTOR_LOOP",), 2),
    (("TRUNCATED",), 2),
    (("BAD_POINTERS", "RANDOM_FIELDS"), 1),
]


@pytest.mark.parametrize(("hostilities", "exit_code"), _HOSTILE_CI, ids=lambda v: "-".join(v) if isinstance(v, tuple)
                         else str(v))
def test_hostile_driver_library_ends_cleanly(hostilities: tuple[str, ...], exit_code: int, tmp_path: Path) -> None:
    """A driver library that crashes, exits or loops in its constructor, is truncated, lies about its feature count,
    reports a 64 MiB description, wild pointers or random fields: `d3d12wl messages check --driver` ends with a
    clear exit status, within its --timeout, with bounded output, never a traceback or a crash of its own."""
    import driver_surface

    if not driver_surface.compiler_available():
        pytest.skip("gcc not installed")
    lib = driver_surface.build(hostilities, 7, tmp_path)
    outcome = driver_surface.exercise(lib, hostilities, budget_s=2.0)
    assert outcome.good, outcome
    assert outcome.exit_code == exit_code, outcome


# ---- issue 42: saved traces for diff, names against every generator and compiler --------------------------------


@_SETTINGS
@given(name=st.sampled_from(engine.TRACES), rng=st.randoms(use_true_random=False))
def test_mutated_saved_traces_never_escape(name: str, rng: random.Random) -> None:
    """A saved trace (``exec --json`` of a bundled capture) with hostile members, diffed against the original both
    ways, compared and checked against its draws: ok or a clean error (issue 42, class 2)."""
    assert engine.exercise("trace", engine.mutated(name, rng), name) in ("ok", "error")


def test_the_trace_mutations_reach_the_members_a_run_reads() -> None:
    """Some mutated traces are refused (a member a run reads made of the wrong kind) and some still diff."""
    name = engine.TRACES[0]
    results = [engine.exercise("trace", engine.mutated(name, random.Random(seed)), name) for seed in range(60)]
    assert results.count("ok") >= 5 and results.count("error") >= 5


def test_the_names_surface_finds_a_name_a_compiler_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The names surface compiles what the checks accept: a name they refuse is a clean error, a plain name
    compiles everywhere, and a name a compiler refuses (a C keyword, let through by switching the check off) is a
    finding that says which name fails alone and which compilers refused it."""
    import names_surface
    from conftest import require

    from d3d12wl.model import fieldnames

    require(bool(names_surface.compilers()), "no C or HLSL compiler installed")
    seed = next(s for s in range(10_000) if names_surface.case(s)[0] == "culling_named.json")
    file, doc, _ = names_surface.case(seed)

    def named(name: str) -> tuple[str, dict[str, object], list[str | None]]:
        d = copy.deepcopy(doc)
        for arg in d["program_command_signatures"]["PCS"]["pArgumentDescs"]:
            arg.pop("Name", None)
        d["program_command_signatures"]["PCS"]["pArgumentDescs"][0]["Name"] = name
        return file, d, [name]

    monkeypatch.setattr(names_surface, "case", lambda s: named("MaterialBufferSRV"))
    assert names_surface.exercise(seed) == ("ok", "")
    monkeypatch.setattr(names_surface, "case", lambda s: named("while"))
    assert names_surface.exercise(seed) == ("error", "")
    monkeypatch.setattr(fieldnames, "reserved_word", lambda name: None)
    monkeypatch.setattr(names_surface, "case", lambda s: named("switch"))
    outcome, why = names_surface.exercise(seed)
    assert outcome == "crash" and "'switch' fails alone" in why, why
    assert "c (gcc, GNU C)" in names_surface.failing(why)["switch"]
