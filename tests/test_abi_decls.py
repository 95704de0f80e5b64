"""The header spelling is read once, at build time: the compiled module ships the declarations that
``header_parser`` reads from its own header texts, and importing d3d12wl parses no C (no pycparser)."""

from __future__ import annotations

import subprocess
import sys

from d3d12wl import abi
from d3d12wl.abi import decls, header_parser


def test_shipped_declarations_are_what_the_headers_say() -> None:
    assert abi.default.decls == header_parser.parse(abi.header_texts())


def test_json_round_trip() -> None:
    parsed = header_parser.parse(abi.header_texts())
    assert decls.from_json(decls.to_json(parsed)) == parsed
    assert parsed.provisional and parsed.aggregates["D3D12_DISPATCH_LIST_INPUT1"].fields


def test_importing_the_executor_parses_no_c() -> None:
    code = "import sys, d3d12wl.executor, d3d12wl.cli.exec_cmd; print('pycparser' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
