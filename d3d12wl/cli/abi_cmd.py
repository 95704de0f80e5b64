"""The ``d3d12wl abi`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from d3d12wl import abi, inputs
from d3d12wl.abi import check as abi_check
from d3d12wl.abi import report as abi_report
from d3d12wl.abi.tools import AST_BYTES_PER_SOURCE_BYTE, DEFAULT_LIMITS, FLAGS, ToolLimits, limited
from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, integer, rename
from d3d12wl.errors import ABIError
from d3d12wl.headercheck import check as header_check
from d3d12wl.headercheck import report as header_report

#: the plain-text --help description
DESCRIPTION = """\
The ABI of the compiled headers, and its truth checks.

  d3d12wl abi [NAME ...]         pahole-style report of all (or the named) types, enums, constants
  d3d12wl abi --json [NAME ...]  the same as JSON
  d3d12wl abi check [--json]     run the ABI truth checks this machine can run; exit 1 on any
                                 disagreement (each printed, naming type and field), listing what was skipped
  d3d12wl abi check --header FILE [--header FILE ...] [--include DIR ...] [--define NAME=VALUE ...]
                    [--header-lang c|c++] [--prelude auto|none|FILE] [--map NAME=HEADER_NAME ...]
                    [--description DESC.json [--record-struct ID=STRUCT ...] [--hlsl FILE ...] [--records-only]]
                    [--json]
                                 compile anyone's headers for the Windows x64 ABI (clang -target
                                 x86_64-pc-windows-msvc) and compare every struct, field, enum member, constant,
                                 typedef and callback they share with d3d12wl's; with --description, also the
                                 engine's own record structs (C/C++, or HLSL with --hlsl) against the layout
                                 calculator (--records-only: those alone).  Exit 1 on any difference; missing
                                 and extra names are listed (summed up by kind for a header that is no d3d12.h),
                                 provisional values reported with the header's value to adopt.

Every compiler run (clang, the host C compiler, glslc, spirv-dis) is bounded, and reaching a bound exits 2 naming
it: --tool-memory MIB of address space (default {memory_mib}), --tool-cpu SECONDS of CPU time (default {cpu_seconds};
five times that of wall-clock time), --tool-output MIB per file it writes (default {output_mib}).  Before clang or
glslc runs, the sources it is given are walked: #include directives nest at most --include-depth N levels (default
{include_depth}; a file that includes itself with no guard is refused at once) and total at most --source-bytes N
bytes (default {source_bytes:,}); clang's JSON AST read back is at most {ast_per_byte} times that.""".format(
    **vars(DEFAULT_LIMITS), ast_per_byte=AST_BYTES_PER_SOURCE_BYTE)


#: the old spellings (renamed after 0.2.0: --lang, --record and --signature meant other things on codegen and capture)
_RENAMED = {"--lang": "--header-lang", "--record": "--record-struct", "--signature": "--description"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "abi",
        help=summary("abi"),
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="types, enums or constants to show; or `check`")
    add_json_flag(p, "the report (with check: the checks' verdicts)")
    p.add_argument(
        "--headers", metavar="DIR", help="with `check`: check the headers in DIR instead of the installed ones"
    )
    p.add_argument("--directx-headers", metavar="DIR", default=None,
                   help="with `check`: the DirectX-Headers include root (holding directx/d3d12.h and "
                        f"wsl/winadapter.h; default ${abi_check.D3D12_INCLUDE_ENV} or "
                        f"{abi_check.D3D12_INCLUDE_ROOT})")
    g = p.add_argument_group("abi check --header: check anyone's header against the spec")
    g.add_argument("--header", action="append", metavar="FILE", help="a C/C++ header to check (repeatable)")
    g.add_argument("--include", action="append", default=[], metavar="DIR", help="an include directory")
    g.add_argument("--define", action="append", default=[], metavar="NAME[=VALUE]", help="a preprocessor define")
    g.add_argument("--header-lang", choices=("c", "c++"), default="c++", dest="lang",
                   help="compile the headers as C11 or C++17 (default c++)")
    g.add_argument("--prelude", default="auto", metavar="auto|none|FILE",
                   help="included first: auto = <wsl/winadapter.h> when directx-headers-dev is installed")
    g.add_argument("--map", action="append", default=[], metavar="NAME=HEADER_NAME",
                   help="the header's name for one of d3d12wl's types, enums, constants or callbacks")
    g.add_argument("--description", metavar="DESC.json", dest="signature",
                   help="a JSON description whose record classes the engine's structs are checked against")
    g.add_argument("--record-struct", action="append", default=[], metavar="ID=STRUCT", dest="record",
                   help="bind a record class (PCS.secondary, Opaque.program_table, EI.command) to a struct")
    g.add_argument("--hlsl", action="append", metavar="FILE", help="HLSL declaring record structs (repeatable): "
                   "checked at D3D12's structured-buffer layout (needs --description; glslc and spirv-dis)")
    g.add_argument("--records-only", action="store_true",
                   help="with --description: check the engine's record structs alone, not d3d12wl's declarations "
                        "(an engine header's verdict on its records, without the names it does not declare)")
    for old, new in _RENAMED.items():
        rename(g, old, new)
    t = p.add_argument_group("abi check: the bounds of every compiler run (exit 2 naming the one reached)")
    for name, metavar, text in (("memory_mib", "MIB", "address space of each run"),
                                ("cpu_seconds", "SECONDS", "CPU time of each run (wall-clock time: five times it)"),
                                ("output_mib", "MIB", "largest file a run writes"),
                                ("include_depth", "N", "how deep the sources' #include directives may nest"),
                                ("source_bytes", "N", "bytes the sources and what they include may total")):
        t.add_argument(FLAGS[name], dest=name, type=integer, default=getattr(DEFAULT_LIMITS, name), metavar=metavar,
                       help=f"{text} (default {getattr(DEFAULT_LIMITS, name):,})")
    p.set_defaults(func=run)


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    given: dict[object, tuple[object, str]] = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ABIError(f"{v!r} is not NAME=VALUE", where=option)
        inputs.given_once(given, key.strip(), value.strip(), v, flag=option, what=key.strip())
        out[key.strip()] = value.strip()
    return out


