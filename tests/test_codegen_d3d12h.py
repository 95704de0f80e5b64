"""Generated C on its own and after the real ``<d3d12.h>``, as C and C++, with gcc and clang's MSVC target.

An engine includes ``<d3d12.h>`` everywhere; the generated record structs must compile after it (issue 16 item 1:
"redefinition of 'D3D12_GPU_VIRTUAL_ADDRESS_RANGE'").  After the real header the generated file takes its
pre-existing types (the ``D3D12_GPU_VIRTUAL_ADDRESS`` and ``D3D12_DRAW_ARGUMENTS`` of design.md "ABI rules" truth
4) and declares only what Debian's 1.606 header predates (the Work Lists primary-record headers,
``D3D12_DISPATCH_RAYS_DIMENSIONS``, ``D3D12_PROGRAM_IDENTIFIER``); its ``static_assert``s still pin every offset.
``directx-headers-dev`` is compiled through its WSL stubs (``wsl/winadapter.h`` first), as the ABI tests do.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from conftest import require

from d3d12wl.abi.check import find_d3d12_headers
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, record_layouts

HEADERS = Path(__file__).resolve().parent.parent / "headers"
STUBS = Path(str(resources.files("d3d12wl.headercheck") / "winstubs"))
EXAMPLES = resources.files("d3d12wl").joinpath("examples")

#: every primary-record header kind, a raytracing dispatch payload and a vertex buffer view at 4
RAYTRACING_AND_INLINE = {
    "program_command_signatures": {
        "RT": {"pArgumentDescs": [{"Type": "SHADER_RESOURCE_VIEW", "Source": "SECONDARY_RECORD"},
                                  {"Type": "DISPATCH_RAYS_DIMENSIONS", "Source": "PRIMARY_RECORD"}]},
        "RTInline": {"pArgumentDescs": [{"Type": "DISPATCH_RAYS_DIMENSIONS", "Source": "PRIMARY_RECORD"}]},
        "Inline": {"pArgumentDescs": [{"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"},
                                      {"Type": "INDEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"},
                                      {"Type": "DESCRIPTOR_TABLE", "Source": "PRIMARY_RECORD"},
                                      {"Type": "DRAW_INDEXED", "Source": "PRIMARY_RECORD"}]},
    }
}


def _layouts(name: str) -> list[RecordLayout]:
    source = RAYTRACING_AND_INLINE if name == "raytracing_and_inline" else str(EXAMPLES.joinpath(name))
    return record_layouts(description.load(source))


CASES = ["culling.json", "gpu_resident_diagram.json", "execute_indirect.json", "tier2_chain.json",
         "raytracing_and_inline"]


def _dx_include(tmp: Path) -> list[str]:
    """DirectX-Headers' include directories, as abi check --header passes them (<directx/...>, <wsl/...> too)."""
    root = find_d3d12_headers()
    assert root is not None
    links = tmp / "dx-root"
    links.mkdir(exist_ok=True)
    for sub in ("directx", "wsl"):
        if not (links / sub).exists():
            (links / sub).symlink_to(root / sub)
    return [f"-isystem{d}" for d in (root / "directx", root / "wsl" / "stubs", root / "wsl", links)]


def _command(compiler: str, lang: str, tmp: Path, after_d3d12h: bool) -> list[str]:
    std = {"c": "c11", "c++": "c++17"}[lang]
    if compiler == "gcc":
        cmd = ["gcc" if lang == "c" else "g++", "-x", lang, f"-std={std}"]
    else:
        cmd = ["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding", "-fgnuc-version=4.2.1", "-x", lang,
               f"-std={std}", f"-I{STUBS}"]
    cmd += ["-Wall", "-Werror", "-fsyntax-only"]
    if after_d3d12h:  # system headers: -Wall -Werror judges the generated code, not d3d12.h's pragmas
        cmd += _dx_include(tmp)
    return [*cmd, "-I", str(HEADERS)]


def compile_generated(source: str, tmp: Path, compiler: str, lang: str, prelude: str = "") -> str:
    """Compile ``prelude`` + the generated file; the compiler's errors ('' when it compiled)."""
    (tmp / "records.h").write_text(source)
    main = tmp / ("main.c" if lang == "c" else "main.cpp")
    main.write_text(prelude + '#include "records.h"\nint main(void) { return (int)sizeof(int); }\n')
    # (DirectX-Headers' include directories only where the prelude includes the real d3d12.h: a prelude of the
    # package's own files alone compiles without them, and must on a machine without directx-headers-dev)
    after_d3d12h = "<directx/d3d12.h>" in prelude
    r = subprocess.run([*_command(compiler, lang, tmp, after_d3d12h), str(main)], capture_output=True, text=True,
                       timeout=120, cwd=tmp)
    return r.stderr if r.returncode else ""


