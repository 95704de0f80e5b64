"""A deliberately wrong offset in a header is caught, by the tests' check functions and by
`d3d12wl abi check --headers`, with a message naming the type and field (issue 2 "Done when")."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import require_ran

from d3d12wl import abi
from d3d12wl.abi import check as abi_check
from d3d12wl.abi.compiled import ABI
from d3d12wl.cli import main


def _insert_before(text: str, type_name: str, member_line: str, insert: str) -> str:
    start = text.index(f"typedef struct {type_name}\n")
    at = text.index(member_line, start)
    return text[:at] + insert + text[at:]


def mutated_headers() -> dict[str, str]:
    headers = abi.header_texts()
    # a Work Lists record whose offsets the spec states ("Primary record layout")
    headers["d3d12wl_work_lists.h"] = _insert_before(
        headers["d3d12wl_work_lists.h"], "D3D12_WORK_LIST_PRIMARY_RECORD",
        "    uint32_t NumSecondaryRecords;", "    uint32_t MutationPad;\n",
    )  # fmt: skip
    # a pre-existing type that d3d12.h declares
    headers["d3d12wl_execute_indirect.h"] = _insert_before(
        headers["d3d12wl_execute_indirect.h"], "D3D12_DRAW_INDEXED_ARGUMENTS",
        "    int32_t BaseVertexLocation;", "    uint32_t MutationPad;\n",
    )  # fmt: skip
    # a GPU-resident struct whose field offsets the spec does not state, only its size and its DDI mirror
    headers["d3d12wl_work_lists.h"] = _insert_before(
        headers["d3d12wl_work_lists.h"], "D3D12_DISPATCH_LIST_INPUT",
        "    D3D12_DISPATCH_LIST_FLAGS Flags;", "    uint32_t MutationPad;\n",
    )  # fmt: skip
    return headers


@pytest.fixture(scope="session")
def mutated(tmp_path_factory: pytest.TempPathFactory) -> ABI:
    return abi_check.compile_headers(mutated_headers(), tmp_path_factory.mktemp("mutated"))


def test_spec_check_names_type_and_field(mutated: ABI) -> None:
    result = abi_check.check_spec(mutated)
    wheres = {f.where for f in result.findings}
    assert "D3D12_WORK_LIST_PRIMARY_RECORD.NumSecondaryRecords" in wheres
    assert "D3D12_WORK_LIST_PRIMARY_RECORD" in wheres  # size 20 -> 24
    assert "D3D12_DRAW_INDEXED_ARGUMENTS" in wheres  # 20 bytes (Per-arg natural alignment)
    msg = next(str(f) for f in result.findings if f.where.endswith("NumSecondaryRecords"))
    assert "offset is 8, spec says 4" in msg and "Primary record layout" in msg


def test_spec_check_names_the_field_through_the_ddi_mirror(mutated: ABI) -> None:
    """Spec "DDI Design": a GPU-resident API struct and its DDI mirror have the same bytes, so a field moved in one
    of them is named even where the spec states only the struct's size."""
    result = abi_check.check_spec(mutated)
    msgs = {f.where: f.message for f in result.findings}
    assert "is at offset 8 (4 bytes); its DDI mirror D3D12DDI_DISPATCH_LIST_INPUT.Flags is at offset 4" in msgs[
        "D3D12_DISPATCH_LIST_INPUT.Flags"]
    assert "D3D12_DISPATCH_LIST_INPUT.MutationPad" in msgs and "DDI Design" in msgs["D3D12_DISPATCH_LIST_INPUT.Flags"]


def test_d3d12h_check_names_type_and_field(mutated: ABI) -> None:
    result = abi_check.check_d3d12h(mutated)
    require_ran(result)
    wheres = {f.where for f in result.findings}
    assert "D3D12_DRAW_INDEXED_ARGUMENTS.BaseVertexLocation" in wheres
    assert "D3D12_DRAW_INDEXED_ARGUMENTS" in wheres


def test_clang_check_names_type_and_field_when_compilers_disagree(mutated: ABI) -> None:
    # numbers from the mutated compile, text from the real headers: the Windows target disagrees
    crossed = ABI(mutated.ffi, mutated.lib, abi.header_texts())
    result = abi_check.check_clang(crossed)
    require_ran(result)
    wheres = {f.where for f in result.findings}
    assert "D3D12_WORK_LIST_PRIMARY_RECORD.SecondaryRecords" in wheres
    assert "D3D12_DRAW_INDEXED_ARGUMENTS.StartInstanceLocation" in wheres


def test_cli_abi_check_fails_on_mutated_headers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, text in mutated_headers().items():
        (tmp_path / name).write_text(text)
    rc = main(["abi", "check", "--headers", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "D3D12_WORK_LIST_PRIMARY_RECORD.NumSecondaryRecords" in out


def test_cli_abi_check_passes_on_installed_headers(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["abi", "check"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "spec" in out and "mirrors" in out
