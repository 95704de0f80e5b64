"""The record payload of one argument: the bytes an argument occupies in a Work Lists or ExecuteIndirect record.

Spec "Per-arg natural alignment" (Work Lists records) and IndirectDrawing.md ("arguments ... are tightly packed",
ExecuteIndirect); the local-root-argument packing of "Program table record layout".  The per-type facts come from
:mod:`d3d12wl.model.argtypes`, sizes from the compiled headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.argtypes import ArgTypeInfo, ExecutableClass, arg_type_info
from d3d12wl.model.objects import IndirectArgumentDesc, WorkListArgumentDesc


@dataclass(frozen=True)
class Payload:
    """The record bytes one argument occupies: C type, element count (for DWORD arrays), size and alignment."""

    ctype: str
    count: int
    size: int
    align: int


#: C type of one root-constant DWORD in records (the headers spell UINT as ``uint32_t``; design.md "ABI rules").
DWORD_CTYPE = "uint32_t"


@lru_cache(maxsize=1024, typed=True)
def _dwords(n: int, align: int) -> Payload:
    # (Payloads are immutable: one per shape, shared by every argument that has it)
    return Payload(DWORD_CTYPE, n, n * abi.sizeof(DWORD_CTYPE), align)


@lru_cache(maxsize=1024, typed=True)
def _fixed(ctype: str, align: int) -> Payload:
    return Payload(ctype, 1, abi.sizeof(ctype), align)


@lru_cache(maxsize=1024, typed=True)
def _tight(p: Payload) -> Payload:
    return Payload(p.ctype, p.count, p.size, 1)


def payload_of(arg: WorkListArgumentDesc | IndirectArgumentDesc, *, tight: bool = False) -> Payload | None:
    """The record payload of one argument (spec "Per-arg natural alignment"), or None if it reads no record bytes.

    ``tight``: ExecuteIndirect packing (alignment 1; IndirectDrawing.md, "arguments ... are tightly packed").
    The Source is not considered here: a ``_PROGRAM_TABLE_RECORD`` inline parameter still has a payload, it just
    lives in the program-table record instead of a primary or secondary record.
    """
    return payload_with(arg, arg_type_info(arg.type_name), tight=tight)


def payload_with(arg: WorkListArgumentDesc | IndirectArgumentDesc, info: ArgTypeInfo, *, tight: bool = False
                 ) -> Payload | None:
    """:func:`payload_of` for a caller that has the argument's type facts already (``arg_type_info(arg.type_name)``)."""
    p: Payload | None
    if info.name == "CONSTANT":
        p = _dwords(arg.Constant.Num32BitValuesToSet, info.wl_align)
    elif info.name == "INLINE_ROOT_PARAMETER":
        assert isinstance(arg, WorkListArgumentDesc)
        p = root_parameter_payload(arg.InlineRootParameter.RootParameter.parameter_type_name,
                                   arg.InlineRootParameter.Num32BitValuesToSet)
    elif info.payload_ctype is None or info.system_pointer:
        return None
    else:
        p = _fixed(info.payload_ctype, info.wl_align)
    if p is None:
        return None
    return _tight(p) if tight else p


#: Local-root-argument packing (spec "Program table record layout", the raytracing shader-record rules):
#: root descriptors and descriptor handles 8 bytes at 8; root constants DWORDs at 4.
_ROOT_PARAMETER_PAYLOAD_CTYPE = {
    "CBV": "D3D12_GPU_VIRTUAL_ADDRESS",
    "SRV": "D3D12_GPU_VIRTUAL_ADDRESS",
    "UAV": "D3D12_GPU_VIRTUAL_ADDRESS",
    "DESCRIPTOR_TABLE": "D3D12_GPU_DESCRIPTOR_HANDLE",
}


def root_parameter_payload(parameter_type: str, num_dwords: int) -> Payload | None:
    """Bytes of one root argument of the given D3D12_ROOT_PARAMETER_TYPE (short name); ``num_dwords`` for constants."""
    if parameter_type == "32BIT_CONSTANTS":
        return _dwords(num_dwords, 4) if num_dwords > 0 else None
    ctype = _ROOT_PARAMETER_PAYLOAD_CTYPE.get(parameter_type)
    if ctype is None:
        raise D3D12WLError(f"unknown D3D12_ROOT_PARAMETER_TYPE {parameter_type!r}")
    return _fixed(ctype, 8)


def executable_class_of(args: list[WorkListArgumentDesc]) -> ExecutableClass | None:
    """The executable class given by the (first) dispatch trigger, or None if there is none."""
    for arg in args:
        info = arg_type_info(arg.type_name)
        if info.trigger_class is not None:
            return info.trigger_class
    return None
