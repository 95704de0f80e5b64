"""Breakers (tests/call_requirements.py) of the ExecuteIndirect requirements (the ExecuteIndirect seed and
IndirectDrawing.md): one per row of the audit table's ExecuteIndirect part (docs/executor.md).

Every breaker starts from :func:`ei_spec`, a valid call drawn from the rng: a graphics (DRAW, DRAW_INDEXED) or
compute (DISPATCH) command signature with a random choice of root constants, root CBV / SRV / UAV, an incrementing
constant, vertex buffer views and (DRAW_INDEXED) an index buffer view; 1-8 commands at a stride of the tightly
packed size or more; a count buffer or none; each buffer's resource given (its GPUVirtualAddress before the VA by
a multiple of 4, its Width enough, its state one that includes INDIRECT_ARGUMENT, or none) or not (the region
stands for it).  A breaker changes the one thing its requirement is about, and :meth:`EISpec.build` lays the
call out in memory.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from call_requirements import Call, breaks
from executor_builder import (
    Scene,
    constants_param,
    dispatch,
    draw,
    ei_arg,
    pack_record,
    root_parameters,
    root_signature,
    unset_one,
    view_param,
)

from d3d12wl import abi
from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.executor.execute_indirect import COUNT_CTYPE, INDEX_FORMATS
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import (
    CommandSignature,
    EIConstantArg,
    EIIncrementingConstantArg,
    IndirectArgumentDesc,
    RootParameterIndexArg,
    RootSignature,
    VertexBufferArg,
)
from d3d12wl.model.state import BufferResource, ExecuteIndirectCall, RootArgument
from d3d12wl.records.layout import EI_BUFFER_ALIGN, RecordLayout, command_layout

ARGUMENT_VA = 0x8000
COUNT_VA = 0x4000
COUNT_SIZE = abi.sizeof(COUNT_CTYPE)
#: D3D12_RESOURCE_STATES that include INDIRECT_ARGUMENT (a call may be made in them) and that do not
KEPT_STATES = (["INDIRECT_ARGUMENT"], ["GENERIC_READ"], ["INDIRECT_ARGUMENT", "COPY_SOURCE"],
               ["INDIRECT_ARGUMENT", "NON_PIXEL_SHADER_RESOURCE"])
BROKEN_STATES = (["COMMON"], ["UNORDERED_ACCESS"], ["COPY_DEST"], ["NON_PIXEL_SHADER_RESOURCE", "COPY_SOURCE"],
                 ["VERTEX_AND_CONSTANT_BUFFER"])


def states(names: list[str]) -> int:
    value = 0
    for n in names:
        value |= abi.enum_value("D3D12_RESOURCE_STATES", n)
    return value


def _type(arg: IndirectArgumentDesc) -> str:
    return arg.type_name


@dataclass
class EISpec:
    """An ExecuteIndirect call before it is laid out: what a breaker changes."""

    cs: CommandSignature
    layout: RecordLayout
    commands: list[dict[str, Any]]  # the field values of every command
    max_count: int
    count: int | None  # the count buffer's UINT32 (None: no count buffer)
    root_signature: RootSignature | None  # the command list's, in the command signature's class
    graphics: bool
    args_va: int = ARGUMENT_VA
    count_va: int = COUNT_VA
    args_resource: BufferResource | None = None
    count_resource: BufferResource | None = None
    #: commands whose bytes are mapped (None: every one of ``commands``)
    mapped: int | None = None
    count_mapped: bool = True
    #: bytes of the count buffer's UINT32 that are mapped (from its VA on)
    count_bytes: int = COUNT_SIZE
    root_arguments: dict[int, RootArgument] = field(default_factory=dict)

    @property
    def executed(self) -> int:
        return self.max_count if self.count is None else min(self.count, self.max_count)

    def build(self) -> Call:
        s = Scene()
        # (a stride below the packed size is never walked: the records are laid out at the packed size then)
        stride = max(self.cs.ByteStride, self.layout.size)
        mapped = len(self.commands) if self.mapped is None else self.mapped
        data = b"".join(pack_record(self.layout, v, stride) for v in self.commands[:mapped])
        if data:
            s.put(self.args_va, data, "pArgumentBuffer")
        if self.count is not None and self.count_mapped:
            s.put(self.count_va, self.count.to_bytes(COUNT_SIZE, "little")[: self.count_bytes], "pCountBuffer")
        if self.graphics:
            s.state.graphics_root_signature = self.root_signature
            s.state.graphics_root_arguments = dict(self.root_arguments) if self.root_signature else {}
        else:
            s.state.compute_root_signature = self.root_signature
            s.state.compute_root_arguments = dict(self.root_arguments) if self.root_signature else {}
        call = ExecuteIndirectCall(self.cs, self.max_count, self.args_va,
                                   self.count_va if self.count is not None else None,
                                   self.args_resource, self.count_resource if self.count is not None else None)
        return Call(s.memory, s.device, s.objects, s.state, call)


def _value(rng: random.Random, arg: IndirectArgumentDesc, f: Any) -> Any:
    name = _type(arg)
    if name == "CONSTANT":
        values = [rng.getrandbits(32) for _ in range(f.count)]
        return values if f.count > 1 else values[0]
    if name == "CONSTANT_BUFFER_VIEW":
        return abi.constant("D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT") * rng.randint(1, 1 << 24)
    if name in ("SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW"):
        return rng.randint(1, 1 << 40) * 4
    if name == "VERTEX_BUFFER_VIEW":
        return {"BufferLocation": rng.randint(1, 1 << 40) * 4, "SizeInBytes": rng.randint(0, 1 << 20),
                "StrideInBytes": rng.randint(0, 64)}
    if name == "INDEX_BUFFER_VIEW":
        return {"BufferLocation": rng.randint(1, 1 << 40) * 4, "SizeInBytes": rng.randint(0, 1 << 20),
                "Format": abi.enum_value("DXGI_FORMAT", rng.choice(INDEX_FORMATS))}
    if name == "DRAW":
        return draw(rng.randint(0, 1000), rng.randint(0, 4), rng.randint(0, 100), rng.randint(0, 4))
    if name == "DRAW_INDEXED":
        return {"IndexCountPerInstance": rng.randint(0, 1000), "InstanceCount": rng.randint(0, 4),
                "StartIndexLocation": rng.randint(0, 100), "BaseVertexLocation": rng.randint(-50, 50),
                "StartInstanceLocation": rng.randint(0, 4)}
    assert name == "DISPATCH", name
    return dispatch(rng.randint(1, 64), rng.randint(1, 4), rng.randint(1, 4))


def ei_spec(rng: random.Random, *, trigger: str | None = None, root: bool | None = None, cbv: bool = False,
            index_buffer: bool = False, count_buffer: bool | None = None, resources: bool | None = None) -> EISpec:
    """A valid ExecuteIndirect call drawn from ``rng`` (see the module docstring); the keywords force what a
    breaker needs (a trigger type, root arguments, a root CBV, an index buffer view, a count buffer, resources)."""
    if index_buffer:
        trigger = "DRAW_INDEXED"
    trigger = trigger or rng.choice(["DRAW", "DRAW_INDEXED", "DISPATCH"])
    graphics = arg_type_info(trigger).trigger_class is ExecutableClass.GRAPHICS
    rooted = [k for k in ("CONSTANT", "CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW",
                          "INCREMENTING_CONSTANT") if rng.random() < 0.4]
    if cbv and "CONSTANT_BUFFER_VIEW" not in rooted:
        rooted.append("CONSTANT_BUFFER_VIEW")
    if root and not rooted:
        rooted.append(rng.choice(["CONSTANT", "SHADER_RESOURCE_VIEW"]))
    if root is False:
        rooted = []
    rng.shuffle(rooted)
    params, args = [], []
    root_arguments: dict[int, RootArgument] = {}
    for p, kind in enumerate(rooted):
        if kind == "CONSTANT":
            dest, num = rng.randint(0, 2), rng.randint(1, 3)
            width = dest + num + rng.randint(0, 2)
            params.append(constants_param(width, p))
            args.append(ei_arg(kind, Constant=EIConstantArg(p, dest, num)))
            root_arguments[p] = RootArgument("constants", values=[rng.getrandbits(32) for _ in range(width)])
        elif kind == "INCREMENTING_CONSTANT":
            width = rng.randint(1, 2)
            params.append(constants_param(width, p))
            args.append(ei_arg(kind, IncrementingConstant=EIIncrementingConstantArg(p, rng.randint(0, width - 1))))
            root_arguments[p] = RootArgument("constants", values=[0] * width)
        else:
            params.append(view_param({"CONSTANT_BUFFER_VIEW": "CBV", "SHADER_RESOURCE_VIEW": "SRV",
                                      "UNORDERED_ACCESS_VIEW": "UAV"}[kind], p))
            member = {"CONSTANT_BUFFER_VIEW": "ConstantBufferView", "SHADER_RESOURCE_VIEW": "ShaderResourceView",
                      "UNORDERED_ACCESS_VIEW": "UnorderedAccessView"}[kind]
            args.append(ei_arg(kind, **{member: RootParameterIndexArg(p)}))
    if graphics:
        for slot in rng.sample(range(abi.constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT")), rng.randint(0, 2)):
            args.append(ei_arg("VERTEX_BUFFER_VIEW", VertexBuffer=VertexBufferArg(slot)))
        if trigger == "DRAW_INDEXED" and (index_buffer or rng.random() < 0.5):
            args.append(ei_arg("INDEX_BUFFER_VIEW"))
    args.append(ei_arg(trigger))
    rs = root_signature("RS", *params) if rooted else None
    cs = CommandSignature("CS", 0, args, pRootSignature=rs)
    layout = command_layout(cs)
    cs.ByteStride = layout.size + EI_BUFFER_ALIGN * rng.randint(0, 2)
    fields = [(f, cs.pArgumentDescs[f.arg]) for f in layout.fields if f.arg is not None]
    max_count = rng.randint(1, 8)
    commands = [{f.name: _value(rng, a, f) for f, a in fields} for _ in range(max_count)]
    with_count = rng.random() < 0.5 if count_buffer is None else count_buffer
    count = rng.randint(0, max_count + 2) if with_count else None
    spec = EISpec(cs, layout, commands, max_count, count, rs, graphics, root_arguments=root_arguments)
    give = rng.random() < 0.5 if resources is None else resources
    if give:
        before = EI_BUFFER_ALIGN * rng.randint(0, 4)
        spec.args_resource = BufferResource(ARGUMENT_VA - before, before + max_count * cs.ByteStride
                                            + EI_BUFFER_ALIGN * rng.randint(0, 4),
                                            rng.choice([None, states(rng.choice(KEPT_STATES))]))
        if with_count:
            before = EI_BUFFER_ALIGN * rng.randint(0, 4)
            spec.count_resource = BufferResource(COUNT_VA - before, before + COUNT_SIZE + EI_BUFFER_ALIGN
                                                 * rng.randint(0, 4), rng.choice([None, states(rng.choice(KEPT_STATES))]))
    return spec


def dispatch_call(rng: random.Random) -> Call:
    """A valid ExecuteIndirect of 1-8 DISPATCH commands at their tightly packed stride, no count buffer."""
    s = Scene()
    cs = CommandSignature("CS", 0, [ei_arg("DISPATCH")])
    layout = command_layout(cs)
    cs.ByteStride = layout.size
    n = rng.randint(1, 8)
    s.put(ARGUMENT_VA, b"".join(pack_record(layout, {"arg0_Dispatch": dispatch(rng.randint(1, 64))}) for _ in range(n)))
    return Call(s.memory, s.device, s.objects, s.state, ExecuteIndirectCall(cs, n, ARGUMENT_VA))


def _ei(c: Call) -> ExecuteIndirectCall:
    assert isinstance(c.call, ExecuteIndirectCall)
    return c.call


@breaks("missing-command-signature")
def missing_command_signature(rng: random.Random, broken: bool) -> Call:
    """E1: IndirectDrawing.md "Drawing": ExecuteIndirect interprets each command by pCommandSignature."""
    c = ei_spec(rng).build() if rng.random() < 0.5 else dispatch_call(rng)
    if broken:
        _ei(c).pCommandSignature = None
    return c


@breaks("no-dispatch-trigger")
def no_dispatch_trigger(rng: random.Random, broken: bool) -> Call:
    """E13: Command signature Creation: "Otherwise, the command signature must contain a dispatch operation"."""
    spec = ei_spec(rng)
    c = spec.build()
    if broken:
        cs = _ei(c).pCommandSignature
        assert cs is not None
        cs.pArgumentDescs = [a for a in cs.pArgumentDescs if not arg_type_info(_type(a)).is_trigger]
    return c


@breaks("stride-misaligned")
def stride_misaligned(rng: random.Random, broken: bool) -> Call:
    """E21: Validation: "ByteStride is 4-byte aligned"; "ByteStride must be a multiple of 4 bytes"."""
    spec = ei_spec(rng)
    if broken:
        spec.cs.ByteStride += rng.randint(1, EI_BUFFER_ALIGN - 1)
    return spec.build()


@breaks("stride-below-minimum")
def stride_below_minimum(rng: random.Random, broken: bool) -> Call:
    """E22: Validation: "ByteStride is large enough to hold all data"."""
    spec = ei_spec(rng)
    if broken:
        spec.cs.ByteStride = spec.layout.size - EI_BUFFER_ALIGN * rng.randint(1, spec.layout.size // EI_BUFFER_ALIGN - 1)
    return spec.build()


@breaks("root-signature-mismatch")
def root_signature_mismatch(rng: random.Random, broken: bool) -> Call:
    """E9: Drawing, debug layer: "The root signature of the command list matches the root signature of the command
    signature"."""
    spec = ei_spec(rng, root=True)
    if broken:
        assert spec.root_signature is not None
        spec.root_signature = RootSignature("Other", list(spec.root_signature.pParameters))
    return spec.build()


