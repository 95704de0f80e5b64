"""Check anyone's header against d3d12wl's declarations: the Windows x64 ABI, byte for byte.

For every struct, union, enum, constant, typedef and callback type d3d12wl declares (the specs' own, see
``headers/``), the header under test is looked up by name (or by ``mapping``) and compared:

- struct/union: size, alignment, and for every field at every depth (anonymous members flattened as C does):
  offset, size, kind of value (integer, float, pointer, struct), an integer's signedness, array length,
  bit-field-ness, and the order of the fields both declare;
- enum: its size, its underlying type's signedness and every enumerator's value;
- constant (a ``#define``, a variable or an enumerator in the header): its value;
- typedef: size, alignment, kind and an integer's signedness; callback typedef: result and every parameter's size.

Signedness (:func:`compare_signedness`) is a difference when the two types read some value the field can hold as
different integers: always for two integer types (``INT`` and ``UINT`` read 0xFFFFFFF6 as -10 and 4294967286), and
for an enum (d3d12wl's enums have no fixed underlying type, so they are whatever the Windows target makes such an
enum, measured) only when one of its enumerators has the top bit set; otherwise it is a note.

Each gets a status: ``equal``, ``different`` (every difference named), ``provisional`` (it differs only in
values design.md marks provisional, and the header's value is given so a user can adopt it) or ``missing``
(the header does not declare it).  Fields and enumerators one side has and the other lacks are listed; they are
informational, as are the types the header declares that d3d12wl does not (``extra``).  Any difference makes
the verdict fail.  Record structs an engine declares for its own records are checked by
:mod:`d3d12wl.headercheck.records` in the same run.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from d3d12wl.abi.check import WINDOWS_TARGET
from d3d12wl.abi.compiled import ABI, FieldInfo
from d3d12wl.errors import ABIError
from d3d12wl.headercheck import records as header_records
from d3d12wl.headercheck.clang_ast import (
    FLOAT_TYPES,
    HeaderDecls,
    HeaderPath,
    HeaderRecord,
    HeaderTypedef,
    header_paths,
)
from d3d12wl.headercheck.probe import (
    PLAIN_ENUM,
    CompiledHeaders,
    HeaderOptions,
    ProbeResult,
    Probes,
    compile_headers,
    require_includable,
    run_probes,
    signed_probe,
)
from d3d12wl.headercheck.report import D3D12_H_MARKER, RECORD_KINDS, Difference, Entry, HeaderReport

# --- the d3d12wl side ------------------------------------------------------------------------------------


def spec_category(abi: ABI, f: FieldInfo) -> str:
    """'pointer' | 'float' | 'record' | 'integer' for one of d3d12wl's fields (enums are integers)."""
    if f.is_pointer:
        return "pointer"
    if f.nested is not None:
        return "record"
    base = abi.resolve(f.type.split("[", 1)[0].replace("const ", "").strip())
    if base in abi.decls.functions or base.endswith("*"):
        return "pointer"
    return "float" if base in FLOAT_TYPES else "integer"


def spec_integer(abi: ABI, type_text: str) -> tuple[bool | None, str | None]:
    """(signed, enum) of one of d3d12wl's integer types: ``(True/False, None)`` for a fixed-width integer (read off
    the compiled module), ``(None, name)`` for an enum (its signedness is the target's for an enum with no fixed
    underlying type: :data:`~d3d12wl.headercheck.probe.PLAIN_ENUM`)."""
    base = abi.resolve(type_text.split("[", 1)[0].replace("const ", "").strip())
    if base in abi.decls.enums:
        return None, base
    return int(abi.ffi.cast(base, -1)) < 0, None


def _as_int(value: int, size: int, signed: bool) -> int:
    bits = value & ((1 << (8 * size)) - 1)
    return bits - (1 << (8 * size)) if signed and bits >> (8 * size - 1) else bits


