"""``migrate ei-to-wl``: per-PSO ExecuteIndirect buckets into one work list (spec "Motivation": one call per
possible PSO, many of them empty, becomes one DispatchList).

Input: ExecuteIndirect calls in command-list order, each with the program (PSO) bound for it.  Every binding a
shader sees in a call's draws (root parameter by register, vertex-buffer slot, index buffer) comes from the command
signature (per command) or from the command-list state (per call); it is then classified over every draw of every
call (spec "Per-binding source"):

* the same in every draw: stays command-list state (a global root signature slot no PCS touches);
* constant within each call but different between calls: per program, so it goes in the program table, as an
  ``_INLINE_ROOT_PARAMETER`` with ``Source = _PROGRAM_TABLE_RECORD`` (implicit local root signature, same register);
  it leaves the global root signature, so the shader reads it from its local root signature
  (``bucket_constants="records"`` keeps it global and per record instead);
* varying within a call: a per-record argument of the same global root parameter (or IA slot);
* a root parameter only some command signatures' root signatures declare: a local root parameter of their PCSes,
  in the program table when constant per call, else per record (the global root signature is shared).

One program command signature per ExecuteIndirect command signature, all in one work list signature; the uniformity
constraints (1-3: one global root signature, the same updated root parameters and IA slots) hold because the
classification is made over all calls together.  Calls that mix graphics and compute become a Tier 2 chain: a work
list signature per class in one signature array, a list per run of calls of one class.  One program-table slot per call, in call order.  Per PCS, the
records are laid out fully inline (one primary record per draw) or hybrid (one primary record per call, a
secondary record per draw), whichever moves fewer bytes (spec "Primary record layout", "Stride derivation"); both
totals are reported.  Every record is packed by :mod:`d3d12wl.records.packers` at offsets from
:mod:`d3d12wl.records.layout`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.migrate._columns import (
    IB_BINDING,
    VIEW_ARG,
    Binding,
    column_for,
    root_binding,
    rows_of,
    strided,
    vb_binding,
)
from d3d12wl.migrate.runs import CallSequenceEntry, MigrationError, call_program
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import (
    CommandSignature,
    ConstantArg,
    InlineRootParameter,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootParameterIndexArg,
    RootSignature,
    VertexBufferArg,
    WorkListArgumentDesc,
    WorkListSignature,
    WorkListSignatureArray,
)
from d3d12wl.model.state import (
    CommandListState,
    DeviceCaps,
    DispatchListCall,
    ExecuteIndirectCall,
    GpuVirtualAddressRangeAndStride,
    IndexBufferView,
    ProgramTableBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    VertexBufferView,
    WorkListBinding,
)
from d3d12wl.records.layout import IDENTIFIER_FIELD, PCSLayout, command_layout, pcs_layout, round_up
from d3d12wl.records.packers import (
    VA_ALIGN,
    pack_count_buffer,
    pack_dispatch_list_inputs,
    pack_primary_records,
    pack_program_table,
    pack_secondary_records,
    pack_structs,
    read_structs,
)

__all__ = ["Bucket", "EiToWl", "LayoutChoice", "identifier_for", "ei_to_wl", "read_buckets"]

#: the executable classes whose ExecuteIndirect calls migrate (a raytracing-class call has no work list to go to)
MIGRATED_CLASSES = (ExecutableClass.GRAPHICS, ExecutableClass.COMPUTE)
IDENTIFIER_SIZE = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
VB_VIEW, IB_VIEW = "D3D12_VERTEX_BUFFER_VIEW", "D3D12_INDEX_BUFFER_VIEW"


def identifier_for(name: str) -> bytes:
    """A program's 32-byte identifier when its capture gives none: its name, zero-padded (as the bundled examples
    do, so a hex dump reads as the name); a longer name is a hash of it.  A name JSON can hold and UTF-8 cannot (a
    lone surrogate, ``"\\ud800"``) gives its own bytes as Python's ``surrogatepass`` writes them: distinct from
    every other name's, as an identifier must be (issue 42, class 12)."""
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) <= IDENTIFIER_SIZE:
        return raw.ljust(IDENTIFIER_SIZE, b"\0")
    import hashlib

    return hashlib.sha256(raw).digest()


@dataclass
class Bucket:
    """The draws of one ExecuteIndirect call: its program, command signature, count and, per binding, the value
    bytes of every draw (``(count, size)``; a command-list value is one row broadcast)."""

    program: str
    identifier: bytes
    signature: CommandSignature
    executable_class: ExecutableClass
    count: int
    max_count: int
    count_buffer: bool
    trigger: str
    trigger_rows: np.ndarray
    values: dict[str, np.ndarray]
    bindings: dict[str, Binding]
    per_command: set[str]
    root_signature: RootSignature | None
    state: CommandListState
    fixed: dict[str, np.ndarray] = field(default_factory=dict)
    capture_device: DeviceCaps = field(default_factory=DeviceCaps)
    #: the ``Name`` of the command signature's argument that sets each binding (None: several do, or none is named),
    #: and of its trigger: the work list's argument takes it
    names: dict[str | None, str | None] = field(default_factory=dict)

    def call_value(self, key: str) -> bytes | None | bool:
        """The one value ``key`` has in every draw of this call (bytes), None when no draw constrains it (an empty
        call's per-command binding), False when it varies between draws."""
        if key not in self.per_command:
            return self.fixed[key].tobytes()
        if self.count == 0:
            return None
        v = self.values[key]
        return v[0].tobytes() if bool((v == v[0]).all()) else False

    @property
    def bytes_read(self) -> int:
        """Argument-buffer bytes the call reads (count x ByteStride) plus its count buffer's (one UINT32)."""
        return self.count * self.signature.ByteStride + (pack_count_buffer(0).nbytes if self.count_buffer else 0)