def _defines(values: list[str]) -> list[str]:
    """``--define NAME[=VALUE]`` as given; one NAME defined twice differently (``A=1`` and ``A=2``; ``A`` is
    ``A=1``, as for a compiler's ``-D``) is exit 2 naming both, not the compiler's warning and the last one."""
    given: dict[object, tuple[object, str]] = {}
    for v in values:
        name, sep, value = v.partition("=")
        inputs.given_once(given, name.strip(), value.strip() if sep else "1", v, flag="--define", what=name.strip())
    return values


def _check_header(args: argparse.Namespace) -> int:
    records, mapping = _pairs(args.record, "--record-struct"), _pairs(args.map, "--map")  # checked before any compile
    report = header_check.check_files(args.header or (), hlsl=args.hlsl or (), signature=args.signature,
                                      records=records, mapping=mapping, includes=args.include,
                                      defines=_defines(args.define), lang=args.lang, prelude=args.prelude,
                                      records_only=args.records_only)
    if args.json:
        json.dump(header_report.to_json(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(header_report.format_text(report))
    return 0 if report.ok else 1


def _header_options(args: argparse.Namespace) -> list[str]:
    return [o for o, v in (("--include", args.include), ("--define", args.define), ("--map", args.map),
                           ("--description", args.signature), ("--record-struct", args.record),
                           ("--records-only", args.records_only)) if v]


def run(args: argparse.Namespace) -> int:
    """The tool limits of the flags hold for the run (:func:`d3d12wl.abi.tools.limited`)."""
    limits = ToolLimits(**{name: getattr(args, name) for name in FLAGS})
    with limited(limits):
        return _run_with_headers(args)


def _run_with_headers(args: argparse.Namespace) -> int:
    """``--directx-headers DIR`` holds for this run: it sets $D3D12WL_DIRECTX_HEADERS, restored afterwards."""
    if args.directx_headers is None:
        return _run(args)
    root = Path(args.directx_headers)
    if inputs.path_kind(root, where="--directx-headers") is None or abi_check.find_d3d12_headers(root) is None:
        raise ABIError(f"{root} holds no directx/d3d12.h and wsl/winadapter.h (give the folder that holds directx/ "
                       "and wsl/, e.g. a DirectX-Headers checkout's include/)", where="--directx-headers")
    before = os.environ.get(abi_check.D3D12_INCLUDE_ENV)
    os.environ[abi_check.D3D12_INCLUDE_ENV] = str(root.resolve())
    try:
        return _run(args)
    finally:
        if before is None:
            del os.environ[abi_check.D3D12_INCLUDE_ENV]
        else:
            os.environ[abi_check.D3D12_INCLUDE_ENV] = before


def _run(args: argparse.Namespace) -> int:
    names: list[str] = list(args.names)
    if names[:1] != ["check"] and (args.header or args.hlsl or args.headers or _header_options(args)):
        raise ABIError("--header, --hlsl, --headers and their options belong to `d3d12wl abi check`",
                       where="d3d12wl abi")
    if names[:1] == ["check"]:
        if len(names) > 1:
            raise ABIError(f"takes no names, got {' '.join(names[1:])}: `d3d12wl abi {' '.join(names[1:])}` shows "
                           "them", where="d3d12wl abi check")
        if args.header or args.hlsl:
            if args.headers:
                raise ABIError("--header and --headers are two different checks; give one", where="--header")
            return _check_header(args)
        header_only = _header_options(args)
        if header_only:
            raise ABIError(f"{', '.join(header_only)} only apply with --header FILE or --hlsl FILE",
                           where=header_only[0])
        if args.headers:
            if inputs.path_kind(args.headers, where="--headers") != "a directory":
                raise ABIError(f"{args.headers!r} is not a directory of headers", where="--headers")
            with tempfile.TemporaryDirectory(prefix="d3d12wl-abi-") as tmp:
                headers = abi_check.read_headers(Path(args.headers))
                results = abi_check.run_all(abi_check.compile_headers(headers, Path(tmp)))
        else:
            results = abi_check.run_all()
        if args.json:
            json.dump(abi_report.checks_json(results), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(abi_report.format_checks(results))
        return 0 if all(r.ok for r in results) else 1
    a = abi.default
    if args.json:
        for n in names:  # unknown names are errors, not silently dropped
            if a.resolve(n) not in a.decls.aggregates and n not in a.decls.enums and n not in a.decls.constants:
                a.type_info(n)
        json.dump(abi_report.abi_json(a, names or None), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(abi_report.format_report(a, names or None))
    return 0