def _signedness(signed: bool, spelled: str) -> str:
    return f"{'signed' if signed else 'unsigned'} ({spelled})"


_INITIALIZER_RE = re.compile(r"^\s*(\w+)\s*=\s*(\w+)\s*,?\s*(?:/\*.*)?$", re.M)


def provisional_values(abi: ABI) -> dict[str, str]:
    """Every provisional enumerator and constant, with why: those marked in the headers, and those defined as one
    of them (``D3D12DDI_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH``)."""
    out = {p.name: p.why for p in abi.provisional() if p.kind != "type"}
    aliases = [(m.group(1), m.group(2)) for text in abi.headers.values() for m in _INITIALIZER_RE.finditer(text)]
    grew = True
    while grew:
        grew = False
        for name, source in aliases:
            if source in out and name not in out:
                out[name] = f"defined as {source}, which is provisional: {out[source]}"
                grew = True
    return out


def same_bits(a: int, b: int, size: int) -> bool:
    """Enumerator and constant values compare as the bits they are (0xFFFFFFFF and -1 agree in 4 bytes)."""
    bits = (1 << (8 * size)) - 1
    return a & bits == b & bits


# --- the header side ---------------------------------------------------------------------------------------


def _sizeof(spelled: str, lang_cxx: bool) -> tuple[str, str]:
    return f"sizeof({spelled})", f"{'alignof' if lang_cxx else '_Alignof'}({spelled})"