def _root_arguments(state: CommandListState, cls: ExecutableClass) -> dict[int, RootArgument]:
    return state.graphics_root_arguments if cls is ExecutableClass.GRAPHICS else state.compute_root_arguments


def _command_list_bytes(arg: RootArgument, b: Binding) -> np.ndarray:
    if arg.kind == "constants":
        return np.array(arg.values, dtype="<u4").view(np.uint8)[None, :b.size]
    return np.frombuffer(int(arg.value).to_bytes(b.size, "little"), dtype=np.uint8)[None, :]


def _vb_bytes(v: VertexBufferView) -> np.ndarray:
    return pack_structs(VB_VIEW, {"BufferLocation": [v.BufferLocation], "SizeInBytes": [v.SizeInBytes],
                                  "StrideInBytes": [v.StrideInBytes]}).reshape(1, -1)


def _ib_bytes(v: IndexBufferView) -> np.ndarray:
    return pack_structs(IB_VIEW, {"BufferLocation": [v.BufferLocation], "SizeInBytes": [v.SizeInBytes],
                                  "Format": [v.Format]}).reshape(1, -1)


def read_buckets(entries: Sequence[CallSequenceEntry]) -> list[Bucket]:
    """Read every ExecuteIndirect call's draws as byte columns (one numpy gather per call, no object per draw)."""
    buckets = []
    for i, entry in enumerate(entries):
        cap = entry.capture
        where = str(cap.path) if cap.path else f"calls[{i}]"
        call = cap.call
        if not isinstance(call, ExecuteIndirectCall) or call.pCommandSignature is None:
            raise MigrationError(f"not an ExecuteIndirect capture ({cap.call_name})", where=where)
        program = call_program(entry, i)
        assert program is not None
        buckets.append(_read_bucket(cap, call, program, where))
    return buckets


def _one_parameter_per_register(bindings: Sequence[Binding], where: str) -> None:
    """A binding is named by its register (root constants and a root CBV both take a b register): two root
    parameters of one name would be one binding, so they are refused."""
    seen: dict[str, int] = {}
    for i, b in enumerate(bindings):
        if b.key in seen:
            raise MigrationError(f"root parameters {seen[b.key]} and {i} both bind {b.key}; the migration names a "
                                 "binding by its register", where=where)
        seen[b.key] = i


