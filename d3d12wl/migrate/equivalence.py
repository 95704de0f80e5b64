"""Do two runs execute the same draws with the same resolved bindings?

An execution is compared by what its shaders see (spec "Per-binding source": where a value comes from is the
signature's choice, not the shader's): the program, the dispatch trigger and its payload, every root argument by
its shader register (``b1 space0`` holds the same value whether a global root parameter, a local one in the program
table or an ExecuteIndirect command set it), and every IA binding by slot.  Static samplers carry no per-execution
value and are left out.  Sources are compared by :mod:`d3d12wl.migrate.diff`, not here.

Order (spec "Execution Order and State Scoping"), class by class: when the spec orders every graphics execution of
both runs (records of lists without ``_ALLOW_OUT_OF_ORDER_GRAPHICS``, ExecuteIndirect draws, calls in sequence) they
must match one for one in order; compute-class executions, and a class that is not ordered throughout, are compared
as multisets.

An *expected-draws file* states what a producer should have written, for an engine's own CI: JSON
``{"draws": [{"program": "Opaque", "type": "DRAW", "VertexCountPerInstance": 36, ...}, ...]}`` or CSV with a header
``program,type,<trigger field>,...``; every trigger field of the execution's type is compared (a field left out of
a row, or an empty CSV cell, is not).
"""

from __future__ import annotations

import csv
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d3d12wl import abi, inputs
from d3d12wl.errors import D3D12WLError
from d3d12wl.migrate.runs import MigrationError, load_run
from d3d12wl.model.argtypes import arg_type_info

__all__ = ["Comparison", "ExpectedDraw", "assert_draws", "assert_same_executions", "canonical", "compare_runs",
           "finding_text", "load_expected_draws", "root_arguments_seen"]

Canonical = tuple[Any, ...]


