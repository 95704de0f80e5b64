"""Where d3d12wl's C headers are on disk: the include directory generated C (``d3d12wl codegen --lang c``) and an
engine's own headers compile against (``cc -I "$(d3d12wl headers --path)"``).

An installed package ships them as package data (``d3d12wl/headers/``, copied there by ``setup.py``'s ``build_py``);
a source checkout or an editable install uses the checkout's ``headers/``.  Either way they are the texts the
compiled module was built from (``abi.header_texts()``; tests/test_packaging.py checks a built wheel).
"""

from __future__ import annotations

from pathlib import Path

from d3d12wl.errors import ABIError

#: a header every copy has (the one generated C includes first)
_MARKER = "d3d12wl_base.h"

#: the installed package's copy, then the source checkout's
_CANDIDATES = (Path(__file__).resolve().parents[1] / "headers", Path(__file__).resolve().parents[2] / "headers")


def path() -> Path:
    """The directory holding ``d3d12wl_base.h``, ``d3d12wl_work_lists.h``, ... (an :class:`ABIError` if neither the
    package data nor a checkout's ``headers/`` is there, as in a broken install)."""
    for candidate in _CANDIDATES:
        if (candidate / _MARKER).is_file():
            return candidate
    raise ABIError("d3d12wl's headers are not installed: neither the package data folder nor a checkout's headers/ "
                   "holds d3d12wl_base.h (reinstall d3d12wl)", where=str(_CANDIDATES[0]))
