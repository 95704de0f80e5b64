"""The package version, in one place (pyproject.toml reads it; ``d3d12wl.__version__`` re-exports it)."""

__version__ = "0.2.0"
