"""`d3d12wl abi check --hlsl`: a shader team's HLSL mirror of a record against the layout calculator (issue 7).

The Work Lists spec's culling example ("GPU culling and work list emission") declares its ``SecondaryRecord`` in
HLSL and writes it through a ``RWStructuredBuffer``; that declaration, verbatim, is the first fixture.  Layouts are
D3D12's structured-buffer layout (C-like, ``#pragma pack(8)``), computed from the type graph glslc's HLSL front
end produces; the tests pin those rules against clang's Windows-target layout of the same struct written in C.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import require

from d3d12wl.abi import check as abi_check
from d3d12wl.cli import main
from d3d12wl.headercheck import hlsl as hlsl_probe
from d3d12wl.headercheck import records as header_records
from d3d12wl.headercheck.probe import HeaderOptions, Probes, compile_headers, run_probes
from d3d12wl.headercheck.report import DIFFERENT, EQUAL

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling.json"

#: verbatim from the spec's culling example (HLSL, culling shader)
SPEC_HLSL = """
struct SecondaryRecord
{
    // Matches the signature's SOURCE_SECONDARY_RECORD args:
    //   Root SRV   (8 bytes)
    //   _DRAW args (16 bytes)
    uint64_t MaterialBufferSRV;
    uint VertexCountPerInstance;
    uint InstanceCount;
    uint StartVertexLocation;
    uint StartInstanceLocation;
};
"""


@pytest.fixture(autouse=True)
def _tools() -> None:
    missing = [t for t in hlsl_probe.TOOLS if shutil.which(t) is None]
    require(not missing, f"{', '.join(missing)} not installed")


def hlsl(tmp: Path, text: str, name: str = "records.hlsl") -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def check(tmp: Path, path: Path, names: dict[str, str], signature: Path = CULLING) -> list:  # noqa: ANN401
    return header_records.check_hlsl([path], header_records.bind(signature, names), tmp)


def test_spec_culling_hlsl_secondary_record_is_equal(tmp_path: Path) -> None:
    (entry,) = check(tmp_path, hlsl(tmp_path, SPEC_HLSL), {"PCS.secondary": "SecondaryRecord"})
    assert (entry.kind, entry.name, entry.header_name, entry.status, entry.compared) == (
        "hlsl record", "PCS.secondary", "SecondaryRecord", EQUAL, 5)
    assert entry.notes == []  # D3D12 and Vulkan layouts agree on this one


def test_srv_after_a_uint_is_caught(tmp_path: Path) -> None:
    """A uint before the uint64_t SRV: D3D12 aligns the SRV to 8, leaving bytes 4..7 of the SRV payload uncovered,
    and the 12-byte draw straddles the _DRAW payload's end; the 32-byte stride exceeds SecondaryRecordByteStride."""
    path = hlsl(tmp_path, "struct Bad { uint flags; uint64_t srv; uint3 draw; };")
    (entry,) = check(tmp_path, path, {"PCS.secondary": "Bad"})
    assert entry.status == DIFFERENT
    got = {(d.where, d.what): d for d in entry.differences}
    assert ("Bad bytes [4..7]", "coverage") in got
    assert got[("Bad.draw", "placement")].header == "[16..27] (12 bytes)"
    assert (got[("Bad", "size vs the declared SecondaryRecordByteStride")].header,
            got[("Bad", "size vs the declared SecondaryRecordByteStride")].d3d12wl) == (32, 24)


def test_d3d12_rules_not_vulkans(tmp_path: Path) -> None:
    """float3 after a uint sits at 12 in a D3D12 structured buffer (std430 would put it at 16): the record is
    equal, and the Vulkan difference is noted for a shader also built for Vulkan."""
    path = hlsl(tmp_path, "struct V { uint2 srv; uint a; float3 b; };")
    (entry,) = check(tmp_path, path, {"PCS.secondary": "V"})
    assert entry.status == EQUAL
    assert entry.notes == ["under Vulkan's std430 rules (glslang) the layout differs: b at 16, stride 32 "
                           "(D3D12's structured-buffer stride is 24)"]


def test_structured_buffer_layout_matches_clang_for_the_same_struct_in_c(tmp_path: Path) -> None:
    """The D3D12 structured-buffer rules (C under pack(8): vectors and matrices as arrays of their components)
    give, for nested structs, arrays, vectors, a matrix and 64-bit members, exactly the offsets clang gives the
    same struct written in C for x86_64-pc-windows-msvc."""
    if abi_check.find_clang() is None:
        pytest.skip("clang not found")
    path = hlsl(tmp_path, """
struct Inner { float2 a; uint b[3]; };
struct Outer { uint x; Inner i; float4x4 m; uint64_t big; double2 d; uint tail; };
""")
    got = hlsl_probe.probe_structs([path], ["Outer", "Inner"], tmp_path)
    c = tmp_path / "same.h"
    c.write_text("""#include <stdint.h>
struct Inner { float a[2]; uint32_t b[3]; };
struct Outer { uint32_t x; struct Inner i; float m[16]; uint64_t big; double d[2]; uint32_t tail; };
""")
    compiled = compile_headers(HeaderOptions((c,), lang="c", prelude="none"), tmp_path / "c")
    probes = Probes()
    for struct in ("Outer", "Inner"):
        probes.add(f"{struct}|size", f"sizeof(struct {struct})")
        for m in got[struct].members:
            probes.add(f"{struct}|{m.name}", f"__builtin_offsetof(struct {struct}, {m.name})")
    values = run_probes(compiled, probes).values
    for struct in ("Outer", "Inner"):
        assert got[struct].size == values[f"{struct}|size"]
        assert [m.offset for m in got[struct].members] == [values[f"{struct}|{m.name}"] for m in got[struct].members]
    assert [m.type for m in got["Outer"].members] == ["uint", "struct Inner", "float4x4", "uint64_t", "double2",
                                                      "uint"]


def test_codegen_hlsl_binds_by_default_and_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`d3d12wl codegen --lang hlsl` output checked with only --description: every generated record struct binds by
    its name and agrees with the layout calculator."""
    for example in ("culling", "tier2_chain", "execute_indirect"):
        assert main(["codegen", str(EXAMPLES / f"{example}.json"), "--lang", "hlsl"]) == 0
        path = hlsl(tmp_path, capsys.readouterr().out, f"{example}.hlsl")
        assert main(["abi", "check", "--hlsl", str(path), "--description", str(EXAMPLES / f"{example}.json"),
                     "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["entries"] and all(e["kind"] == "hlsl record" and e["status"] == EQUAL for e in doc["entries"])


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--hlsl needs --description; HLSL that does not parse and a struct it does not declare exit 2 with glslc's
    words."""
    good = hlsl(tmp_path, SPEC_HLSL)
    assert main(["abi", "check", "--hlsl", str(good)]) == 2
    assert "--hlsl" in capsys.readouterr().err
    broken = hlsl(tmp_path, "struct S { uint a }", "broken.hlsl")
    assert main(["abi", "check", "--hlsl", str(broken), "--description", str(CULLING)]) == 2
    assert "broken.hlsl" in capsys.readouterr().err
    assert main(["abi", "check", "--hlsl", str(good), "--description", str(CULLING),
                 "--record-struct", "PCS.secondary=Nope"]) == 2
    assert "Nope" in capsys.readouterr().err
