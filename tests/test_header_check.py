"""`d3d12wl abi check --header`: anyone's header against the spec, on the Windows x64 ABI (issue 7).

The headers under test are (a) d3d12wl's own, which must come out equal in C and in C++; (b) Debian's real
``d3d12.h`` (``directx-headers-dev``), which must pass for everything it shares and list what it lacks; (c) copies
of d3d12wl's headers altered one way each (a moved field, a changed enum value, a different padding, a float for
an integer, a changed callback parameter, a provisional value assigned differently), each caught and named by
type and field; (d) engine record structs against the layout calculator, starting from the Work Lists spec's
own culling example ("GPU culling and work list emission", ``struct SecondaryRecord``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import require

from d3d12wl import abi
from d3d12wl.abi import check as abi_check
from d3d12wl.cli import main
from d3d12wl.errors import ABIError
from d3d12wl.headercheck import check as header_check
from d3d12wl.headercheck import probe as header_probe
from d3d12wl.headercheck import records as header_records
from d3d12wl.headercheck.probe import HeaderOptions, compile_headers
from d3d12wl.headercheck.report import DIFFERENT, EQUAL, MISSING, PROVISIONAL, Entry, HeaderReport, format_text

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling.json"
D3D12_H = Path("/usr/include/directx/d3d12.h")


@pytest.fixture(autouse=True)
def _clang() -> None:
    require(abi_check.find_clang() is not None, "clang not found (apt-get install clang)")


def _d3d12h() -> None:
    require(abi_check.find_d3d12_headers() is not None, "directx-headers-dev not installed")


def own_headers(tmp: Path, edit: dict[str, tuple[str, str]] | None = None) -> list[Path]:
    """d3d12wl's headers written to ``tmp`` as a user would have them, with ``edit``: file -> (old, new) replaced
    exactly once."""
    texts = abi.header_texts()
    for name, (old, new) in (edit or {}).items():
        assert texts[name].count(old) == 1, f"{old!r} is not unique in {name}"
        texts[name] = texts[name].replace(old, new)
    return header_probe.write_headers(tmp, texts)


def run(tmp: Path, headers: list[Path], *, lang: str = "c++", mapping: dict[str, str] | None = None,
        records: list[header_records.RecordBinding] | None = None, prelude: str = "auto") -> HeaderReport:
    compiled = compile_headers(HeaderOptions(tuple(headers), lang=lang, prelude=prelude), tmp / "work")
    return header_check.check(compiled, abi.default, mapping=mapping, records=records or [])


def entry(report: HeaderReport, name: str) -> Entry:
    return next(e for e in report.entries if e.name == name)


def declaration_count() -> int:
    a = abi.default
    return (len(a.type_names()) + len(a.enum_names()) + len(a.constants()) + len(a.decls.aliases)
            + len(a.decls.functions))


# --- (a) d3d12wl's own headers ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_own_headers_are_equal_in_every_declaration(tmp_path: Path, lang: str) -> None:
    """Every struct, union, enum, constant, typedef and callback d3d12wl declares is found and equal, in C and
    C++: the probes measure what cffi measured."""
    report = run(tmp_path, own_headers(tmp_path), lang=lang)
    assert report.ok
    assert [e.name for e in report.entries if e.status != EQUAL] == []
    assert len(report.entries) == declaration_count()
    fields = sum(e.compared for e in report.entries if e.kind in ("struct", "union"))
    assert fields == sum(len(abi.type_info(n).walk()) for n in abi.default.type_names())
    assert all(not e.lacks and not e.extra for e in report.entries)


# --- (b) the real d3d12.h ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def d3d12h_report(tmp_path_factory: pytest.TempPathFactory) -> HeaderReport:
    if abi_check.find_clang() is None or abi_check.find_d3d12_headers() is None:
        pytest.skip("needs clang and directx-headers-dev")  # the tests using it re-check and fail under CI
    tmp = tmp_path_factory.mktemp("d3d12h")
    return run(tmp, [D3D12_H])


def test_real_d3d12h_passes_for_everything_it_shares(d3d12h_report: HeaderReport) -> None:
    """Debian's d3d12.h agrees with d3d12wl on every pre-existing struct, field and enumerator it declares."""
    _d3d12h()
    report = d3d12h_report
    assert report.ok, [d.message for e in report.by_status(DIFFERENT) for d in e.differences]
    equal = {e.name for e in report.by_status(EQUAL)}
    for name in ("D3D12_DRAW_ARGUMENTS", "D3D12_DRAW_INDEXED_ARGUMENTS", "D3D12_DISPATCH_ARGUMENTS",
                 "D3D12_VERTEX_BUFFER_VIEW", "D3D12_INDEX_BUFFER_VIEW", "D3D12_DISPATCH_RAYS_DESC",
                 "D3D12_COMMAND_SIGNATURE_DESC", "D3D12_INDIRECT_ARGUMENT_DESC", "D3D12_INDIRECT_ARGUMENT_TYPE",
                 "D3D12_ROOT_PARAMETER1", "D3D12_GPU_VIRTUAL_ADDRESS"):
        assert name in equal
    assert entry(report, "D3D12_DISPATCH_RAYS_DESC").compared >= 15  # nested ranges, at every depth


