"""Generated code for the compilers engines use (issue 38 item 6): HLSL for a Shader Model, and C that says its
packing and alignof.

The fixture is Microsoft's D3D12ExecuteIndirect sample: its ``IndirectCommand`` is a root CBV's GPU VA and a
``D3D12_DRAW_ARGUMENTS`` (``ByteStride`` 24, its C ``sizeof``), and its culling compute shader, compiled for
``cs_5_0`` by FXC, declares the same command as ``{ uint2 cbvAddress; uint4 drawArguments; }``: FXC has no 64-bit
integer, so the ``uint64_t`` d3d12wl generated did not compile there, and the C struct under ``#pragma pack(push,
4)`` had alignof 4 where the sample's has 8, and nothing said so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from hlsl_spirv import layout_mismatches, require_tools
from hypothesis import given
from test_codegen import PROPERTY, signature_doc

from d3d12wl.cli import main
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, command_layout, pcs_layout, record_layouts

EXAMPLES = resources.files("d3d12wl").joinpath("examples")
HEADERS = Path(__file__).resolve().parent.parent / "headers"

#: the sample's command signature: a root CBV (root parameter 0) and a draw, ByteStride sizeof(IndirectCommand)
SAMPLE = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "VERTEX"}],
        "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"IndirectCommand": {"ByteStride": 24, "pArgumentDescs": [
        {"Type": "CONSTANT_BUFFER_VIEW", "ConstantBufferView": {"RootParameterIndex": 0}, "Name": "cbv"},
        {"Type": "DRAW", "Name": "drawArguments"}], "pRootSignature": "RS"}}}
#: the sample's own struct declarations: C++ (D3D12ExecuteIndirect.h) and HLSL (compute.hlsl)
SAMPLE_C = ("typedef struct IndirectCommand { D3D12_GPU_VIRTUAL_ADDRESS cbv; D3D12_DRAW_ARGUMENTS drawArguments; } "
            "IndirectCommand;\n")
SAMPLE_HLSL = "struct IndirectCommand\n{\n    uint2 cbvAddress;\n    uint4 drawArguments;\n};\n"

#: every spelling of a 64-bit type in HLSL code (comments left out: a comment may say what a uint2 holds)
_WIDE = re.compile(r"\b(?:u?int64_t\w*|double\w*|float64_t\w*)\b")


class WIDE:
    @staticmethod
    def search(source: str) -> re.Match[str] | None:
        return _WIDE.search(re.sub(r"//[^\n]*", "", source))


def sample_command() -> RecordLayout:
    return command_layout(description.load(SAMPLE).command_signatures["IndirectCommand"])


def example_layouts(name: str) -> list[RecordLayout]:
    return record_layouts(description.load(str(EXAMPLES.joinpath(name))))


# --- HLSL for a Shader Model ---------------------------------------------------------------------------------


def test_the_sample_s_command_for_shader_model_5() -> None:
    """Below Shader Model 6.0 the root CBV's VA is a uint2 (.x the low DWORD), as the sample writes it; at 6.0 and
    later it stays a uint64_t.  No 64-bit type appears in the 5.x source."""
    members = {model: [(m.hlsl_type, m.name, m.offset, m.size) for m in codegen.hlsl_members(sample_command(),
                                                                                              shader_model=model)]
               for model in ("5_0", "5_1", "6_0", "6_6")}
    assert members["5_0"][0] == members["5_1"][0] == ("uint2", "cbv", 0, 8)
    assert members["6_0"][0] == members["6_6"][0] == ("uint64_t", "cbv", 0, 8)
    assert [m[1:] for m in members["5_0"]] == [m[1:] for m in members["6_0"]]  # the same bytes, named alike
    source = codegen.hlsl_source([sample_command()], shader_model="5_0")
    assert not WIDE.search(source) and "Shader Model 5.0 (FXC, cs_5_0): no 64-bit type" in source


@pytest.mark.parametrize("model", ["5_0", "5_1"])
@pytest.mark.parametrize("name", ["culling.json", "gpu_resident_diagram.json", "execute_indirect.json",
                                  "tier2_chain.json"])
def test_shader_model_5_hlsl_of_every_example_has_the_calculator_s_bytes(name: str, model: str) -> None:
    """Every record of the bundled examples (spec "GPU culling and work list emission", "Components",
    IndirectDrawing.md) as Shader Model 5 HLSL: no 64-bit type, and glslc puts every member and the stride where
    the layout calculator does (a uint2 VA only where a uint64_t would sit at a multiple of 8 in a record whose
    stride is one; else the _lo/_hi halves, as at 6.0)."""
    layouts = example_layouts(name)
    assert not WIDE.search(codegen.hlsl_source(layouts, shader_model=model))
    require_tools()
    assert layout_mismatches(layouts, model=model) == []


@PROPERTY
@given(signature_doc())
def test_random_signatures_at_shader_model_5_1(doc: dict[str, Any]) -> None:
    """For random signatures: no 64-bit type at 5.1, and the members at 5.1 are those of 6.0 byte for byte (only
    the spelling of a whole, 8-aligned uint64_t changes: uint2)."""
    objects = description.load(doc)
    pl = pcs_layout(objects.program_command_signatures["P"])
    layouts = [r for r in (pl.primary, pl.secondary, pl.program_table, command_layout(objects.command_signatures["EI"]))
               if r is not None and r.min_stride]
    assert not WIDE.search(codegen.hlsl_source(layouts, shader_model="5_1"))
    for r in layouts:
        old, new = codegen.hlsl_members(r), codegen.hlsl_members(r, shader_model="5_1")
        assert [(m.name, m.offset, m.size, m.count) for m in old] == [(m.name, m.offset, m.size, m.count) for m in new]
        assert all(b.hlsl_type == ("uint2" if a.hlsl_type == "uint64_t" else a.hlsl_type) for a, b in zip(old, new))


def test_the_mirror_is_checked_like_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``abi check --hlsl`` judges the generated Shader Model 5.0 HLSL and the sample's own uint2/uint4 struct
    against the record: both equal (D3D12's structured-buffer layout)."""
    require_tools()
    sig = tmp_path / "sample.json"
    sig.write_text(json.dumps(SAMPLE))
    generated = tmp_path / "generated.hlsl"
    assert main(["codegen", str(sig), "--lang", "hlsl", "--shader-model", "5_0", "-o", str(generated)]) == 0
    (tmp_path / "compute.hlsl").write_text(SAMPLE_HLSL)
    for hlsl, record in ((generated, []), (tmp_path / "compute.hlsl", ["--record",
                                                                        "IndirectCommand.command=IndirectCommand"])):
        capsys.readouterr()
        assert main(["abi", "check", "--signature", str(sig), "--hlsl", str(hlsl), *record, "--records-only"]) == 0
        assert "IndirectCommand.command" in capsys.readouterr().out


