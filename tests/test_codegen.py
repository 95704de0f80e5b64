"""Generated C and HLSL against the layout calculator.

The C compiler is the judge: every generated struct carries ``_Static_assert``s on its sizeof and on the offsetof
and sizeof of every member (the layout's numbers), so a translation unit that compiles proves the C compiler's
layout equals the calculator's.  Compiled with gcc (host) and with ``clang -target x86_64-pc-windows-msvc`` (the
Windows ABI itself, design.md "ABI rules"); clang missing skips with the reason, or fails under CI=true.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3d12wl.cli import main
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, command_layout, pcs_layout, record_layouts

HEADERS = Path(__file__).resolve().parent.parent / "headers"
EXAMPLES = resources.files("d3d12wl").joinpath("examples")


def _compilers() -> list[list[str]]:
    out = [["gcc", "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I", str(HEADERS)]]
    if shutil.which("clang"):
        out.append(["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding", "-std=c11", "-Werror",
                    "-fsyntax-only", "-I", str(HEADERS)])
    return out


def require_clang() -> None:
    require(shutil.which("clang") is not None,
            "clang not installed: the Windows-ABI compile (x86_64-pc-windows-msvc) cannot run")


def compile_c(source: str, tmp: Path) -> list[str]:
    """Errors of every compiler (empty list: all compiled, all static asserts hold)."""
    path = tmp / "generated.c"
    path.write_text(source)
    errors = []
    for argv in _compilers():
        r = subprocess.run([*argv, str(path)], capture_output=True, text=True, timeout=60)
        if r.returncode:
            errors.append(f"{argv[0]}: {r.stderr}")
    return errors


def load_example(name: str):  # noqa: ANN201
    return description.load(str(EXAMPLES.joinpath(name)))


@pytest.mark.parametrize("name", ["culling.json", "gpu_resident_diagram.json"])
def test_example_c_compiles_with_gcc_and_msvc_target(name, tmp_path):
    """Spec "GPU culling and work list emission" / "Components": every record of the examples as C compiles on the
    host and the Windows x64 ABI, and its static asserts (the layout's offsets and sizes) hold."""
    require_clang()
    layouts = record_layouts(load_example(name))
    assert compile_c(codegen.c_source(layouts), tmp_path) == []


def test_static_asserts_are_live(tmp_path):
    """A layout that disagrees with the headers fails to compile: a DRAW claimed to be 20 bytes (sizeof of the
    payload type), and a primary header whose SecondaryRecords is claimed at 4 (offsetof in the header struct)."""
    pl = pcs_layout(load_example("culling.json").program_command_signatures["PCS"])
    wrong = [dataclasses.replace(f, size=20) if f.name == "arg1_Draw" else f for f in pl.secondary.fields]
    broken = dataclasses.replace(pl.secondary, fields=tuple(wrong), size=28, min_stride=32)
    errors = compile_c(codegen.c_source([broken]), tmp_path)
    assert errors and all("sizeof PCS_SecondaryRecord.arg1_Draw" in e for e in errors)
    fields = [f for f in pl.primary.fields if f.name != "NumSecondaryRecords"]
    moved = [dataclasses.replace(f, offset=4, size=8) if f.name == "SecondaryRecords" else f for f in fields]
    broken = dataclasses.replace(pl.primary, fields=tuple(moved), size=12, min_stride=16)
    errors = compile_c(codegen.c_source([broken]), tmp_path)
    assert errors and all("D3D12_WORK_LIST_PRIMARY_RECORD.SecondaryRecords" in e for e in errors)


def test_culling_secondary_record_hlsl_has_the_spec_shape():
    """Spec "GPU culling and work list emission", HLSL ``SecondaryRecord``: a uint64_t SRV then the four DRAW uints."""
    secondary = pcs_layout(load_example("culling.json").program_command_signatures["PCS"]).secondary
    got = [(m.hlsl_type, m.name, m.offset) for m in codegen.hlsl_members(secondary)]
    assert got == [("uint64_t", "arg0_ShaderResourceView", 0), ("uint", "VertexCountPerInstance", 8),
                   ("uint", "InstanceCount", 12), ("uint", "StartVertexLocation", 16),
                   ("uint", "StartInstanceLocation", 20)]
    text = codegen.hlsl_struct(secondary)
    assert text.startswith("// secondary record of 'PCS'") and "struct PCS_SecondaryRecord\n{" in text


def test_hlsl_splits_a_uint64_at_a_4_byte_offset():
    """Spec "Per-arg natural alignment": a vertex buffer view at 4 puts its 8-byte BufferLocation at 4; HLSL would
    realign a uint64_t, so it is emitted as two uints."""
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}, {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]}}})
    members = codegen.hlsl_members(pcs_layout(objects.program_command_signatures["P"]).primary)
    assert [(m.name, m.hlsl_type, m.offset) for m in members[:4]] == [
        ("ProgramTableIndex", "uint", 0), ("BufferLocation_lo", "uint", 4), ("BufferLocation_hi", "uint", 8),
        ("SizeInBytes", "uint", 12)]
    assert members[-1].name == "_pad0" and members[-1].offset + members[-1].size == 40


