"""Resolving what one execution sees: every root argument (global and local, with where each value came from),
the IA bindings, the dispatch trigger and the system pointers.

Spec sections: "Binding sources at record execution" (the four cells: global override / command-list state, local
override / program-table tail), "Per-binding source", "Root signature bindings", "Input Assembler bindings",
"Incrementing constant semantics", "_INLINE_ROOT_PARAMETER" (constants slots composed from sub-ranges),
"Local root signatures" ("Storage of local root arguments"), the system pointer arg types, "_DESCRIPTOR_TABLE"
(a heap of the required type must be bound).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import binding_name, parameter_type_name, source_name, type_name
from d3d12wl.executor.trace import Execution, IABinding, RootArgumentValue, Trigger, ValueSource
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import (
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootSignature,
    WorkListArgumentDesc,
)
from d3d12wl.model.state import CommandListState, RootArgument, table_heap_type
from d3d12wl.records.layout import PCSLayout, RecordLayout, inline_local_slots, uses_inline_local_root_signature

#: Root-parameter kinds by D3D12_ROOT_PARAMETER_TYPE short name.
_PARAM_KIND = {"32BIT_CONSTANTS": "constants", "CBV": "CBV", "SRV": "SRV", "UAV": "UAV",
               "DESCRIPTOR_TABLE": "descriptor_table"}
#: Root-parameter kinds written by each root-descriptor / table / pointer argument type.
_ARG_KIND = {"CONSTANT_BUFFER_VIEW": "CBV", "SHADER_RESOURCE_VIEW": "SRV", "UNORDERED_ACCESS_VIEW": "UAV",
             "DESCRIPTOR_TABLE": "descriptor_table", "CONSTANT": "constants", "INCREMENTING_CONSTANT": "constants"}
#: System pointer arg types and the key their value has in ``Execution.system_pointers``.
SYSTEM_POINTERS = ("DISPATCH_LIST_HEADER_POINTER", "PROGRAM_TABLE_POINTER", "PRIMARY_LIST_POINTER",
                   "PRIMARY_RECORD_POINTER", "SECONDARY_LIST_POINTER", "SECONDARY_RECORD_POINTER")
IA_TYPES = ("VERTEX_BUFFER_VIEW", "INDEX_BUFFER_VIEW")
CL_SOURCE = ValueSource("command-list", "command-list state")
CL_UNSET = ValueSource("command-list", "command-list state (not set)")


def root_index(arg: Any) -> int | None:
    """RootParameterIndex of an argument's payload (``arg.root_parameter_index``, without the enum look-ups)."""
    member = arg_type_info(type_name(arg)).union_member
    return getattr(getattr(arg, member, None), "RootParameterIndex", None) if member else None


def param_kind(param: RootParameter1) -> str:
    return _PARAM_KIND.get(parameter_type_name(param), parameter_type_name(param))


def param_register(param: RootParameter1) -> str | None:
    kind = parameter_type_name(param)
    if kind == "32BIT_CONSTANTS":
        return f"b{param.Constants.ShaderRegister} space{param.Constants.RegisterSpace}"
    if kind in ("CBV", "SRV", "UAV"):
        letter = {"CBV": "b", "SRV": "t", "UAV": "u"}[kind]
        return f"{letter}{param.Descriptor.ShaderRegister} space{param.Descriptor.RegisterSpace}"
    return None


def as_handle(value: Any) -> int | None:
    """A D3D12_GPU_DESCRIPTOR_HANDLE decodes to ``{'ptr': x}``; root arguments show the ``ptr``."""
    if isinstance(value, dict):
        return value.get("ptr")
    return value


