"""The one error of the migration package (its own module, so that every module of the package can raise it)."""

from __future__ import annotations

from d3d12wl.errors import D3D12WLError

__all__ = ["MigrationError"]


class MigrationError(D3D12WLError):
    """An input a migration, a diff or an equivalence check cannot use (the CLI exits 2 with it)."""
