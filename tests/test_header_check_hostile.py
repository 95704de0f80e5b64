"""Bad and hostile input to `d3d12wl abi check --header`, through the CLI.

Bad options exit 2 before clang runs, naming the option or path.  Headers that do not compile exit 2 with
clang's own errors and nothing on stdout; headers that compile but try to confuse the probes still get a
verdict.  Tests that compile skip without clang on a user's machine and fail under CI=true (CI installs it);
the one that includes <directx/d3d12.h> does the same for directx-headers-dev.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from conftest import require

from d3d12wl import abi
from d3d12wl.abi import check as abi_check
from d3d12wl.cli import main
from d3d12wl.headercheck import check as header_check
from d3d12wl.headercheck import probe as header_probe

SIGNATURE = Path(abi.__file__).parents[1] / "examples" / "culling.json"
STATUSES = {"equal", "different", "provisional", "missing"}

DRAW_ARGUMENTS = """typedef struct D3D12_DRAW_ARGUMENTS {
    uint32_t VertexCountPerInstance; uint32_t InstanceCount;
    uint32_t StartVertexLocation; uint32_t StartInstanceLocation;
} D3D12_DRAW_ARGUMENTS;
"""


@pytest.fixture
def clang() -> str:
    """clang (the x86_64-pc-windows-msvc compile), or skip; under CI=true its absence fails."""
    found = abi_check.find_clang()
    if found is None:
        require(False, "clang not installed: abi check --header cannot compile for x86_64-pc-windows-msvc")
    return found


def _header(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    rc = main(["abi", "check", *(str(a) for a in argv)])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _json(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, dict]:
    rc, out, err = _run(capsys, *argv, "--json")
    assert rc in (0, 1), err
    return rc, json.loads(out)


def _entry(data: dict, name: str) -> dict:
    (entry,) = [e for e in data["entries"] if e["name"] == name]
    return entry


# --- bad options: exit 2 before any compile ---------------------------------------------------------------

BAD_OPTIONS = {
    "missing header": (["--header", "{tmp}/nope.h"], ["{tmp}/nope.h", "no such file"]),
    "include is a file": (["--header", "{ok}", "--include", "{ok}"], ["{ok}", "no such directory"]),
    "include is missing": (["--header", "{ok}", "--include", "{tmp}/no-dir"], ["{tmp}/no-dir", "no such directory"]),
    "define starts with a digit": (["--header", "{ok}", "--define", "1BAD"], ["--define", "'1BAD'"]),
    "define with a dash": (["--header", "{ok}", "--define", "A-B=1"], ["--define", "'A-B=1'"]),
    "record without signature": (["--header", "{ok}", "--record-struct", "PCS.secondary=S"], ["--record-struct", "--description"]),
    "record without =": (["--header", "{ok}", "--description", str(SIGNATURE), "--record-struct", "PCS.secondary"],
                         ["--record-struct", "'PCS.secondary' is not NAME=VALUE"]),
    "header and headers": (["--header", "{ok}", "--headers", "{tmp}"], ["--header", "--headers"]),
    "include without header": (["--include", "{tmp}"], ["--include", "only apply with --header"]),
    "signature without header": (["--description", str(SIGNATURE)], ["--description", "only apply with --header"]),
    "define without header": (["--define", "X=1"], ["--define", "only apply with --header"]),
    "map without header": (["--map", "A=B"], ["--map", "only apply with --header"]),
    "record without header": (["--record-struct", "A=B"], ["--record-struct", "only apply with --header"]),
    "hlsl without signature": (["--hlsl", "{ok}"], ["--hlsl", "needs --description"]),
    "missing prelude": (["--header", "{ok}", "--prelude", "{tmp}/pre.h"], ["--prelude {tmp}/pre.h", "no such file"]),
    "missing signature": (["--header", "{ok}", "--description", "{tmp}/sig.json"], ["{tmp}/sig.json"]),
    "signature not JSON": (["--header", "{ok}", "--description", "{ok}"], ["{ok}", "not valid JSON"]),
    "unknown record class": (["--header", "{ok}", "--description", str(SIGNATURE), "--record-struct", "PCS.nope=S"],
                             ["--record-struct", "PCS.nope", "PCS.primary, PCS.secondary, PCS.program_table"]),
}

BAD_MAPS = {"map without =": (["--header", "{ok}", "--map", "FOO"], ["--map", "'FOO' is not NAME=VALUE"]),
            "map with empty name": (["--header", "{ok}", "--map", "=X"], ["--map", "'=X' is not NAME=VALUE"])}


@pytest.mark.parametrize("case", [*BAD_OPTIONS, *BAD_MAPS])
def test_bad_options_exit_2_naming_the_option_before_clang_runs(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bad option exits 2 with one error line naming the option or path, prints nothing on stdout, and is
    rejected before clang is run (a run would raise here, which `main` does not catch)."""

    def no_clang(cmd: list[str], cwd: Path) -> None:
        raise AssertionError(f"clang ran for a bad option: {cmd}")

    monkeypatch.setattr(header_probe, "run_tool", no_clang)
    monkeypatch.setattr(header_probe, "_ast_dump", no_clang)
    monkeypatch.setattr(header_probe, "find_clang", lambda: "clang")  # the same verdicts on a machine without it
    ok = _header(tmp_path, "ok.h", "struct A { int a; };\n")
    _check_bad_option(tmp_path, capsys, ok, *{**BAD_OPTIONS, **BAD_MAPS}[case])