class SlotBuilder:
    """Accumulates one root parameter's value from its sources, DWORD by DWORD for constants."""

    def __init__(self, binding: str, parameter: int, kind: str, num_dwords: int = 0, register: str | None = None,
                 root_parameter: RootParameter1 | None = None) -> None:
        self.binding = binding
        self.parameter = parameter
        self.kind = kind
        self.register = register
        self.root_parameter = root_parameter
        self.dwords: list[int | None] = [None] * num_dwords
        self.dword_sources: list[ValueSource | None] = [None] * num_dwords
        self.value: int | None = None
        self.value_source: ValueSource | None = None

    def set_dwords(self, start: int, values: list[int | None], source: ValueSource) -> None:
        end = start + len(values)
        if end > len(self.dwords):
            self.dwords.extend([None] * (end - len(self.dwords)))
            self.dword_sources.extend([None] * (end - len(self.dword_sources)))
        self.dwords[start:end] = values
        self.dword_sources[start:end] = [source] * len(values)

    def set_value(self, value: int | None, source: ValueSource) -> None:
        self.value = value
        self.value_source = source

    def from_command_list(self, arg: RootArgument | None) -> None:
        if arg is None:
            if self.kind == "constants":
                self.dword_sources = [CL_UNSET] * len(self.dwords)
            else:
                self.value_source = CL_UNSET
            return
        if self.kind == "constants":
            values: list[int | None] = list(arg.values[: len(self.dwords)])
            values += [None] * (len(self.dwords) - len(values))
            self.dwords = values
            self.dword_sources = [CL_SOURCE if v is not None else CL_UNSET for v in values]
        else:
            self.set_value(arg.value, CL_SOURCE)

    def finish(self) -> RootArgumentValue:
        if self.kind != "constants":
            sources: list[ValueSource] = [self.value_source] if self.value_source is not None else []
            return RootArgumentValue(self.binding, self.parameter, self.kind, self.value, None, sources,
                                     self.register)
        sources = []
        run_start = 0
        for i in range(1, len(self.dwords) + 1):
            if i == len(self.dwords) or self.dword_sources[i] is not self.dword_sources[run_start]:
                src = self.dword_sources[run_start]
                if src is not None:
                    sources.append(ValueSource(src.kind, src.origin, src.va, run_start, i - run_start, src.arg,
                                               src.field))
                run_start = i
        return RootArgumentValue(self.binding, self.parameter, self.kind, None, list(self.dwords), sources,
                                 self.register)


@dataclass
class RecordData:
    """One record's decoded bytes and where they live."""

    label: str  # "primary record 3", "secondary record 2", "program table slot 1", "command 5"
    kind: str  # ValueSource.kind
    va: int
    layout: RecordLayout
    fields: dict[str, Any]

    def arg_value(self, arg_index: int) -> tuple[Any, ValueSource] | None:
        f = self.layout.arg_field(arg_index)
        if f is None:
            return None
        return self.fields[f.name], ValueSource(self.kind, f"{self.label} @0x{self.va:x} +{f.offset}",
                                                self.va + f.offset, arg=arg_index, field=f.name)


@dataclass
class Resolved:
    root_arguments: list[RootArgumentValue]
    ia: list[IABinding]
    trigger: Trigger
    system_pointers: dict[str, int | None]
    counter: int | None


@dataclass(frozen=True)
class TableUse:
    """A descriptor table an execution resolves from record bytes (its ``source``: a primary or secondary record's
    field) and the heap type its handle must address (spec "_DESCRIPTOR_TABLE")."""

    heap: str
    source: ValueSource