def _read_bucket(cap: Capture, call: ExecuteIndirectCall, program: str, where: str) -> Bucket:
    cs = call.pCommandSignature
    assert cs is not None
    triggers = [arg_type_info(a.type_name) for a in cs.pArgumentDescs if arg_type_info(a.type_name).is_trigger]
    if len(triggers) != 1 or triggers[0].trigger_class not in MIGRATED_CLASSES:
        raise MigrationError(f"command signature {cs.name!r} needs one DRAW, DRAW_INDEXED, DISPATCH_MESH or DISPATCH "
                             "argument", where=where, rule="IndirectDrawing Validation 1")
    cls = triggers[0].trigger_class
    assert cls is not None
    layout = command_layout(cs)
    count = call.MaxCommandCount
    if call.CountBuffer is not None:
        count = min(count, cap.memory.read_u32(call.CountBuffer, what="count buffer"))
    records = strided(cap.memory, call.ArgumentBuffer, count, cs.ByteStride, layout.size, f"{where}: command")
    state = cap.state
    # the draws see the root signature bound on the command list and its root arguments; a command signature
    # without a root signature (IndirectDrawing.md "Command signature Creation", Validation 13: none when no
    # argument changes a root argument) draws with them too, and one with a root signature must match it
    # (IndirectDrawing.md "Drawing": "The root signature of the command list matches the root signature of the
    # command signature")
    bound = state.graphics_root_signature if cls is ExecutableClass.GRAPHICS else state.compute_root_signature
    if cs.pRootSignature is not None and bound is not None and cs.pRootSignature != bound:
        raise MigrationError(f"command signature {cs.name!r} has root signature {cs.pRootSignature.name!r} but the "
                             f"command list has {bound.name!r} bound", where=where,
                             rule="IndirectDrawing Drawing: root signature of the command list matches")
    rs = cs.pRootSignature if cs.pRootSignature is not None else bound
    bindings: dict[str, Binding] = {}
    values: dict[str, np.ndarray] = {}
    fixed: dict[str, np.ndarray] = {}
    per_command: set[str] = set()
    trigger, trigger_rows = "", np.zeros((count, 0), dtype=np.uint8)
    params = rs.pParameters if rs is not None else []
    root_bindings = [root_binding(p) for p in params]
    _one_parameter_per_register(root_bindings, where)
    cl = _root_arguments(state, cls)
    for p, b in enumerate(root_bindings):
        if p in cl:
            bindings[b.key] = b
            fixed[b.key] = _command_list_bytes(cl[p], b)[0]
            values[b.key] = np.broadcast_to(fixed[b.key], (count, b.size))
    if cls is ExecutableClass.GRAPHICS:
        for slot, v in state.vertex_buffers.items():
            b = vb_binding(slot)
            fixed[b.key] = _vb_bytes(v)[0]
            bindings[b.key], values[b.key] = b, np.broadcast_to(fixed[b.key], (count, b.size))
        if state.index_buffer is not None:
            fixed["IB"] = _ib_bytes(state.index_buffer)[0]
            bindings["IB"], values["IB"] = IB_BINDING, np.broadcast_to(fixed["IB"], (count, IB_BINDING.size))
    names: dict[str | None, str | None] = {}
    for i, arg in enumerate(cs.pArgumentDescs):
        t = arg.type_name
        f = layout.arg_field(i)
        if arg_type_info(t).is_trigger:
            assert f is not None
            trigger, trigger_rows = t, np.ascontiguousarray(rows_of(records, f))
            names[None] = arg.Name
            continue
        if t == "VERTEX_BUFFER_VIEW":
            b = vb_binding(arg.VertexBuffer.Slot)
            new = rows_of(records, f) if f is not None else None
        elif t == "INDEX_BUFFER_VIEW":
            b, new = IB_BINDING, rows_of(records, f) if f is not None else None
        elif t in ("CONSTANT", "INCREMENTING_CONSTANT", "CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW",
                   "UNORDERED_ACCESS_VIEW"):
            rpi = arg.root_parameter_index or 0
            if rpi >= len(root_bindings):
                raise MigrationError(f"{cs.name!r} argument {i} targets root parameter {rpi}, outside root "
                                     "signature", where=where)
            b = root_binding(params[rpi])
            if b.kind == "constants":
                base = values.get(b.key)
                full = np.zeros((count, b.size), dtype=np.uint8) if base is None else np.array(base)
                if t == "CONSTANT":
                    d, k = arg.Constant.DestOffsetIn32BitValues, arg.Constant.Num32BitValuesToSet
                    assert f is not None
                    full[:, 4 * d:4 * (d + k)] = rows_of(records, f)
                    covered = base is not None or (d == 0 and k * 4 == b.size)
                else:  # IndirectDrawing.md "Incrementing constant": the command's index within the call
                    d = arg.IncrementingConstant.DestOffsetIn32BitValues
                    full[:, 4 * d:4 * d + 4] = np.arange(count, dtype="<u4").view(np.uint8).reshape(count, 4)
                    covered = base is not None or b.size == 4
                if not covered:
                    raise MigrationError(f"root constants {b.key} are only partly set per command and not set on "
                                         "the command list", where=where)
                new = full
            else:
                assert f is not None
                new = rows_of(records, f)
        else:
            raise MigrationError(f"argument type {t} of {cs.name!r} is not migrated", where=where)
        names[b.key] = None if b.key in names else arg.Name  # (two arguments setting one binding: no name)
        if new is not None:
            bindings[b.key] = b
            values[b.key] = new
            per_command.add(b.key)
    known = cap.objects.programs.get(program)
    identifier = known.Identifier if known is not None else identifier_for(program)
    return Bucket(program, identifier, cs, cls, count, call.MaxCommandCount,
                  call.CountBuffer is not None, trigger, trigger_rows, values, bindings, per_command, rs, state, fixed,
                  cap.device, names)


# --------------------------------------------------------------------------------------------------------------


@dataclass
class LayoutChoice:
    """Bytes of the records of one PCS laid out each way, and the way chosen."""

    pcs: str
    inline_bytes: int
    hybrid_bytes: int
    chosen: str


@dataclass
class EiToWl:
    """The migrated work list: ``capture`` (a DispatchList capture), the objects it made and the figures."""

    capture: Capture
    buckets: list[Bucket]
    placement: dict[str, str]
    layouts: list[LayoutChoice]
    bytes_before: int
    bytes_after: int
    bytes_inline: int
    bytes_hybrid: int
    parts: dict[str, int] = field(default_factory=dict)

    def report(self) -> dict[str, Any]:
        calls = len(self.buckets)
        return {
            "before": {"calls": calls, "empty_calls": sum(b.count == 0 for b in self.buckets),
                       "draws": sum(b.count for b in self.buckets), "bytes": self.bytes_before},
            "after": {"calls": 1, "empty_calls": 0 if any(b.count for b in self.buckets) else 1,
                      "draws": sum(b.count for b in self.buckets), "bytes": self.bytes_after, "parts": self.parts},
            "layouts": [vars(c) for c in self.layouts],
            "bytes_fully_inline": self.bytes_inline, "bytes_hybrid": self.bytes_hybrid,
            "placement": self.placement,
        }


def _classify(buckets: list[Bucket], bucket_constants: str) -> tuple[dict[str, str], dict[str, Binding]]:
    """binding key -> 'command-list' | 'program-table' | 'record' (global, in every call's root signature or IA) or
    'local program-table' | 'local record' (a root parameter only some command signatures' root signatures have:
    it becomes a local root parameter of their PCSes, spec "Local root signatures")."""
    keys: dict[str, Binding] = {}
    for b in buckets:
        for key, binding in b.bindings.items():
            if key in keys and keys[key].kind != binding.kind:
                raise MigrationError(f"{key} is {keys[key].kind} in one call and {binding.kind} in {b.program!r}; "
                                     "the migration names a binding by its register")
            keys[key] = binding
    declared = [{root_binding(p).key: p for p in (b.root_signature.pParameters if b.root_signature else [])}
                for b in buckets]
    out: dict[str, str] = {}
    for key, binding in keys.items():
        local = binding.root and not all(d.get(key) == binding.parameter for d in declared)
        scope = [b for b, d in zip(buckets, declared) if key in d] if local else buckets
        have = [b for b in scope if key in b.values]
        if len(have) != len(scope):
            missing = next(b.program for b in scope if key not in b.values)
            raise MigrationError(f"binding {key} is set for some calls but not for {missing!r}; a work list's "
                                 "calls share one command-list state")
        per_call = [b.call_value(key) for b in have]
        per_call_const = all(v is not False for v in per_call)
        firsts = [v for v in per_call if isinstance(v, bytes)]
        movable = binding.kind in ("constants", "CBV", "SRV", "UAV")
        if local:
            if not movable:
                raise MigrationError(f"{binding.kind} {key} is in some command signatures' root signatures only; "
                                     "only root constants and root views can become local root parameters")
            out[key] = "local program-table" if per_call_const and bucket_constants == "program-table" \
                else "local record"
        elif per_call_const and len(set(firsts)) <= 1:
            out[key] = "command-list"
        elif per_call_const and bucket_constants == "program-table" and movable:
            out[key] = "program-table"
        elif binding.kind == "table":
            raise MigrationError(f"descriptor table {key} differs between calls; ExecuteIndirect cannot set it per "
                                 "command and the migration does not move command-list tables")
        else:
            out[key] = "record"
    return out, keys