def _frozen(value: Any) -> Any:
    """A JSON value as a hashable one (a list as a tuple, an object as its sorted items), so that executions can be
    counted as a multiset whatever their fields hold."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _value(arg: Mapping[str, Any]) -> Any:
    values = arg.get("values")
    return _frozen(values) if values is not None else arg.get("value")


def root_arguments_seen(execution: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """The root arguments of one execution that carry a value, as (kind, register, argument): the register where
    it has one (``b1 space0``), else ``binding:parameter`` (descriptor tables); static samplers are left out.
    :func:`canonical` and :func:`d3d12wl.migrate.diff.diff_runs` both name bindings by it."""
    return [(str(a.get("kind")), str(a.get("register") or f"{a.get('binding')}:{a.get('parameter')}"), a)
            for a in execution.get("root_arguments") or [] if a.get("kind") != "static_sampler"]


def canonical(execution: Mapping[str, Any], *, root_arguments: bool = True) -> Canonical:
    """What the shaders of one execution see, as a hashable tuple (program, trigger, bindings, IA); without
    ``root_arguments`` the bindings are left out (an empty tuple)."""
    trigger = execution.get("trigger") or {}
    fields = _frozen(trigger.get("fields") or {})
    # (sorted by their text where two share a register or a slot: a value of a saved trace may be of any JSON kind)
    bindings = () if not root_arguments else tuple(sorted(
        ((kind, register, _value(a)) for kind, register, a in root_arguments_seen(execution)), key=repr))
    ia = tuple(sorted(((str(v.get("slot")), _frozen(v.get("fields") or {})) for v in execution.get("ia") or []),
                      key=repr))
    return (execution.get("program"), trigger.get("type"), fields, bindings, ia)


def finding_text(f: Mapping[str, Any]) -> str:
    """One finding of ``Trace.to_dict()`` as a line: severity, kind, rule and message."""
    return f"{f.get('severity')} {f.get('kind')} [{f.get('rule')}]: {f.get('message')}"


def describe(c: Canonical) -> str:
    program, ttype, fields, bindings, ia = c
    parts = [f"program {program}", f"{ttype}({', '.join(f'{k}={v}' for k, v in fields)})"]
    parts += [f"{kind} {reg}={value}" for kind, reg, value in bindings]
    parts += [f"IA {slot}={dict(v)}" for slot, v in ia]
    return "; ".join(parts)


@dataclass
class Comparison:
    """The outcome of :func:`compare_runs`: ``ordered`` says how they were compared; ``differences`` lists each
    mismatch (at most ``limit``)."""

    ordered: bool
    count_a: int
    count_b: int
    differences: list[str]
    note: str = ""
    classes: dict[str, bool] = field(default_factory=dict)

    @property
    def same(self) -> bool:
        return not self.differences

    @property
    def how(self) -> str:
        """How the executions were compared: ``in order``, ``as multisets`` or, per class, both."""
        if len(self.classes) > 1:
            return ", ".join(f"{c.lower()} {'in order' if o else 'as multisets'}" for c, o in self.classes.items())
        return "in order" if self.ordered else "as multisets (the spec allows any order)"

    def __str__(self) -> str:
        head = f"{self.count_a} vs {self.count_b} executions, compared {self.how}" + (
            f" ({self.note})" if self.note else "")
        return head + ("" if self.same else ":\n  " + "\n  ".join(self.differences))


def compare_runs(a: Any, b: Any, *, order: str = "spec", limit: int = 20) -> Comparison:
    """Compare two runs (anything :func:`~d3d12wl.migrate.runs.load_run` takes), executable class by class.
    ``order``: ``"spec"`` (a class in order when the spec orders all its executions in both runs, else as a
    multiset), ``"strict"`` (always in order) or ``"multiset"``."""
    if order not in ("spec", "strict", "multiset"):
        raise MigrationError(f"order must be 'spec', 'strict' or 'multiset', not {order!r}")
    ra, rb = load_run(a, name="A"), load_run(b, name="B")
    note = ""
    ca = [canonical(e) for e in ra.executions]
    cb = [canonical(e) for e in rb.executions]
    # per executable class: graphics executions are compared in order when the spec orders every one of them on
    # both sides; compute (never ordered) and partly ordered classes as multisets
    diffs: list[str] = []
    ordered_all = True
    compared: dict[str, bool] = {}
    classes = sorted({str(e.get("executable_class")) for e in (*ra.executions, *rb.executions)})
    for cls in classes:
        ia = [i for i, e in enumerate(ra.executions) if str(e.get("executable_class")) == cls]
        ib = [i for i, e in enumerate(rb.executions) if str(e.get("executable_class")) == cls]
        both = [ra.executions[i] for i in ia] + [rb.executions[i] for i in ib]
        ordered = order == "strict" or (order == "spec" and all(e.get("ordered", False) for e in both))
        ordered_all = ordered_all and ordered
        compared[cls] = ordered
        diffs += _compare([ca[i] for i in ia], [cb[i] for i in ib], ia, ib, ordered, limit - len(diffs))
        if len(diffs) >= limit:
            break
    # undefined behaviour (an error-severity finding) on either side is never "the same draws": the executor's
    # trace of it is one reading of what the hardware may do
    errors = [(side, f) for side, r in (("A", ra), ("B", rb)) for f in r.findings if f.get("severity") == "error"]
    diffs += [f"{side} has an error finding: {finding_text(f)}" for side, f in errors][:max(0, limit - len(diffs))]
    if ra.lists and rb.lists and ra.lists != rb.lists and len(diffs) < limit:
        # two work lists: their lists' flags (continuation, end-of-list wait and flush) are part of what runs
        # (spec "Dispatch List Continuations"); an ExecuteIndirect run has none to compare
        diffs.append("dispatch lists differ: A " + "; ".join(f"{c.lower()} {'|'.join(f) or 'NONE'}" for c, f in ra.lists)
                     + " | B " + "; ".join(f"{c.lower()} {'|'.join(f) or 'NONE'}" for c, f in rb.lists))
    return Comparison(ordered_all, len(ca), len(cb), diffs, note, compared)


def _compare(ca: list[Canonical], cb: list[Canonical], ia: list[int], ib: list[int], ordered: bool,
             limit: int) -> list[str]:
    diffs: list[str] = []
    if limit <= 0:
        return diffs
    if ordered:
        for x, y, i, j in zip(ca, cb, ia, ib):
            if x != y:
                diffs.append(f"execution {i} (A) / {j} (B): A {describe(x)} | B {describe(y)}")
                if len(diffs) >= limit:
                    return diffs
        if len(ca) != len(cb):
            longer, which = (ca, "A") if len(ca) > len(cb) else (cb, "B")
            diffs.append(f"{which} has {abs(len(ca) - len(cb))} more executions, from "
                         f"{describe(longer[min(len(ca), len(cb))])}")
        return diffs[:limit]
    left, right = Counter(ca), Counter(cb)
    out = [f"only in A ({n}x): {describe(c)}" for c, n in (left - right).items()]
    out += [f"only in B ({n}x): {describe(c)}" for c, n in (right - left).items()]
    return sorted(out)[:limit]


def assert_same_executions(a: Any, b: Any, *, order: str = "spec") -> Comparison:
    """Raise ``AssertionError`` (with every difference) unless runs ``a`` and ``b`` execute the same draws with the
    same resolved bindings, in the order the spec guarantees; returns the :class:`Comparison` otherwise."""
    result = compare_runs(a, b, order=order)
    if not result.same:
        raise AssertionError(str(result))
    return result


@dataclass(frozen=True)
class ExpectedDraw:
    """One row of an expected-draws file: the program and the trigger (its type and the fields stated)."""

    program: str | None
    type: str
    fields: tuple[tuple[str, Any], ...]


def _int(value: Any, where: str, ctype: str | None = None) -> int:
    """An integer of a row; ``ctype``: the C type the trigger's payload holds it in, whose range bounds it."""
    try:
        number = inputs.integer(value) if isinstance(value, str) else int(value)
    except (TypeError, ValueError, OverflowError):
        raise MigrationError(f"not an integer: {str(value)[:40]!r}", where=where) from None
    if ctype is not None:
        bits = 8 * abi.sizeof(ctype)
        lo, hi = (0, 1 << bits) if abi.default.resolve(ctype).startswith("u") else (-(1 << bits - 1), 1 << bits - 1)
        if not lo <= number < hi:
            raise MigrationError(f"{number} is outside the range of its member ({ctype}: {lo} to {hi - 1})",
                                 where=where)
    return number