@dataclass
class WorkListRecordContext:
    """Everything fixed for the executions one primary record drives; :meth:`resolve` adds the per-execution
    parts (secondary record, counter)."""

    ctx: ExecContext
    loc: Loc
    cls: ExecutableClass
    pcs: ProgramCommandSignature
    layout: PCSLayout
    program: Program | None
    primary: RecordData
    table: RecordData | None  # the program-table slot (graphics / compute)
    system: dict[str, int | None] = field(default_factory=dict)
    #: None: every descriptor-table handle is checked against its heap; a list: handles read from primary and
    #: secondary records are not checked but listed here (the columnar walk checks them in columns)
    table_uses: list[TableUse] | None = None

    def _record_for(self, arg: WorkListArgumentDesc, secondary: RecordData | None) -> RecordData | None:
        src = source_name(arg)
        if src == "PRIMARY_RECORD":
            return self.primary
        if src == "SECONDARY_RECORD":
            return secondary
        if src == "PROGRAM_TABLE_RECORD":
            return self.table
        return None

    def _value(self, i: int, arg: WorkListArgumentDesc, secondary: RecordData | None, counter: int,
               system: dict[str, int | None]) -> tuple[Any, ValueSource]:
        name = type_name(arg)
        if name == "INCREMENTING_CONSTANT":
            return [counter], ValueSource("system", "system: incrementing constant", arg=i)
        if name in SYSTEM_POINTERS:
            return system.get(name), ValueSource("system", f"system: {name}", arg=i)
        if source_name(arg) == "STATIC":
            return None, ValueSource("static", "static", arg=i)
        rec = self._record_for(arg, secondary)
        got = rec.arg_value(i) if rec is not None else None
        if got is None:
            if source_name(arg) == "SYSTEM":
                return None, ValueSource("system", "system (no value the spec defines)", arg=i)
            return None, ValueSource("none", f"{source_name(arg)} (no record bytes)", arg=i)
        return got

    def resolve(self, secondary: RecordData | None, counter: int) -> Resolved:
        pcs = self.pcs
        args = pcs.pArgumentDescs
        state = self.ctx.state
        graphics = self.cls is ExecutableClass.GRAPHICS
        system = dict(self.system)
        system["SECONDARY_RECORD_POINTER"] = secondary.va if secondary is not None else None
        global_slots = _global_slots(pcs.pGlobalRootSignature, state, graphics)
        local_slots: dict[int, SlotBuilder] = {}
        samplers: list[RootArgumentValue] = []
        trigger: Trigger | None = None
        ia_touched: dict[int | None, IABinding] = {}
        has_ic = False
        if self.ctx.memo(pcs, "inline", uses_inline_local_root_signature):
            local_slots, samplers = self._inline_local(args, secondary, counter, system)
        elif self.program is not None and self.program.LocalRootSignature is not None \
                and self.cls is not ExecutableClass.RAYTRACING:
            local_slots = self._explicit_local(self.program.LocalRootSignature)
        for i, arg in enumerate(args):
            name = type_name(arg)
            info = arg_type_info(name)
            if info.is_trigger:
                trigger = self._trigger(i, arg, secondary, system)
                continue
            if name == "INCREMENTING_CONSTANT":
                has_ic = True
            if name in IA_TYPES:
                value, src = self._value(i, arg, secondary, counter, system)
                ia_slot = arg.VertexBuffer.Slot if name == "VERTEX_BUFFER_VIEW" else None
                ia_touched[ia_slot] = IABinding(ia_slot, value, src)
                continue
            if name in ("INLINE_ROOT_PARAMETER", "INLINE_STATIC_SAMPLER"):
                continue
            p = root_index(arg)
            if p is None:
                continue
            local = binding_name(arg) == "LOCAL_ROOT_SIGNATURE"
            slots = local_slots if local else global_slots
            slot = slots.get(p)
            if slot is None:
                kind = _ARG_KIND.get(name, "CBV" if info.system_pointer else name)
                slot = slots[p] = SlotBuilder("local" if local else "global", p, kind)
            value, src = self._value(i, arg, secondary, counter, system)
            _apply(slot, arg, value, src)
        root_arguments = [s.finish() for _, s in sorted(global_slots.items())]
        root_arguments += [s.finish() for _, s in sorted(local_slots.items())]
        root_arguments += samplers
        self._check_tables([*global_slots.values(), *local_slots.values()])
        ia = _ia_bindings(state, ia_touched) if graphics else []
        assert trigger is not None  # every PCS with a layout has exactly one trigger
        return Resolved(root_arguments, ia, trigger, system, counter if has_ic else None)

    def _trigger(self, i: int, arg: WorkListArgumentDesc, secondary: RecordData | None,
                 system: dict[str, int | None]) -> Trigger:
        if type_name(arg) == "FIXED_DISPATCH":
            fd = arg.FixedDispatch
            return Trigger("FIXED_DISPATCH", {"ThreadGroupCountX": fd.ThreadGroupCountX,
                                              "ThreadGroupCountY": fd.ThreadGroupCountY,
                                              "ThreadGroupCountZ": fd.ThreadGroupCountZ},
                           ValueSource("static", "static: FixedDispatch on the argument desc", arg=i))
        value, src = self._value(i, arg, secondary, 0, system)
        return Trigger(type_name(arg), value if isinstance(value, dict) else {}, src)

    def _inline_local(self, args: list[WorkListArgumentDesc], secondary: RecordData | None, counter: int,
                      system: dict[str, int | None]) -> tuple[dict[int, SlotBuilder], list[RootArgumentValue]]:
        """Implicit path: the synthesized local root signature's slots (first-appearance order), each composed
        from its _INLINE_ROOT_PARAMETER args' sources (spec "_INLINE_ROOT_PARAMETER", rule 23(e))."""
        slots: dict[int, SlotBuilder] = {}
        for s, arg_indices in enumerate(self.ctx.memo(self.pcs, "slots", lambda p: inline_local_slots(p.pArgumentDescs))):
            rp = args[arg_indices[0]].InlineRootParameter.RootParameter
            kind = param_kind(rp)
            builder = SlotBuilder("local", s, kind, rp.Constants.Num32BitValues if kind == "constants" else 0,
                                  param_register(rp), rp)
            for i in arg_indices:
                arg = args[i]
                value, src = self._value(i, arg, secondary, counter, system)
                if kind == "constants":
                    irp = arg.InlineRootParameter
                    vals = value if isinstance(value, list) else [value] * irp.Num32BitValuesToSet
                    builder.set_dwords(irp.DestOffsetIn32BitValues, vals,
                                       _narrow(src, irp.DestOffsetIn32BitValues, len(vals)))
                else:
                    builder.set_value(as_handle(value), src)
            slots[s] = builder
        samplers: list[RootArgumentValue] = []
        for i, arg in enumerate(args):
            if type_name(arg) == "INLINE_STATIC_SAMPLER":
                ss = arg.InlineStaticSampler
                samplers.append(RootArgumentValue(
                    "local", len(samplers), "static_sampler", None, None,
                    [ValueSource("static", "static: baked into the synthesized local root signature", arg=i)],
                    f"s{ss.ShaderRegister} space{ss.RegisterSpace}"))
        return slots, samplers

    def _explicit_local(self, lrs: RootSignature) -> dict[int, SlotBuilder]:
        """Explicit path: every local-root-signature slot not overridden per record takes its bytes from the
        program-table tail (spec "Binding sources at record execution", local / static default)."""
        slots: dict[int, SlotBuilder] = {}
        for p, param in enumerate(lrs.pParameters):
            kind = param_kind(param)
            slots[p] = SlotBuilder("local", p, kind, param.Constants.Num32BitValues if kind == "constants" else 0,
                                   param_register(param), param)
        table = self.table
        if table is None:
            return slots
        for f in table.layout.fields:
            if f.role != "local" or f.parameter is None or f.parameter not in slots:
                continue
            value = table.fields[f.name]
            src = ValueSource("program-table", f"{table.label} @0x{table.va:x} +{f.offset}", table.va + f.offset,
                              field=f.name)
            slot = slots[f.parameter]
            if slot.kind == "constants":
                vals = value if isinstance(value, list) else [value]
                slot.set_dwords(f.dword_offset or 0, vals, src)
            else:
                slot.set_value(as_handle(value), src)
        return slots

    def _check_tables(self, slots: list[SlotBuilder]) -> None:
        """Spec "_DESCRIPTOR_TABLE": a record that executes a descriptor-table argument with no heap of the
        required type bound is undefined behaviour, and the handle "must address the currently bound descriptor
        heap of the appropriate type" (checked where the capture gives the heap's range, capture version 4: inside
        the heap and on a descriptor boundary)."""
        heaps = self.ctx.state.descriptor_heaps
        for slot in slots:
            src = slot.value_source
            if slot.kind != "descriptor_table" or src is None:
                continue
            if src.kind in ("command-list",):
                continue
            root_param = slot.root_parameter
            if root_param is None and slot.binding == "global" and self.pcs.pGlobalRootSignature is not None:
                params = self.pcs.pGlobalRootSignature.pParameters
                root_param = params[slot.parameter] if slot.parameter < len(params) else None
            heap = table_heap_type(root_param)
            if not heaps.bound(heap):
                self.ctx.finding(
                    "descriptor-heap-not-bound", "_DESCRIPTOR_TABLE",
                    f"{slot.binding} root parameter {slot.parameter} is a descriptor table from "
                    f"{src.origin} but no {heap} descriptor heap is bound",
                    loc=self.loc.but(secondary_index=None), va=src.va,
                    key=(self.loc.list_index, self.loc.primary_index, slot.binding, slot.parameter))
                continue
            bound = heaps.heap(heap)
            if bound is None or slot.value is None:
                continue
            if self.table_uses is not None and src.kind in ("primary", "secondary"):
                self.table_uses.append(TableUse(heap, src))
                continue
            problem = bound.problem(slot.value)
            if problem is not None:
                self.ctx.finding(
                    "descriptor-handle-outside-heap", "_DESCRIPTOR_TABLE",
                    f"{slot.binding} root parameter {slot.parameter} is a descriptor table from {src.origin} whose "
                    f"handle 0x{slot.value:x} does not address the bound {heap} descriptor heap: {problem} (\"It "
                    "must address the currently bound descriptor heap of the appropriate type\")",
                    loc=self.loc.but(secondary_index=None), va=src.va, key=("handle", src.va))