class Checker:
    """Plans the probes for every shared name, runs them once, and compares."""

    def __init__(self, compiled: CompiledHeaders, abi: ABI, mapping: dict[str, str] | None = None) -> None:
        self.compiled = compiled
        self.decls = compiled.decls
        self.abi = abi
        self.mapping = dict(mapping or {})
        self.cxx = compiled.options.cplusplus
        self.probes = Probes()
        self.result: ProbeResult | None = None

    # --- names ---------------------------------------------------------------------------------------------

    def record_name(self, name: str) -> str | None:
        want = self.mapping.get(name, name)
        for candidate in (want, f"struct {want}", f"union {want}"):
            if candidate in self.decls.names:
                return candidate
        return None

    def enum_name(self, name: str) -> str | None:
        want = self.mapping.get(name, name)
        return want if want in self.decls.enums else None

    def spell_enum(self, name: str) -> str:
        return name if self.cxx or name in self.decls.typedefs else f"enum {name}"

    # --- planning ------------------------------------------------------------------------------------------

    def plan_record(self, key: str, spelled: str, record: HeaderRecord) -> list[HeaderPath]:
        size, align = _sizeof(spelled, self.cxx)
        self.probes.add(f"{key}|sizeof", size)
        self.probes.add(f"{key}|alignof", align)
        paths = header_paths(self.decls, record)
        for hp in paths:
            if not hp.field.bitfield:
                self.probes.add(f"{key}|{hp.path}|offset", f"__builtin_offsetof({spelled}, {hp.path})")
                self.probes.add(f"{key}|{hp.path}|size", f"sizeof((({spelled} *)0)->{hp.path})")
                if self.decls.category(hp.field.type, hp.field.desugared, hp.field.record) == "integer":
                    element = "[0]" * len(re.findall(r"\[\d*\]", hp.field.desugared or hp.field.type))
                    self.probes.add(f"{key}|{hp.path}|signed",
                                    signed_probe(f"__typeof__((({spelled} *)0)->{hp.path}{element})", self.cxx))
        return paths

    def plain_enum_signed(self) -> bool | None:
        """Whether the target makes an enum with no fixed underlying type signed (None: not measured)."""
        got = self.value("P:plain-enum|signed")
        return None if got is None else bool(got)

    def compare_signedness(self, entry: Entry, key: str, where: str, spelled: str, ours_type: str, size: int,
                           why: str | None, what: str = "signedness") -> None:
        """The header's integer (or enum) type at ``key`` against d3d12wl's ``ours_type``: a difference when some
        value the field can hold reads as another integer (any value of two integer types; an enumerator with
        the top bit set of an enum), else, where only an enum's signedness differs, a note."""
        got = self.value(f"{key}|signed")
        if got is None:
            reason = self.rejected(f"{key}|signed") or "not measured"
            entry.notes.append(f"{where}: signedness not measured ({reason})")
            return
        theirs = bool(got)
        signed, enum = spec_integer(self.abi, ours_type)
        ours_text = ours_type
        if enum is not None:
            signed = self.plain_enum_signed()
            if signed is None:
                entry.notes.append(f"{where}: the target's enum signedness was not measured")
                return
            ours_text = f"{ours_type}, an enum with no fixed underlying type"
        if theirs == signed:
            return
        header, d3d12wl = _signedness(theirs, spelled), _signedness(bool(signed), ours_text)
        if enum is None:
            entry.differences.append(Difference(where, what, header, d3d12wl, why))
            return
        apart = [(m, v) for m, v in self.abi.enum_members(enum).items()
                 if _as_int(v, size, theirs) != _as_int(v, size, bool(signed))]
        if apart:
            m, v = apart[0]
            entry.differences.append(Difference(
                where, what, f"{header}: {m} reads {_as_int(v, size, theirs)}",
                f"{d3d12wl}: {_as_int(v, size, bool(signed))}", why))
        else:
            entry.notes.append(f"{where}: {what}: {header} in the header, {d3d12wl} in d3d12wl; every enumerator "
                               "of the enum reads the same in both")

    def value(self, key: str) -> int | None:
        assert self.result is not None
        return self.result.values.get(key)

    def rejected(self, key: str) -> str | None:
        assert self.result is not None
        return self.result.rejected.get(key)

    def run(self) -> None:
        self.result = run_probes(self.compiled, self.probes)

    # --- comparison: structs and unions ------------------------------------------------------------------

    def compare_record(self, entry: Entry, key: str, paths: list[HeaderPath], name: str) -> None:
        info = self.abi.type_info(name)
        why = info.provisional_why
        record = self.decls.record(str(entry.header_name))
        if record is not None and (record.kind == "union") != (info.kind == "union"):
            entry.differences.append(Difference(entry.name, "aggregate", record.kind, info.kind, why))
        self.measure(entry, key, "sizeof", entry.name, "size", info.size, why)
        self.measure(entry, key, "alignof", entry.name, "alignment", info.align, why)
        ours = {p: (f, off) for p, f, off in info.walk()}
        theirs = {hp.path: hp for hp in paths}
        for path, (f, off) in ours.items():
            hp = theirs.get(path)
            where = f"{entry.name}.{path}"
            if hp is None:
                entry.lacks.append(path)
                continue
            entry.compared += 1
            if hp.field.bitfield:
                entry.differences.append(Difference(where, "bit-field", "a bit-field", "a whole field", why))
                continue
            self.measure(entry, key, f"{path}|offset", where, "offset", off, why)
            self.measure(entry, key, f"{path}|size", where, "size", f.size, why)
            kind = self.decls.category(hp.field.type, hp.field.desugared, hp.field.record)
            if kind != spec_category(self.abi, f):
                entry.differences.append(Difference(where, "kind", f"{kind} ({hp.field.type})",
                                                    f"{spec_category(self.abi, f)} ({f.type})", why))
            elif kind == "integer":
                self.compare_signedness(entry, f"{key}|{path}", where, hp.field.type, f.type, f.size, why)
            if hp.field.array_length != f.array_length:
                entry.differences.append(Difference(where, "array length", hp.field.array_length,
                                                    f.array_length, why))
        extra = [p for p in theirs if p not in ours]
        self._renames(entry, key, ours, extra)
        entry.extra = [p for p in extra if not any(n.endswith(f"named {p} in the header") for n in entry.notes)]
        self._order(entry, [p for p in ours if p in theirs], [hp.path for hp in paths if hp.path in ours],
                    {hp.path: hp.parent for hp in paths}, why)

    def measure(self, entry: Entry, key: str, probe: str, where: str, what: str, ours: int, why: str | None
                 ) -> None:
        full = f"{key}|{probe}"
        got = self.value(full)
        if got is None:
            reason = self.rejected(full) or "not measured"
            entry.differences.append(Difference(where, what, f"unmeasurable ({reason})", ours, why))
        elif got != ours:
            entry.differences.append(Difference(where, what, got, ours, why))

    def _renames(self, entry: Entry, key: str, ours: dict[str, tuple[FieldInfo, int]], extra: list[str]) -> None:
        """A field the header lacks, where the header has another of the same offset and size: named apart,
        byte for byte the same (informational)."""
        by_place: dict[tuple[int | None, int | None], list[str]] = {}
        for p in extra:
            if "." not in p:
                by_place.setdefault((self.value(f"{key}|{p}|offset"), self.value(f"{key}|{p}|size")), []).append(p)
        for path in list(entry.lacks):
            if "." in path:
                continue
            f, off = ours[path]
            candidates = by_place.get((off, f.size), [])
            if len(candidates) == 1:
                entry.notes.append(f"{path}: named {candidates[0]} in the header")
                entry.lacks.remove(path)

    def _order(self, entry: Entry, ours: list[str], theirs: list[str], parents: dict[str, str],
               why: str | None) -> None:
        groups: dict[str, tuple[list[str], list[str]]] = {}
        for p in ours:
            groups.setdefault(parents[p], ([], []))[0].append(p)
        for p in theirs:
            groups.setdefault(parents[p], ([], []))[1].append(p)
        for parent, (a, b) in groups.items():
            if a != b:
                where = f"{entry.name}.{parent}" if parent else entry.name
                entry.differences.append(Difference(where, "field order", [p.rsplit(".", 1)[-1] for p in b],
                                                    [p.rsplit(".", 1)[-1] for p in a], why))