REAL_D3D12_H = "#include <wsl/winadapter.h>\n#include <directx/d3d12.h>\n"


def _require(compiler: str, after_d3d12h: bool) -> None:
    require(shutil.which("clang" if compiler == "clang" else "g++") is not None, f"{compiler} not installed")
    if after_d3d12h:
        require(find_d3d12_headers() is not None, "directx-headers-dev not installed (/usr/include/directx/d3d12.h)")


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
@pytest.mark.parametrize("lang", ["c", "c++"])
@pytest.mark.parametrize("after_d3d12h", [False, True], ids=["standalone", "after-d3d12.h"])
def test_generated_c_compiles_alone_and_after_real_d3d12h(compiler, lang, after_d3d12h, tmp_path):
    """Every record of every bundled example (spec "GPU culling and work list emission", "Components",
    IndirectDrawing.md, the Tier 2 chain) and of every primary-record header kind compiles, with its static
    asserts holding, on its own and after the real d3d12.h, in C and C++, on the host and the Windows x64 ABI."""
    _require(compiler, after_d3d12h)
    layouts = [r for case in CASES for r in _layouts(case)]
    assert compile_generated(codegen.c_source(layouts), tmp_path, compiler, lang,
                             REAL_D3D12_H if after_d3d12h else "") == ""


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_asserts_stay_live_after_real_d3d12h(compiler, tmp_path):
    """The static asserts still judge after d3d12.h: the spec's culling secondary record claimed with a 20-byte
    DRAW (d3d12.h's D3D12_DRAW_ARGUMENTS is 16) fails to compile, naming the member, in C++ (static_assert) as in
    C (_Static_assert)."""
    import dataclasses

    _require(compiler, True)
    secondary = next(r for r in _layouts("culling.json") if r.record == "secondary")
    moved = [dataclasses.replace(f, size=20) if f.name == "arg1_Draw" else f for f in secondary.fields]
    broken = dataclasses.replace(secondary, fields=tuple(moved), size=28, min_stride=32)
    for lang in ("c", "c++"):
        errors = compile_generated(codegen.c_source([broken]), tmp_path, compiler, lang, REAL_D3D12_H)
        assert "sizeof PCS_SecondaryRecord.arg1_Draw" in errors, (lang, errors)


def test_after_a_newer_d3d12h_that_declares_the_program_identifier(tmp_path):
    """D3D12_PROGRAM_IDENTIFIER entered d3d12.h with SDK 1.613 (work graphs): after such a header the generated C
    uses its declaration instead of redeclaring it."""
    _require("gcc", True)
    newer = REAL_D3D12_H + ("#undef D3D12_SDK_VERSION\n#define D3D12_SDK_VERSION ( 613 )\n"
                            "typedef struct D3D12_PROGRAM_IDENTIFIER { UINT64 OpaqueData[4]; } D3D12_PROGRAM_IDENTIFIER;\n")
    source = codegen.c_source(_layouts("culling.json"))
    assert "typedef struct D3D12_PROGRAM_IDENTIFIER" in source
    for lang in ("c", "c++"):
        assert compile_generated(source, tmp_path, "gcc", lang, newer) == ""


@pytest.mark.parametrize("after_d3d12h", [False, True], ids=["standalone", "after-d3d12.h"])
def test_two_generated_files_in_one_translation_unit(after_d3d12h, tmp_path):
    """Two generated files (two descriptions) in one translation unit declare each shared type once."""
    _require("gcc", after_d3d12h)
    (tmp_path / "other.h").write_text(codegen.c_source(_layouts("gpu_resident_diagram.json")))
    prelude = (REAL_D3D12_H if after_d3d12h else "") + '#include "other.h"\n'
    for lang in ("c", "c++"):
        assert compile_generated(codegen.c_source(_layouts("culling.json")), tmp_path, "gcc", lang, prelude) == ""


