"""The baseline: error findings a team has accepted, so that ``check`` fails only on new ones.

A baseline file says, per capture (its path as ``check`` shows it), how many error findings of each kind are
accepted, and how many suppressed findings (those past the executor's ``--max-findings``, whose kinds are not
known)::

    {
      "d3d12wl_baseline": 1,
      "captures": {
        "frames/forest.json": {"errors": {"unmapped-va": 3}, "suppressed": 0}
      }
    }

A capture is judged against its entry: an error kind found more often than accepted makes the excess new (the
capture fails); found as often or less, accepted.  Counting, not places, is the contract: a frame captured again
moves its records, and the same three bad draws at other indices are the same accepted problem; a fourth is new.
Accepted counts a capture no longer reaches are reported (``unused``), so a baseline can be tightened.

``check --write-baseline PATH`` writes the baseline of what it found; several files can be given
(``--baseline A --baseline B``, the files of several shards): a capture in more than one takes the larger count
of each kind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from d3d12wl import inputs
from d3d12wl.executor.trace import FINDING_KINDS

__all__ = ["BASELINE_VERSION", "MARKER", "Accepted", "Baseline", "Judgement", "baseline_document", "load_baseline"]

#: the member that marks a baseline file, and its value: the format's version
MARKER = "d3d12wl_baseline"
BASELINE_VERSION = 1


@dataclass(frozen=True)
class Accepted:
    """What a baseline accepts of one capture."""

    errors: Mapping[str, int] = field(default_factory=dict)
    suppressed: int = 0


@dataclass(frozen=True)
class Judgement:
    """A capture's error findings against its baseline entry: per kind, how many are ``new`` (not accepted) and
    how many ``accepted``; ``unused``: accepted counts the capture no longer reaches."""

    new: dict[str, int]
    accepted: dict[str, int]
    unused: dict[str, int]


@dataclass
class Baseline:
    """Every capture's :class:`Accepted` (none: nothing is accepted)."""

    captures: dict[str, Accepted] = field(default_factory=dict)

    def judge(self, path: str, errors: Mapping[str, int], suppressed: int) -> Judgement:
        """Judge the error findings ``errors`` (kind -> count) and ``suppressed`` of capture ``path``."""
        ok = self.captures.get(path, Accepted())
        new: dict[str, int] = {}
        accepted: dict[str, int] = {}
        unused: dict[str, int] = {}
        for kind, n in errors.items():
            allowed = ok.errors.get(kind, 0)
            if n > allowed:
                new[kind] = n - allowed
            if min(n, allowed):
                accepted[kind] = min(n, allowed)
        for kind, allowed in ok.errors.items():
            if allowed > errors.get(kind, 0):
                unused[kind] = allowed - errors.get(kind, 0)
        if suppressed > ok.suppressed:
            new["(suppressed)"] = suppressed - ok.suppressed
        elif suppressed:
            accepted["(suppressed)"] = suppressed
        return Judgement(new, accepted, unused)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise inputs.InputError(f"expected a count (an integer >= 0), got {value!r}", where=where)
    return value


def _entry(doc: Any, where: str) -> Accepted:
    if not isinstance(doc, dict):
        raise inputs.InputError("expected an object with 'errors' and 'suppressed'", where=where)
    unknown = set(doc) - {"errors", "suppressed"}
    if unknown:
        raise inputs.InputError(f"unknown member {sorted(unknown)[0]!r}; expected 'errors' and 'suppressed'",
                                where=where)
    errors = doc.get("errors", {})
    if not isinstance(errors, dict):
        raise inputs.InputError("expected an object of finding kind -> count", where=f"{where}.errors")
    for kind in errors:
        if kind not in FINDING_KINDS:
            raise inputs.InputError(f"{kind!r} is not a finding kind (d3d12wl.executor.trace.FINDING_KINDS)",
                                    where=f"{where}.errors")
    return Accepted({k: _count(v, f"{where}.errors.{k}") for k, v in errors.items()},
                    _count(doc.get("suppressed", 0), f"{where}.suppressed"))


def load_baseline(paths: Sequence[str | os.PathLike[str]]) -> Baseline:
    """The baseline of the files ``paths`` (none: an empty baseline).  A file that is not a baseline is an
    :class:`~d3d12wl.inputs.InputError` naming it and the member that is wrong."""
    out = Baseline()
    for path in paths:
        label = inputs.label(path)
        doc = inputs.load_json(path, what="baseline")
        if not isinstance(doc, dict) or doc.get(MARKER) != BASELINE_VERSION:
            raise inputs.InputError(f"not a d3d12wl baseline: expected an object with \"{MARKER}\": "
                                    f"{BASELINE_VERSION} (what 'd3d12wl check --write-baseline' writes)",
                                    where=label)
        captures = doc.get("captures", {})
        if not isinstance(captures, dict) or set(doc) - {MARKER, "captures"}:
            raise inputs.InputError("expected the members \"captures\": {capture path: {\"errors\": {...}, "
                                    "\"suppressed\": N}} and nothing else", where=label)
        for capture, entry in captures.items():
            got = _entry(entry, f"{label}: captures.{capture}")
            had = out.captures.get(capture)
            if had is not None:  # (in two files: the larger count of each)
                kinds = {*had.errors, *got.errors}
                got = Accepted({k: max(had.errors.get(k, 0), got.errors.get(k, 0)) for k in kinds},
                               max(had.suppressed, got.suppressed))
            out.captures[capture] = got
    return out


def baseline_document(found: Iterable[tuple[str, Mapping[str, int], int]]) -> dict[str, Any]:
    """The baseline accepting ``found``: (capture path, error kind -> count, suppressed) of every capture judged
    (captures without error findings are left out)."""
    captures = {path: {"errors": dict(sorted(errors.items())), "suppressed": suppressed}
                for path, errors, suppressed in found if errors or suppressed}
    return {MARKER: BASELINE_VERSION, "captures": dict(sorted(captures.items()))}