def _sort_key(b: Binding, index: dict[str, int]) -> tuple[int, int]:
    if b.root:
        return (0, index[b.key])
    return (1, b.slot if b.slot is not None else 1 << 20)


def _arg(kind: str, source: str, **payload: Any) -> WorkListArgumentDesc:
    a = WorkListArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", kind),
                             Source=abi.enum_value("D3D12_INDIRECT_ARGUMENT_SOURCE", source),
                             Binding=abi.enum_value("D3D12_INDIRECT_ARGUMENT_BINDING",
                                                    "LOCAL_ROOT_SIGNATURE" if kind == "INLINE_ROOT_PARAMETER"
                                                    else "GLOBAL_ROOT_SIGNATURE"))
    for k, v in payload.items():
        setattr(a, k, v)
    return a


def _record_arg(b: Binding, rpi: int | None, source: str) -> WorkListArgumentDesc:
    if b.kind == "constants":
        assert b.parameter is not None and rpi is not None
        return _arg("CONSTANT", source, Constant=ConstantArg(rpi, 0, b.parameter.Constants.Num32BitValues))
    if b.kind in VIEW_ARG:
        kind = VIEW_ARG[b.kind]
        member = arg_type_info(kind).union_member
        assert member is not None
        return _arg(kind, source, **{member: RootParameterIndexArg(rpi or 0)})
    if b.kind == "VB":
        return _arg("VERTEX_BUFFER_VIEW", source, VertexBuffer=VertexBufferArg(b.slot or 0))
    if b.kind == "IB":
        return _arg("INDEX_BUFFER_VIEW", source)
    raise MigrationError(f"binding {b.key} ({b.kind}) cannot be set per record")


def _inline_arg(b: Binding, source: str = "PROGRAM_TABLE_RECORD") -> WorkListArgumentDesc:
    assert b.parameter is not None
    p = b.parameter
    wrapped = RootParameter1(ParameterType=p.ParameterType, Constants=p.Constants, Descriptor=p.Descriptor,
                             ShaderVisibility=p.ShaderVisibility)
    n = p.Constants.Num32BitValues if b.kind == "constants" else 0
    return _arg("INLINE_ROOT_PARAMETER", source, InlineRootParameter=InlineRootParameter(wrapped, 0, n))


@dataclass
class _Plan:
    """One executable class's part of the migration: its global root signature, PCSes and their layouts."""

    cls: ExecutableClass
    buckets: list[Bucket]
    grs: RootSignature | None
    index: dict[str, int]
    arg_keys: dict[str, list[str | None]]
    keys: dict[str, Binding]
    placement: dict[str, str]
    chosen: dict[str, ProgramCommandSignature]
    choices: list[LayoutChoice]
    stride: int
    inline_bytes: int
    hybrid_bytes: int


