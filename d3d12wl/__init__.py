"""d3d12wl: binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages.

The package is a pipeline of stages, one subpackage each, in the order data flows (``docs/ARCHITECTURE.md``):
``output`` (the output machinery), ``abi`` (the compiled headers), ``model`` (the creation-time objects and their JSON), ``records`` (the bytes of
every record), ``rules`` (creation-time validation), ``headercheck`` (anyone's headers against the spec),
``capture`` (GPU memory, the builder, the capture file), ``executor``, ``messages``, ``migrate`` (ExecuteIndirect
buckets to work lists and back), ``vulkan`` (the lowering to device-generated commands) and ``cli``.  The foundation
below them all is ``errors`` (the exception hierarchy) and ``inputs`` (the bounded readers); above it, ``output``
holds what every stage writes through (atomic files, the one table renderer, the one JSON serializer, the row
formatter, the block and Parquet writers).

The entry points a user starts from are here, imported on first use (``import d3d12wl`` stays cheap)::

    import d3d12wl

    objects = d3d12wl.load_description("culling.json")            # d3d12wl.model.description.load
    records = d3d12wl.pcs_layout(objects.program_command_signatures["PCS"])
    data = d3d12wl.pack_secondary_records(records, {...})          # numpy in, bytes out
    trace = d3d12wl.execute(d3d12wl.load_capture("culling_capture.json"))
    table = d3d12wl.patch_list(capture)                           # every reference by value the call reads
    rebased = d3d12wl.remap(capture, va_map, output="replay.json", verify=True)

The patch list and the rebase follow the executor's walk, so they are the executor's (stage 8): ``d3d12wl.capture``
(stage 7) cannot import them, and they are these entry points, ``d3d12wl.patch_list`` and ``d3d12wl.remap``; the
maps they take are ``d3d12wl.capture.maps``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from d3d12wl import _lazy
from d3d12wl._version import __version__

#: entry point -> "module:attribute"; the one table both ``__getattr__`` and the type-checking imports below follow
#: (tests/test_layering.py checks that they agree)
ENTRY_POINTS: dict[str, str] = {
    "load_description": "d3d12wl.model.description:load",
    "pcs_layout": "d3d12wl.records.layout:pcs_layout",
    "program_table_layout": "d3d12wl.records.layout:program_table_layout",
    "command_layout": "d3d12wl.records.layout:command_layout",
    "pack_primary_records": "d3d12wl.records.packers:pack_primary_records",
    "pack_secondary_records": "d3d12wl.records.packers:pack_secondary_records",
    "pack_program_table": "d3d12wl.records.packers:pack_program_table",
    "pack_execute_indirect": "d3d12wl.records.packers:pack_execute_indirect",
    "build_work_list": "d3d12wl.capture.builder:build_work_list",
    "load_capture": "d3d12wl.capture.file:load_capture",
    "execute": "d3d12wl.executor:execute",
    "patch_list": "d3d12wl.executor.references:patch_list",
    "remap": "d3d12wl.executor.remap:remap",
}

if TYPE_CHECKING:  # (the redundant aliases mark them as this package's re-exports)
    from d3d12wl.capture.builder import build_work_list as build_work_list
    from d3d12wl.capture.file import load_capture as load_capture
    from d3d12wl.executor import execute as execute
    from d3d12wl.executor.references import patch_list as patch_list
    from d3d12wl.executor.remap import remap as remap
    from d3d12wl.model.description import load as load_description  # noqa: F401  (an entry point)
    from d3d12wl.records.layout import command_layout as command_layout
    from d3d12wl.records.layout import pcs_layout as pcs_layout
    from d3d12wl.records.layout import program_table_layout as program_table_layout
    from d3d12wl.records.packers import pack_execute_indirect as pack_execute_indirect
    from d3d12wl.records.packers import pack_primary_records as pack_primary_records
    from d3d12wl.records.packers import pack_program_table as pack_program_table
    from d3d12wl.records.packers import pack_secondary_records as pack_secondary_records

__all__ = ["__version__", *ENTRY_POINTS]


__getattr__, __dir__ = _lazy.exports(__name__, ENTRY_POINTS)
