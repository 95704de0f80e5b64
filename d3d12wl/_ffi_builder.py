"""Builds the cffi FFI for a set of header texts (used by ``build_ffi.py`` and by the ABI checks).

The same header text feeds ``ffi.cdef`` and ``ffi.set_source`` (so cffi checks every
declaration against the real C compiler), and is embedded in the extension as a JSON
bundle (``d3d12wl_header_bundle()``) so an installed package can read the exact text it
was built from, from any working directory, without a second copy on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

from cffi import FFI

HEADER_DIR = Path(__file__).resolve().parent.parent / "headers"

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
    missing = [name for name in HEADER_ORDER if not (header_dir / name).is_file()]
    if missing:
        from d3d12wl.errors import ABIError

        raise ABIError(f"{header_dir}: missing header(s) {', '.join(missing)}")
    return {name: (header_dir / name).read_text(encoding="utf-8") for name in HEADER_ORDER}


def c_bytes(data: bytes) -> str:
    """A C array initializer for ``data`` plus a terminating NUL."""
    items = [f"0x{b:02x}" for b in data] + ["0x00"]
    return ",\n".join(",".join(items[i : i + 24]) for i in range(0, len(items), 24))


def make_ffi(headers: dict[str, str], module_name: str = "d3d12wl._native") -> FFI:
    """An FFI for the given header texts (used by the build and by tests on mutated headers)."""
    text = "\n".join(headers.values())
    bundle = json.dumps({"order": list(headers), "files": headers}).encode("utf-8")
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
    builder.set_source(module_name, source)
    return builder
