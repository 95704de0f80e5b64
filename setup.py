"""setuptools shim: cffi's setuptools integration takes ``cffi_modules`` only from setup().

``build_py`` also copies ``headers/*.h`` into the package as ``d3d12wl/headers/`` (package data: generated C
includes them, ``d3d12wl headers --path`` names the folder), so a plain ``pip install`` has them on disk.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HEADERS = Path(__file__).resolve().parent / "headers"


class BuildPyWithHeaders(build_py):
    """build_py, then ``headers/*.h`` -> ``<build>/d3d12wl/headers/``."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "d3d12wl" / "headers"
        self.mkpath(str(target))
        for header in sorted(HEADERS.glob("*.h")):
            self.copy_file(str(header), str(target / header.name))


setup(cffi_modules=["build_ffi.py:ffi"], cmdclass={"build_py": BuildPyWithHeaders})
