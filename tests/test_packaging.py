"""What a plain ``pip install`` gives a user: the wheel ``pip wheel .`` builds, installed into a bare folder and run
from a temporary directory (never the checkout, whose source tree would shadow it).

The wheel is built once per session (about 10 s: the cffi extension is compiled).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import require

from d3d12wl import abi
from d3d12wl.abi import headers
from d3d12wl.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    (built,) = out.glob("d3d12wl-*.whl")
    return built


@pytest.fixture(scope="session")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed (no dependencies: the test environment has them) into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                        str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    return target


def run_installed(installed: Path, cwd: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A shell command with the installed package first on the path (its ``d3d12wl`` script and its modules)."""
    env = {**os.environ, "PYTHONPATH": str(installed), "PATH": f"{installed / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_headers_path_is_the_compiled_headers(capsys: pytest.CaptureFixture[str]) -> None:
    """``d3d12wl headers --path`` and ``d3d12wl.abi.headers.path()`` name one folder, holding exactly the header
    texts the compiled module was built from."""
    assert main(["headers", "--path"]) == 0
    where = Path(capsys.readouterr().out.strip())
    assert where == headers.path()
    assert {name: (where / name).read_text() for name in abi.header_texts()} == abi.header_texts()
    assert main(["headers", "--json"]) == 0
    assert '"d3d12wl_work_lists.h"' in capsys.readouterr().out


def test_wheel_ships_the_headers(wheel: Path) -> None:
    """The wheel holds headers/*.h as package data (d3d12wl/headers/), byte for byte."""
    with zipfile.ZipFile(wheel) as z:
        shipped = {Path(n).name: z.read(n) for n in z.namelist() if n.startswith("d3d12wl/headers/")}
    assert shipped == {p.name: p.read_bytes() for p in sorted((ROOT / "headers").glob("*.h"))}


def test_layout_md_compile_example_after_plain_install(installed: Path, tmp_path: Path) -> None:
    """docs/layout.md: generated C compiles with ``-I "$(d3d12wl headers --path)"`` after a plain install, from a
    directory that is not the checkout."""
    require(shutil.which("cc") is not None, "no C compiler (cc)")
    text = (ROOT / "docs" / "layout.md").read_text()
    (compile_line,) = re.findall(r"^cc .*$", text, re.M)
    culling = installed / "d3d12wl" / "examples" / "culling.json"
    r = run_installed(installed, tmp_path, f"d3d12wl codegen {culling} --lang c > records.h && {compile_line}")
    assert r.returncode == 0, r.stderr
    r = run_installed(installed, tmp_path, "d3d12wl headers --path")
    assert r.returncode == 0 and Path(r.stdout.strip()) == installed / "d3d12wl" / "headers", r
