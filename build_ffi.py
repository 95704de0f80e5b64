"""cffi API-mode builder: compiles ``headers/*.h`` into ``d3d12wl._native``.

``pip install .`` runs this through ``cffi_modules`` (setup.py); ``python build_ffi.py`` builds
in place.  The logic lives in ``d3d12wl/abi/_ffi_builder.py`` so the ABI checks can compile
mutated header sets the same way from an installed package.

At build time the compiled module does not exist yet, so ``d3d12wl.abi``'s ``__init__`` (which reads it) must not
run: the source tree goes on ``sys.path`` and ``d3d12wl.abi`` is registered as a bare namespace over its folder,
from which the builder, the declaration data and the header parser import as usual.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if "d3d12wl.abi" not in sys.modules:
    _abi = types.ModuleType("d3d12wl.abi")
    _abi.__path__ = [str(ROOT / "d3d12wl" / "abi")]
    sys.modules["d3d12wl.abi"] = _abi

from d3d12wl.abi import _ffi_builder  # noqa: E402  (after the namespace above)

HEADER_ORDER = _ffi_builder.HEADER_ORDER
read_headers = _ffi_builder.read_headers
make_ffi = _ffi_builder.make_ffi

ffi = make_ffi(read_headers())

if __name__ == "__main__":  # pragma: no cover
    ffi.compile(tmpdir=str(ROOT), verbose=True)