@breaks("root-signature-not-set")
def root_signature_not_set(rng: random.Random, broken: bool) -> Call:
    """E10: Drawing, debug layer: "The root signature of the command list matches the root signature of the command
    signature": none set on the command list matches none."""
    spec = ei_spec(rng, root=True)
    if broken:
        spec.root_signature = None
    return spec.build()


def _misaligned_offset(rng: random.Random, broken: bool, count: bool) -> Call:
    """A call whose argument (or count) buffer's resource starts 1-3 bytes before where it did when ``broken``: the
    VA stays aligned, its offset into the resource does not."""
    spec = ei_spec(rng, count_buffer=count, resources=True)
    if broken:
        attr = "count_resource" if count else "args_resource"
        r = getattr(spec, attr)
        assert r is not None
        skew = rng.randint(1, EI_BUFFER_ALIGN - 1)
        setattr(spec, attr, BufferResource(r.GPUVirtualAddress - skew, r.Width + skew, r.State))
    return spec.build()


@breaks("argument-buffer-offset-misaligned")
def argument_buffer_offset_misaligned(rng: random.Random, broken: bool) -> Call:
    """E5: Drawing, core runtime: "CountBufferOffset and ArgumentBufferOffset are 4-byte aligned" (the argument
    buffer's offset into its resource; the VA itself stays aligned)."""
    return _misaligned_offset(rng, broken, count=False)


