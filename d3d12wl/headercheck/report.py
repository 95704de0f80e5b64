"""The verdict of ``d3d12wl abi check --header``: per declaration, and as text or JSON.

JSON shape (``to_json``)::

    {"ok": bool, "headers": [path, ...], "compiler": "...", "target": "x86_64-pc-windows-msvc" (null for HLSL
     alone), "lang": "c++" | "c" | "hlsl" | "c++ + hlsl" | ...,
     "records_only": bool (--records-only: the record structs alone, no d3d12wl declaration compared),
     "counts": {"different": n, "provisional": n, "missing": n, "equal": n},
     "entries": [{"kind" ('struct', 'union', 'enum', 'constant', 'typedef', 'callback', 'record', 'hlsl record'),
                  "name" (d3d12wl's name, or the record class 'PCS.secondary'), "header_name", "status", "compared",
                  "differences": [{"where", "what", "header", "d3d12wl", "provisional", "message"}],
                  "lacks": [...], "extra": [...], "notes": [...]}],
     "extra": {"structs": [...], "enums": [...], "callbacks": [...]}}
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.abi.check import WINDOWS_TARGET
from d3d12wl.output import tables
from d3d12wl.output.serialize import NOT_JSON, to_jsonable

EQUAL, DIFFERENT, PROVISIONAL, MISSING = "equal", "different", "provisional", "missing"
STATUSES = (DIFFERENT, PROVISIONAL, MISSING, EQUAL)
RECORD_KINDS = ("record", "hlsl record")  # engine record structs (C/C++, HLSL) against the layout calculator


@dataclass(frozen=True)
class Difference:
    """One disagreement at ``where`` (``TYPE``, ``TYPE.field.path`` or ``ENUM.MEMBER``) in ``what``."""

    where: str
    what: str  # 'size' | 'alignment' | 'offset' | 'kind' | 'array length' | 'bit-field' | 'order' | 'value' | ...
    header: Any
    d3d12wl: Any
    provisional: str | None = None  # why d3d12wl's value is provisional, when it is
    reference: str = field(default="d3d12wl", metadata=NOT_JSON)  # what ``d3d12wl`` is: d3d12wl's declarations, or 'the layout' for a record

    JSON_PROPERTIES = ("message",)

    @property
    def message(self) -> str:
        text = f"{self.what}: {_show(self.header)} in the header, {_show(self.d3d12wl)} in {self.reference}"
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

    kind: str  # 'struct' | 'union' | 'enum' | 'constant' | 'typedef' | 'callback' | 'record' | 'hlsl record'
    name: str
    header_name: str | None
    differences: list[Difference] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)  # fields / enumerators the header does not declare
    extra: list[str] = field(default_factory=list)  # fields / enumerators only the header declares
    notes: list[str] = field(default_factory=list)
    compared: int = 0  # fields or enumerators compared

    JSON_PROPERTIES = ("status",)

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
    #: the engine's record structs alone were checked (``--records-only``), none of d3d12wl's declarations
    records_only: bool = False
    #: the translation unit declares ID3D12Device: a d3d12.h is checked (or included), and what it lacks is listed
    #: name by name; otherwise the missing names are summed up by kind (an engine header declares few of them)
    declares_d3d12: bool = False

    @property
    def ok(self) -> bool:
        return not any(e.status == DIFFERENT for e in self.entries)

    def by_status(self, status: str) -> list[Entry]:
        return [e for e in self.entries if e.status == status]

    def counts(self) -> dict[str, int]:
        return {s: len(self.by_status(s)) for s in STATUSES}


#: a translation unit that declares this interface has a d3d12.h (checked or included): its missing names are
#: listed in full; any other header's are summed up by kind
D3D12_H_MARKER = "ID3D12Device"

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


def _details(e: Entry) -> list[str]:
    out = [f"    {d.where}: {d.message}\n" for d in e.differences]
    out += [f"    note: {n}\n" for n in e.notes]
    if e.lacks:
        out.append(f"    the header lacks: {', '.join(e.lacks)}\n")
    return out


def format_text(report: HeaderReport) -> str:
    """Records first (one line each), then d3d12wl's declarations by status, what the header has in extra, and
    the verdict line ``verdict: PASS|FAIL: n different, n provisional, n missing, n equal``."""
    out = [f"abi check: {' '.join(report.headers)}\n", f"  {report.compiler}; {report.lang}\n"]
    records = [e for e in report.entries if e.kind in RECORD_KINDS]
    declarations = [e for e in report.entries if e.kind not in RECORD_KINDS]
    if records:
        out.append(f"\nrecord structs against the layout calculator: {len(records)}\n")
        rows = [(e.name, f"{e.header_name}{' (HLSL)' if e.kind == 'hlsl record' else ''}: {e.status}")
                for e in records]
        for e, line in zip(records, tables.render(None, rows, indent="  ", align=("<", "<")), strict=True):
            out.append(line + "\n")
            out += _details(e)
    for status in (DIFFERENT, PROVISIONAL):
        entries = [e for e in declarations if e.status == status]
        if entries:
            out.append(f"\n{_TITLES[status]}: {len(entries)}\n")
            for e in entries:
                out.append(f"  {_label(e)}\n")
                out += _details(e)
    equal = [e for e in declarations if e.status == EQUAL]
    partial = [e for e in equal if e.lacks or e.notes]
    if partial:
        out.append(f"\nequal, with notes or with names the header lacks: {len(partial)}\n")
        for e in partial:
            out.append(f"  {_label(e)}\n")
            out += _details(e)
    whole = [e for e in equal if not (e.lacks or e.notes)]
    if whole:
        out.append(f"\nequal: {len(whole)}\n")
        out.append(_wrap([e.name for e in whole], "  "))
    missing = [e for e in declarations if e.status == MISSING]
    if missing and report.declares_d3d12:
        out.append(f"\n{_TITLES[MISSING]}: {len(missing)}\n")
        out.append(_wrap([e.name for e in missing], "  "))
    elif missing:
        kinds: dict[str, int] = {}
        for e in missing:
            kinds[e.kind] = kinds.get(e.kind, 0) + 1
        out.append(f"\n{_TITLES[MISSING]}: {len(missing)} of d3d12wl's {len(declarations)} declarations "
                   f"({', '.join(f'{k} {n}' for k, n in kinds.items())}; not a d3d12.h: no {D3D12_H_MARKER} "
                   "declared; --json lists every name, --records-only checks the record structs alone)\n")
    extra_members = [e for e in declarations if e.extra]
    if extra_members or any(report.extra.values()):
        out.append("\nextra in the header (informational; --json lists every name):\n")
        for e in extra_members:
            what = "enumerators" if e.kind == "enum" else "fields"
            out.append(f"  {e.name}: {len(e.extra)} more {what}: {_some(e.extra)}\n")
        for kind, names in report.extra.items():
            if names:
                out.append(f"  {len(names)} {kind} d3d12wl does not declare: {_some(names)}\n")
    counts = report.counts()
    scope = " (record structs only)" if report.records_only else ""
    out.append(f"\nverdict{scope}: {'PASS' if report.ok else 'FAIL'}: " +
               ", ".join(f"{n} {s}" for s, n in counts.items()) + "\n")
    return "".join(out)


def to_json(report: HeaderReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "headers": report.headers,
        "compiler": report.compiler,
        "target": WINDOWS_TARGET if report.lang != "hlsl" else None,
        "lang": report.lang,
        "records_only": report.records_only,
        "counts": report.counts(),
        "entries": to_jsonable(report.entries),
        "extra": report.extra,
    }
