"""cffi API-mode builder: compiles ``headers/*.h`` into ``d3d12wl._native``.

``pip install .`` runs this through ``cffi_modules`` (setup.py); ``python build_ffi.py`` builds
in place.  The logic lives in ``d3d12wl/abi/_ffi_builder.py`` so the ABI checks can compile
mutated header sets the same way from an installed package.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "d3d12wl_ffi_builder", Path(__file__).resolve().parent / "d3d12wl" / "abi" / "_ffi_builder.py"
)
assert _spec is not None and _spec.loader is not None
_builder = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _builder
_spec.loader.exec_module(_builder)

HEADER_ORDER = _builder.HEADER_ORDER
read_headers = _builder.read_headers
make_ffi = _builder.make_ffi

ffi = make_ffi(read_headers())

if __name__ == "__main__":  # pragma: no cover
    ffi.compile(tmpdir=str(Path(__file__).resolve().parent), verbose=True)