def _member_types(trigger: str) -> dict[str, str]:
    """The integer members of a trigger type's payload and their C types (empty: a type without a payload, or not
    a trigger type d3d12wl knows)."""
    try:
        ctype = arg_type_info(trigger).payload_ctype
    except D3D12WLError:
        return {}
    if ctype is None:
        return {}
    return {f.name: f.type for f in abi.type_info(ctype).fields if f.nested is None and not f.is_pointer
            and abi.default.resolve(f.type) in ("uint32_t", "int32_t", "uint64_t", "int64_t")}


def load_expected_draws(source: str | os.PathLike[str] | Sequence[Mapping[str, Any]]) -> list[ExpectedDraw]:
    """Read an expected-draws file (``.json`` or ``.csv``) or a list of row mappings."""
    where = "expected draws"
    rows: list[Mapping[str, Any]]
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        where = str(p)
        try:  # the one bounded reader (d3d12wl.inputs)
            text = inputs.read_text(p, what="expected-draws file")
            doc = None if p.suffix.lower() == ".csv" else inputs.parse_json(text, where=where)
        except inputs.InputError as exc:
            raise MigrationError(exc.message, where=exc.where) from None
        if doc is None:
            rows = list(csv.DictReader(text.splitlines()))
        else:
            if not isinstance(doc, dict) or not isinstance(doc.get("draws"), list):
                raise MigrationError("expected {\"draws\": [...]}", where=where)
            rows = doc["draws"]
    else:
        rows = list(source)
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not row.get("type"):
            raise MigrationError("each draw needs a 'type' (DRAW, DRAW_INDEXED, DISPATCH, DISPATCH_MESH)",
                                 where=f"{where}: draws[{i}]")
        members = _member_types(str(row["type"]))
        fields = tuple(sorted((str(k), _int(v, f"{where}: draws[{i}].{k}", members.get(str(k))))
                              for k, v in row.items() if k not in ("program", "type") and v not in (None, "")))
        program = row.get("program")
        out.append(ExpectedDraw(str(program) if program not in (None, "") else None, str(row["type"]), fields))
    return out