def _plan(buckets: list[Bucket], bucket_constants: str, layout: str) -> _Plan:
    """Classify the bindings of one class's calls and make its PCSes, laid out to the fewest bytes."""
    cls = buckets[0].executable_class
    placement, keys = _classify(buckets, bucket_constants)
    signatures = [b.root_signature for b in buckets if b.root_signature is not None]
    rs = signatures[0] if signatures else None
    if any(s.pStaticSamplers != rs.pStaticSamplers or s.Flags != rs.Flags for s in signatures if rs is not None):
        raise MigrationError("the calls' root signatures differ in static samplers or flags; a work list signature "
                             "shares one global root signature",
                             rule="Uniformity constraints across program command signatures (1)")

    # the global root signature: the parameters every call's root signature has, without the per-program ones (now
    # local, in the program table), in the first root signature's order
    params = rs.pParameters if rs is not None else []
    keep = [p for p in params if placement.get(root_binding(p).key) in ("command-list", "record")
            or root_binding(p).key not in placement and all(
                root_binding(p).key in {root_binding(q).key for q in s.pParameters} for s in signatures)]
    grs: RootSignature | None = None
    if rs is not None:
        grs = rs if keep == params and all(s == rs for s in signatures) else RootSignature(
            name=rs.name + "_WL", pParameters=keep, pStaticSamplers=list(rs.pStaticSamplers), Flags=rs.Flags)
    index = {root_binding(p).key: i for i, p in enumerate(keep)}
    record_keys = sorted((k for k, w in placement.items() if w == "record"), key=lambda k: _sort_key(keys[k], index))
    table_keys = [k for k, w in placement.items() if w == "program-table"]

    # one PCS per command signature, each laid out inline and hybrid
    by_cs: dict[str, CommandSignature] = {}
    for b in buckets:
        if by_cs.setdefault(b.signature.name, b.signature) != b.signature:
            raise MigrationError(f"two different command signatures are named {b.signature.name!r}")

    bound_rs = {b.signature.name: b.root_signature for b in buckets}
    arg_names = {b.signature.name: b.names for b in buckets}

    def locals_of(cs: CommandSignature, where: str) -> list[str]:
        crs = bound_rs[cs.name]
        declared = {root_binding(p).key for p in (crs.pParameters if crs else [])}
        return [k for k, w in placement.items() if w == where and k in declared]

    arg_keys: dict[str, list[str | None]] = {}  # PCS name -> binding key of each argument (None: the trigger)

    def make_pcs(cs: CommandSignature, trigger: str, hybrid: bool) -> ProgramCommandSignature:
        source = "SECONDARY_RECORD" if hybrid else "PRIMARY_RECORD"
        per_record = locals_of(cs, "local record")
        in_table = table_keys + locals_of(cs, "local program-table")
        args = [_record_arg(keys[k], index.get(k), source) for k in record_keys]
        args += [_inline_arg(keys[k], source) for k in per_record]
        args.append(_arg(trigger, source))
        args += [_inline_arg(keys[k]) for k in in_table]
        pcs = ProgramCommandSignature(f"PCS_{cs.name}", args, 0, grs)
        arg_keys[pcs.name] = [*record_keys, *per_record, None, *in_table]
        names = arg_names[cs.name]  # the command signature's argument Names go with the bindings they set
        for a, k in zip(args, arg_keys[pcs.name], strict=True):
            a.Name = names.get(k)
        if hybrid:
            sec = pcs_layout(pcs).secondary
            assert sec is not None
            pcs.SecondaryRecordByteStride = sec.min_stride
        return pcs

    triggers = {b.signature.name: b.trigger for b in buckets}
    variants = {name: (make_pcs(cs, triggers[name], False), make_pcs(cs, triggers[name], True))
                for name, cs in by_cs.items()}
    layouts = {name: (pcs_layout(v[0]), pcs_layout(v[1])) for name, v in variants.items()}
    names = list(by_cs)
    draws = {name: sum(b.count for b in buckets if b.signature.name == name) for name in names}
    calls_with_draws = {name: sum(1 for b in buckets if b.signature.name == name and b.count) for name in names}

    def total(choice: tuple[bool, ...]) -> tuple[int, int]:
        """(record bytes, primary stride) with PCS ``names[i]`` hybrid iff ``choice[i]``."""
        stride = max([layouts[n][int(h)].primary.min_stride for n, h in zip(names, choice) if draws[n]], default=8)
        size = 0
        for n, h in zip(names, choice):
            if h:
                sec = layouts[n][1].secondary
                assert sec is not None
                size += calls_with_draws[n] * stride + draws[n] * sec.min_stride
            else:
                size += draws[n] * stride
        return size, stride

    all_inline, all_hybrid = (False,) * len(names), (True,) * len(names)
    if layout == "inline":
        choice = all_inline
    elif layout == "hybrid":
        choice = all_hybrid
    elif len(names) <= 10:
        choice = min(itertools.product((False, True), repeat=len(names)), key=lambda c: (total(c)[0], c))
    else:
        choice = tuple(total(all_inline[:i] + (True,) + all_inline[i + 1:])[0] < total(all_inline)[0]
                       for i in range(len(names)))
    chosen = {n: variants[n][int(h)] for n, h in zip(names, choice)}
    choices = [LayoutChoice(f"PCS_{n}", _pcs_bytes(layouts[n][0], draws[n], calls_with_draws[n], False),
                            _pcs_bytes(layouts[n][1], draws[n], calls_with_draws[n], True),
                            "hybrid" if h else "inline") for n, h in zip(names, choice)]

    return _Plan(cls, buckets, grs, index, arg_keys, keys, placement, chosen, choices, total(choice)[1],
                 total(all_inline)[0], total(all_hybrid)[0])


def ei_to_wl(entries: Sequence[CallSequenceEntry], *, bucket_constants: str = "program-table",
             layout: str = "auto", base_va: int = 0x10000, slot_stride: int | None = None) -> EiToWl:
    """Migrate ExecuteIndirect calls (in command-list order) to one DispatchList capture, or, when the calls mix
    graphics and compute, to one DispatchList1 chain (Tier 2: a list per run of calls of one class, a work list
    signature per class in one signature array, spec "Work Lists Overview": cross-class chaining).

    ``bucket_constants``: ``"program-table"`` (per-call constants become local root arguments in the program table)
    or ``"records"`` (they stay global and go in the records).  ``layout``: ``"auto"`` (per PCS, the fewer bytes),
    ``"inline"`` or ``"hybrid"``."""
    if bucket_constants not in ("program-table", "records"):
        raise MigrationError(f"bucket_constants must be 'program-table' or 'records', not {bucket_constants!r}")
    if layout not in ("auto", "inline", "hybrid"):
        raise MigrationError(f"layout must be 'auto', 'inline' or 'hybrid', not {layout!r}")
    if not entries:
        raise MigrationError("no ExecuteIndirect call given")
    buckets = read_buckets(entries)
    order = list(dict.fromkeys(b.executable_class for b in buckets))
    plans = [_plan([b for b in buckets if b.executable_class is c], bucket_constants, layout) for c in order]
    grs = plans[0].grs
    for other in plans[1:]:
        if (other.grs is None) != (grs is None) or (grs is not None and other.grs is not None and (
                other.grs.pParameters != grs.pParameters or other.grs.pStaticSamplers != grs.pStaticSamplers)):
            raise MigrationError("the graphics and the compute calls do not leave one global root signature (the "
                                 "parameters every call declares, less those moved to the program table) for the "
                                 "signature array to share", rule="Uniformity constraints across program command "
                                 "signatures (1)")
        other.grs = grs
        for pcs in other.chosen.values():
            pcs.pGlobalRootSignature = grs
    if len(plans) == 1:
        plan = plans[0]
        capture, parts = _assemble(plan, base_va, slot_stride)
        placement = plan.placement
    else:
        capture, parts = _assemble_chain(buckets, plans, base_va, slot_stride)
        placement = {f"{k} ({p.cls.value.lower()})": w for p in plans for k, w in p.placement.items()}
    fixed = sum(parts.values()) - parts["primary"] - parts["secondary"]
    before = sum(b.bytes_read for b in buckets)
    return EiToWl(capture, buckets, placement, [c for p in plans for c in p.choices], before, sum(parts.values()),
                  sum(p.inline_bytes for p in plans) + fixed, sum(p.hybrid_bytes for p in plans) + fixed, parts)