@breaks("count-buffer-offset-misaligned")
def count_buffer_offset_misaligned(rng: random.Random, broken: bool) -> Call:
    """E5: Drawing, core runtime: "CountBufferOffset and ArgumentBufferOffset are 4-byte aligned" (the count
    buffer's offset into its resource)."""
    return _misaligned_offset(rng, broken, count=True)


@breaks("argument-buffer-out-of-bounds")
def argument_buffer_out_of_bounds(rng: random.Random, broken: bool) -> Call:
    """E7: Drawing, core runtime: "The offset implied by MaxCommandCount, ArgumentBufferOffset, and the drawing
    program stride do not exceed the bounds of pArgumentBuffer": MaxCommandCount counts, not what the count buffer
    lets execute (against the resource the capture gives; without one, the bound is unknown: E49)."""
    spec = ei_spec(rng, count_buffer=True, resources=True)
    spec.count = min(spec.count or 0, spec.max_count)  # what executes stays mapped when MaxCommandCount grows
    if broken:
        stride = spec.cs.ByteStride
        r = spec.args_resource
        assert r is not None
        room = (r.Width - (spec.args_va - r.GPUVirtualAddress)) // stride
        spec.max_count = room + rng.randint(1, 4)
    return spec.build()


@breaks("count-buffer-out-of-bounds")
def count_buffer_out_of_bounds(rng: random.Random, broken: bool) -> Call:
    """E7: Drawing, core runtime: "... do not exceed the bounds of pArgumentBuffer (similarly for count buffer)"."""
    spec = ei_spec(rng, count_buffer=True, resources=True)
    if broken:
        r = spec.count_resource
        assert r is not None
        offset = spec.count_va - r.GPUVirtualAddress
        spec.count_resource = BufferResource(r.GPUVirtualAddress, offset + rng.randint(0, COUNT_SIZE - 1), r.State)
    return spec.build()


