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


# --- issue 16 item 9: what the wheel declares ----------------------------------------------------------------------


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        return z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()


def test_wheel_is_typed_and_licensed(wheel: Path) -> None:
    """PEP 561: a py.typed marker; the MIT LICENSE file and its SPDX expression in the metadata."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        license_text = z.read(next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))).decode()
    assert "d3d12wl/py.typed" in names
    assert license_text == (ROOT / "LICENSE").read_text() and license_text.startswith("MIT License")
    metadata = _metadata(wheel)
    assert "License-Expression: MIT" in metadata.splitlines() and "License-File: LICENSE" in metadata.splitlines()


def test_abi3_tag_matches_the_extension(wheel: Path) -> None:
    """cffi builds d3d12wl._native for the limited API (``_native.abi3.so``), so the wheel carries the abi3 tag
    (``cp311-abi3``: the requires-python floor); an extension that is not abi3 would keep the interpreter's tag."""
    with zipfile.ZipFile(wheel) as z:
        extensions = [n for n in z.namelist() if n.startswith("d3d12wl/_native") and n.endswith((".so", ".pyd"))]
    assert extensions == ["d3d12wl/_native.abi3.so"] or extensions == ["d3d12wl/_native.pyd"], extensions
    name, version, python, abi_tag, platform = wheel.stem.split("-")
    assert (python, abi_tag) == ("cp311", "abi3"), wheel.name


@pytest.mark.parametrize("tool", sorted(p.name for p in (ROOT / "tools").glob("*.py")))
def test_every_tool_has_help(tool: str) -> None:
    """``--help`` works on every tools/*.py (it used to say "unknown case" for executor_worst_cases.py)."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / tool), "--help"], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.startswith("usage: "), r.stderr


def test_worst_cases_without_a_case_prints_usage() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "executor_worst_cases.py")], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and "the following arguments are required: case" in r.stderr
    assert "Traceback" not in r.stderr


# --- the DirectX-Headers include root ---------------------------------------------------------------------------


@pytest.fixture
def dx_root(tmp_path: Path) -> Path:
    """A DirectX-Headers include root somewhere else (directx/ and wsl/ of the installed package, linked)."""
    from d3d12wl.abi.check import D3D12_INCLUDE_ROOT, find_d3d12_headers

    require(find_d3d12_headers(D3D12_INCLUDE_ROOT) is not None, "directx-headers-dev not installed")
    root = tmp_path / "DirectX-Headers" / "include"
    root.mkdir(parents=True)
    for sub in ("directx", "wsl"):
        (root / sub).symlink_to(D3D12_INCLUDE_ROOT / sub)
    return root


def test_include_root_from_the_environment(dx_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$D3D12WL_DIRECTX_HEADERS names the include root every d3d12.h check uses; an empty one means none found."""
    from d3d12wl.abi import check as abi_check

    monkeypatch.setenv("D3D12WL_DIRECTX_HEADERS", str(dx_root))
    assert abi_check.find_d3d12_headers() == dx_root
    monkeypatch.setenv("D3D12WL_DIRECTX_HEADERS", str(tmp_path / "nothing"))
    assert abi_check.find_d3d12_headers() is None
    skipped = abi_check.check_d3d12h(abi).skipped
    assert skipped is not None and "D3D12WL_DIRECTX_HEADERS" in skipped and str(tmp_path / "nothing") in skipped


def test_include_root_flag(dx_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """``abi check --directx-headers DIR``: an engine header including <directx/d3d12.h> compiles against DIR
    even when the environment names a folder without it; a DIR without the headers is an unusable input."""
    require(shutil.which("clang") is not None, "clang not installed")
    import os

    monkeypatch.setenv("D3D12WL_DIRECTX_HEADERS", str(tmp_path / "nothing"))
    header = tmp_path / "engine.h"
    header.write_text("#include <directx/d3d12.h>\ntypedef struct Rec { D3D12_DRAW_ARGUMENTS Draw; } Rec;\n")
    assert main(["abi", "check", "--header", str(header), "--directx-headers", str(dx_root), "--json"]) == 0
    report = capsys.readouterr().out
    assert '"D3D12_DRAW_ARGUMENTS"' in report
    assert os.environ["D3D12WL_DIRECTX_HEADERS"] == str(tmp_path / "nothing")  # restored after the run
    assert main(["abi", "check", "--header", str(header), "--directx-headers", str(tmp_path), "--json"]) == 2
    assert '"where": "--directx-headers"' in capsys.readouterr().out


# --- the SIMD path of the record kernels ------------------------------------------------------------------------


@pytest.mark.parametrize(("target", "flags", "simd"), [
    ("gcc", [], 1),                                                       # GCC on x86-64: __SSE2__
    ("gcc", ["-mno-sse2"], 0),                                            # no SSE2: the portable loops
    ("msvc", [], 1),                                                      # clang-cl style: __SSE2__ and _M_X64
    ("msvc", ["-U__SSE2__"], 1),                                          # MSVC proper: only _M_X64
    ("msvc", ["-U__SSE2__", "-DD3D12WL_NO_SIMD"], 0),                     # the portable variant on demand
])
def test_kernel_simd_path_is_not_keyed_on_gcc_macros_alone(target: str, flags: list[str], simd: int) -> None:
    """records/_kernels.c picks its SSE2 path from __SSE2__ or MSVC's _M_X64 (cl.exe never defines __SSE2__)."""
    source = str(ROOT / "d3d12wl" / "records" / "_kernels.c")
    if target == "gcc":
        cmd = ["gcc", *flags, "-dM", "-E", source]
    else:
        require(shutil.which("clang") is not None, "clang not installed")
        winstubs = ROOT / "d3d12wl" / "headercheck" / "winstubs"
        cmd = ["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding", f"-I{winstubs}", *flags, "-dM", "-E",
               source]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"#define D3D12WL_SIMD {simd}" in r.stdout.splitlines()
    if target == "msvc" and simd:  # and the SSE2 path compiles for the Windows target
        r = subprocess.run([*cmd[:-3], "-fsyntax-only", "-Werror", source], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
