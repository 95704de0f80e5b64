"""Builds the cffi FFI for a set of header texts (used by ``build_ffi.py`` and by the ABI checks).

The same header text feeds ``ffi.cdef`` and ``ffi.set_source`` (so cffi checks every
declaration against the real C compiler), and is embedded in the extension as a JSON
bundle (``d3d12wl_header_bundle()``) so an installed package can read the exact text it
was built from, from any working directory, without a second copy on disk.  The bundle also holds the
declarations read from that text (:mod:`d3d12wl.abi.header_parser`, ``decls.to_json``), so that importing the
package parses no C.

The record kernels (``d3d12wl/records/_kernels.c``: the packers' column scatter and the readers' gather) and the page
heap the messages conformance suite lends a driver library (``d3d12wl/messages/c/page_heap.c``) are compiled into the
same extension after the header text.  They are not header text: the bundle, and so every ABI check, holds only the
D3D12 declarations.  ``make_ffi(..., kernels=False)`` leaves them out (the ABI checks compile mutated header sets
that way).
"""

from __future__ import annotations

import json
from pathlib import Path

from cffi import FFI

HEADER_DIR = Path(__file__).resolve().parents[2] / "headers"
KERNELS_C = Path(__file__).resolve().parents[1] / "records" / "_kernels.c"
PAGE_HEAP_C = Path(__file__).resolve().parents[1] / "messages" / "c" / "page_heap.c"
#: the C sources compiled into the extension after the headers, each with its cdef between the markers
NATIVE_C: tuple[Path, ...] = (KERNELS_C, PAGE_HEAP_C)

#: headers in dependency order (cffi's cdef parser has no #include)
HEADER_ORDER: tuple[str, ...] = (
    "d3d12wl_base.h",
    "d3d12wl_execute_indirect.h",
    "d3d12wl_work_lists.h",
    "d3d12wl_work_lists_ddi.h",
    "d3d12wl_messages.h",
)

BUNDLE_CDEF = "const char *d3d12wl_header_bundle(void);\n"


def read_headers(header_dir: Path = HEADER_DIR) -> dict[str, str]:
    """The header texts by file name, in HEADER_ORDER."""
    from d3d12wl.errors import ABIError

    try:
        missing = [name for name in HEADER_ORDER if not (header_dir / name).is_file()]
        if missing:
            raise ABIError(f"{header_dir}: missing header(s) {', '.join(missing)}", where=str(header_dir))
        return {name: (header_dir / name).read_text(encoding="utf-8") for name in HEADER_ORDER}
    except (OSError, UnicodeDecodeError) as exc:  # a name too long, a permission, a header that is not UTF-8
        raise ABIError(f"cannot read the headers: {getattr(exc, 'strerror', None) or exc}",
                       where=str(header_dir)) from None


def kernel_source(path: Path = KERNELS_C) -> tuple[str, str]:
    """(the cdef declarations, the whole C source) of one of :data:`NATIVE_C` (the record kernels by default): the
    cdef is the text between its ``/* cdef-begin */`` and ``/* cdef-end */`` markers."""
    text = path.read_text(encoding="utf-8")
    begin, end = "/* cdef-begin */", "/* cdef-end */"
    if begin not in text or end not in text:
        raise ValueError(f"{path}: no {begin} ... {end} section")
    return text[text.index(begin) + len(begin):text.index(end)], text


def c_bytes(data: bytes) -> str:
    """A C array initializer for ``data`` plus a terminating NUL."""
    items = [f"0x{b:02x}" for b in data] + ["0x00"]
    return ",\n".join(",".join(items[i : i + 24]) for i in range(0, len(items), 24))


def make_ffi(headers: dict[str, str], module_name: str = "d3d12wl._native", *, kernels: bool = True) -> FFI:
    """An FFI for the given header texts (used by the build and by tests on mutated headers), with the record
    kernels unless ``kernels`` is false."""
    from d3d12wl.abi import decls, header_parser

    text = "\n".join(headers.values())
    declarations = decls.to_json(header_parser.parse(headers))
    bundle = json.dumps({"order": list(headers), "files": headers, "decls": declarations}).encode("utf-8")
    builder = FFI()
    builder.cdef(text)
    builder.cdef(BUNDLE_CDEF)
    source = (
        "#include <stdint.h>\n"
        "#include <stddef.h>\n"
        f"{text}\n"
        f"static const unsigned char d3d12wl_bundle_bytes[] = {{\n{c_bytes(bundle)}\n}};\n"
        "const char *d3d12wl_header_bundle(void) { return (const char *)d3d12wl_bundle_bytes; }\n"
    )
    if kernels:
        for path in NATIVE_C:
            cdef, c_text = kernel_source(path)
            builder.cdef(cdef)
            source += f"\n/* ---- {path.name} ---- */\n{c_text}"
    builder.set_source(module_name, source)
    return builder
