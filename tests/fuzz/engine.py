"""The fuzz engine shared by ``tests/fuzz`` (hypothesis, bounded for CI) and ``tools/fuzz.py`` (long campaigns).

An input is a bundled example (a capture, a description, or the trace of a bundled capture saved as ``d3d12wl exec
--json`` saves it) with a few mutations applied, each drawn from a ``random.Random``: a JSON member replaced by a hostile value (huge, negative or integer-valued-float numbers, the
wrong type, a lone surrogate, deep nesting, a long string), removed, or joined by an unknown member; or, in a capture,
bytes of a memory region overwritten with values that drive counts, strides, indices and VAs to their extremes.

:func:`exercise` runs an input through everything a user runs on it -- load, validate, lay out, generate C and
HLSL; execute, render ``dump`` (with ``--hex``) and ``exec --json``; of a saved trace, ``diff`` against the
original both ways (by position and by key), the equivalence check and the expected-draws check -- and returns
``"ok"`` or ``"error"`` (a :class:`~d3d12wl.errors.D3D12WLError`, the clean refusal).  Any other exception escapes:
that is a finding.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import d3d12wl
from d3d12wl import abi, rules
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import render
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor import execute
from d3d12wl.executor.dump_view import dump_view
from d3d12wl.executor.selection import Selection
from d3d12wl.executor.trace import Limits
from d3d12wl.executor.trace_selection import select_trace
from d3d12wl.model import description
from d3d12wl.model.state import DeviceCaps
from d3d12wl.records import codegen, layout

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
CAPTURES = ("culling_capture.json", "execute_indirect_capture.json", "tier2_chain_capture.json",
            "validation_chain_capture.json")
DESCRIPTIONS = ("culling.json", "execute_indirect.json", "tier2_chain.json", "gpu_resident_diagram.json")
#: the saved traces (``exec --json``) of the bundled captures: ``<capture>:trace``
TRACE = ":trace"
TRACES = tuple(f"{name}{TRACE}" for name in CAPTURES)

#: bounds of one run: a fuzz input must never need more than these to finish.  Each execution an input drives costs
#: about 300 us of legitimate output (its trace objects, ``to_dict`` and JSON, the dump's text and hex: linear, and
#: measured by tools/bench_executor.py), so 1,024 executions keep a well-formed input near 0.3 s and a campaign's
#: 1 s limit catches cost that grows faster than the input, not output that grows with it (at 4,096 executions,
#: seed 384632 of the first 1 M campaign took 1.4 s).
LIMITS = Limits(max_lists=64, max_primary_records=1024, max_secondary_records=1024, max_executions=1024,
                max_records=4096, max_findings=256)

_HOSTILE: tuple[Any, ...] = (
    0, -1, 1.0, -0.0, 0.5, 1 << 32, (1 << 32) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, 0x7FFFFFFF, 10 ** 39,
    "", "x", "0x", "0xFFFFFFFFFFFFFFFF", "Opaque\ud800", "\u0000", "x" * 5000, True, False, None,
    [], {}, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], {"unknown": 1},
)
_WORDS = (0, 1, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFF0, 8, 16, 24, 0x10000, 3)


_SAVED: dict[str, str] = {}


def load_example(name: str) -> dict[str, Any]:
    """A bundled example; ``<capture>:trace``: the trace of that capture, as ``d3d12wl exec --json`` saves it."""
    if name.endswith(TRACE):
        if name not in _SAVED:
            capture = load_capture(EXAMPLES / name.removesuffix(TRACE))
            _SAVED[name] = json.dumps(execute(capture, LIMITS).to_dict())
        trace: dict[str, Any] = json.loads(_SAVED[name])
        return trace
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every member path of a JSON document (hex strings of memory regions count as one member)."""
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list) and not (prefix and prefix[-1] == "hex"):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def mutate_json(doc: Any, rng: random.Random) -> None:
    """One structural mutation, in place."""
    paths = _paths(doc)
    if not paths:
        return
    path = rng.choice(paths)
    parent, key = _parent(doc, path), path[-1]
    action = rng.random()
    if action < 0.7:
        parent[key] = copy.deepcopy(rng.choice(_HOSTILE))
    elif action < 0.85:
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif isinstance(parent, dict):
        parent[rng.choice(("Reserved", "pNext", "__proto__", "NumArgumentDescs", "zeros", "file"))] = (
            copy.deepcopy(rng.choice(_HOSTILE)))
    elif isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))


