"""``d3d12wl headers``: where d3d12wl's C headers are installed (the include directory of generated C)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from d3d12wl.abi import headers
from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, rename
from d3d12wl.errors import ABIError

#: the plain-text --help description
DESCRIPTION = """\
Where d3d12wl's C headers are: the include directory that 'd3d12wl codegen --lang c' output and an engine's own
record headers compile against, shipped with the package.

  d3d12wl headers --path     the directory, one line (cc -std=c11 -fsyntax-only -I "$(d3d12wl headers --path)" ...)
  d3d12wl headers --cflags   the compiler flags of generated C: -IDIR
  d3d12wl headers --cflags --directx-headers [DIR]
                             ... and, before them, those of the real d3d12.h (DirectX-Headers off Windows: its
                             directx/, wsl/stubs/ and include root as -isystem, from DIR, else
                             $D3D12WL_DIRECTX_HEADERS, else /usr/include; exit 2 when it is not there).  A translation unit includes
                             <wsl/winadapter.h>, then <directx/d3d12.h>, then the generated file.
  d3d12wl headers            the directory and the header files in it
  d3d12wl headers --json     {"path": DIR, "headers": [FILE, ...], "cflags": [FLAG, ...]}

The same from Python: d3d12wl.abi.headers.path()."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("headers", help=summary("headers"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--path", action="store_true", help="print only the include directory")
    p.add_argument("--cflags", action="store_true", help="print the compiler flags of generated C (-IDIR)")
    p.add_argument("--directx-headers", nargs="?", const="", default=None, metavar="DIR", dest="directx",
                   help="with --cflags: also the flags of the real d3d12.h, which generated C may follow: the "
                        "DirectX-Headers include root DIR (holding directx/d3d12.h and wsl/winadapter.h; default "
                        "$D3D12WL_DIRECTX_HEADERS, else /usr/include)")
    rename(p, "--directx", "--directx-headers")
    add_json_flag(p, '{"path": DIR, "headers": [FILE, ...], "cflags": [...]}')
    p.set_defaults(func=run)


#: the folder every Unix compiler searches already (DirectX-Headers' root when directx-headers-dev installed it)
SYSTEM_INCLUDE = Path("/usr/include")


def cflags(directx: bool | str | None = False) -> list[str]:
    """``-I`` of the package's headers; with ``directx`` (True or ``""``: the DirectX-Headers root the lookup finds,
    :func:`d3d12wl.abi.check.d3d12_include_root`; a path: that root), first the ``-isystem`` folders the real
    ``d3d12.h`` needs off Windows (DirectX-Headers: ``directx/``, ``wsl/stubs/`` and the include root, as system
    headers so that an engine's ``-Wall -Werror`` judges its own code; the root only when it is not
    ``/usr/include``; an :class:`ABIError` when it is not there)."""
    from d3d12wl.abi import check

    flags = []
    if directx is not None and directx is not False:
        given = Path(directx) if isinstance(directx, str) and directx else None
        root = check.find_d3d12_headers(given)
        if root is None:
            where = given if given is not None else check.d3d12_include_root()
            raise ABIError(f"DirectX-Headers not found: no directx/d3d12.h and wsl/winadapter.h under {where} "
                           f"(install directx-headers-dev, give --directx-headers DIR, or set "
                           f"${check.D3D12_INCLUDE_ENV} to a DirectX-Headers include folder)",
                           where="--directx-headers")
        folders = [root / "directx", root / "wsl" / "stubs"]
        if root != SYSTEM_INCLUDE:  # (an -isystem of the compiler's own folder breaks C++'s #include_next)
            folders.append(root)
        flags += [f"-isystem{d}" for d in folders]
    return [*flags, f"-I{headers.path()}"]


def run(args: argparse.Namespace) -> int:
    if args.directx is not None and not args.cflags:
        raise ABIError("--directx-headers applies to --cflags: add --cflags", where="--directx-headers")
    where = headers.path()
    names = sorted(p.name for p in where.glob("*.h"))
    if args.json:
        print(json.dumps({"path": str(where), "headers": names, "cflags": cflags(args.directx)}, indent=2))
    elif args.cflags:
        print(" ".join(cflags(args.directx)))
    elif args.path:
        print(where)
    else:
        print(f"include directory: {where}")
        for name in names:
            print(f"  {name}")
    return 0