@breaks("argument-buffer-wrong-state")
def argument_buffer_wrong_state(rng: random.Random, broken: bool) -> Call:
    """E4, E38, E46: Drawing: "The debug layer will issue an error if either the count buffer or the argument buffer
    are not in the D3D12_RESOURCE_USAGE_INDIRECT_ARGUMENT state" (the argument buffer)."""
    spec = ei_spec(rng, resources=True)
    r = spec.args_resource
    assert r is not None
    spec.args_resource = BufferResource(r.GPUVirtualAddress, r.Width,
                                        states(rng.choice(BROKEN_STATES if broken else KEPT_STATES)))
    return spec.build()


@breaks("count-buffer-wrong-state")
def count_buffer_wrong_state(rng: random.Random, broken: bool) -> Call:
    """E4, E44, E46: Drawing: "... if either the count buffer or the argument buffer are not in the
    D3D12_RESOURCE_USAGE_INDIRECT_ARGUMENT state" (the count buffer)."""
    spec = ei_spec(rng, count_buffer=True, resources=True)
    r = spec.count_resource
    assert r is not None
    spec.count_resource = BufferResource(r.GPUVirtualAddress, r.Width,
                                         states(rng.choice(BROKEN_STATES if broken else KEPT_STATES)))
    return spec.build()