def mutate_bytes(doc: dict[str, Any], rng: random.Random) -> None:
    """Overwrite one 4- or 8-byte word of a hex memory region, in place."""
    memory = doc.get("memory")
    if not isinstance(memory, list):  # an earlier mutation replaced it
        return
    regions = [r for r in memory if isinstance(r, dict) and isinstance(r.get("hex"), str | list)]
    if not regions:
        return
    region = rng.choice(regions)
    if isinstance(region["hex"], list) and not all(isinstance(line, str) for line in region["hex"]):
        return
    text = region["hex"] if isinstance(region["hex"], str) else "".join(region["hex"])
    try:
        data = bytearray(bytes.fromhex(text))
    except ValueError:
        return
    if len(data) < 8:
        return
    size = rng.choice((4, 8))
    at = rng.randrange(0, len(data) - size + 1) & ~3
    value = rng.choice(_WORDS) if size == 4 else rng.choice(_WORDS) | (rng.choice(_WORDS) << 32)
    data[at:at + size] = value.to_bytes(size, "little")
    region["hex"] = data.hex()


def mutation_steps(name: str, rng: random.Random, *, count: int | None = None) -> list[dict[str, Any]]:
    """A bundled example after each of ``count`` (1-3 by default) mutations: the last is the input, the earlier
    ones are what a minimizer tries first."""
    doc = load_example(name)
    steps = []
    for _ in range(count if count is not None else rng.randint(1, 3)):
        if "memory" in doc and rng.random() < 0.6:
            mutate_bytes(doc, rng)
        else:
            mutate_json(doc, rng)
        steps.append(copy.deepcopy(doc))
    return steps


def mutated(name: str, rng: random.Random, *, count: int | None = None) -> dict[str, Any]:
    """A bundled example with ``count`` (1-3 by default) mutations."""
    return mutation_steps(name, rng, count=count)[-1]


_TIER2 = None


def exercise_description(doc: Any) -> str:
    global _TIER2
    if _TIER2 is None:
        _TIER2 = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_2"), DispatchRaysSupported=True)
    try:
        objects = description.load(doc)
        rules.check_objects(objects, _TIER2)
        layouts = layout.record_layouts(objects)
        codegen.c_source(layouts)
        codegen.hlsl_source(layouts)
        description.dump(objects)
    except D3D12WLError:
        return "error"
    return "ok"


def exercise_capture(doc: Any, base_dir: Path | None = None) -> str:
    try:
        capture = load_capture(doc, base_dir=base_dir)
        trace = execute(capture, LIMITS)
        json.dumps(trace.to_dict())
        # what `d3d12wl dump --hex` shows: its default selection (at most dump_cmd.DEFAULT_LIMIT records per list)
        view = dump_view(capture, select_trace(trace, Selection()), with_hex=True)
        render.render_text(view).encode("utf-8", "backslashreplace")
    except D3D12WLError:
        return "error"
    return "ok"


def exercise_trace(doc: Any, original: str) -> str:
    """A saved trace (mutated) against the trace it was (``original``, a :data:`TRACES` name): ``diff`` both ways,
    by position and by a key, the equivalence check, and the expected-draws check of the original's draws."""
    from d3d12wl.migrate.diff import diff_runs
    from d3d12wl.migrate.equivalence import ExpectedDraw, assert_draws, compare_runs

    base = load_example(original)
    try:
        for a, b in ((base, doc), (doc, base)):
            diff_runs(a, b).to_dict()
            diff_runs(a, b, key=["program", "trigger"], sources=False)
        compare_runs(base, doc, order="multiset")
        compare_runs(doc, base)
        want = [ExpectedDraw(e["program"], e["trigger"]["type"], tuple(sorted(e["trigger"]["fields"].items())))
                for e in base["executions"]]
        try:
            assert_draws(doc, want)
        except AssertionError:  # (a difference: the check's verdict, not a failure of it)
            pass
    except D3D12WLError:
        return "error"
    return "ok"


def exercise(kind: str, doc: Any, name: str = "") -> str:
    """Run one input; ``kind`` is ``capture``, ``description`` or ``trace`` (``name``: the saved trace it was)."""
    if kind == "trace":
        return exercise_trace(doc, name)
    return exercise_capture(doc) if kind == "capture" else exercise_description(doc)