def _narrow(src: ValueSource, first: int, count: int) -> ValueSource:
    return ValueSource(src.kind, src.origin, src.va, first, count, src.arg, src.field)


def _apply(slot: SlotBuilder, arg: WorkListArgumentDesc | Any, value: Any, src: ValueSource) -> None:
    name = type_name(arg)
    if name == "CONSTANT":
        vals = value if isinstance(value, list) else [value] * max(arg.Constant.Num32BitValuesToSet, 1)
        slot.set_dwords(arg.Constant.DestOffsetIn32BitValues, vals, src)
    elif name == "INCREMENTING_CONSTANT":
        slot.set_dwords(arg.IncrementingConstant.DestOffsetIn32BitValues, value, src)
    else:
        slot.set_value(as_handle(value), src)


def _global_slots(grs: RootSignature | None, state: CommandListState, graphics: bool) -> dict[int, SlotBuilder]:
    """Global root parameters start from command-list state (spec "Binding sources at record execution": global
    static default; "Root signature bindings": graphics-class reads the graphics set, compute and raytracing the
    compute set)."""
    slots: dict[int, SlotBuilder] = {}
    if grs is None:
        return slots
    cl = state.graphics_root_arguments if graphics else state.compute_root_arguments
    for p, param in enumerate(grs.pParameters):
        kind = param_kind(param)
        builder = SlotBuilder("global", p, kind, param.Constants.Num32BitValues if kind == "constants" else 0,
                              param_register(param), param)
        builder.from_command_list(cl.get(p))
        slots[p] = builder
    return slots