def _short(member: str) -> str:
    return member.rsplit("::", 1)[-1]


def check(compiled: CompiledHeaders, abi: ABI, *, mapping: dict[str, str] | None = None,
          records: Iterable[header_records.RecordBinding] = (), records_only: bool = False) -> HeaderReport:
    """Compare the compiled headers with ``abi``'s declarations (and the engine ``records``, see
    :mod:`d3d12wl.headercheck.records`) in one probe run: every probe is planned first, clang runs once, then each
    declaration's comparison reads the values.  ``records_only``: the engine records alone, none of d3d12wl's
    declarations."""
    c = Checker(compiled, abi, mapping)
    compares: list[tuple[Entry, Callable[[], None] | None]] = [] if records_only else _plan_declarations(c, abi)
    c.probes.add("P:plain-enum|signed", signed_probe(PLAIN_ENUM, c.cxx))
    bound = header_records.plan(c, list(records))
    c.run()
    for _entry, compare in compares:
        if compare is not None:
            compare()
    entries = [entry for entry, _compare in compares] + header_records.compare(c, bound)
    declares_d3d12 = any(n in c.decls.names for n in (D3D12_H_MARKER, f"struct {D3D12_H_MARKER}"))
    return HeaderReport([str(h) for h in compiled.options.headers], f"{compiled.compiler}, -target {WINDOWS_TARGET}",
                        compiled.options.lang, entries, {} if records_only else _extra(c, entries),
                        records_only=records_only, declares_d3d12=declares_d3d12)