def _pcs_bytes(lay: PCSLayout, draws: int, calls: int, hybrid: bool) -> int:
    """Record bytes of one PCS's draws laid out on their own: one primary record per draw (fully inline), or one
    per non-empty call plus a secondary record per draw (hybrid)."""
    if not hybrid:
        return draws * lay.primary.min_stride
    assert lay.secondary is not None
    return calls * lay.primary.min_stride + draws * lay.secondary.min_stride


def _programs(objects: ObjectSet, buckets: list[Bucket], chosen: dict[str, ProgramCommandSignature]) -> None:
    for b in buckets:
        pcs = chosen[b.signature.name]
        if b.program in objects.programs:
            if objects.programs[b.program].ProgramCommandSignature is not pcs:
                raise MigrationError(f"program {b.program!r} is called with two command signatures; a program is "
                                     "associated with one program command signature", rule="rule 1")
            continue
        objects.programs[b.program] = Program(b.program, b.identifier, pcs)


def _pack_table(buckets: list[Bucket], chosen: dict[str, ProgramCommandSignature],
                arg_keys: dict[str, list[str | None]], slot_stride: int | None) -> tuple[np.ndarray, int]:
    """The program table: one slot per call, each laid out by its PCS's program-table record (spec "Program table
    slot layout"), at the largest of their minimum strides.  Returns (bytes, stride)."""
    names = list(dict.fromkeys(b.signature.name for b in buckets))
    table_layouts = {n: pcs_layout(chosen[n]).program_table for n in names}
    stride_pt = max(t.min_stride for t in table_layouts.values() if t is not None) if slot_stride is None \
        else slot_stride
    slots = len(buckets)
    table = np.zeros(slots * stride_pt, dtype=np.uint8)
    for name, table_layout in table_layouts.items():
        assert table_layout is not None
        mine = [i for i, b in enumerate(buckets) if b.signature.name == name]
        pcs_name = chosen[name].name
        slot_cols: dict[str, Any] = {IDENTIFIER_FIELD: np.frombuffer(
            b"".join(buckets[i].identifier for i in mine), dtype=np.uint8).reshape(len(mine), IDENTIFIER_SIZE)}
        for f in table_layout.fields:
            if f.role != "arg":
                continue
            assert f.arg is not None
            key = arg_keys[pcs_name][f.arg]
            assert key is not None
            rows = [buckets[i].call_value(key) for i in mine]
            fill = next((r for r in rows if isinstance(r, bytes)), bytes(f.size))
            slot_cols[f.name] = column_for(f, np.stack([np.frombuffer(r if isinstance(r, bytes) else fill,
                                                                      dtype=np.uint8) for r in rows]))
        packed = pack_program_table(table_layout, slot_cols, stride=stride_pt)
        if stride_pt:
            table.reshape(slots, stride_pt)[mine] = packed.reshape(len(mine), stride_pt)
        else:  # broadcast: one record for every slot
            table = packed
    return table, stride_pt


def _pack_records(items: list[tuple[int, Bucket]], chosen: dict[str, ProgramCommandSignature],
                  arg_keys: dict[str, list[str | None]], stride: int,
                  primary_va: int) -> tuple[np.ndarray, np.ndarray, int]:
    """One list's records, for (program-table slot, call) items in order: a primary record per draw (fully inline)
    or per non-empty call with its secondary records (hybrid).  Returns (primary list, secondary records, the VA the
    secondary records go at, right after the primary list)."""
    layouts = {b.signature.name: pcs_layout(chosen[b.signature.name]) for _, b in items}
    n_primary = sum(b.count if layouts[b.signature.name].secondary is None else int(b.count > 0) for _, b in items)
    secondary_va = round_up(primary_va + n_primary * stride, VA_ALIGN)
    cursor = secondary_va
    primaries: list[np.ndarray] = []
    secondaries: list[np.ndarray] = []
    for slot, b in items:
        if b.count == 0:
            continue
        lay = layouts[b.signature.name]
        pcs = chosen[b.signature.name]
        record = lay.secondary or lay.primary
        cols: dict[str, Any] = {}
        for f in record.fields:
            if f.role != "arg":
                continue
            assert f.arg is not None
            key = arg_keys[pcs.name][f.arg]
            cols[f.name] = column_for(f, b.trigger_rows if key is None else b.values[key])
        if lay.secondary is not None:
            sec = pack_secondary_records(lay.secondary, cols, stride=pcs.SecondaryRecordByteStride)
            secondaries.append(sec)
            primaries.append(pack_primary_records(lay.primary, {
                "ProgramTableIndex": np.array([slot], dtype=np.uint32),
                "NumSecondaryRecords": np.array([b.count], dtype=np.uint32),
                "SecondaryRecords": np.array([cursor], dtype=np.uint64)}, stride=stride))
            cursor += sec.nbytes
        else:
            cols["ProgramTableIndex"] = np.full(b.count, slot, dtype=np.uint32)
            primaries.append(pack_primary_records(lay.primary, cols, stride=stride))
    primary = np.concatenate(primaries) if primaries else np.zeros(0, dtype=np.uint8)
    secondary = np.concatenate(secondaries) if secondaries else np.zeros(0, dtype=np.uint8)
    return primary, secondary, secondary_va


