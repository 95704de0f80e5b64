"""The verdict of ``d3d12wl abi check --header``: per declaration, and as text or JSON.

JSON shape (``to_json``)::

    {"ok": bool, "headers": [path, ...], "compiler": "...", "target": "x86_64-pc-windows-msvc", "lang": "c++",
     "counts": {"equal": n, "different": n, "provisional": n, "missing": n},
     "entries": [{"kind", "name", "header_name", "status", "compared",
                  "differences": [{"where", "what", "header", "d3d12wl", "provisional", "message"}],
                  "lacks": [...], "extra": [...], "notes": [...]}],
     "extra": {"structs": [...], "enums": [...], "callbacks": [...]}}
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.abi_check import WINDOWS_TARGET

EQUAL, DIFFERENT, PROVISIONAL, MISSING = "equal", "different", "provisional", "missing"
STATUSES = (DIFFERENT, PROVISIONAL, MISSING, EQUAL)


@dataclass(frozen=True)
class Difference:
    """One disagreement at ``where`` (``TYPE``, ``TYPE.field.path`` or ``ENUM.MEMBER``) in ``what``."""

    where: str
    what: str  # 'size' | 'alignment' | 'offset' | 'kind' | 'array length' | 'bit-field' | 'order' | 'value' | ...
    header: Any
    d3d12wl: Any
    provisional: str | None = None  # why d3d12wl's value is provisional, when it is

    @property
    def message(self) -> str:
        text = f"{self.what}: {_show(self.header)} in the header, {_show(self.d3d12wl)} in d3d12wl"
        if self.provisional is not None:
            text += f" (provisional: {self.provisional}; adopt the header's {_show(self.header)})"
        return text


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "absent" if value is None else str(value)


@dataclass
class Entry:
    """The verdict on one d3d12wl declaration (or one engine record struct)."""

    kind: str  # 'struct' | 'union' | 'enum' | 'constant' | 'typedef' | 'callback' | 'record'
    name: str
    header_name: str | None
    differences: list[Difference] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)  # fields / enumerators the header does not declare
    extra: list[str] = field(default_factory=list)  # fields / enumerators only the header declares
    notes: list[str] = field(default_factory=list)
    compared: int = 0  # fields or enumerators compared

    @property
    def status(self) -> str:
        if self.header_name is None:
            return MISSING
        if any(d.provisional is None for d in self.differences):
            return DIFFERENT
        return PROVISIONAL if self.differences else EQUAL


@dataclass
class HeaderReport:
    headers: list[str]
    compiler: str
    lang: str
    entries: list[Entry]
    extra: dict[str, list[str]]  # kind -> names the headers declare that d3d12wl does not (informational)

    @property
    def ok(self) -> bool:
        return not any(e.status == DIFFERENT for e in self.entries)

    def by_status(self, status: str) -> list[Entry]:
        return [e for e in self.entries if e.status == status]

    def counts(self) -> dict[str, int]:
        return {s: len(self.by_status(s)) for s in STATUSES}


_TITLES = {
    DIFFERENT: "different (the verdict fails on any of these)",
    PROVISIONAL: "provisional (d3d12wl's value is provisional, design.md; the header's value is given to adopt)",
    MISSING: "missing from the header",
    EQUAL: "equal",
}


def _wrap(names: list[str], indent: str = "    ") -> str:
    return textwrap.fill(", ".join(names), width=116, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False) + "\n"


def _some(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def _label(e: Entry) -> str:
    named = f" (the header's {e.header_name})" if e.header_name and e.header_name != e.name else ""
    return f"{e.kind} {e.name}{named}"


def format_text(report: HeaderReport) -> str:
    out = [f"abi check --header {' '.join(report.headers)}\n",
           f"  {report.compiler}, -target {WINDOWS_TARGET}, {report.lang}\n"]
    for status in (DIFFERENT, PROVISIONAL):
        entries = report.by_status(status)
        if not entries:
            continue
        out.append(f"\n{_TITLES[status]}: {len(entries)}\n")
        for e in entries:
            out.append(f"  {_label(e)}\n")
            out += [f"    {d.where}: {d.message}\n" for d in e.differences]
            out += [f"    note: {n}\n" for n in e.notes]
            if e.lacks:
                out.append(f"    the header lacks: {', '.join(e.lacks)}\n")
    partial = [e for e in report.by_status(EQUAL) if e.lacks or e.notes]
    if partial:
        out.append(f"\nequal, with notes or with names the header lacks: {len(partial)}\n")
        for e in partial:
            out.append(f"  {_label(e)}\n")
            out += [f"    note: {n}\n" for n in e.notes]
            if e.lacks:
                out.append(f"    the header lacks: {', '.join(e.lacks)}\n")
    whole = [e for e in report.by_status(EQUAL) if not (e.lacks or e.notes)]
    if whole:
        out.append(f"\nequal: {len(whole)}\n")
        out.append(_wrap([e.name for e in whole], "  "))
    missing = report.by_status(MISSING)
    if missing:
        out.append(f"\n{_TITLES[MISSING]}: {len(missing)}\n")
        out.append(_wrap([e.name for e in missing], "  "))
    extra_members = [e for e in report.entries if e.extra]
    if extra_members or any(report.extra.values()):
        out.append("\nextra in the header (informational; --json lists every name):\n")
        for e in extra_members:
            what = "enumerators" if e.kind == "enum" else "fields"
            out.append(f"  {e.name}: {len(e.extra)} more {what}: {_some(e.extra)}\n")
        for kind, names in report.extra.items():
            if names:
                out.append(f"  {len(names)} {kind} d3d12wl does not declare: {_some(names)}\n")
    counts = report.counts()
    out.append(f"\nverdict: {'PASS' if report.ok else 'FAIL'}: " +
               ", ".join(f"{n} {s}" for s, n in counts.items()) + "\n")
    return "".join(out)


def to_json(report: HeaderReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "headers": report.headers,
        "compiler": report.compiler,
        "target": WINDOWS_TARGET,
        "lang": report.lang,
        "counts": report.counts(),
        "entries": [
            {"kind": e.kind, "name": e.name, "header_name": e.header_name, "status": e.status,
             "compared": e.compared,
             "differences": [{"where": d.where, "what": d.what, "header": d.header, "d3d12wl": d.d3d12wl,
                              "provisional": d.provisional, "message": d.message} for d in e.differences],
             "lacks": e.lacks, "extra": e.extra, "notes": e.notes}
            for e in report.entries
        ],
        "extra": report.extra,
    }