def _plan_declarations(c: Checker, abi: ABI) -> list[tuple[Entry, Callable[[], None] | None]]:
    """An entry per declaration of ``abi`` with the comparison to run once the probes are measured (None: the
    header does not declare it)."""
    provisional = provisional_values(abi)
    compares: list[tuple[Entry, Callable[[], None] | None]] = []

    for name in abi.type_names():
        entry = Entry(abi.type_info(name).kind, name, c.record_name(name))
        if entry.header_name is None:
            compares.append((entry, None))
            continue
        record = c.decls.records.get(c.decls.names[entry.header_name])
        if record is None:  # declared (`typedef struct X X;`) but never defined: an incomplete type
            entry.notes.append(f"the header declares {entry.header_name} without defining it (an incomplete "
                               "type): it has no layout to compare")
            entry.header_name = None
            compares.append((entry, None))
            continue
        paths = c.plan_record(f"T:{name}", entry.header_name, record)
        compares.append((entry, partial(c.compare_record, entry, f"T:{name}", paths, name)))

    for ename in abi.enum_names():
        entry = Entry("enum", ename, c.enum_name(ename))
        if entry.header_name is None:
            compares.append((entry, None))
            continue
        c.probes.add(f"E:{ename}|sizeof", f"sizeof({c.spell_enum(entry.header_name)})")
        c.probes.add(f"E:{ename}|signed", signed_probe(c.spell_enum(entry.header_name), c.cxx))
        for m in c.decls.enums[entry.header_name].members:
            c.probes.add(f"E:{ename}|{_short(m)}", m)
        compares.append((entry, partial(_compare_enum, c, entry, ename, entry.header_name, provisional)))

    for cname, value in abi.constants().items():
        entry = Entry("constant", cname, c.mapping.get(cname, cname))
        known = entry.header_name in c.decls.variables or entry.header_name in c.decls.enumerators
        c.probes.add(f"C:{cname}", str(entry.header_name), ifdef=None if known else entry.header_name)
        compares.append((entry, partial(_compare_constant, c, entry, cname, value, provisional)))

    for alias in abi.decls.aliases:
        td = c.decls.typedefs.get(c.mapping.get(alias, alias))
        entry = Entry("typedef", alias, td.name if td is not None else None)
        if td is not None:
            size, align = _sizeof(td.name, c.cxx)
            c.probes.add(f"A:{alias}|sizeof", size)
            c.probes.add(f"A:{alias}|alignof", align)
            if c.decls.category(td.type, td.desugared) == "integer":
                c.probes.add(f"A:{alias}|signed", signed_probe(td.name, c.cxx))
        compares.append((entry, partial(_compare_alias, c, entry, alias, td) if td is not None else None))

    for fn in abi.decls.functions:
        td = c.decls.typedefs.get(c.mapping.get(fn, fn))
        entry = Entry("callback", fn, td.name if td is not None else None)
        if td is not None and td.callback is not None:
            for i, t in enumerate((td.callback.result, *td.callback.params)):
                if t.strip() != "void":
                    c.probes.add(f"F:{fn}|{i}", f"sizeof({t})")
        compares.append((entry, partial(_compare_callback, c, entry, fn, td) if td is not None else None))
    return compares


def _compare_enum(c: Checker, entry: Entry, ename: str, hname: str, provisional: dict[str, str]) -> None:
    size = c.abi.ffi.sizeof(ename)
    c.measure(entry, f"E:{ename}", "sizeof", ename, "size", size, None)
    c.compare_signedness(entry, f"E:{ename}", ename, hname, ename, size, None, "underlying type")
    header_members = {_short(m): c.value(f"E:{ename}|{_short(m)}") for m in c.decls.enums[hname].members}
    ours = c.abi.enum_members(ename)
    prefix = c.abi.enum_prefix(ename)
    if not any(m in header_members for m in ours):  # a C++ enum class may spell its enumerators short: DRAW
        header_members = {f"{prefix}{m}" if f"{prefix}{m}" in ours else m: v for m, v in header_members.items()}
    for member, value in ours.items():
        where = f"{ename}.{member}"
        why = provisional.get(member)
        if member not in header_members:
            entry.lacks.append(member)
            if why is not None:  # the value d3d12wl assumes may be the header's name for something else
                taken = [m for m, v in header_members.items() if v is not None and same_bits(v, value, size)]
                if taken:
                    entry.differences.append(Difference(where, "value taken", f"{value} is {', '.join(taken)}",
                                                        value, why))
            continue
        entry.compared += 1
        got = header_members[member]
        if got is None:
            reason = c.rejected(f"E:{ename}|{member}") or "not measured"
            entry.differences.append(Difference(where, "value", f"unmeasurable ({reason})", value, why))
            continue
        if not same_bits(got, value, size):
            entry.differences.append(Difference(where, "value", got, value, why))
    entry.extra = [m for m in header_members if m not in ours]


