"""Stage 6, GPU memory and captures: the bytes a call reads and the file that holds them.

- :mod:`~d3d12wl.capture.memory`: ``GpuMemory``, a sparse GPU virtual address space with bounded, checked reads.
- :mod:`~d3d12wl.capture.builder`: the whole-work-list builder (records, tables and chains into one buffer).
- :mod:`~d3d12wl.capture.file`: the versioned capture file (schema ``capture.schema.json``): load and save.

May import: the foundation, ``abi``, ``model``, ``records`` and ``rules``.
"""

__all__ = ["builder", "file", "memory"]
