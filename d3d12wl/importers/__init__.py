"""The files of the tools people capture with, read into what d3d12wl reads (docs/gfxreconstruct.md, docs/gits.md).

* :func:`import_gfxr`: ``gfxrecon-convert``'s JSON of a D3D12 capture and ``gfxrecon-replay --dump-resources``
  folders -> a capture per dumped ExecuteIndirect call and the frame's call sequence;
* :func:`read_gits_dump` and :func:`pair_dumps`: GITS's ExecuteIndirect pre- and post-patch dumps -> the tables
  ``d3d12wl patch-list`` writes and the verdict of every address;
* :func:`diff_replay`: an ExecuteIndirect capture against its replay's dump, command by command;
* :func:`read_root_signature`: the serialized root signature a ``CreateRootSignature`` blob holds.
"""

from __future__ import annotations

from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.gfxr import IMPORT_FINDING_KINDS, GfxrImport, ImportedCall, import_gfxr
from d3d12wl.importers.gits import GITS_FINDING_KINDS, VERDICTS, GitsDump, GitsPair, pair_dumps, read_gits_dump
from d3d12wl.importers.replay_diff import diff_replay
from d3d12wl.importers.root_signature_blob import read_root_signature

__all__ = ["GITS_FINDING_KINDS", "IMPORT_FINDING_KINDS", "VERDICTS", "GfxrImport", "GitsDump", "GitsPair",
           "ImportInputError", "ImportedCall", "diff_replay", "import_gfxr", "pair_dumps", "read_gits_dump",
           "read_root_signature"]
