"""Stage 3, records: the bytes of every GPU-resident record, derived from one layout calculator.

- :mod:`~d3d12wl.records.payloads`: the record payload of one argument (spec "Per-arg natural alignment").
- :mod:`~d3d12wl.records.layout`: ``RecordLayout`` for primary, secondary, program-table and ExecuteIndirect records.
- :mod:`~d3d12wl.records.dtypes`: numpy dtypes of fixed structs and records.
- :mod:`~d3d12wl.records.schemas`: construct ``Struct``s of fixed structs and records.
- :mod:`~d3d12wl.records.ctypes_records`: ``ctypes.Structure``s of records, member for member as the C codegen.
- :mod:`~d3d12wl.records.packers`: vectorized packers and zero-copy readers (kernels in ``_kernels.c``).
- :mod:`~d3d12wl.records.codegen`: C and HLSL struct text.

May import: the foundation, ``abi`` and ``model``.
"""

__all__ = ["codegen", "ctypes_records", "dtypes", "layout", "packers", "payloads", "schemas"]