def _ia_bindings(state: CommandListState, touched: dict[int | None, IABinding]) -> list[IABinding]:
    """Spec "Input Assembler bindings": slots a signature binds come from the record, the rest from the
    command list (IASetVertexBuffers / IASetIndexBuffer)."""
    out: dict[int | None, IABinding] = {}
    for slot, vbv in state.vertex_buffers.items():
        out[slot] = IABinding(slot, {"BufferLocation": vbv.BufferLocation, "SizeInBytes": vbv.SizeInBytes,
                                     "StrideInBytes": vbv.StrideInBytes}, CL_SOURCE)
    ib = state.index_buffer
    if ib is not None:
        out[None] = IABinding(None, {"BufferLocation": ib.BufferLocation, "SizeInBytes": ib.SizeInBytes,
                                     "Format": ib.Format}, CL_SOURCE)
    out.update(touched)
    vbs = sorted((b for s, b in out.items() if s is not None), key=lambda b: b.slot or 0)
    return vbs + ([out[None]] if None in out else [])


# ----------------------------------------------------------------------------------------------------------------
# ExecuteIndirect
# ----------------------------------------------------------------------------------------------------------------


def resolve_command(root_signature: RootSignature | None, args: list[Any], command: RecordData, counter: int,
                    state: CommandListState, graphics: bool) -> Resolved:
    """One ExecuteIndirect command (IndirectDrawing.md "Drawing": ``Interpret(Arguments)``): root arguments from
    the command record over command-list state, the incrementing constant, VB/IB bindings, the trigger."""
    slots = _global_slots(root_signature, state, graphics)
    touched: dict[int | None, IABinding] = {}
    trigger: Trigger | None = None
    for i, arg in enumerate(args):
        name = type_name(arg)
        info = arg_type_info(name)
        if name == "INCREMENTING_CONSTANT":
            value: Any = [counter]
            src = ValueSource("system", "system: incrementing constant", arg=i)
        else:
            got = command.arg_value(i)
            value, src = got if got is not None else (None, ValueSource("none", "no record bytes", arg=i))
        if info.is_trigger:
            trigger = Trigger(name, value if isinstance(value, dict) else {}, src)
            continue
        if name in IA_TYPES:
            slot_index = arg.VertexBuffer.Slot if name == "VERTEX_BUFFER_VIEW" else None
            touched[slot_index] = IABinding(slot_index, value, src)
            continue
        p = root_index(arg)
        if p is None:
            continue
        slot = slots.get(p)
        if slot is None:
            slot = slots[p] = SlotBuilder("global", p, _ARG_KIND.get(name, name))
        _apply(slot, arg, value, src)
    assert trigger is not None
    has_ic = any(type_name(a) == "INCREMENTING_CONSTANT" for a in args)
    return Resolved([s.finish() for _, s in sorted(slots.items())], _ia_bindings(state, touched) if graphics else [],
                    trigger, {}, counter if has_ic else None)