def test_real_d3d12h_report_lists_what_it_lacks(d3d12h_report: HeaderReport) -> None:
    """What the 1.606 SDK headers predate is listed as missing (types) or lacked (fields, enumerators), and the
    header's own newer enumerators are listed as extra, none of it failing the verdict."""
    _d3d12h()
    report = d3d12h_report
    missing = {e.name for e in report.by_status(MISSING)}
    assert {"D3D12_WORK_LIST_PRIMARY_RECORD", "D3D12_DISPATCH_LIST_INPUT1", "D3D12_PROGRAM_IDENTIFIER",
            "D3D12DDI_DRIVER_REPORTED_MESSAGE_0126", "PFND3D12DDI_DISPATCHLIST"} <= missing
    assert "IncrementingConstant" in entry(report, "D3D12_INDIRECT_ARGUMENT_DESC").lacks
    lacks = entry(report, "D3D12_INDIRECT_ARGUMENT_TYPE").lacks
    assert "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH" in lacks
    assert "D3D12_INDIRECT_ARGUMENT_TYPE_DRAW" not in lacks
    assert "D3D12_FEATURE_ARCHITECTURE" in entry(report, "D3D12_FEATURE").extra
    assert "D3D12_RESOURCE_DESC" in report.extra["structs"] and "D3D12_HEAP_TYPE" in report.extra["enums"]
    assert not any(n.startswith("ID3D12") for n in report.extra["structs"])  # COM interfaces are not data


