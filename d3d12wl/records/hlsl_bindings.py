"""HLSL register/space declarations of the root and local root parameters a description declares, to sit beside the
record structs of :func:`d3d12wl.records.codegen.hlsl_source` (``d3d12wl codegen --lang hlsl --bindings``).

What the shader author gets, per root signature the description holds (spec "Binding sources at record execution":
"The full binding shape is the program command signature args together with the global root signature and the
local root signature"):

* each named root signature (``root_signatures``: the global ones, the explicit-path local ones, an
  ExecuteIndirect command signature's) with its parameters in declared order;
* each program command signature's synthesized local root signature (spec "Local root signatures", implicit path):
  its root-parameter slots in first-appearance order (:func:`d3d12wl.records.layout.inline_local_slots`, spec
  "_INLINE_ROOT_PARAMETER": a slot is ShaderRegister + RegisterSpace + ParameterType) and its
  ``_INLINE_STATIC_SAMPLER`` samplers in argument order, each at the register and space its desc gives.

A parameter becomes:

* ``32BIT_CONSTANTS``: ``ConstantBuffer<S>`` at ``register(bN, spaceM)``, ``S`` holding ``Num32BitValues`` ``uint``
  members ``dw0``, ``dw1``, ...: scalars, so the legacy constant-buffer packing puts DWORD k at byte 4k as root
  constants are;
* a root ``CBV`` / ``SRV`` / ``UAV``: a constant buffer, ``ByteAddressBuffer`` or ``RWByteAddressBuffer`` at
  ``bN`` / ``tN`` / ``uN`` (a root descriptor is a buffer; what is in it the description does not say);
* a descriptor table: one declaration per range at its ``BaseShaderRegister`` and ``RegisterSpace``, an array of
  ``NumDescriptors`` (one descriptor: a single resource; the unbounded count, the largest ``NumDescriptors``, an
  unbounded array ``[]``);
* a static sampler: ``SamplerState``, or ``SamplerComparisonState`` for a comparison filter (the filter's reduction
  type), at ``sN``.

Where the description does not give a resource's type (a CBV's contents, the resource behind an SRV or UAV, a
sampler range's kind) the declaration's type is a macro, ``<name>_TYPE``, with a default (a constant buffer of
``D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT`` ``uint4``, ``ByteAddressBuffer``, ``Texture2D<float4>``, ...): a shader
defines it before including the file (``#define GRS_param1_TYPE StructuredBuffer<PCS_SecondaryRecord>``), which
stays as generated.

Names: ``<root signature>_param<p>`` (``_range<r>`` per range) and ``<root signature>_sampler<s>``; a synthesized local
root signature is ``<PCS>_lrs``.  Each declaration's comment says what sets it per record: the argument and the
record member (``PCS_SecondaryRecord.arg0_ShaderResourceView``, from the layout calculator), per DWORD for root
constants, or the program-table record's member on the explicit path; a global parameter no argument sets keeps the
command list's root argument (spec "global root signature / static default").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

from d3d12wl import abi
from d3d12wl.errors import ABIError, LayoutError
from d3d12wl.model.objects import (
    CommandSignature,
    DescriptorRange1,
    IndirectArgumentDesc,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootSignature,
    StaticSamplerDesc1,
    WorkListArgumentDesc,
)
from d3d12wl.records.codegen import c_identifier, struct_name
from d3d12wl.records.layout import (
    COMMAND,
    RecordLayout,
    command_layout,
    inline_local_slots,
    pcs_layout,
    program_table_layout,
    record_layouts,
    uses_inline_local_root_signature,
)

#: The register class of each root parameter type and descriptor range type (D3D12's binding model: constant
#: buffers b, shader resources t, unordered access u, samplers s); the keys are the headers' enum member names.
PARAMETER_REGISTER = {"32BIT_CONSTANTS": "b", "CBV": "b", "SRV": "t", "UAV": "u"}
RANGE_REGISTER = {"CBV": "b", "SRV": "t", "UAV": "u", "SAMPLER": "s"}

#: The default type of a declaration whose type the description does not give (its ``_TYPE`` macro's default), by
#: register class: of a root descriptor (always a buffer), and of a descriptor-table range.
RAW_CONSTANT_BUFFER = "D3D12WL_RawConstantBuffer"
ROOT_DESCRIPTOR_TYPE = {"b": f"ConstantBuffer<{RAW_CONSTANT_BUFFER}>", "t": "ByteAddressBuffer",
                        "u": "RWByteAddressBuffer"}
RANGE_TYPE = {"b": f"ConstantBuffer<{RAW_CONSTANT_BUFFER}>", "t": "Texture2D<float4>", "u": "RWTexture2D<float4>",
              "s": "SamplerState"}

#: the d3d12.h facts read here (headers/d3d12wl_base.h)
CB_ELEMENTS = "D3D12_REQ_CONSTANT_BUFFER_ELEMENT_COUNT"


@dataclass(frozen=True)
class HlslBinding:
    """One HLSL declaration of a root-signature binding.

    ``register_class`` is ``b``/``t``/``u``/``s``; ``count`` 1 is a single resource, ``None`` an unbounded array;
    ``type_macro`` names the macro that sets ``hlsl_type`` where the description does not give the type (``None``
    where it does: root constants, static samplers).  ``path`` is the description member the register and space
    come from (``root_signatures.GRS.pParameters[1]``, ``...pDescriptorRanges[0]``, ``...InlineStaticSampler``);
    ``root_signature`` the root signature's name (a synthesized one: ``<PCS>_lrs``).  ``dwords`` is
    ``Num32BitValues`` of root constants (their members ``dw0``...), else ``None``.
    """

    name: str
    kind: str
    register_class: str
    register: int
    space: int
    count: int | None
    hlsl_type: str
    type_macro: str | None
    root_signature: str
    local: bool
    parameter: int | None
    range: int | None
    sampler: int | None
    path: str
    dwords: int | None
    text: str

    @property
    def register_text(self) -> str:
        return f"register({self.register_class}{self.register}, space{self.space})"

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "register": f"{self.register_class}{self.register}",
                "space": self.space, "count": self.count, "type": self.hlsl_type, "type_macro": self.type_macro,
                "root_signature": self.root_signature, "local": self.local, "parameter": self.parameter,
                "range": self.range, "sampler": self.sampler, "path": self.path, "dwords": self.dwords,
                "text": self.text}


@dataclass(frozen=True)
class HlslBindings:
    """The declarations of every root signature in scope and their text; with no root signature in scope, ``note``
    says so (and ``text`` is that, as a comment)."""

    declarations: tuple[HlslBinding, ...]
    root_signatures: tuple[str, ...]
    text: str
    note: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"root_signatures": list(self.root_signatures), "source": self.text, "note": self.note,
                "declarations": [d.to_dict() for d in self.declarations]}


# ----------------------------------------------------------------------------------------------------------------
# Who sets each parameter (from the layout calculator's record members)
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Writer:
    """What sets (part of) a parameter: ``who`` in words, the record member holding the bytes (``None``: none, the
    system supplies it), and for root constants the first DWORD and the DWORD count it writes."""

    who: str
    member: str | None
    first: int | None = None
    count: int | None = None

    def text(self, dword: int | None = None) -> str:
        member = self.member
        if member is not None and dword is not None and self.first is not None and (self.count or 0) > 1:
            member = f"{member}[{dword - self.first}]"
        return f"{self.who}: {member}" if member is not None else f"{self.who} (no record bytes: the system supplies it)"

    def covers(self, dword: int) -> bool:
        if self.first is None:
            return True
        return self.first <= dword < self.first + (self.count or 1)


def _dwords_written(arg: WorkListArgumentDesc | IndirectArgumentDesc) -> tuple[int | None, int | None]:
    """(first DWORD, DWORD count) of root constants an argument writes; (None, None) for a whole parameter."""
    name = arg.type_name
    if name == "CONSTANT":
        return arg.Constant.DestOffsetIn32BitValues, arg.Constant.Num32BitValuesToSet
    if name == "INCREMENTING_CONSTANT":
        return arg.IncrementingConstant.DestOffsetIn32BitValues, 1
    if isinstance(arg, WorkListArgumentDesc) and name == "INLINE_ROOT_PARAMETER":
        inline = arg.InlineRootParameter
        if inline.RootParameter.parameter_type_name == "32BIT_CONSTANTS":
            return inline.DestOffsetIn32BitValues, inline.Num32BitValuesToSet
    return None, None


class _Members:
    """The record member of every argument of a set of record layouts (one dict per layout: arg index -> field)."""

    def __init__(self, layouts: Iterable[RecordLayout | None]) -> None:
        self.any = [(struct_name(layout), {f.arg: f for f in layout.fields if f.role == "arg" and f.arg is not None})
                    for layout in layouts if layout is not None]

    def member(self, index: int) -> str | None:
        for name, fields in self.any:
            f = fields.get(index)
            if f is not None:
                return f"{name}.{f.name}"
        return None


def _arg_writer(owner: str, index: int, arg: WorkListArgumentDesc | IndirectArgumentDesc, members: _Members
                ) -> _Writer:
    source = f" from {arg.source_name}" if isinstance(arg, WorkListArgumentDesc) else ""
    first, count = _dwords_written(arg)
    return _Writer(f"{owner}.pArgumentDescs[{index}] {arg.type_name}{source}", members.member(index), first, count)


class _Writers:
    """Every writer of every parameter in scope, keyed by (root signature identity, parameter index)."""

    def __init__(self) -> None:
        self.of: dict[tuple[int, int], list[_Writer]] = {}

    def add(self, rs: RootSignature | None, parameter: int, writer: _Writer) -> None:
        if rs is not None:
            self.of.setdefault((id(rs), parameter), []).append(writer)

    def get(self, rs: RootSignature, parameter: int) -> list[_Writer]:
        return self.of.get((id(rs), parameter), [])


def _pcs_members(pcs: ProgramCommandSignature) -> _Members:
    pl = pcs_layout(pcs)
    return _Members((pl.primary, pl.secondary, pl.program_table))


# ----------------------------------------------------------------------------------------------------------------
# The scope: which root signatures, and who sets their parameters
# ----------------------------------------------------------------------------------------------------------------


@dataclass
class _Scope:
    pcses: list[ProgramCommandSignature]
    programs: list[Program]
    command_signatures: list[CommandSignature]
    named: list[RootSignature] = field(default_factory=list)
    uses: dict[int, list[str]] = field(default_factory=dict)  # id(rs) -> what uses it, in words

    def use(self, rs: RootSignature | None, how: str) -> None:
        if rs is None:
            return
        if id(rs) not in self.uses:
            self.uses[id(rs)] = []
            if all(r is not rs for r in self.named):
                self.named.append(rs)
        if how not in self.uses[id(rs)]:
            self.uses[id(rs)].append(how)


def _scope(objects: ObjectSet, pcs_name: str | None) -> _Scope:
    if pcs_name is None:
        scope = _Scope(list(objects.program_command_signatures.values()),
                       [p for p in objects.programs.values() if p.ProgramCommandSignature is not None],
                       list(objects.command_signatures.values()),
                       named=list(objects.root_signatures.values()))
        scope.uses = {id(rs): [] for rs in scope.named}
    else:
        pcs = objects.program_command_signatures[pcs_name]
        scope = _Scope([pcs], [p for p in objects.programs.values() if p.ProgramCommandSignature is pcs], [])
    for pcs in scope.pcses:
        scope.use(pcs.pGlobalRootSignature, f"pGlobalRootSignature of {pcs.name}")
    for program in scope.programs:
        scope.use(program.GlobalRootSignature, f"GlobalRootSignature of {program.name}")
        scope.use(program.LocalRootSignature, f"LocalRootSignature of {program.name}")
    for cs in scope.command_signatures:
        scope.use(cs.pRootSignature, f"pRootSignature of {cs.name}")
    if pcs_name is not None:  # the description's order
        order = {id(rs): i for i, rs in enumerate(objects.root_signatures.values())}
        scope.named.sort(key=lambda rs: order.get(id(rs), len(order)))
    return scope


def _writers(scope: _Scope, records: list[RecordLayout]) -> _Writers:
    """Who sets each parameter in scope; ``records``: layouts already made (a command signature's is reused)."""
    writers = _Writers()
    commands = {r.owner: r for r in records if r.record == COMMAND}
    explicit_lrs: dict[int, list[RootSignature]] = {}  # id(pcs) -> the local root signatures of its programs
    for program in scope.programs:
        pcs = program.ProgramCommandSignature
        lrs = program.LocalRootSignature
        if pcs is None or lrs is None or uses_inline_local_root_signature(pcs):
            continue
        known = explicit_lrs.setdefault(id(pcs), [])
        if all(r is not lrs for r in known):
            known.append(lrs)
    for pcs in scope.pcses:
        members = _pcs_members(pcs)
        for i, arg in enumerate(pcs.pArgumentDescs):
            p = arg.root_parameter_index
            if p is None:
                continue
            targets = [pcs.pGlobalRootSignature] if arg.binding_name == "GLOBAL_ROOT_SIGNATURE" else \
                explicit_lrs.get(id(pcs), [])
            writer = _arg_writer(pcs.name, i, arg, members)
            for rs in targets:
                writers.add(rs, p, writer)
    for program in scope.programs:  # explicit path: the local arguments no record overrides (spec rule 6)
        pcs = program.ProgramCommandSignature
        if pcs is None or program.LocalRootSignature is None or uses_inline_local_root_signature(pcs):
            continue
        table = program_table_layout(program, pcs_layout(pcs))
        if table is None:
            continue
        for f in table.fields:
            if f.role == "local" and f.parameter is not None:
                writers.add(program.LocalRootSignature, f.parameter,
                            _Writer(f"{program.name}'s program-table record", f"{struct_name(table)}.{f.name}",
                                    f.dword_offset, f.count if f.dword_offset is not None else None))
    for cs in scope.command_signatures:
        made = commands.get(cs.name)
        members = _Members([made if made is not None else command_layout(cs)])
        for i, ei_arg in enumerate(cs.pArgumentDescs):
            p = ei_arg.root_parameter_index
            if p is not None:
                writers.add(cs.pRootSignature, p, _arg_writer(cs.name, i, ei_arg, members))
    return writers


# ----------------------------------------------------------------------------------------------------------------
# Declarations
# ----------------------------------------------------------------------------------------------------------------


def _short(enum: str, value: int, where: str, member: str) -> str:
    try:
        return abi.enum_short_name(enum, value)
    except ABIError:
        raise LayoutError(f"{member} {value} is not a {enum} member", where=where) from None


def _parameter_type(rp: RootParameter1, where: str) -> str:
    return _short("D3D12_ROOT_PARAMETER_TYPE", rp.ParameterType, where, "ParameterType")


def _flags(enum: str, value: int) -> str:
    return f", {abi.enum_text(enum, value)}" if value else ""


def _visibility(value: int) -> str:
    try:
        return abi.enum_short_name("D3D12_SHADER_VISIBILITY", value)
    except ABIError:
        return str(value)


def _unbounded() -> int:
    """The ``NumDescriptors`` of an unbounded range: the largest value of its C type (``UINT_MAX``)."""
    return (1 << (8 * abi.type_info("D3D12_DESCRIPTOR_RANGE1").field("NumDescriptors").size)) - 1


def _is_comparison(filter_value: int) -> bool:
    """A comparison filter: its reduction type (d3d12.h's ``D3D12_DECODE_FILTER_REDUCTION``) is COMPARISON."""
    reduction = (filter_value >> abi.constant("D3D12_FILTER_REDUCTION_TYPE_SHIFT")) & \
        abi.constant("D3D12_FILTER_REDUCTION_TYPE_MASK")
    return reduction == abi.enum_value("D3D12_FILTER_REDUCTION_TYPE", "COMPARISON")


def _registers(cls: str, base: int, count: int | None) -> str:
    if count in (0, 1):
        return f"{cls}{base}"
    return f"{cls}{base}.." if count is None else f"{cls}{base}..{cls}{base + count - 1}"


@dataclass
class _Signature:
    """One root signature as it is declared: named (``rs``) or synthesized from a PCS's inline arguments."""

    label: str                  # the name its declarations start with
    title: str                  # what it is, in words
    local: bool
    params: list[tuple[int, str, RootParameter1, list[_Writer]]]  # (index, path, parameter, writers)
    samplers: list[tuple[int, str, StaticSamplerDesc1]]           # (index, path, sampler)


def _named_signature(rs: RootSignature, scope: _Scope, writers: _Writers) -> _Signature:
    kind = "local" if rs.is_local else "global"
    uses = "; ".join(scope.uses.get(id(rs), [])) or "used by no signature or program of the description"
    flags = abi.enum_text("D3D12_ROOT_SIGNATURE_FLAGS", rs.Flags) if rs.Flags else "no flags"
    path = f"root_signatures.{rs.name}"
    return _Signature(c_identifier(rs.name), f"{kind} root signature {rs.name!r} ({path}): {uses}; {flags}",
                      rs.is_local,
                      [(p, f"{path}.pParameters[{p}]", param, writers.get(rs, p))
                       for p, param in enumerate(rs.pParameters)],
                      [(s, f"{path}.pStaticSamplers[{s}]", sampler) for s, sampler in enumerate(rs.pStaticSamplers)])


def _synthesized_signature(pcs: ProgramCommandSignature) -> _Signature:
    args = pcs.pArgumentDescs
    members = _pcs_members(pcs)
    path = f"program_command_signatures.{pcs.name}"
    params = []
    for slot, indices in enumerate(inline_local_slots(args)):
        first = indices[0]
        params.append((slot, f"{path}.pArgumentDescs[{first}].InlineRootParameter.RootParameter",
                       args[first].InlineRootParameter.RootParameter,
                       [_arg_writer(pcs.name, i, args[i], members) for i in indices]))
    samplers = [(k, f"{path}.pArgumentDescs[{i}].InlineStaticSampler", args[i].InlineStaticSampler)
                for k, i in enumerate(i for i, a in enumerate(args) if a.type_name == "INLINE_STATIC_SAMPLER")]
    return _Signature(f"{c_identifier(pcs.name)}_lrs",
                      f"the local root signature {pcs.name!r} synthesizes from its _INLINE_* arguments ({path}; spec "
                      "\"Local root signatures\", implicit path)", True, params, samplers)


def _set_by(sig: _Signature, writers: list[_Writer]) -> list[str]:
    if writers:
        return [f"//   set by {w.text()}" for w in writers]
    if sig.local:
        return ["//   not set by any argument or program-table record of the description"]
    return ["//   not set by any argument: it keeps the command list's root argument (SetGraphicsRoot* / "
            "SetComputeRoot* before the call)"]


@dataclass(frozen=True)
class _Origin:
    """Where a declaration comes from (the :class:`HlslBinding` members every declaration of a parameter shares)."""

    kind: str
    root_signature: str
    local: bool
    path: str
    parameter: int | None = None
    range: int | None = None
    sampler: int | None = None


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.declarations: list[HlslBinding] = []
        self.names: dict[str, str] = {}  # HLSL identifier -> the description member it declares
        self.raw_constant_buffer = False

    def claim(self, name: str, path: str) -> None:
        other = self.names.get(name)
        if other is not None:
            raise LayoutError(f"HLSL name {name!r} would declare both {other} and {path}; rename one of them",
                              where=path)
        self.names[name] = path

    def declare(self, origin: _Origin, name: str, cls: str, register: int, space: int, count: int | None,
                hlsl_type: str, type_macro: str | None, dwords: int | None, lines: list[str]) -> None:
        self.lines += [*lines, ""]
        self.declarations.append(HlslBinding(
            name, origin.kind, cls, register, space, count, hlsl_type, type_macro, origin.root_signature,
            origin.local, origin.parameter, origin.range, origin.sampler, origin.path, dwords, "\n".join(lines)))

    def resource(self, origin: _Origin, name: str, cls: str, register: int, space: int, count: int | None,
                 default: str, comment: list[str]) -> None:
        """A declaration whose type is the ``<name>_TYPE`` macro (default ``default``)."""
        macro = f"{name}_TYPE"
        self.claim(macro, origin.path)
        if RAW_CONSTANT_BUFFER in default:
            self.raw_constant_buffer = True
        dims = "" if count == 1 else "[]" if count is None else f"[{count}]"
        lines = [*comment, f"#ifndef {macro}", f"#define {macro} {default}", "#endif",
                 f"{macro} {name}{dims} : register({cls}{register}, space{space});"]
        self.declare(origin, name, cls, register, space, count, default, macro, None, lines)

    def parameter(self, sig: _Signature, p: int, path: str, rp: RootParameter1, writers: list[_Writer]) -> None:
        kind = _parameter_type(rp, path)
        name = f"{sig.label}_param{p}"
        what = f"{sig.label} root parameter {p}"
        origin = _Origin(kind, sig.label, sig.local, path, parameter=p)
        visibility = f"visibility {_visibility(rp.ShaderVisibility)}"
        self.claim(name, path)
        if kind == "32BIT_CONSTANTS":
            c = rp.Constants
            self.constants(origin, name, what, c.ShaderRegister, c.RegisterSpace, c.Num32BitValues, visibility,
                           writers)
        elif kind in ("CBV", "SRV", "UAV"):
            d = rp.Descriptor
            cls = PARAMETER_REGISTER[kind]
            comment = [f"// {what}: root {kind} {cls}{d.ShaderRegister} space{d.RegisterSpace}, {visibility}"
                       f"{_flags('D3D12_ROOT_DESCRIPTOR_FLAGS', d.Flags)} ({path})", *_set_by(sig, writers),
                       "//   a root descriptor is a buffer; what is in it the description does not say "
                       f"(#define {name}_TYPE to declare it)"]
            self.resource(origin, name, cls, d.ShaderRegister, d.RegisterSpace, 1, ROOT_DESCRIPTOR_TYPE[cls], comment)
        else:  # DESCRIPTOR_TABLE
            ranges = rp.DescriptorTable.pDescriptorRanges
            self.lines += [f"// {what}: descriptor table of {len(ranges)} range(s), {visibility} ({path})",
                           *_set_by(sig, writers)]
            if not ranges:
                self.lines += ["//   no ranges: nothing to declare", ""]
            for r, rng in enumerate(ranges):
                self.range(origin, name, r, rng, f"{path}.DescriptorTable.pDescriptorRanges[{r}]")

    def range(self, table_origin: _Origin, table: str, r: int, rng: DescriptorRange1, path: str) -> None:
        range_type = _short("D3D12_DESCRIPTOR_RANGE_TYPE", rng.RangeType, path, "RangeType")
        cls = RANGE_REGISTER[range_type]
        name = f"{table}_range{r}"
        self.claim(name, path)
        count: int | None = None if rng.NumDescriptors == _unbounded() else rng.NumDescriptors
        n = "unbounded" if count is None else f"{count} descriptor(s)"
        head = (f"// range {r}: {range_type} {_registers(cls, rng.BaseShaderRegister, count)} space{rng.RegisterSpace}"
                f", {n}{_flags('D3D12_DESCRIPTOR_RANGE_FLAGS', rng.Flags)} ({path})")
        if count == 0:
            self.lines += [head, "//   NumDescriptors 0: nothing to declare", ""]
            return
        origin = dataclasses.replace(table_origin, kind=f"DESCRIPTOR_TABLE {range_type}", range=r, path=path)
        self.resource(origin, name, cls, rng.BaseShaderRegister, rng.RegisterSpace, count, RANGE_TYPE[cls], [head])

    def constants(self, origin: _Origin, name: str, what: str, register: int, space: int, dwords: int,
                  visibility: str, writers: list[_Writer]) -> None:
        path = origin.path
        head = f"// {what}: 32BIT_CONSTANTS b{register} space{space}, {dwords} DWORD(s), {visibility} ({path})"
        if dwords == 0:
            self.lines += [head, "//   Num32BitValues 0: nothing to declare", ""]
            return
        struct = f"{name}_Constants"
        self.claim(struct, path)
        unset = "no program-table record of the description" if origin.local else "the command list's root constants"
        body = []
        for k in range(dwords):
            setters = "; ".join(w.text(k) for w in writers if w.covers(k)) or f"not set per record: {unset}"
            body.append(f"    {f'uint dw{k};':<44}// {setters}")
        lines = [head, f"struct {struct}", "{", *body, "};",
                 f"ConstantBuffer<{struct}> {name} : register(b{register}, space{space});"]
        self.declare(origin, name, "b", register, space, 1, f"ConstantBuffer<{struct}>", None, dwords, lines)

    def sampler(self, sig: _Signature, s: int, path: str, desc: StaticSamplerDesc1) -> None:
        name = f"{sig.label}_sampler{s}"
        self.claim(name, path)
        hlsl_type = "SamplerComparisonState" if _is_comparison(desc.Filter) else "SamplerState"
        filt = abi.enum_text("D3D12_FILTER", desc.Filter)
        lines = [f"// {sig.label} static sampler {s}: s{desc.ShaderRegister} space{desc.RegisterSpace}, {filt}, "
                 f"visibility {_visibility(desc.ShaderVisibility)} ({path})",
                 f"{hlsl_type} {name} : register(s{desc.ShaderRegister}, space{desc.RegisterSpace});"]
        self.declare(_Origin("STATIC_SAMPLER", sig.label, sig.local, path, sampler=s), name, "s", desc.ShaderRegister,
                     desc.RegisterSpace, 1, hlsl_type, None, None, lines)


_RULE = "// " + "-" * 114


def hlsl_bindings(objects: ObjectSet, pcs_name: str | None = None, records: Iterable[RecordLayout] | None = None
                  ) -> HlslBindings:
    """The declarations of every root signature in scope: every one of the description (``pcs_name`` None), or the
    global root signature and the local root signatures of that program command signature and its programs.
    ``records``: the record layouts whose struct names the declarations must not take (default: every record of
    the scope)."""
    if pcs_name is not None and pcs_name not in objects.program_command_signatures:
        record_layouts(objects, pcs_name)  # (raises the --pcs error every codegen option gives)
    scope = _scope(objects, pcs_name)
    layouts = record_layouts(objects, pcs_name) if records is None else list(records)
    writers = _writers(scope, layouts)
    signatures = [_named_signature(rs, scope, writers) for rs in scope.named]
    signatures += [_synthesized_signature(pcs) for pcs in scope.pcses if uses_inline_local_root_signature(pcs)]
    out = _Emitter()
    for layout in layouts:
        out.claim(struct_name(layout), f"the {layout.record} record of {layout.owner!r}")
    for sig in signatures:
        out.lines += [_RULE, f"// {sig.title}", _RULE, ""]
        if not sig.params and not sig.samplers:
            out.lines += ["// no parameters and no static samplers: nothing to declare", ""]
        for p, path, rp, param_writers in sig.params:
            out.parameter(sig, p, path, rp, param_writers)
        for s, path, sampler in sig.samplers:
            out.sampler(sig, s, path, sampler)
    if not signatures:
        what = "the description" if pcs_name is None else f"program command signature {pcs_name!r}"
        note = (f"{what} has no root signature (none in root_signatures{'' if pcs_name is None else ' it uses'}, and "
                "no _INLINE_ROOT_PARAMETER / _INLINE_STATIC_SAMPLER arguments): no bindings to declare")
        return HlslBindings((), (), f"// no bindings: {note}\n", note)
    head = ["// Root and local root parameters: the register and space of every binding of the description's root",
            "// signatures (d3d12wl codegen --lang hlsl --bindings). Where the description does not give a resource's",
            "// type (what a CBV holds, the resource behind an SRV or UAV), it is the macro NAME_TYPE with a default:",
            "// #define NAME_TYPE before this file to declare your own (it is expanded after the record structs, so it",
            "// may name them: #define GRS_param1_TYPE StructuredBuffer<PCS_SecondaryRecord>).",
            ""]
    if out.raw_constant_buffer:
        guard = "D3D12WL_RAW_CONSTANT_BUFFER_DECLARED"
        head += [f"#ifndef {guard}", f"#define {guard}",
                 "// a constant buffer whose layout the description does not give: the 16-byte elements a constant",
                 f"// buffer view holds at most ({CB_ELEMENTS})",
                 f"struct {RAW_CONSTANT_BUFFER}", "{", f"    uint4 Elements[{abi.constant(CB_ELEMENTS)}];", "};",
                 "#endif", ""]
    return HlslBindings(tuple(out.declarations), tuple(s.label for s in signatures), "\n".join(head + out.lines))