def _compare_constant(c: Checker, entry: Entry, cname: str, value: int, provisional: dict[str, str]) -> None:
    key = f"C:{cname}"
    assert c.result is not None
    if key in c.result.undefined:
        entry.header_name = None
        return
    got = c.value(key)
    why = provisional.get(cname)
    entry.compared = 1
    if got is None:
        reason = c.rejected(key) or "not measured"
        entry.differences.append(Difference(cname, "value", f"not an integer constant ({reason})", value, why))
        return
    size = 4 if -(1 << 31) <= got < (1 << 32) and -(1 << 31) <= value < (1 << 32) else 8
    if not same_bits(got, value, size):
        entry.differences.append(Difference(cname, "value", got, value, why))


def _compare_alias(c: Checker, entry: Entry, alias: str, td: HeaderTypedef) -> None:
    key = f"A:{alias}"
    entry.compared = 1
    c.measure(entry, key, "sizeof", alias, "size", c.abi.ffi.sizeof(alias), None)
    c.measure(entry, key, "alignof", alias, "alignment", c.abi.ffi.alignof(alias), None)
    ours = "float" if c.abi.resolve(alias) in FLOAT_TYPES else "integer"
    theirs = c.decls.category(td.type, td.desugared)
    if theirs != ours:
        entry.differences.append(Difference(alias, "kind", f"{theirs} ({td.desugared})", ours))
    elif ours == "integer":
        c.compare_signedness(entry, key, alias, td.desugared, c.abi.resolve(alias), c.abi.ffi.sizeof(alias), None)


def _compare_callback(c: Checker, entry: Entry, fn: str, td: HeaderTypedef) -> None:
    why = next((p.why for p in c.abi.provisional() if p.name == fn), None)  # a provisional declaration
    if td.callback is None:
        entry.differences.append(Difference(fn, "kind", f"not a function pointer ({td.desugared})",
                                            "a function pointer", why))
        return
    ctype = c.abi.ffi.typeof(fn)
    ours = [ctype.result, *ctype.args]
    theirs = [td.callback.result, *td.callback.params]
    entry.compared = len(ours)
    if len(theirs) != len(ours):
        entry.differences.append(Difference(fn, "parameter count", len(theirs) - 1, len(ours) - 1, why))
        return
    for i, (mine, t) in enumerate(zip(ours, theirs)):
        where = f"{fn}.{'result' if i == 0 else f'parameter {i}'}"
        mine_size = 0 if mine.kind == "void" else c.abi.ffi.sizeof(mine)
        if t.strip() == "void":
            if mine_size:
                entry.differences.append(Difference(where, "size", "void", mine_size, why))
            continue
        c.measure(entry, f"F:{fn}", str(i), where, "size", mine_size, why)


def _is_data(decls: HeaderDecls, name: str) -> bool:
    """A struct or union that holds data (COM interfaces and their vtables are not data structures)."""
    rec = decls.record(name)
    if rec is None or not rec.fields:
        return False
    base = name.split(" ", 1)[-1]
    return not base.endswith("Vtbl") and [f.name for f in rec.fields] != ["lpVtbl"]