def _class_of(trigger_type: str) -> str:
    """The executable class of a dispatch trigger (spec "Dispatch trigger"): DISPATCH is compute, the rest
    graphics."""
    return "COMPUTE" if trigger_type == "DISPATCH" else "GRAPHICS"


def _as_expected(e: Mapping[str, Any], w: ExpectedDraw) -> ExpectedDraw:
    """Execution ``e`` as row ``w`` states it: the program only when ``w`` names one, the fields ``w`` has."""
    t = e.get("trigger") or {}
    f = t.get("fields") or {}
    return ExpectedDraw(e.get("program") if w.program is not None else None, str(t.get("type")),
                        tuple((k, _frozen(f.get(k))) for k, _ in w.fields))


def assert_draws(run: Any, expected: Any, *, order: str = "spec") -> None:
    """Raise ``AssertionError`` unless ``run`` (a capture, trace, call sequence or path) executes exactly the draws of
    ``expected`` (an expected-draws file or :func:`load_expected_draws` rows): the same programs and trigger fields,
    in order where the spec guarantees it, executable class by class as :func:`compare_runs` does."""
    r = load_run(run)
    want = expected if isinstance(expected, list) and all(isinstance(e, ExpectedDraw) for e in expected) \
        else load_expected_draws(expected)
    diffs: list[str] = []
    by_class: dict[str, tuple[list[int], list[int]]] = {}
    for i, e in enumerate(r.executions):
        by_class.setdefault(_class_of(str((e.get("trigger") or {}).get("type"))), ([], []))[0].append(i)
    for i, w in enumerate(want):
        by_class.setdefault(_class_of(w.type), ([], []))[1].append(i)
    for cls, (got, rows) in sorted(by_class.items()):
        ordered = order == "strict" or (order == "spec" and all(r.executions[i].get("ordered", False) for i in got))
        if ordered:
            for i, j in zip(got, rows):
                seen = _as_expected(r.executions[i], want[j])
                if seen != want[j]:
                    diffs.append(f"draw {j}: expected {want[j]}, got {seen}")
            continue
        # as a multiset: per (program stated?, type, fields stated) an index of the executions by what the row
        # states, each execution taken once
        index: dict[tuple[bool, str, tuple[str, ...]], dict[ExpectedDraw, list[int]]] = {}
        taken: set[int] = set()
        for j in rows:
            w = want[j]
            shape = (w.program is not None, w.type, tuple(k for k, _ in w.fields))
            if shape not in index:
                table: dict[ExpectedDraw, list[int]] = {}
                for i in reversed(got):
                    table.setdefault(_as_expected(r.executions[i], w), []).append(i)
                index[shape] = table
            candidates = index[shape].get(w, [])
            while candidates and candidates[-1] in taken:
                candidates.pop()
            if candidates:
                taken.add(candidates.pop())
            else:
                diffs.append(f"draw {j}: no execution matches {w}")
    if len(r.executions) != len(want):
        diffs.append(f"{len(r.executions)} executions, {len(want)} expected")
    if diffs:
        raise AssertionError("executions differ from the expected draws:\n  " + "\n  ".join(diffs[:20]))
