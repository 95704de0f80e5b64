"""Numbers the spec types as UINT (or UINT64) are bounded as such wherever they are accepted (issue 42, "What to
build"): every flag of every command that takes a number is found from the parser and classified here, either as
a member of a spec type (the C type it is held in, read from the compiled headers: never typed here) or as a number
of d3d12wl's own, saying why.  Each spec-typed one is given one past its type's largest value (exit 2, naming the
flag or the member it sets, never a wrapped or truncated value) and its largest value (not refused for its range).
The files a user gives are held to the same types by their loaders: the description by its schema (generated from
the C types), the capture by its loader, the remap maps by theirs; tests/test_description.py, test_capture.py and
test_remap.py prove those.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_flags import CULLING, CULLING_REGIONS, EXAMPLES, READBACK, actions, flag_name

from d3d12wl import abi
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import ALL, build_parser, main

WL = ["capture", str(CULLING), *CULLING_REGIONS, "--program-table", "program_table", "-o", "{tmp}/c.json"]
MAX_INPUTS, MAX_LISTS = "--max-graphics-program-inputs-per-primary-list", "--max-graphics-primary-lists"
WL_CALL = ["--dispatch-list", "dispatch_input", MAX_INPUTS, "3"]
EI = ["capture", str(EXAMPLES / "execute_indirect.json"), "{regions}", "--execute-indirect",
      "RootConstantsAndVertexBuffers", "-o", "{tmp}/c.json"]
EI_CALL = ["--argument-buffer", "r0", "--count-buffer", "r1", "--max-command-count", "4"]


def _field(struct: str, member: str) -> str:
    """The C type of ``struct.member`` (the compiled headers')."""
    return next(f.type for f in abi.type_info(struct).fields if f.name == member)


#: every flag that takes a number the spec types: (command, flag) -> (argv with {v} where the number goes, the C
#: type the spec holds it in, a text the error names).  {tmp}: the test's folder; {regions}: the ExecuteIndirect
#: example's regions as files
SPEC: dict[tuple[str, str], tuple[list[str], str, str]] = {
    ("capture", MAX_INPUTS): ([*WL, "--dispatch-list", "dispatch_input", MAX_INPUTS, "{v}"], "uint32_t",
                              "MaxGraphicsProgramInputsPerPrimaryList"),  # (a DDI parameter: UINT)
    ("capture", MAX_LISTS): ([*WL, "--dispatch-list1", "dispatch_input", MAX_INPUTS, "3", MAX_LISTS, "{v}"],
                             "uint32_t", "MaxGraphicsPrimaryLists"),
    ("capture", "--max-command-count"): ([*EI, "--argument-buffer", "r0", "--count-buffer", "r1",
                                          "--max-command-count", "{v}"], "uint32_t", "MaxCommandCount"),
    ("capture", "--slots"): ([*WL, *WL_CALL, "--slots", "{v}"],
                             _field("D3D12_WORK_LIST_PROGRAM_TABLE_BINDING", "SlotCount"), "SlotCount"),
    ("capture", "--stride"): ([*WL, *WL_CALL, "--stride", "{v}"],
                              _field("D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE", "StrideInBytes"), "StrideInBytes"),
    ("capture", "--dispatch-list"): ([*WL, "--dispatch-list", "{v}", MAX_INPUTS, "3"],
                                     "D3D12_GPU_VIRTUAL_ADDRESS", "--dispatch-list"),
    ("capture", "--dispatch-list1"): ([*WL, "--dispatch-list1", "{v}", MAX_INPUTS, "3", MAX_LISTS, "1"],
                                      "D3D12_GPU_VIRTUAL_ADDRESS", "--dispatch-list1"),
    ("capture", "--program-table"): ([*WL[:-4], "--program-table", "{v}", "-o", "{tmp}/c.json", *WL_CALL],
                                     _field("D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE", "StartAddress"),
                                     "--program-table"),
    ("capture", "--argument-buffer"): ([*EI, "--argument-buffer", "{v}", "--max-command-count", "4"],
                                       "D3D12_GPU_VIRTUAL_ADDRESS", "--argument-buffer"),
    ("capture", "--count-buffer"): ([*EI, "--argument-buffer", "r0", "--count-buffer", "{v}", "--max-command-count",
                                     "4"], "D3D12_GPU_VIRTUAL_ADDRESS", "--count-buffer"),
    ("capture", "--argument-buffer-resource"): ([*EI, *EI_CALL, "--argument-buffer-resource", "r0,{v}"], "uint64_t",
                                                "Width"),
    ("capture", "--count-buffer-resource"): ([*EI, *EI_CALL, "--count-buffer-resource", "r1,{v}"], "uint64_t",
                                             "Width"),
    ("capture", "--root-arg"): ([*WL, *WL_CALL, "--root-arg", "0={v}"], "D3D12_GPU_VIRTUAL_ADDRESS", "--root-arg"),
    ("capture", "--vertex-buffer"): ([*EI, *EI_CALL, "--vertex-buffer", "0=0x100000,{v},12"],
                                     _field("D3D12_VERTEX_BUFFER_VIEW", "SizeInBytes"), "SizeInBytes"),
    ("capture", "--index-buffer"): ([*EI, *EI_CALL, "--index-buffer", "0x100000,{v},R16_UINT"],
                                    _field("D3D12_INDEX_BUFFER_VIEW", "SizeInBytes"), "SizeInBytes"),
    ("capture", "--descriptor-heap"): ([*WL, *WL_CALL, "--descriptor-heap", "CBV_SRV_UAV=0xd0000000,{v},32"],
                                       "uint32_t", "NumDescriptors"),  # (D3D12_DESCRIPTOR_HEAP_DESC: UINT)
    ("capture", "--region"): ([*WL, *WL_CALL, "--region", "extra=zeros:16@{v}"], "D3D12_GPU_VIRTUAL_ADDRESS",
                              "base"),
    ("capture", "regions"): ([*WL[:2], "extra=hex:00@{v}", *WL[2:], *WL_CALL], "D3D12_GPU_VIRTUAL_ADDRESS", "base"),
    ("decode", "--va"): (["decode", str(CULLING), "PCS.secondary", str(READBACK / "secondary_opaque.bin"),
                          "--count", "1", "--va", "{v}"], "D3D12_GPU_VIRTUAL_ADDRESS", "--va"),
    ("decode", "--stride"): (["decode", str(CULLING), "PCS.secondary", str(READBACK / "secondary_opaque.bin"),
                              "--stride", "{v}"],
                             _field("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", "SecondaryRecordByteStride"), "stride"),
    ("codegen", "--stride"): (["codegen", str(CULLING), "--lang", "c", "--stride", "PCS.secondary={v}"],
                              _field("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", "SecondaryRecordByteStride"),
                              "--stride"),
}
#: the other flags that take a number, and why the spec types none of them
NOT_SPEC = {
    ("abi", "--define"): "a preprocessor definition NAME[=VALUE], passed to the compiler",
    ("exec", "--reading"): "NAME=VALUE names a reading, no number",
    ("dump", "--reading"): "NAME=VALUE names a reading, no number",
    ("abi", "--tool-memory"): "d3d12wl's bound of a compiler run",
    ("abi", "--tool-cpu"): "d3d12wl's bound of a compiler run",
    ("abi", "--tool-output"): "d3d12wl's bound of a compiler run",
    ("abi", "--include-depth"): "d3d12wl's bound of the sources a compiler is given",
    ("abi", "--source-bytes"): "d3d12wl's bound of the sources a compiler is given",
    ("decode", "--offset"): "a byte offset into the user's file",
    ("decode", "--count"): "how many records of the file to decode",
    ("decode", "--count-file"): "a readback file and a byte offset into it (the count read there is 4 bytes)",
    ("check", "--capture-memory"): "d3d12wl's bound of a capture's process",
    ("check", "--capture-timeout"): "d3d12wl's bound of a capture's process",
    ("check", "--jobs"): "processes to run",
    ("check", "--shard"): "I/N, a share of the captures",
    ("check", "--reading"): "NAME=VALUE names a reading, no number",
    ("report", "--reading"): "NAME=VALUE names a reading, no number",
    ("messages check", "--callback-offset"): "a byte offset into the callback table, bounded by its size",
    ("messages check", "--callback-table-size"): "the size of the driver's callback table (sizeof)",
    ("messages check", "--timeout"): "seconds",
    ("migrate scene", "--draws"): "the size of a synthetic scene",
    ("migrate scene", "--psos"): "the size of a synthetic scene",
    ("migrate scene", "--active"): "a fraction",
    ("migrate scene", "--seed"): "a random seed",
    ("exec", "--json-version"): "an output version",
    **{(cmd, flag): "a selection of what the output shows" for cmd in ("exec", "dump")
       for flag in ("--list", "--limit", "--primary")},
    ("check", "--limit"): "a selection of what the output shows",
    ("report", "--limit"): "a selection of what the output shows",
    **{(cmd, flag): "an executor limit of d3d12wl's own (Limits)" for cmd in ("exec", "dump", "patch-list", "remap", "check", "report")
       for flag in ("--max-lists", "--max-primary-records", "--max-secondary-records", "--max-executions",
                    "--max-records", "--max-repeated-records", "--max-findings")},
}

#: a metavar part that stands for a number
_NUMBER = re.compile(r"\b(N|VA|BASE|OFFSET|BYTES|SIZE|STRIDE|START|NUM|INCREMENT|VALUE|WIDTH|SLOT|SECONDS|MIB|A:B|"
                     r"REGION)\b")


def _takes_a_number(action: argparse.Action) -> bool:
    kind = getattr(action.type, "__name__", "")
    return kind in ("integer", "limit_value", "int", "float", "number") or bool(_NUMBER.search(action.metavar or ""))


def test_every_flag_that_takes_a_number_is_classified() -> None:
    """Every flag of every command that takes a number (by its type, or a number in its metavar: ``VA``, ``N``,
    ``SLOT=VA,SIZE,STRIDE``, ...) is in SPEC or NOT_SPEC: a flag added later must say which."""
    found = set()
    for command, action in actions(build_parser(ALL)):
        if action.nargs != 0 and _takes_a_number(action):
            found.add((command, flag_name(action)))
    assert found == set(SPEC) | set(NOT_SPEC)


def _argv(template: list[str], value: int, tmp_path: Path) -> list[str]:
    out: list[str] = []
    for part in template:
        if part == "{regions}":
            capture = load_capture(EXAMPLES / "execute_indirect_capture.json")
            for i, r in enumerate(capture.memory.regions):
                path = tmp_path / f"region{i}.bin"
                path.write_bytes(bytes(r.data))
                out.append(f"r{i}={path}@0x{r.base:x}")
        else:
            out.append(part.replace("{tmp}", str(tmp_path)).replace("{v}", str(value)))
    return out


_RANGE = re.compile(r"outside|range|past|exceeds|greater than|too large|at most", re.I)


@pytest.mark.parametrize("key", sorted(SPEC), ids=" ".join)
def test_a_spec_number_past_its_type_is_exit_2(key: tuple[str, str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """One past the largest value of the C type the spec holds the number in is exit 2 naming the flag or the
    member; the largest value is not refused for its range (whatever else it may be refused for)."""
    template, ctype, named = SPEC[key]
    largest = (1 << (8 * abi.sizeof(ctype))) - 1
    code = main(_argv(template, largest + 1, tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and named in err and _RANGE.search(err), (key, err)
    main(_argv(template, largest, tmp_path))
    err = capsys.readouterr().err
    assert not (named in err and re.search(r"outside the unsigned|greater than the maximum", err)), (key, err)


def _set(doc: dict[str, Any], path: str, value: int) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    *steps, last = path.split(".")
    at: Any = doc
    for step in steps:
        at = at[int(step)] if isinstance(at, list) else at[step]
    at[last] = value
    return doc


#: the members of a file a user gives that hold a spec number, one of each kind of entry: (the command, the file,
#: the member, its C type); the file is loaded by the command's own loader
FILE_ENTRIES = [
    ("validate", CULLING, "program_command_signatures.PCS.SecondaryRecordByteStride",
     _field("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", "SecondaryRecordByteStride")),
    ("validate", CULLING, "program_command_signatures.PCS.pArgumentDescs.0.ShaderResourceView.RootParameterIndex",
     "uint32_t"),
    ("validate", EXAMPLES / "execute_indirect.json", "command_signatures.PlainMultiDrawIndirect.ByteStride",
     _field("D3D12_COMMAND_SIGNATURE_DESC", "ByteStride")),
    ("exec", EXAMPLES / "culling_capture.json", "call.DispatchList.MaxGraphicsProgramInputsPerPrimaryList",
     "uint32_t"),
    ("exec", EXAMPLES / "culling_capture.json", "state.program.WorkList.Binding.ProgramTable.SlotCount",
     _field("D3D12_WORK_LIST_PROGRAM_TABLE_BINDING", "SlotCount")),
    ("exec", EXAMPLES / "culling_capture.json", "state.program.WorkList.Binding.ProgramTable.Table.StrideInBytes",
     _field("D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE", "StrideInBytes")),
    ("exec", EXAMPLES / "culling_capture.json", "memory.0.base", "D3D12_GPU_VIRTUAL_ADDRESS"),
]


@pytest.mark.parametrize(("command", "source", "member", "ctype"), FILE_ENTRIES, ids=lambda v: str(v)[-40:])
def test_a_spec_number_of_a_file_past_its_type_is_exit_2(command: str, source: Path, member: str, ctype: str,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A description or a capture holding one past a member's C type is exit 2 naming the member (the schema is
    generated from the C types; the capture's loader bounds each member by its type)."""
    largest = (1 << (8 * abi.sizeof(ctype))) - 1
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(_set(json.loads(source.read_text()), member, largest + 1)))
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    shown = re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", member)
    assert (member.split(".")[-1] in err and _RANGE.search(err)) or shown in err, err


def test_a_va_map_and_expected_draws_past_their_types(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """remap's VA map (GPU VAs: D3D12_GPU_VIRTUAL_ADDRESS) and an expected-draws file (the trigger's members, by the
    C type of the trigger's payload: uint32_t, BaseVertexLocation int32_t) are bounded by their types."""
    from d3d12wl.migrate import MigrationError
    from d3d12wl.migrate.equivalence import load_expected_draws

    vamap = tmp_path / "vamap.csv"
    vamap.write_text(f"0x0,0x100000000,{1 << 64:#x}\n")
    assert main(["remap", str(EXAMPLES / "culling_capture.json"), "--va-map", str(vamap), "-o",
                 str(tmp_path / "r.json")]) == 2
    assert "64-bit" in capsys.readouterr().err
    largest = (1 << (8 * abi.sizeof(_field("D3D12_DRAW_ARGUMENTS", "VertexCountPerInstance")))) - 1
    assert load_expected_draws([{"type": "DRAW", "VertexCountPerInstance": largest}])
    with pytest.raises(MigrationError, match="VertexCountPerInstance: 4294967296 is outside"):
        load_expected_draws([{"type": "DRAW", "VertexCountPerInstance": largest + 1}])
    with pytest.raises(MigrationError, match="InstanceCount: -1 is outside"):
        load_expected_draws([{"type": "DRAW", "InstanceCount": -1}])
    assert load_expected_draws([{"type": "DRAW_INDEXED", "BaseVertexLocation": -5}])  # (INT: signed)
    with pytest.raises(MigrationError, match="BaseVertexLocation"):
        load_expected_draws([{"type": "DRAW_INDEXED", "BaseVertexLocation": 1 << 31}])
