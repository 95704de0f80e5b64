#!/usr/bin/env python3
"""Write the bundled readback example, ``d3d12wl/examples/readback/*.bin``: the GPU buffers of the spec's "GPU
culling and work list emission" example and of the ExecuteIndirect example as a capture tool reads them back, one
raw ``.bin`` file per buffer, taken byte for byte from the bundled captures ``d3d12wl/examples/culling_capture.json``
and ``execute_indirect_capture.json`` (written by ``tools/make_example_capture.py``).  docs/readbacks.md's flow
(``d3d12wl decode`` -> ``d3d12wl capture`` -> ``d3d12wl dump``) runs on them.

``--check`` verifies the committed files are current (exit 1 naming the stale ones).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from d3d12wl.capture.file import load_capture  # noqa: E402

EXAMPLES = ROOT / "d3d12wl" / "examples"
OUT = EXAMPLES / "readback"

#: readback file name -> the capture and the region of it the file holds
FILES = {
    "dispatch_input.bin": ("culling_capture.json", "pDispatchInputBuffer"),
    "primary.bin": ("culling_capture.json", "pPrimaryListBuffer"),
    "program_table.bin": ("culling_capture.json", "pProgramTableBuffer"),
    "secondary_opaque.bin": ("culling_capture.json", "g_SecondaryBuffer[Opaque]"),
    "secondary_transparent.bin": ("culling_capture.json", "g_SecondaryBuffer[Transparent]"),
    "secondary_shadow.bin": ("culling_capture.json", "g_SecondaryBuffer[Shadow]"),
    "ei_arguments.bin": ("execute_indirect_capture.json", "pArgumentBuffer"),
    "ei_count.bin": ("execute_indirect_capture.json", "pCountBuffer"),
}


def contents() -> dict[str, bytes]:
    regions = {name: {r.name: r for r in load_capture(EXAMPLES / name).memory.regions}
               for name in {capture for capture, _ in FILES.values()}}
    return {name: bytes(regions[capture][region].data) for name, (capture, region) in FILES.items()}


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
