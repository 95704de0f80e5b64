"""setuptools shim: cffi's setuptools integration takes ``cffi_modules`` only from setup()."""

from setuptools import setup

setup(cffi_modules=["build_ffi.py:ffi"])