def _extra(c: Checker, entries: list[Entry]) -> dict[str, list[str]]:
    """Names the checked headers themselves declare that d3d12wl does not (informational)."""
    known = {e.header_name for e in entries if e.header_name} | {e.name for e in entries}
    known |= {f"struct {n}" for n in known} | {f"union {n}" for n in known}
    structs = sorted({n.split(" ", 1)[-1] for n in c.decls.names
                      if n not in known and c.compiled.declared_by_headers(n) and _is_data(c.decls, n)} - known)
    enums = sorted(n for n in c.decls.enums if n not in known and c.compiled.declared_by_headers(n))
    callbacks = sorted(n for n, td in c.decls.typedefs.items()
                       if td.callback is not None and n not in known and c.compiled.declared_by_headers(n))
    return {"structs": structs, "enums": enums, "callbacks": callbacks}


def check_files(headers: Sequence[Path | str] = (), *, hlsl: Sequence[Path | str] = (),
                signature: Path | str | None = None, records: dict[str, str] | None = None,
                mapping: dict[str, str] | None = None, includes: Sequence[Path | str] = (),
                defines: Sequence[str] = (), lang: str = "c++", prelude: str = "auto",
                abi: ABI | None = None, records_only: bool = False) -> HeaderReport:
    """The whole check, as ``d3d12wl abi check --header/--hlsl`` runs it: compile ``headers`` for the Windows
    x64 target and compare them with ``abi`` (default: the installed headers); with ``signature``, bind the
    engine's record structs (``records``: record id -> struct, merged over the description's
    ``record_structs``; none: codegen's names) and check them in ``headers`` and in ``hlsl``.

    Raises :class:`ABIError` for what cannot be checked: a missing file or tool, headers that do not compile,
    an unknown record class or struct, a signature with no record struct found.  ``records_only``: check the
    engine's record structs alone (it needs ``signature``), not d3d12wl's declarations."""
    from d3d12wl import abi as abi_module

    if not headers and not hlsl:
        raise ABIError("nothing to check: give a header (or HLSL)", where="--header")
    if records and signature is None:
        raise ABIError("--record-struct needs --description (the description the record classes come from)", where="--record-struct")
    if hlsl and signature is None:
        raise ABIError("--hlsl checks record structs, so it needs --description", where="--hlsl")
    if records_only and signature is None:
        raise ABIError("--records-only checks the engine's record structs, so it needs --description",
                       where="--records-only")
    for h in hlsl:  # (every path the user gave is checked before any tool is looked for)
        require_includable(h, where=f"--hlsl {h}")
    bindings = header_records.bind(signature, dict(records or {})) if signature is not None else []
    include_dirs, define_list = tuple(Path(d) for d in includes), tuple(defines)
    report = HeaderReport([], "", "", [], {}, records_only=records_only)
    with tempfile.TemporaryDirectory(prefix="d3d12wl-header-") as tmp:
        if headers:
            options = HeaderOptions(tuple(Path(h) for h in headers), include_dirs, define_list, lang, prelude)
            report = check(compile_headers(options, Path(tmp)), abi or abi_module.default, mapping=mapping,
                           records=bindings, records_only=records_only)
        if hlsl:
            files = [Path(h) for h in hlsl]
            report.entries += header_records.check_hlsl(files, bindings, Path(tmp), defines=define_list,
                                                        includes=include_dirs)
            report.headers += [str(h) for h in files]
            report.compiler = "; ".join(c for c in (report.compiler, "glslc -x hlsl, D3D12 structured-buffer layout")
                                        if c)
            report.lang = " + ".join(x for x in (report.lang, "hlsl") if x)
    if bindings and not any(e.kind in RECORD_KINDS for e in report.entries):
        names = ", ".join(f"{b.record}={b.struct}" for b in bindings)
        raise ABIError(f"no record struct to check: the headers declare none of d3d12wl codegen's names ({names}); "
                       "bind them with --record-struct ID=STRUCT or the description's record_structs", where="--description")
    return report
