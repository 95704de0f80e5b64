"""``d3d12wl diff A B``: what differs between two runs (captures, saved traces or call sequences).

Executions are matched by position, or by a key (``program``, ``call``, ``list_index``, ``primary_index``,
``secondary_index``, ``command_index``, ``trigger``: the n-th execution with a key value in A against the n-th with
that value in B).  For each matched pair it reports what differs: the program, the trigger type and each trigger
field, and for every binding (root argument by register, IA binding by slot) its value and its source (the source
kinds and where they were read from; ``sources=False`` compares values only).  Executions left unmatched, and
findings added or removed (by kind, rule, severity and message), are differences too.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.migrate.equivalence import finding_text, root_arguments_seen
from d3d12wl.migrate.runs import MigrationError, load_run

__all__ = ["KEYS", "Diff", "ExecutionDiff", "diff_runs"]

KEYS = ("program", "call", "list_index", "primary_index", "secondary_index", "command_index", "trigger")


@dataclass
class ExecutionDiff:
    """A matched pair of executions (their positions in A and B, the key) and what differs, one line each."""

    a: int
    b: int
    key: tuple[Any, ...]
    what: list[str]


@dataclass
class Diff:
    matched: int
    differences: list[ExecutionDiff] = field(default_factory=list)
    only_in_a: list[int] = field(default_factory=list)
    only_in_b: list[int] = field(default_factory=list)
    findings_added: list[str] = field(default_factory=list)
    findings_removed: list[str] = field(default_factory=list)
    key: tuple[str, ...] = ()
    note: str = ""
    #: a capture against its replay's dump (d3d12wl.importers.replay_diff): commands matched by index, and what
    #: makes the replay unable to execute what was captured, one line each
    replay: bool = False
    cannot_execute: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not (self.differences or self.only_in_a or self.only_in_b or self.findings_added
                    or self.findings_removed or self.cannot_execute)

    def to_dict(self) -> dict[str, Any]:
        out = {"same": self.same, "key": list(self.key) or "position", "matched": self.matched,
               "differences": [vars(d) | {"key": list(d.key)} for d in self.differences],
               "only_in_a": self.only_in_a, "only_in_b": self.only_in_b,
               "findings_added": self.findings_added, "findings_removed": self.findings_removed, "note": self.note}
        if self.replay:  # (a member of a replay diff only: the JSON of a diff of two runs keeps its shape)
            out["cannot_execute"] = self.cannot_execute
        return out


def _key_of(e: Mapping[str, Any], key: Sequence[str]) -> tuple[Any, ...]:
    out = []
    for k in key:
        out.append((e.get("trigger") or {}).get("type") if k == "trigger" else e.get(k))
    return tuple(out)


def _sources(items: Sequence[Mapping[str, Any]] | None) -> str:
    return ", ".join(f"{s.get('kind')} ({s.get('origin')})" for s in items or []) or "-"


def _bindings(e: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    out: dict[str, tuple[Any, str]] = {}
    for kind, register, a in root_arguments_seen(e):
        value = a.get("values") if a.get("values") is not None else a.get("value")
        out[f"{kind} {register}"] = (value, _sources(a.get("sources")))
    for v in e.get("ia") or []:
        out[f"IA slot {v.get('slot')}"] = (v.get("fields"), _sources([v.get("source") or {}]))
    return out


def _compare(x: Mapping[str, Any], y: Mapping[str, Any], sources: bool) -> list[str]:
    what: list[str] = []
    if x.get("program") != y.get("program"):
        what.append(f"program: {x.get('program')} -> {y.get('program')}")
    tx, ty = x.get("trigger") or {}, y.get("trigger") or {}
    if tx.get("type") != ty.get("type"):
        what.append(f"trigger: {tx.get('type')} -> {ty.get('type')}")
    fx, fy = tx.get("fields") or {}, ty.get("fields") or {}
    for name in sorted(set(fx) | set(fy)):
        if fx.get(name) != fy.get(name):
            what.append(f"trigger.{name}: {fx.get(name)} -> {fy.get(name)}")
    if sources and _sources([tx.get("source") or {}]) != _sources([ty.get("source") or {}]):
        what.append(f"trigger source: {_sources([tx.get('source') or {}])} -> {_sources([ty.get('source') or {}])}")
    bx, by = _bindings(x), _bindings(y)
    for name in sorted(set(bx) | set(by)):
        if name not in bx:
            what.append(f"{name}: added, {by[name][0]} from {by[name][1]}")
        elif name not in by:
            what.append(f"{name}: removed (was {bx[name][0]} from {bx[name][1]})")
        else:
            (vx, sx), (vy, sy) = bx[name], by[name]
            if vx != vy:
                what.append(f"{name}: value {vx} -> {vy}")
            if sources and sx != sy:
                what.append(f"{name}: source {sx} -> {sy}")
    return what


def diff_runs(a: Any, b: Any, *, key: Sequence[str] = (), sources: bool = True) -> Diff:
    """Diff two runs (anything :func:`~d3d12wl.migrate.runs.load_run` takes)."""
    bad = [k for k in key if k not in KEYS]
    if bad:
        raise MigrationError(f"unknown key {', '.join(bad)}; keys are {', '.join(KEYS)}", where="--key")
    ra, rb = load_run(a, name="A"), load_run(b, name="B")
    out = Diff(0, key=tuple(key))
    pairs: list[tuple[int, int]] = []
    if not key:
        pairs = list(zip(range(len(ra.executions)), range(len(rb.executions))))
        out.only_in_a = list(range(len(rb.executions), len(ra.executions)))
        out.only_in_b = list(range(len(ra.executions), len(rb.executions)))
    else:
        groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        for j, e in enumerate(rb.executions):
            groups[_key_of(e, key)].append(j)
        taken: dict[tuple[Any, ...], int] = Counter()
        for i, e in enumerate(ra.executions):
            k = _key_of(e, key)
            n = taken[k]
            if n < len(groups.get(k, [])):
                pairs.append((i, groups[k][n]))
                taken[k] += 1
            else:
                out.only_in_a.append(i)
        for k, js in groups.items():
            out.only_in_b.extend(js[taken.get(k, 0):])
        out.only_in_b.sort()
    out.matched = len(pairs)
    for i, j in pairs:
        what = _compare(ra.executions[i], rb.executions[j], sources)
        if what:
            out.differences.append(ExecutionDiff(i, j, _key_of(ra.executions[i], key) if key else (i,), what))
    fa, fb = Counter(finding_text(f) for f in ra.findings), Counter(finding_text(f) for f in rb.findings)
    out.findings_added = sorted((fb - fa).elements())
    out.findings_removed = sorted((fa - fb).elements())
    return out
