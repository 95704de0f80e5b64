"""The HLSL truth: generated HLSL structs compiled by a real HLSL compiler, their layout read back from SPIR-V.

:func:`spirv_layouts` builds one compute shader that declares every generated struct as the element of a
``StructuredBuffer`` and reads every member of element 0 (every array element too) into a ``RWStructuredBuffer``,
compiles it with ``glslc -x hlsl`` (shaderc's glslang HLSL front end; structured buffers get the std430-like SPIR-V
layout, a ``uint64_t`` aligned to 8 and a struct holding one rounded up to 8) and disassembles it with
``spirv-dis --raw-id``.  From the disassembly it returns, per struct, each member's ``Offset`` decoration, each
array member's ``ArrayStride`` and the ``ArrayStride`` of the ``StructuredBuffer``'s runtime array: the compiler's
own placement of every byte.

glslang drops a buffer the shader never reads (with its struct type), but keeps the ``Offset`` of every member of
a struct it emits, read or not; every member is read anyway, so that no optimizer can drop a member.

:func:`expected_offset` is where the layout calculator puts a member, computed from the member's
:class:`~d3d12wl.records.layout.LayoutField` and the headers' ``offsetof`` (not from :attr:`HlslMember.offset`).

``glslc`` is Debian's ``glslc`` package (shaderc), ``spirv-dis`` Debian's ``spirv-tools``; :func:`require_tools`
skips without them, or fails under ``CI=true``.  Compiles are cached per source text for the session.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from conftest import require

from d3d12wl import abi
from d3d12wl.headercheck import hlsl as hlsl_probe
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout

#: Debian package providing each tool (what CI must install).
TOOLS = hlsl_probe.TOOLS


def require_tools() -> None:
    """Skip (or, under CI=true, fail) when glslc or spirv-dis is missing."""
    missing = [f"{tool} (Debian package {pkg})" for tool, pkg in TOOLS.items() if shutil.which(tool) is None]
    require(not missing, f"{', '.join(missing)} not installed: the HLSL -> SPIR-V layout check cannot run")


@dataclass
class StructLayout:
    """What the compiler made of one struct."""

    members: list[str] = field(default_factory=list)          # OpMemberName, in member order
    offsets: dict[int, int] = field(default_factory=dict)     # member index -> Offset
    array_strides: dict[int, int] = field(default_factory=dict)  # member index -> ArrayStride (array members)
    buffer_stride: int | None = None                          # ArrayStride of StructuredBuffer<this>'s runtime array


def _touch(var: str, m: codegen.HlslMember) -> list[str]:
    refs = [f"{var}.{m.name}[{i}]" for i in range(m.count)] if m.count > 1 else [f"{var}.{m.name}"]
    if m.hlsl_type == "uint64_t":
        return [f"acc ^= (uint)({r}) ^ (uint)({r} >> 32);" for r in refs]
    if m.hlsl_type == "float":
        return [f"acc ^= asuint({r});" for r in refs]
    return [f"acc ^= (uint)({r});" for r in refs]


Strided = list[tuple[RecordLayout, int]]


def with_strides(layouts: list[RecordLayout], strides: list[int | None] | None = None) -> Strided:
    """``(layout, stride)`` of every layout with bytes; a stride ``None`` or missing is the minimum stride."""
    given = strides or []
    out: Strided = []
    for i, r in enumerate(layouts):
        stride = given[i] if i < len(given) else None
        if r.min_stride:
            out.append((r, stride or r.min_stride))
    return out


def shader_source(records: Strided) -> str:
    """The generated HLSL of every ``(layout, stride)`` (:func:`codegen.hlsl_struct`, as ``hlsl_source`` emits
    it) plus a compute shader that reads every member of every struct through a ``StructuredBuffer``."""
    lines = ["\n".join(codegen.hlsl_struct(r, stride) for r, stride in records),
             "RWStructuredBuffer<uint> Out : register(u0);"]
    body = ["[numthreads(1, 1, 1)]", "void main(uint3 id : SV_DispatchThreadID)", "{", "    uint acc = 0;"]
    for i, (layout, stride) in enumerate(records):
        name = codegen.struct_name(layout)
        lines.append(f"StructuredBuffer<{name}> Records{i} : register(t{i});")
        body.append(f"    {name} r{i} = Records{i}[id.x];")
        body += [f"    {t}" for m in codegen.hlsl_members(layout, stride) for t in _touch(f"r{i}", m)]
    body += ["    Out[id.x] = acc;", "}", ""]
    return "\n".join([*lines, "", *body])


_CACHE: dict[str, dict[str, StructLayout]] = {}


def compile_hlsl(source: str) -> str:
    """``spirv-dis --raw-id`` text of ``source`` compiled by ``glslc -x hlsl`` as a compute shader."""
    with tempfile.TemporaryDirectory(prefix="d3d12wl-hlsl-") as tmp:
        src, spv = Path(tmp) / "records.hlsl", Path(tmp) / "records.spv"
        src.write_text(source)
        r = subprocess.run(["glslc", "-x", "hlsl", "-fshader-stage=compute", "-fentry-point=main", str(src),
                            "-o", str(spv)], capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise AssertionError(f"glslc rejected the generated HLSL:\n{r.stderr}\n--- source ---\n{source}")
        r = subprocess.run(["spirv-dis", "--raw-id", str(spv)], capture_output=True, text=True, timeout=60)
        if r.returncode:
            raise AssertionError(f"spirv-dis failed: {r.stderr}")
        return r.stdout


def parse_spirv(text: str) -> dict[str, StructLayout]:
    """Struct name -> :class:`StructLayout`, for every ``OpTypeStruct`` with an ``OpName`` (glslang's own
    ``Offset`` / ``ArrayStride`` decorations, read by the package's SPIR-V reader)."""
    m = hlsl_probe.parse_spirv(text)
    runtime_arrays = {tid: op[1] for tid, op in m.types.items() if op[0] == "OpTypeRuntimeArray"}
    out: dict[str, StructLayout] = {}
    for sid, op in m.types.items():
        if op[0] != "OpTypeStruct" or sid not in m.names:
            continue
        member_types = op[1:]
        got = StructLayout(members=[m.member_names.get(sid, {}).get(i, "") for i in range(len(member_types))],
                           offsets=m.offsets.get(sid, {}))
        got.array_strides = {i: m.array_strides[tid] for i, tid in enumerate(member_types) if tid in m.array_strides}
        for rid, element in runtime_arrays.items():
            if element == sid:
                got.buffer_stride = m.array_strides.get(rid)
        out[m.names[sid]] = got
    return out


def spirv_layouts(layouts: list[RecordLayout], strides: list[int | None] | None = None) -> dict[str, StructLayout]:
    """What glslc made of the generated struct of every layout with bytes, at ``strides`` (default: the minimum
    strides); compiled once per distinct source."""
    source = shader_source(with_strides(layouts, strides))
    key = hashlib.sha256(source.encode()).hexdigest()
    if key not in _CACHE:
        _CACHE[key] = parse_spirv(compile_hlsl(source))
    return _CACHE[key]


def expected_offset(layout: RecordLayout, m: codegen.HlslMember, stride: int) -> int:
    """Where the layout calculator puts member ``m``: its field's offset, plus ``offsetof`` of its path in the
    field's C type (the headers), plus its part of a split ``uint64_t``; padding is where the layout's hole is."""
    if m.field is None:
        holes = [p for p in layout.padding(stride) if p.offset == m.offset]
        assert holes, f"{codegen.struct_name(layout)}.{m.name}: no padding of the layout at {m.offset}"
        return holes[0].offset
    f = layout.field(m.field)
    within = abi.offsetof(abi.default.resolve(f.ctype), m.path) if m.path else 0
    return f.offset + within + m.part


def _element_size(m: codegen.HlslMember) -> int:
    return m.size // m.count


def layout_mismatches(layouts: list[RecordLayout], strides: list[int | None] | None = None) -> list[str]:
    """Every disagreement between glslc's SPIR-V layout and the layout calculator, as text (empty: none), for the
    records at ``strides`` (default: each record's minimum stride).

    Per struct: the members are the generated ones, in order; each member's ``Offset`` equals
    :func:`expected_offset`; each array member's ``ArrayStride`` equals its element size; the ``StructuredBuffer``
    ``ArrayStride`` equals the record's stride; and the members, padding included, cover every byte of every field
    exactly once up to the stride.
    """
    compiled = spirv_layouts(layouts, strides)
    problems: list[str] = []
    for layout, stride in with_strides(layouts, strides):
        name = codegen.struct_name(layout)
        got = compiled.get(name)
        if got is None:
            problems.append(f"{name}: not in the SPIR-V (structs: {sorted(compiled)})")
            continue
        members = codegen.hlsl_members(layout, stride)
        if got.members != [m.name for m in members]:
            problems.append(f"{name}: SPIR-V members {got.members} != generated {[m.name for m in members]}")
            continue
        for i, m in enumerate(members):
            want = expected_offset(layout, m, stride)
            if got.offsets.get(i) != want:
                problems.append(f"{name}.{m.name}: SPIR-V Offset {got.offsets.get(i)}, layout offset {want} "
                                f"({m.comment})")
            if m.count > 1 and got.array_strides.get(i) != _element_size(m):
                problems.append(f"{name}.{m.name}: SPIR-V ArrayStride {got.array_strides.get(i)}, element size "
                                f"{_element_size(m)}")
        if got.buffer_stride != stride:
            problems.append(f"{name}: StructuredBuffer ArrayStride {got.buffer_stride}, record stride {stride}")
        covered: dict[str | None, int] = {}
        spans = sorted((expected_offset(layout, m, stride), m.size) for m in members)
        pos = 0
        for off, size in spans:
            if off != pos:
                problems.append(f"{name}: bytes {pos}..{off - 1} not covered / overlapped by the members")
            pos = off + size
        if pos != stride:
            problems.append(f"{name}: members end at {pos}, stride {stride}")
        for m in members:
            covered[m.field] = covered.get(m.field, 0) + m.size
        for f in layout.fields:
            if f.size and covered.get(f.name) != f.size:
                problems.append(f"{name}: field {f.name} ({f.size} bytes) covered by {covered.get(f.name, 0)} "
                                f"bytes of members")
    return problems