def _check_bad_option(tmp_path: Path, capsys: pytest.CaptureFixture[str], ok: Path, argv: list[str],
                      expected: list[str]) -> None:
    fill = {"tmp": str(tmp_path), "ok": str(ok)}
    rc, out, err = _run(capsys, *(a.format(**fill) for a in argv))
    assert rc == 2 and out == ""
    assert err.startswith("d3d12wl abi: error: ") and err.count("\n") == 1, err
    for text in expected:
        assert text.format(**fill) in err


def test_header_path_with_a_quote_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path #include cannot spell (a double quote in it) is refused naming the path, not mistaken for another."""
    odd = _header(tmp_path, 'we"ird.h', "struct A { int a; };\n")
    rc, out, err = _run(capsys, "--header", odd)
    assert rc == 2 and out == "" and 'we"ird.h' in err and "double quote" in err


# --- headers that do not compile -----------------------------------------------------------------------------


def test_syntax_error_names_file_line_and_clang_error(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A syntax error exits 2 with the header's path, line and column and clang's own message; stdout stays
    empty (no partial report)."""
    h = _header(tmp_path, "broken.h", "#include <stdint.h>\nstruct A { int x; };\nstruct B { int y int z; };\n")
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none")
    assert rc == 2 and out == ""
    assert "do not compile for x86_64-pc-windows-msvc (c++)" in err
    assert f"{h}:3:17: error: expected ';' at end of declaration list" in err


def test_error_directive_is_reported(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A header that `#error`s exits 2 with its message and location."""
    h = _header(tmp_path, "refuses.h", "#pragma once\n#error this header refuses to compile\n")
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none")
    assert rc == 2 and out == ""
    assert f"{h}:2:2: error: this header refuses to compile" in err


def test_include_cycle_stops_before_clang_runs(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    """A header that includes itself (no guard) exits 2 at once, named with its chain, before clang runs (the
    include walk of headercheck.sources; glslc would follow it without end, clang until its own depth of 200)."""
    h = _header(tmp_path, "self.h", '#include "self.h"\nstruct S { int a; };\n')
    start = time.monotonic()
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none")
    assert time.monotonic() - start < 60
    assert rc == 2 and out == ""
    assert f"{h}: self.h includes itself (self.h -> self.h) with no include guard or #pragma once" in err
    guarded = _header(tmp_path, "guarded.h", '#pragma once\n#include "guarded.h"\nstruct G { int a; };\n')
    assert _run(capsys, "--header", guarded, "--prelude", "none")[0] == 0  # a guard makes it legal


def test_hundreds_of_errors_are_cut_to_30_lines(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    """clang's diagnostics of a header with 200 errors are cut to 30 lines plus a count, not dumped whole."""
    h = _header(tmp_path, "errors.h", "".join(f"int v{i} = undeclared{i};\n" for i in range(200)))
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none")
    assert rc == 2 and out == ""
    clang_lines = err.splitlines()[1:]
    assert len(clang_lines) == 31 and all(": error: " in line for line in clang_lines[:30])
    assert re.fullmatch(r"  \.\.\. and \d+ more", clang_lines[-1])


def test_c_on_cplusplus_header_reports_clangs_error(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--header-lang c on a header with a namespace exits 2 with clang's C error and the language named (the same
    header compiles as C++ in test_unqualified_record_name_in_two_namespaces_is_ambiguous)."""
    h = _header(tmp_path, "ns.h", "namespace ns { struct A { int x; }; }\n")
    rc, out, err = _run(capsys, "--header", h, "--header-lang", "c", "--prelude", "none")
    assert rc == 2 and out == ""
    assert "x86_64-pc-windows-msvc (c):" in err
    assert f"{h}:1:1: error: unknown type name 'namespace'" in err


# --- headers that compile but try to break the probes -----------------------------------------------------


def test_macros_shadowing_offsetof_and_constants_do_not_fool_the_probes(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`offsetof` redefined to 0 does not change the measured offsets (the probes use __builtin_offsetof), a
    d3d12wl constant defined to an undeclared name is reported "not an integer", and one defined to a float
    is measured as the integer it converts to; the check completes with exit 1."""
    h = _header(tmp_path, "macros.h", "#include <stdint.h>\n#include <stddef.h>\n#undef offsetof\n"
                "#define offsetof(a, b) 0\n#define S_OK not_declared_anywhere\n"
                "#define D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT 1.5\n" + DRAW_ARGUMENTS)
    rc, data = _json(capsys, "--header", h, "--prelude", "none")
    assert rc == 1 and not data["ok"]
    assert _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal"
    s_ok = _entry(data, "S_OK")
    assert s_ok["status"] == "different"
    (diff,) = s_ok["differences"]
    assert diff["header"].startswith("not an integer") and "not_declared_anywhere" in diff["header"]
    (slots,) = _entry(data, "D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT")["differences"]
    assert (slots["header"], slots["d3d12wl"]) == (1, 32)
    assert data["counts"]["different"] == 2


def test_constant_defined_to_a_string_is_a_difference_not_a_failure(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`#define S_OK "ok"` still gets a verdict: S_OK is a difference (or missing), never an exit-2 failure of
    the whole check, and the other declarations are still compared."""
    h = _header(tmp_path, "strdef.h", '#include <stdint.h>\n#define S_OK "ok"\n' + DRAW_ARGUMENTS)
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none", "--json")
    assert rc in (0, 1), err
    data = json.loads(out)
    assert _entry(data, "S_OK")["status"] in ("different", "missing")
    assert _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal"


def test_extern_const_constant_does_not_blind_the_other_probes_in_cplusplus(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A d3d12wl constant declared `extern const` (no value to read) is missing or "not an integer" in C++ as in
    C, and the struct beside it is still measured (equal), so the verdict passes."""
    h = _header(tmp_path, "extern.h", "#include <stdint.h>\n"
                "extern const uint32_t D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT;\n" + DRAW_ARGUMENTS)
    rc, data = _json(capsys, "--header", h, "--prelude", "none")
    assert _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal"
    assert _entry(data, "D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT")["status"] in ("missing", "different")
    assert data["counts"]["different"] <= 1


def test_huge_enum_completes_and_counts_extra_enumerators(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An enum named like one of d3d12wl's with 20,000 enumerators of its own is checked in one probe run:
    d3d12wl's members compare equal and all 20,000 others are listed as extra, in order."""
    ours = abi.enum_members("D3D12_WORK_LISTS_TIER")
    lines = [f"    {m} = {v}," for m, v in ours.items()] + [f"    HUGE_{i} = {1000 + i}," for i in range(20000)]
    h = _header(tmp_path, "huge.h", "typedef enum D3D12_WORK_LISTS_TIER {\n" + "\n".join(lines)
                + "\n} D3D12_WORK_LISTS_TIER;\n")
    rc, data = _json(capsys, "--header", h, "--prelude", "none")
    assert rc == 0
    e = _entry(data, "D3D12_WORK_LISTS_TIER")
    assert e["status"] == "equal" and e["differences"] == [] and e["lacks"] == []
    assert e["compared"] == len(ours) == 3
    assert e["extra"] == [f"HUGE_{i}" for i in range(20000)]
    assert data["extra"]["enums"] == []  # the enum itself is d3d12wl's, not extra


# --- the JSON verdict --------------------------------------------------------------------------------------


def test_json_shape_and_every_status(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json on a small C header has the documented keys and target; one entry of each status (an equal struct,
    a struct with a bit-field and an extra field, an enum differing only in a provisional value, and missing
    ones); the counts agree with the entries; extra names the header's own struct, enum and callback."""
    members = dict(abi.enum_members("D3D12_INDIRECT_ARGUMENT_TYPE"))
    members["D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH"] = 99  # provisional in d3d12wl (12)
    enum = ",\n".join(f"    {m} = {v}" for m, v in members.items())
    h = _header(tmp_path, "small.h", "#include <stdint.h>\n" + DRAW_ARGUMENTS
                + "typedef struct D3D12_DISPATCH_ARGUMENTS { uint32_t ThreadGroupCountX : 32; uint32_t ThreadGroupCountY;"
                " uint32_t ThreadGroupCountZ; uint32_t Spare; } D3D12_DISPATCH_ARGUMENTS;\n"
                f"typedef enum D3D12_INDIRECT_ARGUMENT_TYPE {{\n{enum}\n}} D3D12_INDIRECT_ARGUMENT_TYPE;\n"
                "struct EngineOnly { int a; };\nenum EngineEnum { ENGINE_A };\n"
                "typedef void (*PFN_ENGINE_CALLBACK)(int);\n")
    rc, data = _json(capsys, "--header", h, "--header-lang", "c", "--prelude", "none")
    assert rc == 1
    assert set(data) == {"ok", "headers", "compiler", "target", "lang", "records_only", "counts", "entries", "extra"}
    assert data["records_only"] is False
    assert data["ok"] is False and data["headers"] == [str(h)] and data["lang"] == "c"
    assert data["target"] == "x86_64-pc-windows-msvc" and "clang" in data["compiler"]
    assert set(data["counts"]) == STATUSES
    keys = {"kind", "name", "header_name", "status", "compared", "differences", "lacks", "extra", "notes"}
    for e in data["entries"]:
        assert set(e) == keys and e["status"] in STATUSES, e
        for d in e["differences"]:
            assert set(d) == {"where", "what", "header", "d3d12wl", "provisional", "message"}
    assert data["counts"] == {s: sum(e["status"] == s for e in data["entries"]) for s in STATUSES}
    assert _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal"
    dispatch = _entry(data, "D3D12_DISPATCH_ARGUMENTS")
    assert dispatch["status"] == "different" and dispatch["extra"] == ["Spare"]
    assert {(d["where"], d["what"]) for d in dispatch["differences"]} == {
        ("D3D12_DISPATCH_ARGUMENTS", "size"), ("D3D12_DISPATCH_ARGUMENTS.ThreadGroupCountX", "bit-field")}
    iat = _entry(data, "D3D12_INDIRECT_ARGUMENT_TYPE")
    (fixed,) = iat["differences"]
    assert iat["status"] == "provisional" and fixed["provisional"]
    assert (fixed["header"], fixed["d3d12wl"]) == (99, 12) and "adopt the header's 99" in fixed["message"]
    assert _entry(data, "D3D12_PROGRAM_IDENTIFIER") == {
        "kind": "struct", "name": "D3D12_PROGRAM_IDENTIFIER", "header_name": None, "status": "missing",
        "compared": 0, "differences": [], "lacks": [], "extra": [], "notes": []}
    assert data["extra"] == {"structs": ["EngineOnly"], "enums": ["EngineEnum"], "callbacks": ["PFN_ENGINE_CALLBACK"]}


# --- engine record structs ----------------------------------------------------------------------------------

NAMESPACES = """#include <stdint.h>
namespace good { struct SecondaryRecord { uint64_t srv; uint32_t draw[4]; }; }
namespace bad { struct SecondaryRecord { uint32_t srv; uint32_t draw[4]; }; }
"""


def test_unqualified_record_name_in_two_namespaces_is_ambiguous(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--record-struct by a name two namespaces declare exits 2 "ambiguous", naming both qualified names."""
    h = _header(tmp_path, "engine.hpp", NAMESPACES)
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none", "--description", SIGNATURE,
                        "--record-struct", "PCS.secondary=SecondaryRecord")
    assert rc == 2 and out == ""
    assert "--record-struct PCS.secondary" in err and "'SecondaryRecord' is ambiguous" in err
    assert "bad::SecondaryRecord, good::SecondaryRecord" in err


@pytest.mark.parametrize(("struct", "rc", "status"), [("good::SecondaryRecord", 0, "equal"),
                                                       ("bad::SecondaryRecord", 1, "different")])
def test_qualified_record_name_binds_that_struct(
    struct: str, rc: int, status: str, clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A qualified --record-struct binds exactly that struct: the 24-byte one matches PCS.secondary, the 20-byte one
    in the other namespace is a difference; the other struct is listed as extra."""
    h = _header(tmp_path, "engine.hpp", NAMESPACES)
    got, data = _json(capsys, "--header", h, "--prelude", "none", "--description", SIGNATURE,
                      "--record-struct", f"PCS.secondary={struct}")
    assert got == rc
    e = _entry(data, "PCS.secondary")
    assert (e["kind"], e["header_name"], e["status"]) == ("record", struct, status)
    other = "bad::SecondaryRecord" if struct.startswith("good") else "good::SecondaryRecord"
    assert data["extra"]["structs"] == [other]


def test_record_naming_no_struct_exits_2(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--record-struct bound to a name the header does not declare exits 2 naming the binding, not a silent skip."""
    h = _header(tmp_path, "engine.hpp", NAMESPACES)
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none", "--description", SIGNATURE,
                        "--record-struct", "PCS.secondary=NoSuchRecord")
    assert rc == 2 and out == ""
    assert "--record-struct PCS.secondary=NoSuchRecord" in err and "declare no struct or class 'NoSuchRecord'" in err


def test_signature_binding_nothing_exits_2(clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--description without --record-struct, on a header declaring none of codegen's record struct names, exits 2 naming
    those names instead of passing with no record checked."""
    h = _header(tmp_path, "engine.hpp", NAMESPACES)
    rc, out, err = _run(capsys, "--header", h, "--prelude", "none", "--description", SIGNATURE)
    assert rc == 2 and out == ""
    assert "--description" in err and "no record struct to check" in err and "PCS.secondary=PCS_SecondaryRecord" in err


def test_header_including_d3d12h_lists_only_its_own_extras(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine header that includes all of <directx/d3d12.h> is checked against it (its D3D12 types are equal,
    its record struct binds), and `extra` names only what the engine header itself declares."""
    if abi_check.find_d3d12_headers() is None:
        require(False, "directx-headers-dev not installed: no /usr/include/directx/d3d12.h and wsl/winadapter.h")
    h = _header(tmp_path, "engine.h", "#pragma once\n#include <directx/d3d12.h>\n"
                "struct SecondaryRecord { D3D12_GPU_VIRTUAL_ADDRESS srv; D3D12_DRAW_ARGUMENTS draw; };\n"
                "struct EngineThing { UINT a; D3D12_GPU_VIRTUAL_ADDRESS va; };\n")
    rc, data = _json(capsys, "--header", h, "--description", SIGNATURE, "--record-struct", "PCS.secondary=SecondaryRecord")
    assert rc == 0 and data["counts"]["different"] == 0
    for name in ("D3D12_DRAW_ARGUMENTS", "D3D12_GPU_VIRTUAL_ADDRESS", "D3D12_INDIRECT_ARGUMENT_DESC", "S_OK"):
        assert _entry(data, name)["status"] == "equal", name
    assert _entry(data, "PCS.secondary")["status"] == "equal"
    assert data["extra"] == {"structs": ["EngineThing"], "enums": [], "callbacks": []}


def test_headers_that_define_keywords_do_not_break_the_probes(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header that #defines the words the probe constants are written with (`long`, `extern`, `sizeof`) still
    gets its struct measured: the probes #undef them after the headers."""
    h = _header(tmp_path, "keywords.h", "#include <stdint.h>\n" + DRAW_ARGUMENTS
                + "#define long short\n#define extern static\n#define sizeof(x) 0\n")
    for lang in ("c", "c++"):
        rc, data = _json(capsys, "--header", h, "--prelude", "none", "--header-lang", lang)
        assert rc == 0 and _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal", lang


def test_header_options_without_check_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """`d3d12wl abi --header X` (no `check`) does not silently print the ABI report: it says where --header
    belongs."""
    assert main(["abi", "--header", "x.h"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "belong to `d3d12wl abi check`" in captured.err


def test_deeply_nested_initializer_is_read_and_a_clang_crash_is_named(
    clang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2,000-term `1 + 1 + ...` initializer nests clang's JSON AST 4,000 deep (past Python's default recursion
    limit) and prints it with quadratically many indentation spaces: the check still reads it, in bounded memory.
    200,000 terms crash clang itself: exit 2 naming the signal, not a traceback."""
    deep = _header(tmp_path, "deep.h", "#include <stdint.h>\n" + DRAW_ARGUMENTS
                   + "static const int deep = " + "+".join(["1"] * 2000) + ";\n")
    rc, data = _json(capsys, "--header", deep, "--prelude", "none")
    assert rc == 0 and _entry(data, "D3D12_DRAW_ARGUMENTS")["status"] == "equal"
    crash = _header(tmp_path, "crash.h", "static const int deep = " + "+".join(["1"] * 200_000) + ";\n")
    rc, out, err = _run(capsys, "--header", crash, "--prelude", "none")
    assert rc == 2 and out == "" and err.startswith("d3d12wl abi: error: ")
    assert any(why in err for why in ("clang stopped on signal", "nests deeper than", "exceeds")), err


def test_a_struct_declared_but_never_defined_is_missing_with_a_note(tmp_path: Path) -> None:
    require(abi_check.find_clang() is not None, "clang not installed")
    """`typedef struct X X;` without a definition (as d3d12umddi.h-style headers forward-declare) has no layout to
    compare: the declaration is missing from the header, with a note saying why (it was a KeyError)."""
    header = tmp_path / "forward.h"
    header.write_text("typedef struct D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 D3D12DDI_DRIVER_REPORTED_MESSAGE_0126;\n",
                      encoding="utf-8")
    report = header_check.check_files([header], prelude="none")
    entry = next(e for e in report.entries if e.name == "D3D12DDI_DRIVER_REPORTED_MESSAGE_0126")
    assert entry.status == "missing" and "without defining it" in entry.notes[0]
