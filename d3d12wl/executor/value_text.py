"""A value as text by its C type: what ``d3d12wl dump`` shows of every field (design.md, "Output").

GPU VAs and descriptor handles in hex, enums and flags by name (:func:`d3d12wl.abi.enum_text`, the one enum
formatter), DWORD arrays (root constants, local-root tails) as hex DWORDs and as IEEE floats where they look like
floats, since a root constant is untyped bits and a tint or a scale is only readable as floats.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError

__all__ = ["ADDRESS_MEMBERS", "ADDRESS_TYPES", "as_float", "float_text", "format_value", "looks_like_floats"]

#: C types shown in hex (addresses and handles).
ADDRESS_TYPES = frozenset({"D3D12_GPU_VIRTUAL_ADDRESS", "D3D12_GPU_DESCRIPTOR_HANDLE"})
#: Members shown in hex whatever their declared type (GPU VAs spelled UINT64 in some structs).
ADDRESS_MEMBERS = frozenset({"StartAddress", "BufferLocation", "NextDispatchList", "SecondaryRecords", "ptr",
                             "DispatchListInput", "ArgumentBuffer", "CountBuffer",
                             "next"})  # the trace's continuation: the NextDispatchList it read


def as_float(dword: int) -> float:
    """The IEEE-754 single a DWORD holds, rounded to float precision for printing (0.7 prints as 0.7)."""
    return float(f"{struct.unpack('<f', struct.pack('<I', dword & 0xFFFFFFFF))[0]:.7g}")


def looks_like_floats(values: Sequence[int]) -> bool:
    """DWORDs worth reading as IEEE-754 singles: each is +-0 or a normal float (a small integer such as a counter
    or an index is a denormal, a reading of which would only mislead), and not all are zero."""
    def normal_or_zero(v: int) -> bool:
        exponent = (v >> 23) & 0xFF
        return v & 0x7FFFFFFF == 0 or 0 < exponent < 0xFF

    return bool(values) and all(normal_or_zero(v) for v in values) and any(v & 0x7FFFFFFF for v in values)


def float_text(values: Sequence[int]) -> str:
    """``  = float (1, 0.5)`` when :func:`looks_like_floats`, else nothing."""
    if not looks_like_floats(values):
        return ""
    return "  = float (" + ", ".join(f"{as_float(v):g}" for v in values) + ")"


def _is_enum(ctype: str) -> bool:
    return ctype in _enum_names()


_ENUMS: frozenset[str] | None = None


def _enum_names() -> frozenset[str]:
    global _ENUMS
    if _ENUMS is None:
        _ENUMS = frozenset(abi.default.enum_names())
    return _ENUMS


_MEMBER_ENUMS: dict[str, str] | None = None


def _member_enum(name: str) -> str | None:
    """The enum type of every declared struct member called ``name``, when they all agree (``Format``:
    ``DXGI_FORMAT``, ``Flags`` does not: each struct has its own), so a value printed without its C type (an IA
    binding's fields) still shows its member name."""
    global _MEMBER_ENUMS
    if _MEMBER_ENUMS is None:
        seen: dict[str, set[str]] = {}
        enums = _enum_names()
        for type_name in abi.default.type_names():
            for path, f, _ in abi.type_info(type_name).walk():
                t = abi.default.resolve(f.type)
                seen.setdefault(path.rsplit(".", 1)[-1], set()).add(t if t in enums else "")
        _MEMBER_ENUMS = {member: next(iter(ts)) for member, ts in seen.items() if len(ts) == 1 and "" not in ts}
    return _MEMBER_ENUMS.get(name)


def _sub_ctypes(ctype: str) -> dict[str, str]:
    try:
        info = abi.type_info(ctype)
    except D3D12WLError:
        return {}
    return {f.name: f.type for f in info.fields}


def format_value(value: Any, ctype: str | None = None, name: str = "") -> str:
    """One value as text, by its C type (see the module docstring)."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        subs = _sub_ctypes(ctype) if ctype else {}
        return "{" + ", ".join(f"{k}={format_value(v, subs.get(k), k)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        if all(isinstance(v, int) for v in value) and (ctype in (None, "UINT", "uint32_t")):
            return " ".join(f"0x{v:08x}" for v in value) + float_text(value)
        return "[" + ", ".join(format_value(v, ctype) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    if ctype in ADDRESS_TYPES or name in ADDRESS_MEMBERS or name.endswith("View") or name.endswith("Pointer"):
        return f"0x{value:x}"
    if ctype and _is_enum(ctype):
        return abi.enum_text(ctype, value)
    member_enum = _member_enum(name) if ctype is None and name else None
    if member_enum is not None:
        return abi.enum_text(member_enum, value)
    return str(value)


