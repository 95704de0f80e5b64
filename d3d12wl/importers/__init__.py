"""The files of the tools people capture with, read into what d3d12wl reads (docs/gfxreconstruct.md, docs/gits.md).

* :func:`import_gfxr`: ``gfxrecon-convert``'s JSON of a D3D12 capture and ``gfxrecon-replay --dump-resources``
  folders -> a capture per dumped ExecuteIndirect call and the frame's call sequence;
* :func:`read_gits_dump` and :func:`pair_dumps`: GITS's ExecuteIndirect pre- and post-patch dumps -> the tables
  ``d3d12wl patch-list`` writes and the verdict of every address;
* :func:`diff_replay`: an ExecuteIndirect capture against its replay's dump, command by command;
* :func:`read_root_signature`: the serialized root signature a ``CreateRootSignature`` blob holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from d3d12wl import _lazy

#: name -> "module:attribute": what this package exports, each imported when first used (a command that only asks
#: :mod:`d3d12wl.importers.recognize` what a file is does not pay for the importers); the one table both
#: ``__getattr__`` and the type-checking imports below follow (tests/test_layering.py checks that they agree)
EXPORTS: dict[str, str] = {
    "GITS_FINDING_KINDS": "d3d12wl.importers.gits:GITS_FINDING_KINDS",
    "IMPORT_FINDING_KINDS": "d3d12wl.importers.gfxr:IMPORT_FINDING_KINDS",
    "VERDICTS": "d3d12wl.importers.gits:VERDICTS",
    "GfxrImport": "d3d12wl.importers.gfxr:GfxrImport",
    "GitsDump": "d3d12wl.importers.gits:GitsDump",
    "GitsPair": "d3d12wl.importers.gits:GitsPair",
    "ImportInputError": "d3d12wl.importers.errors:ImportInputError",
    "ImportedCall": "d3d12wl.importers.gfxr:ImportedCall",
    "diff_replay": "d3d12wl.importers.replay_diff:diff_replay",
    "import_gfxr": "d3d12wl.importers.gfxr:import_gfxr",
    "pair_dumps": "d3d12wl.importers.gits:pair_dumps",
    "read_gits_dump": "d3d12wl.importers.gits:read_gits_dump",
    "read_root_signature": "d3d12wl.importers.root_signature_blob:read_root_signature",
}

if TYPE_CHECKING:  # (the redundant aliases mark them as this package's re-exports)
    from d3d12wl.importers.errors import ImportInputError as ImportInputError
    from d3d12wl.importers.gfxr import IMPORT_FINDING_KINDS as IMPORT_FINDING_KINDS
    from d3d12wl.importers.gfxr import GfxrImport as GfxrImport
    from d3d12wl.importers.gfxr import ImportedCall as ImportedCall
    from d3d12wl.importers.gfxr import import_gfxr as import_gfxr
    from d3d12wl.importers.gits import GITS_FINDING_KINDS as GITS_FINDING_KINDS
    from d3d12wl.importers.gits import VERDICTS as VERDICTS
    from d3d12wl.importers.gits import GitsDump as GitsDump
    from d3d12wl.importers.gits import GitsPair as GitsPair
    from d3d12wl.importers.gits import pair_dumps as pair_dumps
    from d3d12wl.importers.gits import read_gits_dump as read_gits_dump
    from d3d12wl.importers.replay_diff import diff_replay as diff_replay
    from d3d12wl.importers.root_signature_blob import read_root_signature as read_root_signature

__all__ = [*EXPORTS]


__getattr__, __dir__ = _lazy.exports(__name__, EXPORTS)
