"""setuptools shim: cffi's setuptools integration takes ``cffi_modules`` only from setup().

``build_py`` also copies ``headers/*.h`` into the package as ``d3d12wl/headers/`` (package data: generated C
includes them, ``d3d12wl headers --path`` names the folder), so a plain ``pip install`` has them on disk.

``bdist_wheel`` tags the wheel ``cp311-abi3`` when every extension is built for the limited API (cffi builds
``d3d12wl._native`` that way on CPython unless the interpreter cannot use it, e.g. a free-threaded build), so one
wheel serves every CPython >= 3.11 (the ``requires-python`` floor); otherwise the tag stays the interpreter's.  The
platform tag stays the build's own (``linux_x86_64``): ``tools/build_dist.py`` has ``auditwheel repair`` check the
built extension's symbol versions and retag it ``manylinux_2_17`` (what the binary satisfies, not what setup.py could
assume).

``license``: the core-metadata ``License`` field (``MIT``, an SPDX identifier), given here: pyproject.toml's
``license`` key writes ``License-Expression`` instead, which core metadata 2.4 makes exclusive of ``License`` (an
index refuses both) and which the pip that Python 3.11 bundles (23.2) does not show; with ``License``,
``pip show d3d12wl`` says ``License: MIT`` under every pip.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
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


#: the stable-ABI tag: the oldest CPython requires-python allows
LIMITED_API_TAG = "cp311"


class BdistWheelAbi3(bdist_wheel):
    """bdist_wheel with the abi3 tag when every extension module is built for the limited API."""

    def finalize_options(self) -> None:
        extensions = self.distribution.ext_modules or []
        if not self.py_limited_api and extensions and all(getattr(e, "py_limited_api", False) for e in extensions):
            self.py_limited_api = LIMITED_API_TAG
        super().finalize_options()


#: the core-metadata License field (see the module docstring; LICENSE is the text, license-files ships it)
LICENSE = "MIT"

setup(license=LICENSE, cffi_modules=["build_ffi.py:ffi"], cmdclass={"build_py": BuildPyWithHeaders, "bdist_wheel": BdistWheelAbi3})