# ----------------------------------------------------------------------------------------------------------------
# Root parameters nothing set (once per call)
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class _Unset:
    argument: RootArgumentValue  # as the first execution that saw it resolved it
    first: Execution
    executions: int = 0
    dwords: set[int] = field(default_factory=set)  # constants: the DWORDs nothing set
    setters: list[str] = field(default_factory=list)


def unset_part(ra: RootArgumentValue) -> set[int] | None:
    """What of one resolved global root argument nothing set (neither the command list nor the signature): the
    DWORDs of a constants slot, an empty set for a whole root view or descriptor table, None when it is set."""
    unset = [s for s in ra.sources if s.kind == CL_UNSET.kind and s.origin == CL_UNSET.origin]
    if not unset:
        return None
    if ra.kind != "constants":
        return set() if ra.value is None else None
    dwords = {d for s in unset if s.first_dword is not None
              for d in range(s.first_dword, s.first_dword + (s.num_dwords or 0))}
    return dwords or None


def check_unset_root_parameters(ctx: ExecContext, command_signature: str | None = None) -> None:
    """A warning (``root-parameter-not-set``) once per call and root parameter: a parameter of an execution's root
    signature that neither the command list's state nor the signature (the PCS; for ExecuteIndirect the command
    signature, ``command_signature``) sets, so the executions that read it read an undefined value.  Work Lists
    "Binding sources at record execution": "The PSO sees the merged result: every global root signature slot the
    program uses (filled from one of the global root signature sources above)"; IndirectDrawing.md: the bindings
    a command signature does not change "will be inherited" from the command list.  A capture holds no shader, so
    "uses" is read as "declares": every parameter of the root signature counts as read, which a shader that ignores
    the parameter makes a false alarm (hence a warning).  Made from the first execution of each (class, PCS) pair
    (``ExecContext.executed``), in an order both engines share: by binding set, then parameter."""
    found: dict[tuple[str, int], _Unset] = {}
    for (cls, pcs), (first, count) in ctx.executed.items():
        root_set = "graphics" if cls == ExecutableClass.GRAPHICS.value else "compute"
        for ra in first.root_arguments:
            if ra.binding != "global":
                continue
            part = unset_part(ra)
            if part is None:
                continue
            u = found.setdefault((root_set, ra.parameter), _Unset(ra, first))
            u.executions += count
            u.dwords |= part
            setter = f"PCS {pcs!r}" if pcs is not None else command_signature or "the signature"
            if setter not in u.setters:
                u.setters.append(setter)
            if first.index < u.first.index:
                u.first = first
    for (root_set, p), u in sorted(found.items(), key=lambda kv: (kv[0][0] != "graphics", kv[0][1])):
        ra = u.argument
        what = f"{root_set} root parameter {p} ({ra.kind}{' ' + ra.register if ra.register else ''})"
        if ra.kind == "constants":
            what = f"DWORD{'s' if len(u.dwords) > 1 else ''} {', '.join(map(str, sorted(u.dwords)))} of {what}"
            value = "V0,V1,..."
        else:
            value = "VA" if ra.kind != "descriptor_table" else "HANDLE"
        e = u.first
        where = f"execution {e.index}"
        ctx.finding(
            "root-parameter-not-set", "Binding sources at record execution" if e.pcs is not None else "Overview",
            f"{what} is set neither on the command list nor by {' or '.join(sorted(u.setters))}: "
            f"{u.executions} execution{'s' if u.executions != 1 else ''} (the first: {where}) see an undefined value. "
            "d3d12wl counts every parameter the root signature declares as read (the capture holds no shader: "
            "a shader that never reads it makes this harmless); give the value with `d3d12wl capture --root-arg "
            f"{root_set}:{p}={value}` (the capture's state.{root_set}_root_arguments)",
            loc=Loc(e.list_index, e.primary_index, e.secondary_index, e.command_index), severity="warning")