def test_real_d3d12h_cli_prints_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    """The command a user runs: exit 0, the verdict line, and the lacked Work Lists enumerators named."""
    _d3d12h()
    assert main(["abi", "check", "--header", str(D3D12_H), "--header-lang", "c"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^verdict: PASS: 0 different, 0 provisional, \d+ missing, \d+ equal$", out, re.M)
    assert "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH" in out


def test_a_d3d12h_lists_what_it_lacks_by_name_an_engine_header_in_one_line(d3d12h_report: HeaderReport,
                                                                          tmp_path: Path) -> None:
    """d3d12.h (it declares ID3D12Device) lists every missing name; an engine header, which declares few of
    d3d12wl's names, sums them up by kind in one line, so its verdict is what one reads."""
    _d3d12h()
    text = format_text(d3d12h_report)
    assert "D3D12_WORK_LIST_PRIMARY_RECORD" in text.split("missing from the header: ", 1)[1]
    header = engine_header(tmp_path, "typedef struct D3D12_DRAW_ARGUMENTS { uint32_t a, b, c, d; } D3D12_DRAW_ARGUMENTS;\n")
    report = run(tmp_path, [header], prelude="none")
    text = format_text(report)
    line = next(x for x in text.splitlines() if x.startswith("missing from the header: "))
    missing = len(report.by_status(MISSING))
    assert line.startswith(f"missing from the header: {missing} of d3d12wl's {len(report.entries)} declarations (struct ")
    assert "not a d3d12.h: no ID3D12Device declared" in line and "D3D12_WORK_LIST_PRIMARY_RECORD" not in text


def test_records_only_checks_the_record_structs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """`--records-only`: the engine's record structs against the layout calculator, none of d3d12wl's declarations;
    the verdict counts them alone, and it needs --description (exit 2 without)."""
    wrong = str(EXAMPLES / "culling_records_wrong.h")
    args = ["abi", "check", "--header", wrong, "--description", str(CULLING), "--record-struct", "PCS.secondary=SecondaryRecord",
            "--records-only"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "verdict (record structs only): FAIL: 1 different, 0 provisional, 0 missing, 0 equal" in out
    assert "missing from the header" not in out and "equal:" not in out
    assert main([*args, "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["records_only"] is True and [e["kind"] for e in doc["entries"]] == ["record"]
    assert main(["abi", "check", "--header", wrong, "--records-only"]) == 2
    assert "--records-only" in capsys.readouterr().err


# --- (c) altered copies of d3d12wl's headers ------------------------------------------------------------------

WL = "d3d12wl_work_lists.h"
EI = "d3d12wl_execute_indirect.h"
BASE = "d3d12wl_base.h"
DDI = "d3d12wl_work_lists_ddi.h"


def differences(report: HeaderReport, name: str) -> dict[tuple[str, str], header_check.Difference]:
    return {(d.where, d.what): d for d in entry(report, name).differences}


def test_moved_field_is_named_with_both_offsets(tmp_path: Path) -> None:
    """ProgramTableIndex and NumSecondaryRecords swapped ("Primary record layout": [0..3] ProgramTableIndex)."""
    edit = {WL: ("    uint32_t ProgramTableIndex;\n    uint32_t NumSecondaryRecords;\n    D3D12_GPU_VIRTUAL_ADDRESS "
                 "SecondaryRecords;\n} D3D12_WORK_LIST_PRIMARY_RECORD;",
                 "    uint32_t NumSecondaryRecords;\n    uint32_t ProgramTableIndex;\n    D3D12_GPU_VIRTUAL_ADDRESS "
                 "SecondaryRecords;\n} D3D12_WORK_LIST_PRIMARY_RECORD;")}
    report = run(tmp_path, own_headers(tmp_path, edit))
    assert not report.ok
    diffs = differences(report, "D3D12_WORK_LIST_PRIMARY_RECORD")
    moved = diffs[("D3D12_WORK_LIST_PRIMARY_RECORD.ProgramTableIndex", "offset")]
    assert (moved.header, moved.d3d12wl) == (4, 0)
    assert ("D3D12_WORK_LIST_PRIMARY_RECORD", "field order") in diffs
    assert entry(report, "D3D12_WORK_LIST_PRIMARY_RECORD").status == DIFFERENT
    assert "D3D12_WORK_LIST_PRIMARY_RECORD.ProgramTableIndex: offset: 4 in the header, 0 in d3d12wl" in \
        f"{moved.where}: {moved.message}"


def test_changed_enum_value_is_named(tmp_path: Path) -> None:
    edit = {WL: ("D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION = 0x2,",
                 "D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION = 0x20,")}
    report = run(tmp_path, own_headers(tmp_path, edit))
    assert not report.ok
    d = differences(report, "D3D12_DISPATCH_LIST_FLAGS1")[
        ("D3D12_DISPATCH_LIST_FLAGS1.D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION", "value")]
    assert (d.header, d.d3d12wl, d.provisional) == (0x20, 0x2, None)


def test_different_padding_is_caught(tmp_path: Path) -> None:
    """D3D12_DISPATCH_LIST_INPUT1 under pack(4) without its ReservedPadding: ProgramInputs moves from 16 to 12, the
    size from 40 to 36 and the alignment from 8 to 4 (the spec's 40-byte, 8-aligned input)."""
    edit = {WL: ("typedef struct D3D12_DISPATCH_LIST_INPUT1\n{",
                 "#pragma pack(push, 4)\ntypedef struct D3D12_DISPATCH_LIST_INPUT1\n{"),
            }
    headers = own_headers(tmp_path, edit)
    text = (tmp_path / WL).read_text()
    text = text.replace("    uint32_t ReservedPadding;\n", "", 1).replace(
        "} D3D12_DISPATCH_LIST_INPUT1;", "} D3D12_DISPATCH_LIST_INPUT1;\n#pragma pack(pop)", 1)
    (tmp_path / WL).write_text(text)
    report = run(tmp_path, headers)
    assert not report.ok
    e = entry(report, "D3D12_DISPATCH_LIST_INPUT1")
    diffs = differences(report, "D3D12_DISPATCH_LIST_INPUT1")
    assert (diffs[("D3D12_DISPATCH_LIST_INPUT1.ProgramInputs", "offset")].header,
            diffs[("D3D12_DISPATCH_LIST_INPUT1.ProgramInputs", "offset")].d3d12wl) == (12, 16)
    assert (diffs[("D3D12_DISPATCH_LIST_INPUT1", "size")].header,
            diffs[("D3D12_DISPATCH_LIST_INPUT1", "size")].d3d12wl) == (36, 40)
    assert diffs[("D3D12_DISPATCH_LIST_INPUT1", "alignment")].header == 4
    assert e.lacks == ["ReservedPadding"]


def test_float_for_an_integer_and_a_changed_callback_parameter(tmp_path: Path) -> None:
    """Same bytes, different meaning: a UINT declared float is a 'kind' difference; a callback parameter widened
    from 4 to 8 bytes is named by position."""
    edit = {EI: ("    uint32_t VertexCountPerInstance;\n    uint32_t InstanceCount;\n    uint32_t StartVertexLocation;",
                 "    float VertexCountPerInstance;\n    uint32_t InstanceCount;\n    uint32_t StartVertexLocation;"),
            DDI: ("DispatchListInput,\n    uint32_t MaxGraphicsProgramInputsPerPrimaryList);",
                  "DispatchListInput,\n    uint64_t MaxGraphicsProgramInputsPerPrimaryList);")}
    headers = own_headers(tmp_path, edit)
    report = run(tmp_path, headers)
    kind = differences(report, "D3D12_DRAW_ARGUMENTS")[("D3D12_DRAW_ARGUMENTS.VertexCountPerInstance", "kind")]
    assert kind.header.startswith("float") and kind.d3d12wl.startswith("integer")
    param = differences(report, "PFND3D12DDI_DISPATCHLIST")[("PFND3D12DDI_DISPATCHLIST.parameter 3", "size")]
    assert (param.header, param.d3d12wl) == (8, 4)


def test_signedness_of_an_integer_field_and_a_typedef_is_named(tmp_path: Path) -> None:
    """Same bytes, another value: INT BaseVertexLocation ("D3D12_DRAW_INDEXED_ARGUMENTS") read as a UINT turns -10
    into 4294967286, the bug a driver reading negative base vertices as unsigned has.  An integer field or typedef
    whose signedness differs is `different`, named with both types, in C and in C++."""
    edit = {EI: ("    int32_t BaseVertexLocation;", "    uint32_t BaseVertexLocation;"),
            BASE: ("typedef uint64_t D3D12_GPU_VIRTUAL_ADDRESS;", "typedef int64_t D3D12_GPU_VIRTUAL_ADDRESS;")}
    headers = own_headers(tmp_path, edit)
    for lang in ("c", "c++"):
        report = run(tmp_path / lang, headers, lang=lang)
        base = differences(report, "D3D12_DRAW_INDEXED_ARGUMENTS")
        d = base[("D3D12_DRAW_INDEXED_ARGUMENTS.BaseVertexLocation", "signedness")]
        assert (d.header, d.d3d12wl) == ("unsigned (uint32_t)", "signed (int32_t)")
        assert entry(report, "D3D12_DRAW_INDEXED_ARGUMENTS").status == DIFFERENT
        va = differences(report, "D3D12_GPU_VIRTUAL_ADDRESS")[("D3D12_GPU_VIRTUAL_ADDRESS", "signedness")]
        assert va.header.startswith("signed") and va.d3d12wl.startswith("unsigned")
        # every struct holding a D3D12_GPU_VIRTUAL_ADDRESS reads it signed too, and says so
        assert ("D3D12_VERTEX_BUFFER_VIEW.BufferLocation", "signedness") in differences(report,
                                                                                        "D3D12_VERTEX_BUFFER_VIEW")
        assert entry(report, "D3D12_DRAW_ARGUMENTS").status == EQUAL


def test_int_to_uint_base_vertex_location_in_a_copy_of_d3d12h_is_different(tmp_path: Path) -> None:
    """The issue's case: Debian's d3d12.h with `INT BaseVertexLocation` changed to `UINT`: the one difference, by
    struct, field and both types, and nothing else of d3d12.h changes status."""
    _d3d12h()
    text = D3D12_H.read_text()
    assert text.count("    INT BaseVertexLocation;") == 1
    copy = tmp_path / "d3d12.h"
    copy.write_text(text.replace("    INT BaseVertexLocation;", "    UINT BaseVertexLocation;"))
    report = run(tmp_path, [copy])
    assert [(e.name, [d.message for d in e.differences]) for e in report.by_status(DIFFERENT)] == [
        ("D3D12_DRAW_INDEXED_ARGUMENTS", ["signedness: unsigned (UINT) in the header, signed (int32_t) in d3d12wl"])]


def test_enum_underlying_type_is_compared_by_what_its_enumerators_read(tmp_path: Path) -> None:
    """d3d12wl's enums have no fixed underlying type, so they are what the Windows target makes of one (int, signed;
    measured in the same compile).  A C++ `enum class ... : uint32_t` reads every enumerator of
    D3D12_INDIRECT_ARGUMENT_SOURCE the same (a note), but D3D12_COMMAND_LIST_TYPE_NONE (-1) as 4294967295: a
    difference, naming the enumerator.  An enum field declared as a UINT follows the same rule."""
    header = engine_header(tmp_path, """
enum class D3D12_INDIRECT_ARGUMENT_SOURCE : uint32_t {
    PRIMARY_RECORD = 1, SECONDARY_RECORD = 2, SYSTEM = 3, PROGRAM_TABLE_RECORD = 4, STATIC = 5 };
enum class D3D12_COMMAND_LIST_TYPE : uint32_t { DIRECT = 0, BUNDLE = 1, COMPUTE = 2, COPY = 3, NONE = 0xFFFFFFFF };
struct D3D12_INDIRECT_ARGUMENT_DESC { uint32_t Type; };
""")
    report = run(tmp_path, [header], prelude="none")
    source = entry(report, "D3D12_INDIRECT_ARGUMENT_SOURCE")
    assert source.status == EQUAL and len(source.notes) == 1
    assert source.notes[0].startswith("D3D12_INDIRECT_ARGUMENT_SOURCE: underlying type: unsigned (")
    assert "every enumerator of the enum reads the same in both" in source.notes[0]
    (d,) = entry(report, "D3D12_COMMAND_LIST_TYPE").differences
    assert d.what == "underlying type" and "D3D12_COMMAND_LIST_TYPE_NONE reads 4294967295" in d.header
    assert d.d3d12wl.endswith(": -1")
    desc = entry(report, "D3D12_INDIRECT_ARGUMENT_DESC")
    assert not [x for x in desc.differences if x.what == "signedness"]
    assert any(n.startswith("D3D12_INDIRECT_ARGUMENT_DESC.Type: signedness: unsigned (uint32_t)") for n in desc.notes)


def test_provisional_value_assigned_differently_is_reported_with_the_headers_value(tmp_path: Path) -> None:
    """design.md: the 11 Work Lists argument types' values are provisional.  A header that assigns
    _FIXED_DISPATCH 40 is not an error; the report gives 40 to adopt, and the verdict passes.  The DDI enumerator
    defined as the API one (D3D12DDI_..._FIXED_DISPATCH = D3D12_..._FIXED_DISPATCH) is provisional with it."""
    edit = {EI: ("D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = 12,", "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = 40,")}
    report = run(tmp_path, own_headers(tmp_path, edit))
    assert report.ok
    e = entry(report, "D3D12_INDIRECT_ARGUMENT_TYPE")
    assert e.status == PROVISIONAL
    (d,) = e.differences
    assert (d.where, d.header, d.d3d12wl) == ("D3D12_INDIRECT_ARGUMENT_TYPE.D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH",
                                              40, 12)
    assert d.provisional and "adopt the header's 40" in d.message
    (ddi,) = entry(report, "D3D12DDI_INDIRECT_ARGUMENT_TYPE").differences
    assert (ddi.header, ddi.d3d12wl) == (40, 12) and "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH" in ddi.provisional
    assert entry(report, "D3D12DDI_INDIRECT_ARGUMENT_TYPE").status == PROVISIONAL


def test_provisional_value_taken_by_another_name_is_reported(tmp_path: Path) -> None:
    """A header that lacks _FIXED_DISPATCH but gives its provisional value 12 to another enumerator: the report
    says whose value it is (a collision a user must resolve before adopting the header)."""
    edit = {EI: ("D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = 12,", "D3D12_INDIRECT_ARGUMENT_TYPE_SOMETHING_NEW = 12,")}
    headers = own_headers(tmp_path, edit)
    report = run(tmp_path, [h for h in headers if h.name in (BASE, EI)])  # an SDK header without the DDI
    e = entry(report, "D3D12_INDIRECT_ARGUMENT_TYPE")
    assert e.status == PROVISIONAL and "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH" in e.lacks
    assert e.extra == ["D3D12_INDIRECT_ARGUMENT_TYPE_SOMETHING_NEW"]
    assert "12 is D3D12_INDIRECT_ARGUMENT_TYPE_SOMETHING_NEW" in e.differences[0].message


def test_changed_constant_and_renamed_field(tmp_path: Path) -> None:
    """A constant with another value is a difference; a field renamed in place (same offset and size) is a note,
    not a difference: the bytes agree."""
    edit = {WL: ("#define D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE 4096", "#define D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE 2048"),
            BASE: ("typedef struct D3D12_GPU_DESCRIPTOR_HANDLE\n{\n    uint64_t ptr;",
                   "typedef struct D3D12_GPU_DESCRIPTOR_HANDLE\n{\n    uint64_t Pointer;")}
    report = run(tmp_path, own_headers(tmp_path, edit))
    d = differences(report, "D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")[("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE", "value")]
    assert (d.header, d.d3d12wl) == (2048, 4096)
    handle = entry(report, "D3D12_GPU_DESCRIPTOR_HANDLE")
    assert handle.status == EQUAL and handle.notes == ["ptr: named Pointer in the header"]


def test_cli_mutation_exits_1_and_names_type_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit = {EI: ("    int32_t BaseVertexLocation;", "    uint32_t Pad;\n    int32_t BaseVertexLocation;")}
    args = ["abi", "check"] + [a for h in own_headers(tmp_path, edit) for a in ("--header", str(h))]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "D3D12_DRAW_INDEXED_ARGUMENTS.BaseVertexLocation: offset: 16 in the header, 12 in d3d12wl" in out
    assert "verdict: FAIL" in out
    assert main([*args, "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["counts"][DIFFERENT] >= 1


def test_map_names_a_type_the_header_calls_otherwise(tmp_path: Path) -> None:
    header = tmp_path / "engine_types.h"
    header.write_text("#include <stdint.h>\nstruct DrawArgs { uint32_t v, i, sv, si; };\n")
    report = run(tmp_path, [header], mapping={"D3D12_DRAW_ARGUMENTS": "DrawArgs"}, prelude="none")
    e = entry(report, "D3D12_DRAW_ARGUMENTS")
    assert e.header_name == "DrawArgs" and e.status == EQUAL
    assert e.notes == ["VertexCountPerInstance: named v in the header", "InstanceCount: named i in the header",
                       "StartVertexLocation: named sv in the header", "StartInstanceLocation: named si in the header"]


# --- (d) engine record structs ---------------------------------------------------------------------------------

#: The Work Lists spec's culling example, "GPU culling and work list emission": its HLSL SecondaryRecord declared in
#: C (uint64_t MaterialBufferSRV; then the four _DRAW arguments as uints), with a primary record and a
#: program-table slot, as the package bundles it.
SPEC_RECORDS = EXAMPLES / "culling_records.h"


def engine_header(tmp: Path, body: str, name: str = "engine.h") -> Path:
    path = tmp / name
    path.write_text("#pragma once\n#include <stdint.h>\n" + body)
    return path


def records(names: dict[str, str], signature: Path = CULLING) -> list[header_records.RecordBinding]:
    return header_records.bind(signature, names)


def test_spec_culling_secondary_record_matches_the_layout(tmp_path: Path) -> None:
    """The spec's own SecondaryRecord (Root SRV 8 bytes + _DRAW 16 bytes, stride 24) fits the layout calculator's
    secondary record of the culling PCS: the four uints lie inside the _DRAW payload."""
    report = run(tmp_path, [SPEC_RECORDS], records=records({"PCS.secondary": "SecondaryRecord"}), prelude="none")
    e = entry(report, "PCS.secondary")
    assert (e.kind, e.header_name, e.status, e.compared) == ("record", "SecondaryRecord", EQUAL, 5)
    assert report.ok


def test_secondary_record_with_the_srv_at_offset_4_is_caught(tmp_path: Path) -> None:
    """An 8-byte SRV placed at offset 4 (a leading uint under pack(4)) straddles the SRV and _DRAW payloads."""
    header = engine_header(tmp_path, """
#pragma pack(push, 4)
struct SecondaryRecord { uint32_t flags; uint64_t srv; uint32_t vertexCount, instanceCount, startVertex; };
#pragma pack(pop)
""")
    report = run(tmp_path, [header], records=records({"PCS.secondary": "SecondaryRecord"}), prelude="none")
    assert not report.ok
    e = entry(report, "PCS.secondary")
    d = differences(report, "PCS.secondary")[("SecondaryRecord.srv", "placement")]
    assert d.header == "[4..11] (8 bytes)"
    assert "arg0_ShaderResourceView [0..7]" in d.d3d12wl and "arg1_Draw [8..23]" in d.d3d12wl
    assert e.status == DIFFERENT


def test_record_gap_and_overlong_stride_are_caught(tmp_path: Path) -> None:
    """A _DRAW payload one uint short leaves bytes 20..23 uncovered; a struct wider than the declared
    SecondaryRecordByteStride (24) would overwrite the next record."""
    header = engine_header(tmp_path, """
struct Short { uint64_t srv; uint32_t a, b, c; };
struct Long { uint64_t srv; uint32_t a, b, c, d; uint64_t tag; };
""")
    report = run(tmp_path, [header], prelude="none", records=[
        *records({"PCS.secondary": "Short"}), *[
            header_records.RecordBinding("PCS.secondary#2", "Long", b.layout, b.declared_stride)
            for b in records({"PCS.secondary": "Long"})]])
    short = {(d.where, d.what): d for d in entry(report, "PCS.secondary").differences}
    assert ("Short bytes [20..23]", "coverage") in short
    long_ = {(d.where, d.what): d for d in entry(report, "PCS.secondary#2").differences}
    d = long_[("Long", "size vs the declared SecondaryRecordByteStride")]
    assert (d.header, d.d3d12wl) == (32, 24)


def test_header_struct_spanning_whole_fields_and_namespaced_structs(tmp_path: Path) -> None:
    """A primary record declared with the fixed header as one D3D12_WORK_LIST_PRIMARY_RECORD member spans the
    three header fields exactly; a C++ struct in a namespace is found by its unqualified name."""
    header = engine_header(tmp_path, """
#include "d3d12wl_base.h"
#include "d3d12wl_execute_indirect.h"
#include "d3d12wl_work_lists.h"
namespace engine {
struct Primary { D3D12_WORK_LIST_PRIMARY_RECORD header; };
struct ProgramTableRecord { D3D12_PROGRAM_IDENTIFIER id; float tint[4]; };
}
""")
    report = run(tmp_path, [header], prelude="none",
                 records=records({"PCS.primary": "Primary", "PCS.program_table": "ProgramTableRecord"}))
    assert entry(report, "PCS.primary").status == EQUAL
    table = entry(report, "PCS.program_table")
    assert (table.header_name, table.status) == ("engine::ProgramTableRecord", EQUAL)


def test_codegen_structs_bind_by_default_and_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`d3d12wl codegen --lang c` output, checked with only --description: every record struct binds by its
    generated name and agrees with the layout calculator (the two views of one layout)."""
    for example in ("culling", "tier2_chain", "gpu_resident_diagram"):
        assert main(["codegen", str(EXAMPLES / f"{example}.json"), "--lang", "c"]) == 0
        header = tmp_path / f"{example}_records.h"
        header.write_text(capsys.readouterr().out)
        assert main(["abi", "check", "--header", str(header), "--description", str(EXAMPLES / f"{example}.json"),
                     "--header-lang", "c", "--prelude", "none", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        recs = [e for e in doc["entries"] if e["kind"] == "record"]
        assert recs and all(e["status"] == EQUAL for e in recs), example


def test_record_structs_key_of_the_description(tmp_path: Path) -> None:
    """The binding may live in the description itself (`record_structs`), which still validates."""
    doc = json.loads(CULLING.read_text())
    doc["record_structs"] = {"PCS.secondary": "SecondaryRecord"}
    sig = tmp_path / "culling_with_structs.json"
    sig.write_text(json.dumps(doc))
    (binding,) = header_records.bind(sig, {})
    assert (binding.record, binding.struct, binding.declared_stride) == ("PCS.secondary", "SecondaryRecord", 24)
    assert main(["validate", str(sig)]) == 0


def test_unknown_record_class_and_undeclared_struct_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ABIError, match="PCS.tertiary.*record classes: PCS.primary, PCS.secondary, PCS.program_table"):
        header_records.bind(CULLING, {"PCS.tertiary": "X"})
    with pytest.raises(ABIError, match="declare no struct or class 'Nope'"):
        run(tmp_path, [SPEC_RECORDS], records=records({"PCS.secondary": "Nope"}), prelude="none")


def test_cpp_base_class_array_typedef_and_vtable(tmp_path: Path) -> None:
    """C++ engines derive from the header struct and name arrays by typedef: both bind; a struct with virtual
    functions carries a vtable pointer no record has, named as such."""
    header = engine_header(tmp_path, """
#include "d3d12wl_base.h"
#include "d3d12wl_execute_indirect.h"
#include "d3d12wl_work_lists.h"
struct Primary : D3D12_WORK_LIST_PRIMARY_RECORD {};
typedef float Tint[4];
struct Slot { D3D12_PROGRAM_IDENTIFIER id; Tint tint; };
struct Virtual { virtual ~Virtual(); D3D12_WORK_LIST_PRIMARY_RECORD header; };
""")
    report = run(tmp_path, [header], prelude="none", records=[
        *records({"PCS.primary": "Primary", "PCS.program_table": "Slot"}),
        *[header_records.RecordBinding("PCS.primary#virtual", "Virtual", b.layout, b.declared_stride)
          for b in records({"PCS.primary": "Virtual"})]])
    assert entry(report, "PCS.primary").status == EQUAL
    assert entry(report, "PCS.program_table").status == EQUAL
    virtual = differences(report, "PCS.primary#virtual")
    assert virtual[("Virtual", "hidden bytes")].header.startswith("a vtable pointer")
    assert ("Virtual bytes [0..3]", "coverage") in virtual


def test_cpp_enum_class_with_short_enumerators_and_a_union_for_a_struct(tmp_path: Path) -> None:
    """A C++ engine's `enum class` may spell the enumerators short (DRAW for D3D12_INDIRECT_ARGUMENT_TYPE_DRAW):
    they match, values compared; a union declared where the spec has a struct is a difference even when the
    bytes happen to agree."""
    header = engine_header(tmp_path, """
enum class D3D12_INDIRECT_ARGUMENT_SOURCE : uint32_t {
    PRIMARY_RECORD = 1, SECONDARY_RECORD = 2, SYSTEM = 3, PROGRAM_TABLE_RECORD = 4, STATIC = 6 };
union D3D12_GPU_DESCRIPTOR_HANDLE { uint64_t ptr; };
""")
    report = run(tmp_path, [header], prelude="none")
    source = entry(report, "D3D12_INDIRECT_ARGUMENT_SOURCE")
    assert source.compared == len(abi.enum_members("D3D12_INDIRECT_ARGUMENT_SOURCE")) and not source.extra
    (d,) = source.differences
    assert (d.where, d.header, d.d3d12wl) == ("D3D12_INDIRECT_ARGUMENT_SOURCE.D3D12_INDIRECT_ARGUMENT_SOURCE_STATIC",
                                              6, 5)
    handle = differences(report, "D3D12_GPU_DESCRIPTOR_HANDLE")
    assert (handle[("D3D12_GPU_DESCRIPTOR_HANDLE", "aggregate")].header,
            handle[("D3D12_GPU_DESCRIPTOR_HANDLE", "aggregate")].d3d12wl) == ("union", "struct")


def test_windows_h_stub_serves_without_directx_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only Linux, clang and this package: a header written against <windows.h> types compiles through d3d12wl's
    own Windows-target stub (UINT, UINT64, FLOAT with their Windows widths), and <d3d12.h> missing is said with
    what to install."""
    monkeypatch.setattr(header_probe, "find_d3d12_headers", lambda: None)
    header = engine_header(tmp_path, """
#include <windows.h>
typedef UINT64 D3D12_GPU_VIRTUAL_ADDRESS;
typedef struct D3D12_VERTEX_BUFFER_VIEW { D3D12_GPU_VIRTUAL_ADDRESS BufferLocation; UINT SizeInBytes;
                                          UINT StrideInBytes; } D3D12_VERTEX_BUFFER_VIEW;
typedef struct D3D12_DISPATCH_ARGUMENTS { UINT ThreadGroupCountX; UINT ThreadGroupCountY; ULONG ThreadGroupCountZ; }
    D3D12_DISPATCH_ARGUMENTS;
typedef struct D3D12_DRAW_ARGUMENTS { UINT VertexCountPerInstance; UINT InstanceCount; LONG StartVertexLocation;
                                      BOOL StartInstanceLocation; } D3D12_DRAW_ARGUMENTS;
""")
    report = run(tmp_path, [header])
    assert entry(report, "D3D12_VERTEX_BUFFER_VIEW").status == EQUAL
    assert entry(report, "D3D12_GPU_VIRTUAL_ADDRESS").status == EQUAL
    assert entry(report, "D3D12_DISPATCH_ARGUMENTS").status == EQUAL  # ULONG is 32-bit on Windows
    # LONG is 32-bit too, and signed, as BOOL is (an int): where the spec has a UINT, each is named
    assert {(d.where, d.what) for d in entry(report, "D3D12_DRAW_ARGUMENTS").differences} == {
        ("D3D12_DRAW_ARGUMENTS.StartVertexLocation", "signedness"),
        ("D3D12_DRAW_ARGUMENTS.StartInstanceLocation", "signedness")}
    needs_sdk = engine_header(tmp_path, "#include <d3d12.h>\n", "needs_sdk.h")
    with pytest.raises(ABIError, match="apt-get install directx-headers-dev"):
        run(tmp_path, [needs_sdk])


def test_namespaced_redeclaration_with_nested_types_is_compared_at_every_depth(tmp_path: Path) -> None:
    """An engine's own C++ redeclaration in a namespace, mapped with --map: members whose types are written
    unqualified (`Range`) or declared inline (`struct Table { ... } MissShaderTable`) are followed to every depth,
    so a field moved inside a nested struct is named by its full path."""
    header = engine_header(tmp_path, """
namespace engine {
struct Range { uint64_t StartAddress; uint64_t SizeInBytes; };
struct RangeAndStride { uint64_t StartAddress; uint64_t SizeInBytes; uint64_t StrideInBytes; };
struct DispatchRays {
    Range RayGenerationShaderRecord;
    struct Table { uint64_t StartAddress; uint64_t StrideInBytes; uint64_t SizeInBytes; } MissShaderTable;
    RangeAndStride HitGroupTable;
    RangeAndStride CallableShaderTable;
    uint32_t Width; uint32_t Height; uint32_t Depth;
};
}
""")
    report = run(tmp_path, [header], prelude="none", mapping={"D3D12_DISPATCH_RAYS_DESC": "engine::DispatchRays"})
    e = entry(report, "D3D12_DISPATCH_RAYS_DESC")
    assert e.compared == len(abi.type_info("D3D12_DISPATCH_RAYS_DESC").walk())
    diffs = differences(report, "D3D12_DISPATCH_RAYS_DESC")
    moved = diffs[("D3D12_DISPATCH_RAYS_DESC.MissShaderTable.SizeInBytes", "offset")]
    assert (moved.header, moved.d3d12wl) == (32, 24)
    assert ("D3D12_DISPATCH_RAYS_DESC.MissShaderTable", "field order") in diffs
    assert set(diffs) == {("D3D12_DISPATCH_RAYS_DESC.MissShaderTable.SizeInBytes", "offset"),
                          ("D3D12_DISPATCH_RAYS_DESC.MissShaderTable.StrideInBytes", "offset"),
                          ("D3D12_DISPATCH_RAYS_DESC.MissShaderTable", "field order")}
