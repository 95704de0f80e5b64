"""The bundled examples: the specs' own examples as JSON descriptions and captures, installed with the package.

``path(name)`` gives the file, so an example opens from any working directory::

    import d3d12wl
    from d3d12wl import examples

    objects = d3d12wl.load_description(examples.path("culling.json"))
    trace = d3d12wl.execute(d3d12wl.load_capture(examples.path("culling_capture.json")))

``validators.py`` is user code (GPU-timeline validators for ``validation_chain_capture.json``).
"""

from __future__ import annotations

from pathlib import Path

from d3d12wl.errors import D3D12WLError

__all__ = ["FOLDER", "names", "path"]

#: the folder the examples are installed in
FOLDER = Path(__file__).resolve().parent


def names() -> list[str]:
    """The example files (descriptions, captures, headers, HLSL, readbacks, other tools' dumps), as paths under the
    folder, sorted."""
    return sorted(p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*")
                  if p.is_file() and p.suffix in {".json", ".h", ".hlsl", ".py", ".csv", ".bin", ".txt"}
                  and p.name != "__init__.py" and "__pycache__" not in p.parts)


def path(name: str) -> Path:
    """The path of the bundled example ``name`` (``"culling.json"``, ``"culling_ei/calls.json"``); a
    :class:`D3D12WLError` listing the examples when there is none of that name."""
    target = (FOLDER / name).resolve()
    if FOLDER not in target.parents or not target.is_file():
        raise D3D12WLError(f"no bundled example {name!r}; the examples are: {', '.join(names())}",
                           where="d3d12wl.examples.path")
    return target