def _command_list(plan: _Plan, state: CommandListState) -> None:
    """Set on ``state`` what the plan leaves to the command list: root arguments (of its class's binding set) and
    IA bindings the same in every draw."""
    root_args: dict[int, RootArgument] = {}
    for key, where in plan.placement.items():
        if where != "command-list":
            continue
        kb = plan.keys[key]
        value = next((v for v in (x.call_value(key) for x in plan.buckets) if isinstance(v, bytes)), None)
        if value is None:
            continue  # set only by commands of calls that have none: no draw sees it
        row = np.frombuffer(value, dtype=np.uint8)
        if kb.root:
            if kb.kind == "constants":
                root_args[plan.index[key]] = RootArgument("constants", values=[int(v) for v in row.view("<u4")])
            else:
                root_args[plan.index[key]] = RootArgument("table" if kb.kind == "table" else "descriptor",
                                                          value=int.from_bytes(row.tobytes(), "little"))
        elif kb.kind == "VB":
            vb = read_structs(VB_VIEW, row)[0]
            state.vertex_buffers[kb.slot or 0] = VertexBufferView(
                int(vb["BufferLocation"]), int(vb["SizeInBytes"]), int(vb["StrideInBytes"]))
        else:
            ib = read_structs(IB_VIEW, row)[0]
            state.index_buffer = IndexBufferView(int(ib["BufferLocation"]), int(ib["SizeInBytes"]), int(ib["Format"]))
    if plan.cls is ExecutableClass.GRAPHICS:
        state.graphics_root_signature, state.graphics_root_arguments = plan.grs, root_args
    else:
        state.compute_root_signature, state.compute_root_arguments = plan.grs, root_args


def _table_binding(va: int, table: np.ndarray, stride: int, slots: int) -> WorkListBinding:
    return WorkListBinding(abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"), ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(va, table.nbytes, stride), slots))


def _device(buckets: list[Bucket], tier: int) -> DeviceCaps:
    """The device the work list runs on: the tier it needs (the calls' own device may not support Work Lists), the
    calls' other caps kept."""
    return DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{tier}"),
                      Max1DDispatchSize=buckets[0].capture_device.Max1DDispatchSize)


def _assemble(plan: _Plan, base_va: int, slot_stride: int | None) -> tuple[Capture, dict[str, int]]:
    """Tier 1: one work list signature bound directly, one program table, one list."""
    buckets, chosen, grs, arg_keys, stride = plan.buckets, plan.chosen, plan.grs, plan.arg_keys, plan.stride
    objects = ObjectSet()
    if grs is not None:
        objects.root_signatures[grs.name] = grs
    for pcs in chosen.values():
        objects.program_command_signatures[pcs.name] = pcs
    pcs_list = list(dict.fromkeys(chosen[b.signature.name].name for b in buckets))
    wls = WorkListSignature("WLS", [objects.program_command_signatures[n] for n in pcs_list])
    objects.work_list_signatures["WLS"] = wls
    _programs(objects, buckets, chosen)
    table, stride_pt = _pack_table(buckets, chosen, arg_keys, slot_stride)
    input_size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT")
    table_va = round_up(base_va + input_size, VA_ALIGN)
    primary_va = round_up(table_va + table.nbytes, VA_ALIGN)
    primary, secondary, secondary_va = _pack_records(list(enumerate(buckets)), chosen, arg_keys, stride, primary_va)
    n_records = primary.nbytes // stride if stride else 0
    graphics = plan.cls is ExecutableClass.GRAPHICS
    inputs = pack_dispatch_list_inputs({"NumProgramInputs": np.array([n_records], dtype=np.uint64),
                                        "Flags": np.array([0], dtype=np.uint64),
                                        "ProgramInputs.StartAddress": np.array([primary_va], dtype=np.uint64),
                                        "ProgramInputs.StrideInBytes": np.array([stride], dtype=np.uint64)})
    end = secondary_va + secondary.nbytes if secondary.nbytes else primary_va + primary.nbytes
    data = np.zeros(end - base_va, dtype=np.uint8)
    for va, block in ((base_va, inputs), (table_va, table), (primary_va, primary), (secondary_va, secondary)):
        data[va - base_va:va - base_va + block.nbytes] = block
    memory = GpuMemory()
    memory.map(base_va, data, name="work_list")
    state = CommandListState(descriptor_heaps=buckets[0].state.descriptor_heaps)
    _command_list(plan, state)
    state.program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"), WorkList=SetWorkListDesc(
        wls, _table_binding(table_va, table, stride_pt, len(buckets))))
    call = DispatchListCall(base_va, n_records if graphics else 0)
    parts = {"dispatch_input": input_size, "program_table": int(table.nbytes), "primary": int(primary.nbytes),
             "secondary": int(secondary.nbytes)}
    return Capture(CAPTURE_VERSION, _device(buckets, 1), objects, memory, state, call), parts


