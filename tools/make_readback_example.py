#!/usr/bin/env python3
"""Write the bundled readback example, ``d3d12wl/examples/readback/*.bin``: the GPU buffers of the spec's "GPU
culling and work list emission" example as a capture tool reads them back, one raw ``.bin`` file per buffer, taken
byte for byte from the bundled capture ``d3d12wl/examples/culling_capture.json`` (written by
``tools/make_example_capture.py``).  The README's readback flow (``d3d12wl decode`` -> ``d3d12wl capture`` ->
``d3d12wl dump``) runs on them.

``--check`` verifies the committed files are current (exit 1 naming the stale ones).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from d3d12wl.capture.file import load_capture  # noqa: E402

CAPTURE = ROOT / "d3d12wl" / "examples" / "culling_capture.json"
OUT = ROOT / "d3d12wl" / "examples" / "readback"

#: readback file name -> the capture region it holds
FILES = {
    "dispatch_input.bin": "pDispatchInputBuffer",
    "primary.bin": "pPrimaryListBuffer",
    "program_table.bin": "pProgramTableBuffer",
    "secondary_opaque.bin": "g_SecondaryBuffer[Opaque]",
    "secondary_transparent.bin": "g_SecondaryBuffer[Transparent]",
    "secondary_shadow.bin": "g_SecondaryBuffer[Shadow]",
}


def contents() -> dict[str, bytes]:
    capture = load_capture(CAPTURE)
    regions = {r.name: r for r in capture.memory.regions}
    return {name: bytes(regions[region].data) for name, region in FILES.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify the committed files instead of writing them")
    args = parser.parse_args(argv)
    stale = []
    for name, data in contents().items():
        path = OUT / name
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if stale:
        print(f"stale readback files (run {Path(__file__).name}): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