@breaks("unmapped-va")
def count_buffer_unmapped(rng: random.Random, broken: bool) -> Call:
    """E2: Drawing: "a 32-bit unsigned integer contained in pCountBuffer (at the byte offset specified by
    CountBufferOffset)": bytes the call reads that no memory holds."""
    spec = ei_spec(rng, count_buffer=True)
    if broken:
        spec.count_mapped = False
    return spec.build()


@breaks("misaligned-va")
def count_buffer_misaligned(rng: random.Random, broken: bool) -> Call:
    """E43: the ExecuteIndirect seed, The Count Buffer: "a single 32-bit unsigned integer (UINT32 / uint)", read at
    a VA that is not 4-byte aligned (the region that holds it stands for the resource, so its offset is 0)."""
    spec = ei_spec(rng, count_buffer=True, resources=False)
    if broken:
        spec.count_va += rng.randint(1, EI_BUFFER_ALIGN - 1)
    return spec.build()


@breaks("misaligned-va")
def argument_buffer_misaligned(rng: random.Random, broken: bool) -> Call:
    """E47: the ExecuteIndirect seed, Alignment: "Every command sequence inside the argument buffer must align to
    a byte boundary divisible by 4"."""
    spec = ei_spec(rng, resources=False)
    if spec.executed == 0:
        spec.count = None
    if broken:
        spec.args_va += rng.randint(1, EI_BUFFER_ALIGN - 1)
    return spec.build()


