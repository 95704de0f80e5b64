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
from collections.abc import Sequence
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
    if m.hlsl_type == "uint2":
        return [f"acc ^= {r}.x ^ {r}.y;" for r in refs]
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


def shader_source(records: Strided, model: str = codegen.DEFAULT_SHADER_MODEL) -> str:
    """The generated HLSL of every ``(layout, stride)`` (:func:`codegen.hlsl_struct`, as ``hlsl_source`` emits
    it) plus a compute shader that reads every member of every struct through a ``StructuredBuffer``."""
    lines = ["\n".join(codegen.hlsl_struct(r, stride, model) for r, stride in records),
             "RWStructuredBuffer<uint> Out : register(u0);"]
    body = ["[numthreads(1, 1, 1)]", "void main(uint3 id : SV_DispatchThreadID)", "{", "    uint acc = 0;"]
    for i, (layout, stride) in enumerate(records):
        name = codegen.struct_name(layout)
        lines.append(f"StructuredBuffer<{name}> Records{i} : register(t{i});")
        body.append(f"    {name} r{i} = Records{i}[id.x];")
        body += [f"    {t}" for m in codegen.hlsl_members(layout, stride, model) for t in _touch(f"r{i}", m)]
    body += ["    Out[id.x] = acc;", "}", ""]
    return "\n".join([*lines, "", *body])


_CACHE: dict[str, dict[str, StructLayout]] = {}


def compile_hlsl(source: str, options: Sequence[str] = ()) -> str:
    """``spirv-dis --raw-id`` text of ``source`` compiled by ``glslc -x hlsl`` as a compute shader (``options``:
    more glslc options)."""
    with tempfile.TemporaryDirectory(prefix="d3d12wl-hlsl-") as tmp:
        src, spv = Path(tmp) / "records.hlsl", Path(tmp) / "records.spv"
        src.write_text(source)
        r = subprocess.run(["glslc", "-x", "hlsl", "-fshader-stage=compute", "-fentry-point=main", *options,
                            str(src), "-o", str(spv)], capture_output=True, text=True, timeout=120)
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


def spirv_layouts(layouts: list[RecordLayout], strides: list[int | None] | None = None,
                  model: str = codegen.DEFAULT_SHADER_MODEL) -> dict[str, StructLayout]:
    """What glslc made of the generated struct of every layout with bytes, at ``strides`` (default: the minimum
    strides); compiled once per distinct source."""
    source = shader_source(with_strides(layouts, strides), model)
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


def layout_mismatches(layouts: list[RecordLayout], strides: list[int | None] | None = None,
                      model: str = codegen.DEFAULT_SHADER_MODEL) -> list[str]:
    """Every disagreement between glslc's SPIR-V layout and the layout calculator, as text (empty: none), for the
    records at ``strides`` (default: each record's minimum stride).

    Per struct: the members are the generated ones, in order; each member's ``Offset`` equals
    :func:`expected_offset`; each array member's ``ArrayStride`` equals its element size; the ``StructuredBuffer``
    ``ArrayStride`` equals the record's stride; and the members, padding included, cover every byte of every field
    exactly once up to the stride.
    """
    compiled = spirv_layouts(layouts, strides, model)
    problems: list[str] = []
    for layout, stride in with_strides(layouts, strides):
        name = codegen.struct_name(layout)
        got = compiled.get(name)
        if got is None:
            problems.append(f"{name}: not in the SPIR-V (structs: {sorted(compiled)})")
            continue
        members = codegen.hlsl_members(layout, stride, model)
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


# ----------------------------------------------------------------------------------------------------------------
# Resource bindings (codegen --bindings): where glslc puts each declared resource
# ----------------------------------------------------------------------------------------------------------------

#: How glslc maps an HLSL ``register(xN, spaceM)`` (glslang's HLSL front end, shaderc 2023.2 / glslang 11.13): the
#: resource is ``DescriptorSet M``, ``Binding N`` whatever its register class x; with ``-fhlsl-iomap`` the binding
#: is N plus the class's binding base, ``-fcbuffer-binding-base`` for b, ``-ftexture-binding-base`` for t (a
#: ``ByteAddressBuffer`` at t too), ``-fuav-binding-base`` for u, ``-fsampler-binding-base`` for s.  So compiled
#: with the bases below, a binding says the register class and the register (below 10,000), the set the space
#: (glslang refuses a mapped binding above 65535: "mapped binding out of range").
CLASS_BASE = {"b": 10000, "t": 20000, "u": 30000, "s": 40000}
CLASS_OPTION = {"b": "-fcbuffer-binding-base", "t": "-ftexture-binding-base", "u": "-fuav-binding-base",
                "s": "-fsampler-binding-base"}
#: glslc (glslang 11.13) gives an unsized HLSL resource array (``Texture2D t[]``) no runtime array: it sizes it from
#: the largest constant index the shader reads, like a GLSL implicitly sized array.  So a probe reads element
#: ``UNSIZED_INDEX`` of an unbounded array: a length of ``UNSIZED_INDEX + 1`` in the SPIR-V says it was declared
#: unsized (a sized array rejects the index: "array index out of range").
UNSIZED_INDEX = 1000
IOMAP = ("-fhlsl-iomap", *(x for cls, base in CLASS_BASE.items() for x in (CLASS_OPTION[cls], str(base))))


@dataclass
class VariableBinding:
    """What the SPIR-V says of one resource variable: its set and binding decorations, its array length (1: not an
    array, ``None``: a runtime array) and, for a buffer block, the ``Offset`` of each member."""

    descriptor_set: int | None
    binding: int | None
    count: int | None
    offsets: list[int]


def spirv_bindings(text: str) -> dict[str, VariableBinding]:
    """Variable name -> :class:`VariableBinding` for every ``OpVariable`` with an ``OpName`` and a ``DescriptorSet``
    (from ``spirv-dis --raw-id`` text)."""
    m = hlsl_probe.parse_spirv(text)
    decorations: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "OpDecorate" and parts[2] in ("DescriptorSet", "Binding"):
            decorations.setdefault(parts[1], {})[parts[2]] = int(parts[3])
    out: dict[str, VariableBinding] = {}
    for var, ptr in m.variables.items():
        if var not in m.names or "DescriptorSet" not in decorations.get(var, {}):
            continue
        pointee = m.types[ptr][-1]
        op = m.types[pointee]
        count: int | None = 1
        if op[0] == "OpTypeArray":
            count, pointee = m.constants[op[2]], op[1]
        elif op[0] == "OpTypeRuntimeArray":
            count, pointee = None, op[1]
        offsets = m.offsets.get(pointee, {})
        out[m.names[var]] = VariableBinding(decorations[var].get("DescriptorSet"), decorations[var].get("Binding"),
                                            count, [offsets[i] for i in sorted(offsets)])
    return out
