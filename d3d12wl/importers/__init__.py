"""The files of the tools people capture with, read into what d3d12wl reads (docs/gfxreconstruct.md, docs/gits.md).

* :func:`import_gfxr`: ``gfxrecon-convert``'s JSON of a D3D12 capture and ``gfxrecon-replay --dump-resources``
  folders -> a capture per dumped ExecuteIndirect call and the frame's call sequence;
* :func:`read_root_signature`: the serialized root signature a ``CreateRootSignature`` blob holds.
"""

from __future__ import annotations

from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.gfxr import IMPORT_FINDING_KINDS, GfxrImport, ImportedCall, import_gfxr
from d3d12wl.importers.root_signature_blob import read_root_signature

__all__ = ["IMPORT_FINDING_KINDS", "GfxrImport", "ImportInputError", "ImportedCall", "import_gfxr",
           "read_root_signature"]