@breaks("unmapped-va")
def command_unmapped(rng: random.Random, broken: bool) -> Call:
    """E3: Drawing: "Interpret the data contained in *Arguments according to the command signature": a command
    whose bytes no memory holds (the resource is large enough: only the bytes are missing)."""
    spec = ei_spec(rng, resources=True)
    if spec.executed == 0:
        spec.count = None
    if broken:
        spec.mapped = spec.executed - 1
    return spec.build()


@breaks("va-wrap")
def command_va_wrap(rng: random.Random, broken: bool) -> Call:
    """E3: Drawing: "Arguments += pCommandSignature ->GetByteStride()" past the end of the 64-bit VA space."""
    spec = ei_spec(rng, count_buffer=False, resources=False)
    spec.args_va = VA_LIMIT - spec.max_count * spec.cs.ByteStride
    if broken:
        spec.max_count += 1
    return spec.build()


@breaks("index-buffer-format-invalid")
def index_buffer_format_invalid(rng: random.Random, broken: bool) -> Call:
    """E26: Validation: "If there are index buffer changes, the index buffer format is valid" (the format is in
    the argument buffer: per command)."""
    spec = ei_spec(rng, index_buffer=True, count_buffer=False)
    if broken:
        name = next(f.name for f in spec.layout.fields if f.arg_type == "INDEX_BUFFER_VIEW")
        valid = {abi.enum_value("DXGI_FORMAT", n) for n in INDEX_FORMATS}
        bad = rng.choice([v for v in [0, 1, 2, 41, 56, 58, rng.getrandbits(32)] if v not in valid])
        spec.commands[rng.randrange(spec.max_count)][name]["Format"] = bad
    return spec.build()


@breaks("cbv-address-misaligned")
def cbv_address_misaligned(rng: random.Random, broken: bool) -> Call:
    """E15, E36: Command signature Creation: "CBV -- Address and size must be a multiple of 256 bytes" (the address in
    each command)."""
    spec = ei_spec(rng, cbv=True, count_buffer=False)
    if broken:
        name = next(f.name for f in spec.layout.fields if f.arg_type == "CONSTANT_BUFFER_VIEW")
        align = abi.constant("D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT")
        spec.commands[rng.randrange(spec.max_count)][name] += rng.randint(1, align - 1)
    return spec.build()


# The command list the call is recorded on (capture version 3: state.command_list_type)

COMMAND_LIST_TYPE = "D3D12_COMMAND_LIST_TYPE"
#: "not a copy or JPEG decode command list" (IndirectDrawing.md "Drawing"): d3d12.h's copy and video types
COPY_OR_VIDEO = ("COPY", "VIDEO_DECODE", "VIDEO_PROCESS", "VIDEO_ENCODE")


def _recorded_on(c: Call, member: str) -> Call:
    c.state.command_list_type = abi.enum_value(COMMAND_LIST_TYPE, member)
    return c


def _legal_type(rng: random.Random, spec: EISpec) -> str:
    """A command list ``spec``'s call may be recorded on: direct; compute for a compute command signature; a bundle
    without a count buffer and with 1 operation."""
    types = ["DIRECT"] + ([] if spec.graphics else ["COMPUTE"])
    if spec.count is None and len(spec.cs.pArgumentDescs) == 1:
        types.append("BUNDLE")
    return rng.choice(types)


