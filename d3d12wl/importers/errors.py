"""The one error of the importers (its own module, so that every module of the stage can raise it)."""

from __future__ import annotations

from d3d12wl.errors import D3D12WLError

__all__ = ["ImportInputError"]


class ImportInputError(D3D12WLError):
    """A file another tool wrote (GFXReconstruct's convert JSON or dump, a GITS dump) that the importer cannot use
    as it is: ``where`` names the file and the member, line or byte; the message says why (the CLI exits 2)."""