def test_codegen_shader_model_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--shader-model`` takes 5_0 .. 6_9 (also spelt 5.1 or cs_5_1); another value, or the flag with another
    language, is exit 2 naming it; ``--bindings`` (ConstantBuffer<T>, register spaces) needs 5.1; --json says the
    model."""
    sig = tmp_path / "sample.json"
    sig.write_text(json.dumps(SAMPLE))
    assert main(["codegen", str(sig), "--lang", "hlsl", "--shader-model", "cs_5_1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["shader_model"] == "5_1" and "uint2 cbv;" in doc["source"] and not WIDE.search(doc["source"])
    with pytest.raises(SystemExit) as usage:
        main(["codegen", str(sig), "--lang", "hlsl", "--shader-model", "4_0"])
    assert usage.value.code == 2
    assert "--shader-model: no Shader Model '4_0'; give one of 5_0, 5_1, 6_0" in capsys.readouterr().err
    assert main(["codegen", str(sig), "--lang", "c", "--shader-model", "5_1"]) == 2
    assert "--shader-model applies to --lang hlsl" in capsys.readouterr().err
    culling = str(EXAMPLES.joinpath("culling.json"))
    assert main(["codegen", culling, "--lang", "hlsl", "--bindings", "--shader-model", "5_0"]) == 2
    assert "need Shader Model 5.1" in capsys.readouterr().err
    assert main(["codegen", culling, "--lang", "hlsl", "--bindings", "--shader-model", "5.1"]) == 0
    assert not WIDE.search(capsys.readouterr().out)


# --- C that says its packing and alignof ----------------------------------------------------------------------


def _compile(source: str, tmp: Path, main_text: str, compilers: list[list[str]]) -> list[str]:
    (tmp / "records.h").write_text(source)
    errors = []
    for argv in compilers:
        ext = "cpp" if "c++" in argv else "c"
        path = tmp / f"main.{ext}"
        path.write_text('#include "records.h"\n' + main_text)
        r = subprocess.run([*argv, "-Wall", "-Werror", "-fsyntax-only", "-I", str(HEADERS), str(path)],
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            errors.append(f"{' '.join(argv)}: {r.stderr}")
    return errors


def _compilers() -> list[list[str]]:
    out = [["gcc", "-x", "c", "-std=c11"]]
    if shutil.which("g++"):
        out.append(["g++", "-x", "c++", "-std=c++11"])
    if shutil.which("clang"):
        out.append(["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding", "-x", "c", "-std=c11"])
    return out


def test_the_sample_s_command_is_unpacked_with_the_sample_s_alignof(tmp_path: Path) -> None:
    """The sample's command needs no packing: every member sits at its C alignment and 24 is a multiple of 8.  The
    generated struct is unpacked, says alignof 8 and asserts it, and has the sample's own struct's size and
    alignof on the host and the Windows x64 ABI."""
    source = codegen.c_source([sample_command()])
    text = codegen.c_struct(sample_command(), 24)
    assert "#pragma pack(" not in text
    assert "/* alignof(IndirectCommand_Command) is 8, its members' natural alignment (no #pragma pack) */" in text
    assert 'D3D12WL_STATIC_ASSERT(D3D12WL_ALIGNOF(IndirectCommand_Command) == 8, "alignof(IndirectCommand_Command)");' \
        in text
    same = (SAMPLE_C + "D3D12WL_STATIC_ASSERT(sizeof(IndirectCommand) == sizeof(IndirectCommand_Command), \"size\");\n"
            "D3D12WL_STATIC_ASSERT(D3D12WL_ALIGNOF(IndirectCommand) == D3D12WL_ALIGNOF(IndirectCommand_Command), "
            "\"alignof\");\nint main(void) { return 0; }\n")
    assert _compile(source, tmp_path, same, _compilers()) == []


@pytest.mark.parametrize(("args", "stride", "why"), [
    ([{"Type": "CONSTANT", "Constant": {"Num32BitValuesToSet": 1}}, {"Type": "CONSTANT_BUFFER_VIEW"},
      {"Type": "DRAW"}], None, "arg1_ConstantBufferView (D3D12_GPU_VIRTUAL_ADDRESS, alignof 8) sits at offset 4"),
    ([{"Type": "CONSTANT_BUFFER_VIEW"}, {"Type": "DRAW_INDEXED"}], None, "the stride 28 is not a multiple of 8"),
])
def test_a_packed_struct_says_why_and_asserts_alignof_4(args: list[dict[str, Any]], stride: int | None, why: str,
                                                        tmp_path: Path) -> None:
    """IndirectDrawing.md packs ExecuteIndirect arguments tightly: a VA after a root constant sits at 4, and a CBV
    and a DRAW_INDEXED make 28 bytes.  C can hold these bytes only packed to 4: the struct says so, and why, and
    that alignof is 4 where an unpacked struct of the same members has 8; the asserts hold on both ABIs, and an
    assert of alignof 8 fails."""
    layout = command_layout(description.load({"command_signatures": {"EI": {"pArgumentDescs": args}}})
                            .command_signatures["EI"])
    text = codegen.c_struct(layout, stride)
    assert "#pragma pack(push, 4)" in text and "#pragma pack(pop)" in text
    assert f"packed to 4 (#pragma pack(push, 4)): {why}, so alignof(EI_Command) is 4, not the 8 its members " \
           "have; a struct of these members without the pack has alignof 8 and another layout" in text
    assert 'D3D12WL_STATIC_ASSERT(D3D12WL_ALIGNOF(EI_Command) == 4, "alignof(EI_Command)");' in text
    source = codegen.c_source([layout])
    assert _compile(source, tmp_path, "int main(void) { return 0; }\n", _compilers()) == []
    live = source.replace("D3D12WL_ALIGNOF(EI_Command) == 4", "D3D12WL_ALIGNOF(EI_Command) == 8")
    errors = _compile(live, tmp_path, "int main(void) { return 0; }\n", _compilers())
    assert len(errors) == len(_compilers()) and all("alignof(EI_Command)" in e for e in errors), errors


def test_every_example_struct_is_packed_only_where_a_member_needs_it() -> None:
    """The spec's culling records need no packing (alignof 8); a vertex buffer view at 4 in a Work Lists record
    (spec "Per-arg natural alignment": 16 bytes at 4) does; codegen --json gives alignof and pack per struct."""
    for r in example_layouts("culling.json"):
        assert codegen.c_packing(r, r.min_stride) == codegen.CPacking(8, 8, None, "")
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}, {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]}}})
    primary = pcs_layout(objects.program_command_signatures["P"]).primary
    packing = codegen.c_packing(primary, primary.min_stride)
    assert (packing.alignof, packing.natural, packing.pack) == (4, 8, 4)
    assert packing.why.startswith("arg0_VertexBuffer (D3D12_VERTEX_BUFFER_VIEW, alignof 8) sits at offset 4")


def test_codegen_json_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-o PATH`` writes the source to PATH (with --json the document on stdout names it); --json gives each C
    struct's alignof and pack; -o naming DESC.json itself is exit 2, and DESC.json stays as it was."""
    sig = tmp_path / "sample.json"
    sig.write_text(json.dumps(SAMPLE))
    out = tmp_path / "records.h"
    assert main(["codegen", str(sig), "--lang", "c", "-o", str(out)]) == 0
    assert capsys.readouterr().out == "" and "typedef struct IndirectCommand_Command" in out.read_text()
    assert main(["codegen", str(sig), "--lang", "c", "--json", "--output", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["output"] == str(out) and doc["source"] == out.read_text()
    assert [(s["alignof"], s["pack"]) for s in doc["structs"]] == [(8, None)]
    before = sig.read_bytes()
    assert main(["codegen", str(sig), "--lang", "c", "-o", str(sig)]) == 2
    assert f"-o {str(sig)!r} is DESC.json {str(sig)!r}, which this command reads" in capsys.readouterr().err
    assert sig.read_bytes() == before
    assert main(["codegen", str(sig), "--lang", "c", "-o", str(tmp_path / "no" / "such" / "dir.h")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_g_plus_plus_is_here() -> None:
    """The C tests above compile as C++ with g++ where it is installed; CI has it."""
    require(shutil.which("g++") is not None and shutil.which("clang") is not None, "g++ or clang not installed")