@breaks("execute-indirect-command-list-type-invalid")
def execute_indirect_on_a_copy_or_video_list(rng: random.Random, broken: bool) -> Call:
    """E8: Drawing, core runtime: "The command list is a direct command list or a compute command list (not a copy
    or JPEG decode command list)"."""
    spec = ei_spec(rng)
    return _recorded_on(spec.build(), rng.choice(COPY_OR_VIDEO) if broken else _legal_type(rng, spec))


@breaks("execute-indirect-bundle-count-buffer")
def execute_indirect_in_a_bundle_with_a_count_buffer(rng: random.Random, broken: bool) -> Call:
    """E11: Bundles: "ExecuteIndirect is allowed inside of bundle command lists only if all of the following are
    true: 1. CountBuffer is NULL (CPU-specified count only)" (a one-operation DISPATCH signature with a count
    buffer: kept on a direct or compute command list)."""
    spec = ei_spec(rng, trigger="DISPATCH", root=False, count_buffer=True)
    return _recorded_on(spec.build(), "BUNDLE" if broken else rng.choice(["DIRECT", "COMPUTE"]))


@breaks("execute-indirect-bundle-multiple-operations")
def execute_indirect_in_a_bundle_with_several_operations(rng: random.Random, broken: bool) -> Call:
    """E12: Bundles: "2. The command signature contains exactly 1 operation. This implies that the command signature
    does not contain root arguments changes, nor contain VB/IB binding changes" (root arguments, no count buffer)."""
    spec = ei_spec(rng, root=True, count_buffer=False)
    return _recorded_on(spec.build(), "BUNDLE" if broken else _legal_type(rng, spec))


@breaks("root-parameter-not-set")
def root_parameter_set_by_nothing(rng: random.Random, broken: bool) -> Call:
    """E48: IndirectDrawing.md "Overview": the command signature specifies "The set of resource bindings which will
    change per-command call versus the set which will be inherited"; "Driver Conformance Tests": "Arbitrary command
    signatures produce the same results as corresponding non-indirect rendering API calls" (a parameter of the
    root signature the commands see, the command signature's or, without one, the command list's, that neither
    the command signature changes nor the command list sets)."""
    spec = ei_spec(rng, root=rng.random() < 0.5)
    if spec.executed == 0:
        spec.count = None
    extra = root_parameters(rng)
    if spec.root_signature is None:  # a command signature that changes no root argument: the command list's
        spec.root_signature = root_signature("CL", *[p for p, _ in extra])
        first = 0
    else:  # parameters the command signature does not change, after its own
        first = len(spec.root_signature.pParameters)
        spec.root_signature.pParameters.extend(p for p, _ in extra)
    args = {first + i: a for i, (_, a) in enumerate(extra)}
    if broken:
        unset_one(rng, args)
    spec.root_arguments.update(args)
    return spec.build()


@breaks("argument-buffer-bounds-unknown")
def argument_buffer_bounds_unknown(rng: random.Random, broken: bool) -> Call:
    """E49: Drawing, core runtime: "The offset implied by MaxCommandCount, ArgumentBufferOffset, and the drawing
    program stride do not exceed the bounds of pArgumentBuffer", against a capture that gives no resource: the
    mapped region (the bytes read back) stands for it, so the bound cannot be decided (a partial readback of a
    larger buffer: MaxCommandCount past the commands the count buffer lets execute)."""
    spec = ei_spec(rng, count_buffer=True, resources=False)
    spec.count = min(spec.count or 0, spec.max_count)  # what executes stays mapped when MaxCommandCount grows
    if broken:
        spec.max_count += rng.randint(1, 1 << 20)
    return spec.build()


@breaks("count-buffer-bounds-unknown")
def count_buffer_bounds_unknown(rng: random.Random, broken: bool) -> Call:
    """E49: Drawing, core runtime: "... (similarly for count buffer)", against a capture that gives no resource: a
    region shorter than the UINT32 from the count buffer's VA on (its read faults too: unmapped-va)."""
    spec = ei_spec(rng, count_buffer=True, resources=False)
    if broken:
        spec.count_bytes = rng.randint(1, COUNT_SIZE - 1)
    return spec.build()