def test_after_d3d12h_declares_only_what_the_header_lacks():
    """design.md "ABI rules" truth 4: the pre-existing types come from d3d12.h (not redeclared after it); the
    Work Lists headers and D3D12_DISPATCH_RAYS_DIMENSIONS, which 1.606 predates, are declared."""
    source = codegen.c_source([r for case in CASES for r in _layouts(case)])
    after = source.split("#ifdef __d3d12_h__", 1)[1].split("#elif", 1)[0]
    declared = {line.split()[2] for line in after.splitlines() if line.startswith("typedef ")}
    assert declared == {"D3D12_WORK_LIST_PRIMARY_RECORD", "D3D12_WORK_LIST_RAYTRACING_RECORD",
                        "D3D12_DISPATCH_RAYS_DIMENSIONS", "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD",
                        "D3D12_PROGRAM_IDENTIFIER"}


# --- docs/layout.md's include recipe, as written -------------------------------------------------------------------

LAYOUT_MD = Path(__file__).resolve().parent.parent / "docs" / "layout.md"


def _recipe() -> tuple[str, str]:
    """(the engine.c block, its compile line) of docs/layout.md."""
    import re

    text = LAYOUT_MD.read_text(encoding="utf-8")
    (engine,) = [b for b in re.findall(r"^```c\n(.*?)^```", text, re.S | re.M) if b.startswith("/* engine.c */")]
    (line,) = re.findall(r"^cc .*engine\.c$", text, re.M)
    return engine, line


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_the_documented_recipe_after_real_d3d12h(lang: str, tmp_path: Path) -> None:
    """docs/layout.md's recipe compiles every bundled example's records after the real d3d12.h with -Wall -Werror,
    in C and in C++ (``c++ -std=c++17``, ``engine.cpp``), through ``d3d12wl headers --cflags --directx-headers``."""
    import os
    import shlex
    import sys

    _require("gcc", True)
    engine, line = _recipe()
    (tmp_path / "records.h").write_text(codegen.c_source([r for case in CASES for r in _layouts(case)]))
    source = "engine.c" if lang == "c" else "engine.cpp"
    (tmp_path / source).write_text(engine + "int main(void) { return (int)sizeof(PCS_SecondaryRecord); }\n")
    if lang == "c++":
        line = line.replace("cc -std=c11", "c++ -std=c++17").replace("engine.c", "engine.cpp")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "d3d12wl").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m d3d12wl "$@"\n')
    (bin_dir / "d3d12wl").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    r = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and (tmp_path / "engine.o").is_file(), r.stderr
    # and the same translation unit fails without the DirectX-Headers flags: the recipe is what makes it compile
    r = subprocess.run(["bash", "-c", line.replace(" --directx-headers", "")], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0 and "No such file" in r.stderr, r.stderr


def test_headers_cflags(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``d3d12wl headers --cflags`` is d3d12wl's -I; ``--directx-headers`` puts DirectX-Headers' folders first as -isystem
    (not /usr/include itself, the compiler's own: an -isystem of it breaks C++'s #include_next); a missing
    DirectX-Headers is exit 2 naming the flag and the folder looked in."""
    from d3d12wl.abi import headers
    from d3d12wl.cli import main

    _require("gcc", True)
    assert main(["headers", "--cflags"]) == 0
    assert capsys.readouterr().out.split() == [f"-I{headers.path()}"]
    assert main(["headers", "--cflags", "--directx-headers"]) == 0
    flags = capsys.readouterr().out.split()
    root = find_d3d12_headers()
    assert root is not None
    assert flags[-1] == f"-I{headers.path()}" and f"-isystem{root / 'directx'}" in flags
    assert f"-isystem{root / 'wsl' / 'stubs'}" in flags and "-isystem/usr/include" not in flags
    assert main(["headers", "--cflags", "--directx-headers", str(root)]) == 0  # the root given as DIR
    assert capsys.readouterr().out.split() == flags
    monkeypatch.setenv("D3D12WL_DIRECTX_HEADERS", str(tmp_path))
    assert main(["headers", "--cflags", "--directx-headers"]) == 2
    assert f"--directx-headers: DirectX-Headers not found: no directx/d3d12.h and wsl/winadapter.h under {tmp_path}" \
        in capsys.readouterr().err
    assert main(["headers", "--directx-headers"]) == 2
    capsys.readouterr()
    # the spelling of 0.2.0 still works for this release, with a warning on stderr and the same stdout
    monkeypatch.delenv("D3D12WL_DIRECTX_HEADERS")
    assert main(["headers", "--cflags", "--directx"]) == 0
    old = capsys.readouterr()
    assert old.out.split() == flags and "warning: --directx is now --directx-headers" in old.err
