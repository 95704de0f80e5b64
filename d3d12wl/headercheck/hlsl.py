"""HLSL record structs, laid out as D3D12 reads them from a (RW)StructuredBuffer.

A shader team's HLSL mirror of a record (the Work Lists spec's culling example declares its ``SecondaryRecord``
in HLSL and writes it through a ``RWStructuredBuffer``) must have the bytes the layout calculator gives.  The
HLSL is parsed by a real HLSL front end, ``glslc -x hlsl`` (shaderc's glslang; Debian ``glslc``), in a wrapper
compute shader that declares ``StructuredBuffer<STRUCT>`` for each struct asked about and keeps it alive with
``GetDimensions``; ``spirv-dis`` (Debian ``spirv-tools``) gives the type graph of every member.

The byte layout is then computed with D3D12's structured-buffer rules, not read from glslang's ``Offset``
decorations, because those follow Vulkan's std430 rules, which differ for vectors: a structured buffer is laid
out like a C struct under ``#pragma pack(8)`` (DXC since shader model 6.2): every scalar, vector component and
matrix component aligned to its own size (4 bytes; 8 for 64-bit types; 2 for 16-bit types), arrays of elements
rounded up to their alignment, a struct aligned to its largest member and its size rounded up to that; the
size is the ``StructuredBuffer`` stride.  Where glslang's std430 offsets disagree, that is reported too
(informational: it matters to a shader also compiled for Vulkan).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from d3d12wl import inputs
from d3d12wl.abi.tools import current_limits, run_tool
from d3d12wl.errors import ABIError
from d3d12wl.headercheck import sources
from d3d12wl.headercheck.probe import require_includable

TOOLS = {"glslc": "glslc", "spirv-dis": "spirv-tools"}  # tool -> Debian package
ENTRY = "d3d12wl_probe_main"
_MAX_DEPTH = 32


@dataclass(frozen=True)
class HlslMember:
    name: str
    offset: int  # D3D12 structured-buffer offset
    size: int
    type: str  # 'uint', 'float3', 'uint64_t[2]', 'struct Inner', ...
    vulkan_offset: int | None = None  # glslang's std430 Offset decoration, for comparison


@dataclass(frozen=True)
class HlslStruct:
    name: str
    members: tuple[HlslMember, ...]
    size: int  # the StructuredBuffer stride
    align: int
    vulkan_stride: int | None = None


def find_tools() -> dict[str, str]:
    found = {tool: shutil.which(tool) for tool in TOOLS}
    missing = [f"{tool} (apt-get install {pkg})" for tool, pkg in TOOLS.items() if found[tool] is None]
    if missing:
        raise ABIError(f"{', '.join(missing)} not found; the HLSL check parses HLSL with them", where="--hlsl")
    return {tool: str(path) for tool, path in found.items()}


# --- SPIR-V type graph ----------------------------------------------------------------------------------------


@dataclass
class SpirvModule:
    names: dict[str, str] = field(default_factory=dict)
    member_names: dict[str, dict[int, str]] = field(default_factory=dict)
    offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    array_strides: dict[str, int] = field(default_factory=dict)
    types: dict[str, list[str]] = field(default_factory=dict)  # id -> [OpTypeX, operands...]
    constants: dict[str, int] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)  # variable id -> pointer type id


def parse_spirv(text: str) -> SpirvModule:
    """The names, decorations, types, integer constants and variables of ``spirv-dis --raw-id`` output."""
    m = SpirvModule()
    for line in text.splitlines():
        t = line.split()
        if not t or t[0].startswith(";"):
            continue
        if t[0] == "OpName" and len(t) > 2:
            m.names[t[1]] = " ".join(t[2:]).strip('"')
        elif t[0] == "OpMemberName" and len(t) > 3:
            m.member_names.setdefault(t[1], {})[int(t[2])] = " ".join(t[3:]).strip('"')
        elif t[0] == "OpMemberDecorate" and len(t) > 4 and t[3] == "Offset":
            m.offsets.setdefault(t[1], {})[int(t[2])] = int(t[4])
        elif t[0] == "OpDecorate" and len(t) > 3 and t[2] == "ArrayStride":
            m.array_strides[t[1]] = int(t[3])
        elif len(t) > 2 and t[1] == "=":
            if t[2].startswith("OpType"):
                m.types[t[0]] = t[2:]
            elif t[2] == "OpConstant" and len(t) > 4 and re.fullmatch(r"-?\d+", t[4]):
                m.constants[t[0]] = int(t[4])
            elif t[2] == "OpVariable" and len(t) > 3:
                m.variables[t[0]] = t[3]
    return m


@dataclass(frozen=True)
class _Shape:
    size: int
    align: int
    text: str


_SCALARS = {"OpTypeInt": "int", "OpTypeFloat": "float", "OpTypeBool": "bool"}


def _scalar_text(op: list[str]) -> str:
    if op[0] == "OpTypeFloat":
        return {16: "half", 32: "float", 64: "double"}.get(int(op[1]), f"float{op[1]}")
    if op[0] == "OpTypeBool":
        return "bool"
    signed = len(op) > 2 and op[2] == "1"
    return {32: "int" if signed else "uint", 64: "int64_t" if signed else "uint64_t",
            16: "int16_t" if signed else "uint16_t"}.get(int(op[1]), f"int{op[1]}")


def _shape(m: SpirvModule, tid: str, depth: int = 0) -> _Shape:
    """D3D12 structured-buffer size, alignment and spelling of a SPIR-V type."""
    if depth > _MAX_DEPTH:
        raise ABIError("types nest too deeply", where=f"SPIR-V type {tid}")
    op = m.types.get(tid)
    if op is None:
        raise ABIError("unknown type", where=f"SPIR-V type {tid}")
    kind = op[0]
    if kind in ("OpTypeInt", "OpTypeFloat"):
        width = int(op[1]) // 8
        return _Shape(width, width, _scalar_text(op))
    if kind == "OpTypeBool":  # a bool in a buffer is a 32-bit value
        return _Shape(4, 4, "bool")
    if kind == "OpTypeVector":
        comp = _shape(m, op[1], depth + 1)
        return _Shape(comp.size * int(op[2]), comp.align, f"{comp.text}{op[2]}")
    if kind == "OpTypeMatrix":
        column = m.types[op[1]]
        comp = _shape(m, column[1], depth + 1)
        rows, cols = int(column[2]), int(op[2])
        return _Shape(comp.size * rows * cols, comp.align, f"{comp.text}{rows}x{cols}")
    if kind == "OpTypeArray":
        elem = _shape(m, op[1], depth + 1)
        length = m.constants.get(op[2])
        if length is None:
            raise ABIError("array length is not a constant", where=f"SPIR-V type {tid}")
        stride = -(-elem.size // elem.align) * elem.align
        return _Shape(stride * length, elem.align, f"{elem.text}[{length}]")
    if kind == "OpTypeStruct":
        layout = _struct(m, tid, depth + 1)
        return _Shape(layout.size, layout.align, f"struct {layout.name}")
    raise ABIError(f"{kind} cannot be stored in a structured buffer", where=f"SPIR-V type {tid}")


def _struct(m: SpirvModule, sid: str, depth: int = 0) -> HlslStruct:
    member_types = m.types[sid][1:]
    members = []
    offset, align = 0, 1
    names = m.member_names.get(sid, {})
    vulkan = m.offsets.get(sid, {})
    for i, tid in enumerate(member_types):
        shape = _shape(m, tid, depth)
        offset = -(-offset // shape.align) * shape.align
        members.append(HlslMember(names.get(i, f"member{i}"), offset, shape.size, shape.text, vulkan.get(i)))
        offset += shape.size
        align = max(align, shape.align)
    size = -(-offset // align) * align
    return HlslStruct(m.names.get(sid, sid), tuple(members), size, align)


# --- the probe shader -----------------------------------------------------------------------------------------


def _variable_name(i: int) -> str:
    return f"d3d12wl_probe{i}"


def wrapper_source(files: Sequence[Path], structs: Sequence[str]) -> str:
    lines = [f'#include "{Path(f).resolve()}"' for f in files]
    for i, name in enumerate(structs):
        lines.append(f"StructuredBuffer<{name}> {_variable_name(i)} : register(t{i}, space900);")
    lines += ["RWStructuredBuffer<uint> d3d12wl_probe_out : register(u0, space900);",
              "[numthreads(1, 1, 1)]", f"void {ENTRY}()", "{", "    uint n, s, acc = 0;"]
    lines += [f"    {_variable_name(i)}.GetDimensions(n, s); acc += n + s;" for i in range(len(structs))]
    lines += ["    d3d12wl_probe_out[0] = acc;", "}", ""]
    return "\n".join(lines)



def probe_structs(files: Sequence[Path], structs: Sequence[str], workdir: Path, *, defines: Sequence[str] = (),
                  includes: Sequence[Path] = ()) -> dict[str, HlslStruct]:
    """The D3D12 structured-buffer layout of each named HLSL struct declared by ``files``."""
    tools = find_tools()
    for f in files:
        require_includable(f)
    for d in includes:
        if inputs.path_kind(d) != "a directory":
            raise ABIError("no such directory", where=str(d))
    source = workdir / "d3d12wl_hlsl_probe.hlsl"
    source.write_text(wrapper_source(files, structs))
    spv = workdir / "d3d12wl_hlsl_probe.spv"
    dirs = [Path(d).resolve() for d in includes]
    cmd = [tools["glslc"], "-x", "hlsl", "-fshader-stage=compute", f"-fentry-point={ENTRY}",
           *[f"-D{d}" for d in defines], *[f"-I{d}" for d in dirs], source.name, "-o", spv.name]
    where = ", ".join(str(f) for f in files)
    sources.walk([source], dirs, current_limits(), what="HLSL files")
    proc = run_tool(cmd, workdir, where=where)
    if proc.returncode != 0:
        errors = "\n  ".join(line for line in proc.stderr.splitlines() if line.strip())[:4000]
        raise ABIError(f"glslc could not compile the HLSL with StructuredBuffer<{'>, <'.join(structs)}>:\n  {errors}",
                       where=", ".join(str(f) for f in files))
    dis = run_tool([tools["spirv-dis"], "--raw-id", spv.name], workdir, where=where)
    if dis.returncode != 0:
        raise ABIError(f"spirv-dis failed: {dis.stderr.strip()}", where=str(spv))
    return layouts(parse_spirv(dis.stdout), structs)


def layouts(m: SpirvModule, structs: Sequence[str]) -> dict[str, HlslStruct]:
    """Each probe variable's element struct: variable -> pointer -> block struct -> runtime array -> element."""
    by_name = {name: var for var, name in m.names.items() if var in m.variables}
    out: dict[str, HlslStruct] = {}
    for i, name in enumerate(structs):
        var = by_name.get(_variable_name(i))
        pointer = m.types.get(m.variables.get(var or "", ""), [])
        block = m.types.get(pointer[2] if len(pointer) > 2 else "", [])
        runtime = m.types.get(block[1] if len(block) > 1 else "", [])
        if not runtime or runtime[0] != "OpTypeRuntimeArray":
            raise ABIError("glslc dropped or reshaped the probe buffer", where=f"StructuredBuffer<{name}>")
        element = runtime[1]
        if m.types.get(element, [""])[0] != "OpTypeStruct":
            raise ABIError(f"{name} is not a struct", where="--record-struct")
        got = _struct(m, element)
        out[name] = HlslStruct(name, got.members, got.size, got.align, m.array_strides.get(block[1]))
    return out
