"""Stage 1, the compiled ABI: what the C compiler says about every declared type, enum and constant.

- :mod:`~d3d12wl.abi.compiled`: sizes, offsets, fields, enums (IntEnum/IntFlag) and constants read from the
  cffi-built ``d3d12wl._native``; its functions are this package's public face (``abi.sizeof``, ``abi.enum_value``).
- :mod:`~d3d12wl.abi.decls`: the declaration spelling of ``headers/*.h`` (field type names, enum order, provisional
  marks), parsed once at build time and shipped inside the compiled module.
- :mod:`~d3d12wl.abi.check`: the four ABI truths (cffi, clang's Windows target, the spec's bytes, Debian's d3d12.h).
- :mod:`~d3d12wl.abi.mirrors`: ctypes and numpy mirrors checked field by field.
- :mod:`~d3d12wl.abi.report`: the ``d3d12wl abi`` views.
- ``_ffi_builder``: builds the cffi FFI from header texts (for ``build_ffi.py`` and the mutation checks).

May import: the foundation (``d3d12wl.errors``, ``d3d12wl.output.tables``, ``d3d12wl.output.serialize``) only.
"""

from d3d12wl.abi import compiled as _compiled
from d3d12wl.abi.compiled import *  # noqa: F403  (the compiled module's functions are the package's face)

__all__ = list(_compiled.__all__)