def assert_hlsl_covers(layout: RecordLayout) -> None:
    """HLSL members are contiguous, every byte explicit, ending at the stride; 8-byte members 8-aligned, and only
    in records whose stride is a multiple of 8."""
    pos = 0
    for m in codegen.hlsl_members(layout):
        assert m.offset == pos, (layout.owner, m)
        assert m.hlsl_type != "uint64_t" or (m.offset % 8 == 0 and layout.min_stride % 8 == 0), (layout.owner, m)
        pos += m.size
    assert pos == layout.min_stride


# --- property tests: random layout-valid signatures ------------------------------------------------------------

_RECORD = st.sampled_from(["PRIMARY_RECORD", "SECONDARY_RECORD"])
_TRIGGERS = ["DRAW", "DRAW_INDEXED", "DISPATCH", "DISPATCH_MESH", "DISPATCH_RAYS_DIMENSIONS"]


@st.composite
def wl_arg(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["CONSTANT", "CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW",
                                 "VERTEX_BUFFER_VIEW", "INDEX_BUFFER_VIEW", "DESCRIPTOR_TABLE", "INLINE_CONSTANTS",
                                 "INLINE_CBV", "INCREMENTING_CONSTANT"]))
    if kind == "CONSTANT":
        return {"Type": kind, "Source": draw(_RECORD), "Constant": {"Num32BitValuesToSet": draw(st.integers(1, 5))}}
    if kind == "INCREMENTING_CONSTANT":
        return {"Type": kind, "Source": "SYSTEM"}
    if kind.startswith("INLINE_"):
        source = draw(st.sampled_from(["PRIMARY_RECORD", "SECONDARY_RECORD", "PROGRAM_TABLE_RECORD"]))
        reg = draw(st.integers(0, 1000))
        if kind == "INLINE_CBV":
            param = {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": reg}}
            return {"Type": "INLINE_ROOT_PARAMETER", "Source": source, "Binding": "LOCAL_ROOT_SIGNATURE",
                    "InlineRootParameter": {"RootParameter": param}}
        n = draw(st.integers(1, 4))
        param = {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": reg, "Num32BitValues": n}}
        return {"Type": "INLINE_ROOT_PARAMETER", "Source": source, "Binding": "LOCAL_ROOT_SIGNATURE",
                "InlineRootParameter": {"RootParameter": param, "Num32BitValuesToSet": n}}
    return {"Type": kind, "Source": draw(_RECORD)}


@st.composite
def signature_doc(draw: st.DrawFn) -> dict[str, Any]:
    args = draw(st.lists(wl_arg(), max_size=6))
    trigger = draw(st.sampled_from(_TRIGGERS))
    if trigger == "DISPATCH_RAYS_DIMENSIONS":  # no inline local root parameters on raytracing (rule 21)
        args = [a for a in args if a["Type"] != "INLINE_ROOT_PARAMETER"]
    args.insert(draw(st.integers(0, len(args))), {"Type": trigger, "Source": draw(_RECORD)})
    ei = draw(st.lists(st.sampled_from(["CONSTANT", "CONSTANT_BUFFER_VIEW", "VERTEX_BUFFER_VIEW",
                                        "INDEX_BUFFER_VIEW"]), max_size=4))
    ei_args = [{"Type": t, **({"Constant": {"Num32BitValuesToSet": 3}} if t == "CONSTANT" else {})} for t in ei]
    ei_args.append({"Type": draw(st.sampled_from(["DRAW", "DRAW_INDEXED", "DISPATCH"]))})
    return {"program_command_signatures": {"P": {"pArgumentDescs": args}},
            "command_signatures": {"EI": {"pArgumentDescs": ei_args}}}


PROPERTY = settings(max_examples=25, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@PROPERTY
@given(signature_doc())
def test_random_signatures_c_layout_equals_calculator(tmp_path, doc):
    """Spec "Record byte layouts" / IndirectDrawing.md: for random signatures, the C compiler (host and MSVC
    target) agrees with the calculator on every offset and size of every record, and the HLSL covers every byte."""
    objects = description.load(doc)
    pl = pcs_layout(objects.program_command_signatures["P"])
    layouts = [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
    layouts.append(command_layout(objects.command_signatures["EI"]))
    assert compile_c(codegen.c_source(layouts), tmp_path) == []
    for layout in layouts:
        if layout.min_stride:
            assert_hlsl_covers(layout)


@PROPERTY
@given(signature_doc())
def test_random_signatures_round_trip_through_json_and_cffi(doc):
    """design.md "Interfaces users touch": JSON -> model -> cffi -> model -> JSON is the identity on random PCSes."""
    objects = description.load(doc)
    for key in ("program_command_signatures", "command_signatures"):
        for name, obj in getattr(objects, key).items():
            desc = description.to_cffi(obj)
            assert description.from_cffi(desc.cdata, name=name, registry=desc.registry) == obj
    assert description.load(description.dump(objects)) == objects


# --- CLI --------------------------------------------------------------------------------------------------------


def test_codegen_cli(capsys, tmp_path):
    path = str(EXAMPLES.joinpath("culling.json"))
    assert main(["codegen", path, "--lang", "c"]) == 0
    c_text = capsys.readouterr().out
    assert "typedef struct PCS_SecondaryRecord" in c_text and compile_c(c_text, tmp_path) == []
    assert main(["codegen", path, "--lang", "hlsl", "--pcs", "PCS"]) == 0
    assert "uint VertexCountPerInstance;" in capsys.readouterr().out
    assert main(["codegen", path, "--lang", "hlsl", "--pcs", "Nope"]) == 2
    assert "--pcs" in capsys.readouterr().err


def test_codegen_cli_json(capsys):
    """design.md "Output": every command has --json for tools; the codegen JSON holds the whole source and each
    struct with its record, size and stride (the culling example's 16/24/48)."""
    path = str(resources.files("d3d12wl").joinpath("examples/culling.json"))
    assert main(["codegen", path, "--lang", "c", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lang"] == "c" and "_Static_assert" in out["source"]
    assert [(s["record"], s["size"], s["stride"]) for s in out["structs"]] == [
        ("primary", 16, 16), ("secondary", 24, 24), ("program_table", 48, 48)]
    assert all(s["text"] in out["source"] for s in out["structs"])


def test_hlsl_members_are_the_dataclass_s_own() -> None:
    """hlsl_members makes its HlslMembers in one step (records._frozen): each is the object ``HlslMember(...)``
    makes, field for field."""
    from d3d12wl.records._frozen import field_names

    objects = description.load(str(resources.files("d3d12wl").joinpath("examples/culling.json")))
    members = [m for r in record_layouts(objects) if r.min_stride for m in codegen.hlsl_members(r)]
    assert members
    for m in members:
        rebuilt = codegen.HlslMember(**{name: getattr(m, name) for name in field_names(codegen.HlslMember)})
        assert m == rebuilt and hash(m) == hash(rebuilt) and vars(m) == vars(rebuilt)
        assert dataclasses.replace(m) == m
