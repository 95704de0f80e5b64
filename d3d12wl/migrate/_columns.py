"""Binding values as byte columns: the one representation both migrations move between record layouts.

A *binding* is what a shader sees, named by its register (root constants ``b1 space0``, root views, a vertex-buffer
slot, the index buffer).  Its value for n executions is a ``uint8`` array of shape ``(n, size)``: exactly the
payload bytes both ExecuteIndirect and Work Lists records carry for it (spec "Per-arg natural alignment": the
payload is the same, only its placement differs, "Divergence from ExecuteIndirect").  Columns are sliced out of
records and handed to the packers through the layout calculator's field names; nothing here knows an offset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.migrate.errors import MigrationError
from d3d12wl.model.argtypes import arg_type_info
from d3d12wl.model.objects import RootParameter1
from d3d12wl.records.dtypes import layout_field_dtype
from d3d12wl.records.layout import LayoutField

#: register letter of a root parameter type (the HLSL register class it binds)
_LETTER = {"CBV": "b", "32BIT_CONSTANTS": "b", "SRV": "t", "UAV": "u"}
#: the argument type that sets each root view (its root_parameter_types, :func:`arg_type_info`)
VIEW_ARG = {"CBV": "CONSTANT_BUFFER_VIEW", "SRV": "SHADER_RESOURCE_VIEW", "UAV": "UNORDERED_ACCESS_VIEW"}


def payload_size(arg_type: str) -> int:
    """Bytes of the record payload of ``arg_type`` (its C type's ``sizeof``, :mod:`d3d12wl.model.argtypes`)."""
    ctype = arg_type_info(arg_type).payload_ctype
    assert ctype is not None, arg_type
    return abi.sizeof(ctype)


@dataclass(frozen=True)
class Binding:
    """One shader-visible binding: ``kind`` is ``constants``, ``CBV``, ``SRV``, ``UAV``, ``table``, ``VB`` or
    ``IB``; ``key`` names it uniquely (the register for root parameters, ``VB3`` / ``IB`` for IA)."""

    key: str
    kind: str
    size: int
    parameter: RootParameter1 | None = None
    slot: int | None = None

    @property
    def root(self) -> bool:
        return self.parameter is not None


def root_binding(param: RootParameter1) -> Binding:
    ptype = param.parameter_type_name
    if ptype == "32BIT_CONSTANTS":
        c = param.Constants
        return Binding(f"b{c.ShaderRegister} space{c.RegisterSpace}", "constants", 4 * c.Num32BitValues, param)
    if ptype in ("CBV", "SRV", "UAV"):
        d = param.Descriptor
        return Binding(f"{_LETTER[ptype]}{d.ShaderRegister} space{d.RegisterSpace}", ptype,
                       payload_size(VIEW_ARG[ptype]), param)
    ranges = param.DescriptorTable.pDescriptorRanges
    first = ranges[0] if ranges else None
    name = f"table {first.RangeType}:{first.BaseShaderRegister} space{first.RegisterSpace}" if first else "table"
    return Binding(name, "table", payload_size("DESCRIPTOR_TABLE"), param)


def vb_binding(slot: int) -> Binding:
    return Binding(f"VB{slot}", "VB", payload_size("VERTEX_BUFFER_VIEW"), slot=slot)


IB_BINDING = Binding("IB", "IB", payload_size("INDEX_BUFFER_VIEW"))


def rows_of(records: np.ndarray, f: LayoutField) -> np.ndarray:
    """The bytes of field ``f`` of every record (``records``: uint8 ``(n, stride)``)."""
    return records[:, f.offset:f.offset + f.size]


def column_for(f: LayoutField, rows: np.ndarray) -> np.ndarray:
    """Byte rows ``(n, f.size)`` as the column the packers take for field ``f``."""
    dt = layout_field_dtype(f)
    base, shape = (dt[0], dt[1]) if isinstance(dt, tuple) else (dt, ())
    rows = np.ascontiguousarray(rows)
    if base.names is not None:
        return rows
    out = rows.view(base.newbyteorder("<"))
    return out if shape else out[:, 0]


def gather(memory: GpuMemory, vas: np.ndarray, size: int, what: str, *,
           indices: np.ndarray | None = None) -> np.ndarray:
    """``size`` bytes at each VA of ``vas`` as uint8 ``(n, size)``, vectorized per memory region; a record that is
    not wholly inside one mapped region is an error naming it (by ``indices[i]`` when given; the executor reports
    it as a finding)."""
    n = len(vas)
    out = np.zeros((n, size), dtype=np.uint8)
    if n == 0 or size == 0:
        return out
    vas = vas.astype(np.uint64)
    done = np.zeros(n, dtype=bool)
    cols = np.arange(size, dtype=np.uint64)
    for region in memory:
        base, end = np.uint64(region.base), np.uint64(region.base + region.size)
        inside = (vas >= base) & (vas + np.uint64(size) <= end)
        if not inside.any():
            continue
        data = np.frombuffer(memory.view(region.base, region.size), dtype=np.uint8)
        offsets = vas[inside] - base
        out[inside] = data[(offsets[:, None] + cols).astype(np.intp)]
        done |= inside
    if not done.all():
        i = int(np.flatnonzero(~done)[0])
        name = int(indices[i]) if indices is not None else i
        raise MigrationError(f"{what} {name} at VA 0x{int(vas[i]):x} (+{size} bytes) is not inside one mapped "
                             "region; `d3d12wl exec` reports what the call does with it", where=f"{what} {name}")
    return out


#: the most records, slots or commands one migration reads from one range (the executor's limits are of the same
#: order when a run is compared, :func:`d3d12wl.migrate.runs.run_of_captures`): a count from the input is checked
#: against it, and against the mapped memory, before anything is allocated
MAX_RECORDS = 1 << 24


def check_count(count: int, what: str, where: str | None = None) -> int:
    """``count`` (read from the input) when at most :data:`MAX_RECORDS`, else a :class:`MigrationError`."""
    if count > MAX_RECORDS:
        raise MigrationError(f"{count} {what}s exceed the {MAX_RECORDS} one migration reads", where=where or what)
    return count


def strided(memory: GpuMemory, va: int, count: int, stride: int, size: int, what: str) -> np.ndarray:
    """``count`` records of ``size`` bytes, ``stride`` apart from ``va``, as a read-only uint8 ``(count, size)`` view
    of the one mapped region that holds them all (a strided view, as :func:`d3d12wl.records.packers.read_records`:
    nothing is copied).  The range ``[va, va + (count - 1) * stride + size)`` is checked before anything is made;
    a record outside the region is an error naming it (the executor reports it as a finding)."""
    check_count(count, what)
    if count == 0 or size == 0:
        return np.zeros((count, size), dtype=np.uint8)
    region = memory.region_at(va)
    end = region.base + region.size if region is not None else va
    if region is None or va + (count - 1) * stride + size > end:
        i = 0 if region is None or va + size > end or stride == 0 else (end - va - size) // stride + 1
        rva = va + i * stride
        raise MigrationError(f"{what} {i} at VA 0x{rva:x} (+{size} bytes) is not inside one mapped region with the "
                             "records before it; `d3d12wl exec` reports what the call does with it",
                             where=f"{what} {i}")
    data = np.frombuffer(memory.view(region.base, region.size), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(data[va - region.base:], shape=(count, size), strides=(stride, 1),
                                           writeable=False)
