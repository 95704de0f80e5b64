"""ABI truth checks: the compiled headers against four independent truths.

1. ``check_clang``: clang ``-target x86_64-pc-windows-msvc`` (the Windows ABI itself) on generated
   ``_Static_assert`` s of sizeof / _Alignof / offsetof / field sizeof of every type and field at every
   depth, and of every enum member's value;
2. ``check_spec``: the bytes the specs state (``SPEC_FACTS`` below, each with its section);
3. ``check_d3d12h``: Debian's ``directx-headers-dev`` ``d3d12.h`` / ``d3d12sdklayers.h`` for every
   pre-existing type, field and enum member we redeclare (compiled with the host C compiler through
   the WSL stubs); what it lacks is reported, not failed;
4. ``check_mirrors``: the ctypes and numpy mirrors (``abi_mirrors``) field by field.

Every check takes an :class:`~d3d12wl.abi.ABI`, so it runs as well on a mutated copy of the headers
compiled with :func:`compile_headers` as on the installed ones.  A check whose tool is missing
returns ``skipped`` with the reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from d3d12wl import inputs
from d3d12wl._version import MESSAGES_SPEC, WORK_LISTS_SPEC
from d3d12wl.abi.compiled import ABI
from d3d12wl.abi.tools import run_tool
from d3d12wl.errors import ABIError


@dataclass(frozen=True)
class Finding:
    """One disagreement: ``where`` is ``TYPE.field.path`` (or ``ENUM.MEMBER``)."""

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.message}"


@dataclass
class CheckResult:
    name: str
    description: str
    skipped: str | None = None  # reason, when the check could not run
    findings: list[Finding] = field(default_factory=list)
    types: int = 0
    fields: int = 0
    enum_members: int = 0
    other: int = 0  # constants, typedefs, function pointers
    lacks: list[str] = field(default_factory=list)  # names the reference does not have (informational)

    @property
    def ok(self) -> bool:
        return not self.findings

    def counts(self) -> str:
        return f"{self.types} types, {self.fields} fields, {self.enum_members} enum members"


# --- tools ----------------------------------------------------------------------------------------

WINDOWS_TARGET = "x86_64-pc-windows-msvc"
#: the default DirectX-Headers include root (Debian's directx-headers-dev): the folder holding directx/d3d12.h
#: and wsl/winadapter.h (a DirectX-Headers checkout's include/ folder has the same shape)
D3D12_INCLUDE_ROOT = Path("/usr/include")
#: the environment variable that names another include root (``d3d12wl abi check --directx-headers DIR`` sets it)
D3D12_INCLUDE_ENV = "D3D12WL_DIRECTX_HEADERS"


#: the environment variable that names the clang to run (default: ``clang`` on the PATH)
CLANG_ENV = "D3D12WL_CLANG"


def d3d12_include_root() -> Path:
    """The DirectX-Headers include root in use: ``$D3D12WL_DIRECTX_HEADERS``, else :data:`D3D12_INCLUDE_ROOT`."""
    value = os.environ.get(D3D12_INCLUDE_ENV)
    return Path(value) if value else D3D12_INCLUDE_ROOT


def find_clang() -> str | None:
    """``$D3D12WL_CLANG`` (which must name an executable file: anything else is an :class:`ABIError` naming the
    variable, exit 2), else ``clang`` on the PATH, else None."""
    value = os.environ.get(CLANG_ENV)
    if not value:
        return shutil.which("clang")
    kind = inputs.path_kind(value, where=f"${CLANG_ENV}")
    if kind != "a regular file" or not os.access(value, os.X_OK):
        why = "names nothing" if kind is None else f"names {kind}" if kind != "a regular file" else \
            "names a file that is not executable"
        raise ABIError(f"${CLANG_ENV} {why} ({value!r}); name the clang to run, or unset it to use the PATH's",
                       where=f"${CLANG_ENV}")
    return value


def find_host_cc() -> str | None:
    return (
        os.environ.get("CC")
        if os.environ.get("CC") and shutil.which(os.environ["CC"])
        else (shutil.which("gcc") or shutil.which("clang") or shutil.which("cc"))
    )


def find_d3d12_headers(root: Path | None = None) -> Path | None:
    """The include root holding ``directx/d3d12.h`` and ``wsl/winadapter.h``, if installed (``root``, default
    :func:`d3d12_include_root`)."""
    named = root is None and bool(os.environ.get(D3D12_INCLUDE_ENV))
    root = d3d12_include_root() if root is None else root
    where = f"${D3D12_INCLUDE_ENV}" if named else str(root)
    if all(inputs.path_kind(root / sub, where=where) == "a regular file"
           for sub in ("directx/d3d12.h", "wsl/winadapter.h")):
        return root
    return None


# --- compile a header set ---------------------------------------------------------------------------

_counter = itertools.count()
_compiled: dict[str, ABI] = {}  # in-process cache: header texts digest -> loaded ABI


def compile_headers(headers: dict[str, str], workdir: Path) -> ABI:
    """Compile header texts with cffi (API mode, as build_ffi does) into ``workdir`` and load them
    (once per process for the same texts)."""
    key = hashlib.sha256(json.dumps(headers).encode("utf-8")).hexdigest()
    if key in _compiled:
        return _compiled[key]
    build_ffi = _import_build_ffi()
    name = f"d3d12wl_check_{os.getpid()}_{next(_counter)}"
    builder = build_ffi.make_ffi(headers, module_name=name, kernels=False)  # the headers alone
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        path = builder.compile(tmpdir=str(workdir), verbose=False)
    except Exception as exc:  # cffi.VerificationError / CompileError
        raise ABIError(f"the headers do not compile: {exc}") from exc
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _compiled[key] = ABI.from_module(module)
    return _compiled[key]


def _import_build_ffi() -> ModuleType:
    from d3d12wl.abi import _ffi_builder

    return _ffi_builder


def read_headers(folder: Path) -> dict[str, str]:
    """The header texts of a folder of headers (``abi check --headers DIR``), by file name in build order: what
    :func:`compile_headers` takes."""
    texts: dict[str, str] = _import_build_ffi().read_headers(folder)
    return texts


def header_source(abi: ABI) -> str:
    return "#include <stdint.h>\n#include <stddef.h>\n" + "\n".join(abi.headers.values()) + "\n"


# --- 1. clang, Windows target -------------------------------------------------------------------------

_TAG_RE = re.compile(r"d3d12wl\|([^|]*)\|([^|]*)\|([^|]*)\|([^|\"']*)")


@dataclass
class _Assertions:
    lines: list[str] = field(default_factory=list)
    meta: dict[int, tuple[str, str, int]] = field(default_factory=dict)  # line no -> (where, what, expected)

    def add(self, expr: str, where: str, what: str, expected: int) -> None:
        self.lines.append(f'_Static_assert({expr} == {expected}, "d3d12wl|{where}|{what}|{expected}|");')

    def text(self, first_line: int) -> str:
        for i, line in enumerate(self.lines):
            m = _TAG_RE.search(line)
            if m:
                self.meta[first_line + i] = (m.group(1), m.group(2), int(m.group(3)))
        return "\n".join(self.lines) + "\n"


def _layout_assertions(abi: ABI, names: Iterable[str], out: _Assertions, counter: CheckResult) -> None:
    for name in names:
        info = abi.type_info(name)
        counter.types += 1
        out.add(f"sizeof({name})", name, "sizeof", info.size)
        out.add(f"_Alignof({name})", name, "alignof", info.align)
        for path, f, off in info.walk():
            counter.fields += 1
            out.add(f"offsetof({name}, {path})", f"{name}.{path}", "offset", off)
            out.add(f"sizeof((({name} *)0)->{path})", f"{name}.{path}", "size", f.size)


def _enum_assertions(abi: ABI, out: _Assertions, counter: CheckResult, only: set[str] | None = None) -> None:
    for ename in abi.enum_names():
        members = abi.enum_members(ename)
        if only is None:
            out.add(f"sizeof({ename})", ename, "sizeof", 4)
        for member, value in members.items():
            if only is not None and member not in only:
                continue
            counter.enum_members += 1
            out.add(member, f"{ename}.{member}", "value", value)


def _compile_findings(
    check: str, proc: subprocess.CompletedProcess[str], asserts: _Assertions, source_name: str
) -> tuple[list[Finding], list[tuple[str, str]]]:
    """(disagreements, missing) from compiler diagnostics, mapped to assertion lines."""
    findings: list[Finding] = []
    missing: list[tuple[str, str]] = []
    seen: set[int] = set()
    pattern = re.compile(rf"^{re.escape(source_name)}:(\d+):\d+: (?:fatal )?error: (.*)$", re.M)
    for m in pattern.finditer(proc.stderr):
        line, msg = int(m.group(1)), m.group(2)
        meta = asserts.meta.get(line)
        if meta is None:
            findings.append(Finding(check, f"{source_name}:{line}", msg))
            continue
        if line in seen:
            continue
        seen.add(line)
        where, what, expected = meta
        if "no member named" in msg or "has no member" in msg or "undeclared" in msg or "unknown type" in msg:
            missing.append((where, what))
        else:
            findings.append(Finding(check, where, f"{what} is not {expected} (d3d12wl's compiled value)"))
    if proc.returncode != 0 and not findings and not missing:
        findings.append(Finding(check, source_name, (proc.stderr or proc.stdout).strip()[:2000]))
    return findings, missing


def check_clang(abi: ABI, *, clang: str | None = None, workdir: Path | None = None) -> CheckResult:
    """Truth 2: every type, field (all depths) and enum member under clang -target x86_64-pc-windows-msvc."""
    result = CheckResult("clang", f"clang -target {WINDOWS_TARGET} static assertions vs the compiled module")
    clang = clang or find_clang()
    if clang is None:
        result.skipped = "clang not found (apt-get install clang)"
        return result
    asserts = _Assertions()
    _layout_assertions(abi, abi.type_names(), asserts, result)
    _enum_assertions(abi, asserts, result)
    for name in abi.decls.aliases:
        result.other += 1
        asserts.add(f"sizeof({name})", name, "sizeof", abi.ffi.sizeof(name))
    for name in abi.decls.functions:
        result.other += 1
        asserts.add(f"sizeof({name})", name, "sizeof", 8)
    for name, value in abi.constants().items():
        result.other += 1
        asserts.add(name, name, "value", value)
    src = header_source(abi)
    text = src + asserts.text(src.count("\n") + 1)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "abi_windows.c"
        path.write_text(text)
        cmd = [
            clang,
            "-target",
            WINDOWS_TARGET,
            "-ffreestanding",
            "-std=c11",
            "-fsyntax-only",
            "-ferror-limit=0",
            "-Wno-microsoft-anon-tag",
            path.name,
        ]
        proc = run_tool(cmd, Path(tmp))
    findings, missing = _compile_findings("clang", proc, asserts, path.name)
    result.findings = findings + [
        Finding("clang", w, f"{what}: not declared for the Windows target") for w, what in missing
    ]
    return result


# --- 2. the spec's stated bytes ----------------------------------------------------------------------------

W = WORK_LISTS_SPEC  # (the v0.85 draft, seed 000, states the same bytes: v0.851 changed no struct)
E = "IndirectDrawing.md / seed 002"
M = f"seed 003 ({MESSAGES_SPEC})"


@dataclass(frozen=True)
class SpecFact:
    type: str
    size: int | None
    offsets: dict[str, int]
    section: str
    field_sizes: dict[str, int] = field(default_factory=dict)


#: every struct whose size or offsets the specs state; each number as the spec states it, with its section
SPEC_FACTS: tuple[SpecFact, ...] = (
    SpecFact(
        "D3D12_DISPATCH_LIST_INPUT",
        24,
        {},
        f"{W} API > DispatchList Structures > D3D12_DISPATCH_LIST_INPUT ('// 24 bytes')",
    ),
    SpecFact(
        "D3D12_DISPATCH_LIST_INPUT1",
        40,
        {"ProgramInputs": 16},
        f"{W} API > DispatchList1 Structures > D3D12_DISPATCH_LIST_INPUT1 ('// 40 bytes'; ReservedPadding "
        "'pads the ProgramInputs address-and-stride value below to its natural 8-byte alignment')",
    ),
    SpecFact(
        "D3D12_WORK_LIST_PRIMARY_RECORD",
        16,
        {"ProgramTableIndex": 0, "NumSecondaryRecords": 4, "SecondaryRecords": 8},
        f"{W} Primary record layout, hybrid table ([0..3] [4..7] [8..15], payload at [16..])",
        {"ProgramTableIndex": 4, "NumSecondaryRecords": 4, "SecondaryRecords": 8},
    ),
    SpecFact(
        "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD",
        4,
        {"ProgramTableIndex": 0},
        f"{W} Primary record layout, fully-inline table ([0..3], payload at [4..])",
        {"ProgramTableIndex": 4},
    ),
    SpecFact(
        "D3D12_WORK_LIST_RAYTRACING_RECORD",
        16,
        {"NumSecondaryRecords": 0, "ReservedPadding": 4, "SecondaryRecords": 8},
        f"{W} Primary record layout, raytracing-class hybrid table ([0..3] [4..7] padding [8..15], payload at [16..])",
        {"NumSecondaryRecords": 4, "ReservedPadding": 4, "SecondaryRecords": 8},
    ),
    SpecFact(
        "D3D12DDI_DISPATCH_LIST_INPUT", 24, {}, f"{W} DDI Design > GPU-resident structs (same bytes as the API struct)"
    ),
    SpecFact("D3D12DDI_DISPATCH_LIST_INPUT1", 40, {"ProgramInputs": 16}, f"{W} DDI Design > GPU-resident structs"),
    SpecFact(
        "D3D12DDI_WORK_LIST_PRIMARY_RECORD",
        16,
        {"ProgramTableIndex": 0, "NumSecondaryRecords": 4, "SecondaryRecords": 8},
        f"{W} DDI Design > GPU-resident structs",
    ),
    SpecFact(
        "D3D12DDI_WORK_LIST_INLINE_PRIMARY_RECORD",
        4,
        {"ProgramTableIndex": 0},
        f"{W} DDI Design > GPU-resident structs",
    ),
    SpecFact(
        "D3D12DDI_WORK_LIST_RAYTRACING_RECORD",
        16,
        {"NumSecondaryRecords": 0, "ReservedPadding": 4, "SecondaryRecords": 8},
        f"{W} DDI Design > GPU-resident structs",
    ),
    SpecFact(
        "D3D12_PROGRAM_IDENTIFIER",
        32,
        {},
        f"{W} Program table record layout ('32-byte opaque identifier'; slot bytes [0..31]; "
        "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING 'sizeof(D3D12_PROGRAM_IDENTIFIER) = 32')",
    ),
    SpecFact(
        "D3D12_DISPATCH_RAYS_DIMENSIONS",
        12,
        {"Width": 0, "Height": 4, "Depth": 8},
        f"{W} API > D3D12_DISPATCH_RAYS_DIMENSIONS ('// 12 bytes') and Per-arg natural alignment",
    ),
    SpecFact(
        "D3D12DDI_DISPATCH_RAYS_DIMENSIONS_0125",
        12,
        {},
        f"{W} DDI Design > GPU-resident structs ('Width, Height, Depth, 12 bytes')",
    ),
    SpecFact(
        "D3D12_GPU_DESCRIPTOR_HANDLE", 8, {}, f"{W} Per-argument-type layouts > _DESCRIPTOR_TABLE (8 per-record bytes)"
    ),
    SpecFact("D3D12_VERTEX_BUFFER_VIEW", 16, {}, f"{W} Per-arg natural alignment (16 bytes)"),
    SpecFact("D3D12_INDEX_BUFFER_VIEW", 16, {}, f"{W} Per-arg natural alignment (16 bytes)"),
    SpecFact("D3D12_DRAW_ARGUMENTS", 16, {}, f"{W} Per-arg natural alignment (16 bytes); {E}"),
    SpecFact("D3D12_DRAW_INDEXED_ARGUMENTS", 20, {}, f"{W} Per-arg natural alignment (20 bytes); {E}"),
    SpecFact("D3D12_DISPATCH_ARGUMENTS", 12, {}, f"{W} Per-arg natural alignment (12 bytes)"),
    SpecFact("D3D12_DISPATCH_MESH_ARGUMENTS", 12, {}, f"{W} Per-arg natural alignment (12 bytes)"),
    SpecFact(
        "D3D12DDI_DRIVER_REPORTED_MESSAGE_0126",
        None,
        {},
        f"{M} Message reporting ('VendorMessageId is an opaque 8-byte identifier')",
        {"VendorMessageId": 8},
    ),
)

#: enum values the specs state, as stated (the 11 Work Lists argument types are provisional: design.md)
SPEC_ENUM_VALUES: tuple[tuple[str, dict[str, int], str], ...] = (
    ("D3D12_WORK_LISTS_TIER", {"NOT_SUPPORTED": 0, "1": 10, "2": 20}, f"{W} API > D3D12_WORK_LISTS_TIER"),
    (
        "D3D12_INDIRECT_ARGUMENT_SOURCE",
        {"PRIMARY_RECORD": 1, "SECONDARY_RECORD": 2, "SYSTEM": 3, "PROGRAM_TABLE_RECORD": 4, "STATIC": 5},
        f"{W} API > D3D12_INDIRECT_ARGUMENT_SOURCE",
    ),
    (
        "D3D12_INDIRECT_ARGUMENT_BINDING",
        {"GLOBAL_ROOT_SIGNATURE": 0, "LOCAL_ROOT_SIGNATURE": 1},
        f"{W} API > D3D12_INDIRECT_ARGUMENT_BINDING",
    ),
    ("D3D12_INCREMENTING_CONSTANT_FLAGS", {"NONE": 0, "RESET_PER_SECONDARY_LIST": 1}, f"{W} _INCREMENTING_CONSTANT"),
    (
        "D3D12_PROGRAM_TYPE",
        {"GENERIC_PIPELINE": 1, "RAYTRACING_PIPELINE": 4, "WORK_GRAPH": 5, "WORK_LIST": 7, "WORK_LIST1": 8},
        f"{W} API > D3D12_PROGRAM_TYPE",
    ),
    ("D3D12_WORK_LIST_BINDING_TYPE", {"PROGRAM_TABLE": 0, "RAYTRACING": 1}, f"{W} API > D3D12_WORK_LIST_BINDING_TYPE"),
    (
        "D3D12_DISPATCH_LIST_FLAGS",
        {"NONE": 0, "ALLOW_OUT_OF_ORDER_GRAPHICS": 1},
        f"{W} API > D3D12_DISPATCH_LIST_FLAGS",
    ),
    (
        "D3D12_DISPATCH_LIST_FLAGS1",
        {
            "NONE": 0,
            "ALLOW_OUT_OF_ORDER_GRAPHICS": 1,
            "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION": 2,
            "END_WITH_WAIT_FOR_COMPLETION": 4,
            "END_WITH_MEMORY_FLUSH": 8,
        },
        f"{W} API > D3D12_DISPATCH_LIST_FLAGS1",
    ),
    (
        "D3D12_INDIRECT_ARGUMENT_TYPE",
        {
            "DRAW": 0,
            "DRAW_INDEXED": 1,
            "DISPATCH": 2,
            "VERTEX_BUFFER_VIEW": 3,
            "INDEX_BUFFER_VIEW": 4,
            "CONSTANT": 5,
            "CONSTANT_BUFFER_VIEW": 6,
            "SHADER_RESOURCE_VIEW": 7,
            "UNORDERED_ACCESS_VIEW": 8,
            "DISPATCH_RAYS": 9,
            "DISPATCH_MESH": 10,
            "INCREMENTING_CONSTANT": 11,
        },
        "IndirectDrawing.md Command signature creation (implicit enumerator values 0..11)",
    ),
    ("D3D12_EXECUTE_INDIRECT_TIER", {"1_0": 10, "1_1": 11}, "IndirectDrawing.md Feature tiers"),
    ("D3D12_MESSAGE_ID", {"DRIVER_REPORTED_MESSAGE": 1506}, f"{M} D3D12_MESSAGE_ID"),
    ("D3D12DDI_FEATURE_0020", {"0126_DRIVER_REPORTED_MESSAGES": 32}, f"{M} Enabling the feature"),
    ("D3D12DDI_TABLE_TYPE", {"0126_DRIVER_REPORTED_MESSAGES": 47}, f"{M} D3D12DDI_TABLE_TYPE"),
    (
        "D3D12DDI_MESSAGE_SEVERITY_0126",
        {"CORRUPTION": 0, "ERROR": 1, "WARNING": 2, "INFO": 3, "MESSAGE": 4},
        f"{M} D3D12DDI_MESSAGE_SEVERITY_0126",
    ),
    (
        "D3D12DDI_MESSAGE_CATEGORY_0126",
        {
            "APPLICATION_DEFINED": 0,
            "MISCELLANEOUS": 1,
            "INITIALIZATION": 2,
            "CLEANUP": 3,
            "COMPILATION": 4,
            "STATE_CREATION": 5,
            "STATE_SETTING": 6,
            "STATE_GETTING": 7,
            "RESOURCE_MANIPULATION": 8,
            "EXECUTION": 9,
            "SHADER": 10,
            "STATE_OBJECT_DATABASE": 11,
        },
        f"{M} D3D12DDI_MESSAGE_CATEGORY_0126",
    ),
)

SPEC_CONSTANTS: tuple[tuple[str, int, str], ...] = (
    ("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE", 4096, f"{W} Constants"),
    ("D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT", 256,
     "IndirectDrawing.md Command signature Creation (CBV -- Address and size must be a multiple of 256 bytes)"),
    ("D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE", 0, f"{M} feature version macros"),
    ("D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0", 1, f"{M} feature version macros"),
)


def check_spec(abi: ABI) -> CheckResult:
    """Truth 3: the sizes, offsets and enum values the specs state."""
    result = CheckResult("spec", "the specs' stated bytes and values (SPEC_FACTS, SPEC_ENUM_VALUES)")
    for fact in SPEC_FACTS:
        result.types += 1
        try:
            info = abi.type_info(fact.type)
        except ABIError as exc:
            result.findings.append(Finding("spec", fact.type, f"{exc} [{fact.section}]"))
            continue
        if fact.size is not None and info.size != fact.size:
            result.findings.append(
                Finding("spec", fact.type, f"sizeof is {info.size}, spec says {fact.size} [{fact.section}]")
            )
        for path, expected in fact.offsets.items():
            result.fields += 1
            try:
                got = abi.offsetof(fact.type, path)
            except ABIError as exc:
                result.findings.append(Finding("spec", f"{fact.type}.{path}", f"{exc} [{fact.section}]"))
                continue
            if got != expected:
                result.findings.append(
                    Finding("spec", f"{fact.type}.{path}", f"offset is {got}, spec says {expected} [{fact.section}]")
                )
        for path, expected in fact.field_sizes.items():
            result.fields += 1
            try:
                got = abi.field(fact.type, path).size
            except ABIError as exc:
                result.findings.append(Finding("spec", f"{fact.type}.{path}", f"{exc} [{fact.section}]"))
                continue
            if got != expected:
                result.findings.append(
                    Finding("spec", f"{fact.type}.{path}", f"size is {got}, spec says {expected} [{fact.section}]")
                )
    for ename, members, section in SPEC_ENUM_VALUES:
        for member, expected in members.items():
            result.enum_members += 1
            try:
                got = abi.enum_value(ename, member)
            except ABIError as exc:
                result.findings.append(Finding("spec", f"{ename}.{member}", f"{exc} [{section}]"))
                continue
            if got != expected:
                result.findings.append(
                    Finding("spec", f"{ename}.{member}", f"value is {got}, spec says {expected} [{section}]")
                )
    _check_ddi_mirrors(abi, result)
    for name, expected, section in SPEC_CONSTANTS:
        result.other += 1
        try:
            got = abi.constant(name)
        except ABIError as exc:
            result.findings.append(Finding("spec", name, f"{exc} [{section}]"))
            continue
        if got != expected:
            result.findings.append(Finding("spec", name, f"value is {got}, spec says {expected} [{section}]"))
    return result


#: Spec sections the DDI-mirror facts come from.
DDI_MIRROR_SECTION = (f"{W} DDI Design ('The DDI surface mirrors the API surface 1:1'; GPU-resident structs 'have "
                      "the same byte layout as their API counterparts')")
#: DDI structs whose API counterpart is not their name with D3D12DDI_ -> D3D12_ and the _0NNN suffix dropped.
DDI_MIRROR_RENAMES = {"D3D12DDI_OPTIONS_DATA_WORK_LISTS": "D3D12_FEATURE_DATA_WORK_LISTS"}


def ddi_api_counterpart(abi: ABI, ddi_name: str) -> str | None:
    """The API struct a D3D12DDI_ struct mirrors, or None when it has none (handles, DDI-only tables)."""
    api = DDI_MIRROR_RENAMES.get(ddi_name) or re.sub(r"_0\d{3}$", "", ddi_name.replace("D3D12DDI_", "D3D12_", 1))
    return api if api in abi.decls.aggregates else None


def _mirror_key(field_name: str) -> str:
    """A member name with its pointer/handle prefix dropped (API ``pSignature`` ~ DDI ``hSignature``)."""
    return re.sub(r"^(?:pp|ph|p|h)(?=[A-Z])", "", field_name)


def _check_ddi_mirrors(abi: ABI, result: CheckResult) -> None:
    """Every DDI struct with an API counterpart has its size and, member by member (matched by name, interface
    pointers ``pX`` becoming handles ``hX`` of the same size), the same offsets and sizes."""
    for ddi in abi.decls.aggregates:
        api = ddi_api_counterpart(abi, ddi) if ddi.startswith("D3D12DDI_") else None
        if api is None:
            continue
        d, a = abi.type_info(ddi), abi.type_info(api)
        result.types += 1
        if d.size != a.size:
            result.findings.append(Finding("spec", api, f"sizeof is {a.size}, its DDI mirror {ddi} is {d.size} "
                                                        f"[{DDI_MIRROR_SECTION}]"))
        ddi_fields = {_mirror_key(f.name): f for f in d.fields}
        for af in a.fields:
            result.fields += 1
            df = ddi_fields.pop(_mirror_key(af.name), None)
            if df is None:
                result.findings.append(Finding("spec", f"{api}.{af.name}", f"has no counterpart in its DDI mirror "
                                                                          f"{ddi} [{DDI_MIRROR_SECTION}]"))
            elif (df.offset, df.size) != (af.offset, af.size):
                result.findings.append(Finding(
                    "spec", f"{api}.{af.name}", f"is at offset {af.offset} ({af.size} bytes); its DDI mirror "
                    f"{ddi}.{df.name} is at offset {df.offset} ({df.size} bytes) [{DDI_MIRROR_SECTION}]"))
        for df in ddi_fields.values():
            result.findings.append(Finding("spec", f"{ddi}.{df.name}", f"has no counterpart in {api} "
                                                                      f"[{DDI_MIRROR_SECTION}]"))


# --- 3. Debian's d3d12.h -------------------------------------------------------------------------------------

#: header files whose declarations are (re)declarations of pre-existing D3D12 API types
PRE_EXISTING_HEADERS = ("d3d12wl_base.h", "d3d12wl_execute_indirect.h", "d3d12wl_messages.h")
#: pre-existing names declared among the Work Lists declarations
PRE_EXISTING_EXTRA = (
    "D3D12_PROGRAM_TYPE",
    "D3D12_PROGRAM_TYPE_GENERIC_PIPELINE",
    "D3D12_PROGRAM_TYPE_RAYTRACING_PIPELINE",
    "D3D12_PROGRAM_TYPE_WORK_GRAPH",
    "D3D12_SET_PROGRAM_DESC",
    "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE",
)


def _pre_existing(abi: ABI) -> tuple[list[str], list[str], list[str]]:
    """(types, enums, enum members) we redeclare from the D3D12 API (not DDI, not new)."""
    new = {m.name for m in abi.decls.provisional}

    def pre(name: str) -> bool:
        return (
            not name.startswith("D3D12DDI")
            and name not in new
            and (abi.decls.origin.get(name) in PRE_EXISTING_HEADERS or name in PRE_EXISTING_EXTRA)
        )

    types = [n for n in abi.type_names() if pre(n)]
    enums = [n for n in abi.enum_names() if pre(n)]
    members = [
        m for e in abi.enum_names() for m in abi.enum_members(e) if pre(m) and (pre(e) or e in PRE_EXISTING_EXTRA)
    ]
    return types, enums, members


def _reference_header(root: Path, name: str) -> str:
    """One header of the DirectX-Headers root, read within bounds; a root that lacks it (an incomplete folder
    named by the environment or ``--directx-headers``) is an :class:`ABIError` naming it (exit 2)."""
    path = root / "directx" / name
    try:
        return inputs.read_bytes(path, what="DirectX header").decode("utf-8", "replace")
    except inputs.InputError as exc:
        raise ABIError(f"the DirectX-Headers include root {str(root)!r} (${D3D12_INCLUDE_ENV} or --directx-headers) "
                       f"is incomplete: {exc.message}", where=str(path)) from None


def check_d3d12h(
    abi: ABI, *, include_root: Path | None = None, cc: str | None = None, workdir: Path | None = None
) -> CheckResult:
    """Truth 4: the real d3d12.h (directx-headers-dev) for every pre-existing type, field and enum member."""
    result = CheckResult("d3d12h", "Debian directx-headers-dev d3d12.h / d3d12sdklayers.h vs the compiled module")
    root = include_root or find_d3d12_headers()
    if root is None:
        result.skipped = (
            f"directx-headers-dev not installed ({d3d12_include_root() / 'directx' / 'd3d12.h'}; apt-get install "
            f"directx-headers-dev, or name another include root with {D3D12_INCLUDE_ENV} / --directx-headers)"
        )
        return result
    cc = cc or find_host_cc()
    if cc is None:
        result.skipped = "no C compiler found"
        return result
    ref_text = "".join(_reference_header(root, h) for h in ("d3d12.h", "d3d12sdklayers.h", "dxgiformat.h"))
    version = re.search(r"#define\s+D3D12_SDK_VERSION\s+\(\s*(\d+)\s*\)", ref_text)
    result.description += f" (D3D12_SDK_VERSION {version.group(1) if version else '?'})"
    types, enums, members = _pre_existing(abi)

    declared_names = set(re.findall(r"\}\s*(\w+)\s*;", ref_text))
    declared_names |= set(re.findall(r"^\s*typedef\s[^;{}()]*?\b(\w+)\s*;", ref_text, re.M))
    enumerators = set(re.findall(r"^\s*(\w+)\s*(?:=|,|$)", ref_text, re.M))

    def declared(name: str) -> bool:
        return name in declared_names

    present_types = []
    for t in types:
        if declared(t):
            present_types.append(t)
        else:
            result.lacks.append(t)
    asserts = _Assertions()
    _layout_assertions(abi, present_types, asserts, result)
    for e in enums:
        if declared(e):
            result.other += 1
            asserts.add(f"sizeof({e})", e, "sizeof", 4)
        else:
            result.lacks.append(e)
    present_members = set()
    for m in members:
        if m in enumerators:
            present_members.add(m)
        else:
            result.lacks.append(m)
    _enum_assertions(abi, asserts, result, only=present_members)
    for alias in abi.decls.aliases:
        if not alias.startswith("D3D12DDI") and declared(alias):
            result.other += 1
            asserts.add(f"sizeof({alias})", alias, "sizeof", abi.ffi.sizeof(alias))
    pre = (
        "#include <wsl/winadapter.h>\n#include <directx/d3d12.h>\n"
        "#include <directx/d3d12sdklayers.h>\n#include <stddef.h>\n"
    )
    text = pre + asserts.text(pre.count("\n") + 1)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / "abi_d3d12h.c"
        path.write_text(text)
        cmd = [
            cc,
            "-fsyntax-only",
            "-std=gnu11",
            f"-I{root / 'wsl' / 'stubs'}",
            f"-I{root / 'wsl'}",
            f"-I{root / 'directx'}",
            f"-I{root}",
            path.name,
        ]
        if "clang" in Path(cc).name:
            cmd.insert(1, "-ferror-limit=0")
        else:
            cmd.insert(1, "-fmax-errors=0")
        proc = run_tool(cmd, Path(tmp))
    findings, missing = _compile_findings("d3d12h", proc, asserts, path.name)
    result.findings = findings
    result.lacks.extend(f"{where} ({what})" for where, what in missing)
    return result


# --- 4. ctypes and numpy mirrors ------------------------------------------------------------------------------


def check_mirrors(abi: ABI) -> CheckResult:
    """The ctypes and numpy mirrors, generated from the declarations, against cffi: size, align, every field."""
    from d3d12wl.abi import mirrors as abi_mirrors

    result = CheckResult("mirrors", "ctypes Structure and numpy dtype mirrors vs the compiled module")
    import ctypes

    for name in abi.type_names():
        info = abi.type_info(name)
        result.types += 1
        try:
            ct = abi_mirrors.ctypes_type(name, abi)
            dt = abi_mirrors.numpy_dtype(name, abi)
        except ABIError as exc:
            result.findings.append(Finding("mirrors", name, str(exc)))
            continue
        for label, size, align in (
            ("ctypes", ctypes.sizeof(ct), ctypes.alignment(ct)),
            ("numpy", dt.itemsize, dt.alignment),
        ):
            if size != info.size:
                result.findings.append(Finding("mirrors", name, f"{label} sizeof {size}, compiled {info.size}"))
            if align != info.align:
                result.findings.append(Finding("mirrors", name, f"{label} alignment {align}, compiled {info.align}"))
        for path, f, off in info.walk():
            result.fields += 1
            for label, getter in (
                ("ctypes", lambda p, ct=ct: abi_mirrors.ctypes_offset(ct, p)),
                ("numpy", lambda p, dt=dt: abi_mirrors.numpy_offset(dt, p)),
            ):
                try:
                    got_off, got_size = getter(path)
                except (ABIError, AttributeError, KeyError) as exc:
                    result.findings.append(Finding("mirrors", f"{name}.{path}", f"{label}: {exc}"))
                    continue
                if (got_off, got_size) != (off, f.size):
                    result.findings.append(
                        Finding(
                            "mirrors",
                            f"{name}.{path}",
                            f"{label} offset {got_off} size {got_size}, compiled offset {off} size {f.size}",
                        )
                    )
    return result


# --- all --------------------------------------------------------------------------------------------------------


def run_all(abi: ABI | None = None, *, workdir: Path | None = None) -> list[CheckResult]:
    if abi is None:
        from d3d12wl import abi as abi_module

        abi = abi_module.default
    return [check_clang(abi, workdir=workdir), check_spec(abi), check_d3d12h(abi, workdir=workdir), check_mirrors(abi)]
