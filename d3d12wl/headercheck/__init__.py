"""Stage 5, anyone's headers against the spec: ``d3d12wl abi check --header/--hlsl``.

- :mod:`~d3d12wl.headercheck.probe`: C/C++ headers compiled for ``x86_64-pc-windows-msvc`` (stubs in ``winstubs/``),
  numbers read from probe constants.
- :mod:`~d3d12wl.headercheck.clang_ast`: declarations read from clang's JSON AST.
- :mod:`~d3d12wl.headercheck.hlsl`: HLSL structs parsed by glslc, laid out by D3D12's structured-buffer rules.
- :mod:`~d3d12wl.headercheck.check`: every shared declaration against ``abi`` (``check_files`` is the whole check).
- :mod:`~d3d12wl.headercheck.records`: engine record structs against the layout calculator.
- :mod:`~d3d12wl.headercheck.report`: the verdict's data, as text and JSON.

May import: the foundation, ``abi``, ``model``, ``records`` and ``rules``.
"""

__all__ = ["check", "clang_ast", "hlsl", "probe", "records", "report"]