def _assemble_chain(buckets: list[Bucket], plans: list[_Plan], base_va: int,
                    slot_stride: int | None) -> tuple[Capture, dict[str, int]]:
    """Tier 2: a work list signature per class in one signature array (one shared global root signature), a program
    table per signature, and a list per run of consecutive calls of one class, chained by NextDispatchList with
    _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION (spec "Dispatch List Continuations", "Binding via SetProgram")."""
    objects = ObjectSet()
    grs = plans[0].grs
    if grs is not None:
        objects.root_signatures[grs.name] = grs
    signatures = []
    for plan in plans:
        for pcs in plan.chosen.values():
            objects.program_command_signatures[pcs.name] = pcs
        names = list(dict.fromkeys(plan.chosen[b.signature.name].name for b in plan.buckets))
        wls = WorkListSignature(f"WLS_{plan.cls.value}", [objects.program_command_signatures[n] for n in names])
        objects.work_list_signatures[wls.name] = wls
        signatures.append(wls)
        _programs(objects, plan.buckets, plan.chosen)
    array = WorkListSignatureArray("ARR", signatures)
    objects.work_list_signature_arrays[array.name] = array
    which = {id(b): k for k, plan in enumerate(plans) for b in plan.buckets}
    slot_of = {id(b): i for plan in plans for i, b in enumerate(plan.buckets)}
    runs = [list(g) for _, g in itertools.groupby(buckets, key=lambda b: which[id(b)])]
    input_size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT1")
    cursor = base_va
    input_vas = []
    for _ in runs:
        input_vas.append(cursor)
        cursor = round_up(cursor + input_size, VA_ALIGN)
    tables = []
    for plan in plans:
        table, stride_pt = _pack_table(plan.buckets, plan.chosen, plan.arg_keys, slot_stride)
        tables.append((cursor, table, stride_pt))
        cursor = round_up(cursor + table.nbytes, VA_ALIGN)
    blocks: list[tuple[int, np.ndarray]] = [(va, t) for va, t, _ in tables]
    lists = []
    primary_bytes = secondary_bytes = 0
    for run in runs:
        plan = plans[which[id(run[0])]]
        primary, secondary, secondary_va = _pack_records([(slot_of[id(b)], b) for b in run], plan.chosen,
                                                         plan.arg_keys, plan.stride, cursor)
        lists.append((which[id(run[0])], cursor, primary.nbytes // plan.stride, plan.stride))
        blocks += [(cursor, primary), (secondary_va, secondary)]
        primary_bytes += int(primary.nbytes)
        secondary_bytes += int(secondary.nbytes)
        cursor = round_up(secondary_va + secondary.nbytes, VA_ALIGN)
    # a list with a successor continues, and ends with a wait for completion and a memory flush, whatever its class:
    # a call sequence records no barriers, so the migration assumes the calls needed them (the conservative
    # reading), and a later call reading what an earlier one wrote needs the wait on the earlier list -- record
    # ordering does not sequence a continuation, an in-order graphics list's no more than a compute list's (Work
    # Lists v0.851, rule 13; "Dispatch List Continuations")
    cont = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    sync = (abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION")
            | abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_MEMORY_FLUSH"))
    flags = [0 if i + 1 == len(lists) else cont | sync for i in range(len(lists))]
    inputs = pack_dispatch_list_inputs({
        "NumProgramInputs": np.array([n for _, _, n, _ in lists], dtype=np.uint64),
        "Flags": np.array(flags, dtype=np.uint64),
        "SignatureIndex": np.array([k for k, _, _, _ in lists], dtype=np.uint64),
        "ProgramInputs.StartAddress": np.array([va for _, va, _, _ in lists], dtype=np.uint64),
        "ProgramInputs.StrideInBytes": np.array([st for _, _, _, st in lists], dtype=np.uint64),
        "NextDispatchList": np.array([*input_vas[1:], 0], dtype=np.uint64)}, tier=2)
    blocks += [(va, inputs[i * input_size:(i + 1) * input_size]) for i, va in enumerate(input_vas)]
    data = np.zeros(cursor - base_va, dtype=np.uint8)
    for va, block in blocks:
        data[va - base_va:va - base_va + block.nbytes] = block
    memory = GpuMemory()
    memory.map(base_va, data, name="work_list")
    state = CommandListState(descriptor_heaps=buckets[0].state.descriptor_heaps)
    for plan in plans:
        _command_list(plan, state)
    bindings = [_table_binding(va, t, st, len(plan.buckets)) for (va, t, st), plan in zip(tables, plans)]
    state.program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"),
                                   WorkList1=SetWorkListDesc1(array, bindings))
    graphics = [n for k, _, n, _ in lists if plans[k].cls is ExecutableClass.GRAPHICS]
    call = DispatchListCall(base_va, max(graphics, default=0), len(graphics), tier2=True)
    parts = {"dispatch_input": input_size * len(lists), "program_table": sum(int(t.nbytes) for _, t, _ in tables),
             "primary": primary_bytes, "secondary": secondary_bytes}
    return Capture(CAPTURE_VERSION, _device(buckets, 2), objects, memory, state, call), parts
