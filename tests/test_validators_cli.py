"""``--validators SPEC`` on ``d3d12wl exec`` and ``d3d12wl dump`` and :func:`d3d12wl.executor.validation.load_validators`.

The capture is ``d3d12wl/examples/validation_chain_capture.json`` (``tools/make_example_capture.py``): a Tier 2
chain bound through the array-bind path with a non-null ValidationProgramTable, whose second list's
NumProgramInputs runs far past its buffer and whose third list's only record claims 8 secondary records of 3.  The
validators are ``d3d12wl/examples/validators.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from d3d12wl import abi
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.errors import ValidatorSpecError
from d3d12wl.executor import execute
from d3d12wl.executor.validation import AREA_PRIMARY_LIST, AREA_SECONDARY_LIST, ValidationRunner, load_validators

ROOT = Path(__file__).resolve().parent.parent
MODULE_SPEC = "d3d12wl.examples.validators:VALIDATORS"
#: (area, list, primary record, validator): the spec's order, step 4 of each list then step 7
EXPECTED = [(AREA_PRIMARY_LIST, 0, None, "PrimaryListCheck"), (AREA_PRIMARY_LIST, 1, None, "PrimaryListCheck"),
            (AREA_PRIMARY_LIST, 2, None, "PrimaryListCheck"), (AREA_SECONDARY_LIST, 2, 0, "SecondaryListCheck")]


@pytest.fixture(scope="module")
def capture_path():
    with resources.as_file(resources.files("d3d12wl") / "examples" / "validation_chain_capture.json") as p:
        yield str(p)


def file_spec(attr: str) -> str:
    with resources.as_file(resources.files("d3d12wl") / "examples" / "validators.py") as p:
        return f"{p}:{attr}"


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def invocations(trace: dict) -> list[tuple]:
    return [(v["area"], v["list_index"], v["primary_index"], v["validator"]) for v in trace["validator_invocations"]]


# ----------------------------------------------------------------------------------------------------------------
# exec
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("specs", [
    [MODULE_SPEC],
    [file_spec("make_runner")],  # a factory, loaded from a file
    ["d3d12wl.examples.validators:PRIMARY_LIST_CHECK", file_spec("SECONDARY_LIST_CHECK")],  # two specs, one runner
], ids=["module", "file-factory", "two-specs"])
def test_exec_with_validators_neutralizes_the_corrupted_list(capsys, capture_path, specs):
    rc, trace = run_json(capsys, "exec", capture_path, *[a for s in specs for a in ("--validators", s)])
    assert rc == 0 and trace["findings"] == []
    assert invocations(trace) == EXPECTED
    assert [v["sequence"] for v in trace["validator_invocations"]] == [0, 1, 2, 3]
    assert [v["step"] for v in trace["validator_invocations"]] == [4, 4, 4, 7]
    # list 1: NumProgramInputs zeroed at step 4 and re-read; no record of it executes; its continuation is followed
    list1 = trace["lists"][1]
    assert list1["header"]["NumProgramInputs"] == 0 and list1["primary_records"] == []
    assert list1["continuation"]["followed"] is True
    assert [e["list_index"] for e in trace["executions"]] == [0, 0, 2, 2, 2]
    # list 2: NumSecondaryRecords truncated from 8 to the 3 that exist
    assert trace["lists"][2]["primary_records"][0]["fields"]["NumSecondaryRecords"] == 3
    # the pointers each validator was bound
    header1 = trace["lists"][1]["va"]
    assert trace["validator_invocations"][1]["pointers"]["DISPATCH_LIST_HEADER_POINTER"] == header1
    sl = trace["validator_invocations"][3]["pointers"]
    assert sl["PRIMARY_RECORD_POINTER"] == trace["lists"][2]["header"]["ProgramInputs"]["StartAddress"]


def test_exec_human_output_has_one_line_per_invocation_in_order(capsys, capture_path):
    assert main(["exec", capture_path, "--validators", MODULE_SPEC]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("validator invocations (4)")
    lines = out[start + 1:start + 5]
    assert out[start + 5] == "executions (5)"
    for line, (area, list_index, primary, name), seq in zip(lines, EXPECTED, range(4), strict=True):
        fields = line.split()
        assert fields[0] == f"#{seq}" and fields[1] == area and f"list {list_index}" in line and name in line
        assert ("primary 0" in line) == (primary is not None)
        assert f"slot {1 if area == AREA_PRIMARY_LIST else 2}" in line
    assert "DISPATCH_LIST_HEADER_POINTER=0x" in lines[1] and "PROGRAM_TABLE_POINTER=0x" in lines[1]
    assert "PRIMARY_RECORD_POINTER=0x" in lines[3] and "SECONDARY_LIST_POINTER=0x" in lines[3]
    assert not any(" list 1 primary" in ln for ln in out)  # no execution of the neutralized list
    assert "findings (0)" in out


def test_exec_without_validators_runs_the_corrupted_records(capsys, capture_path):
    """No hooks: the executor runs what the bytes say, and the validation index fields do nothing."""
    rc, trace = run_json(capsys, "exec", capture_path)
    assert rc == 1 and trace["validator_invocations"] == []
    assert trace["lists"][1]["header"]["NumProgramInputs"] > 100
    assert any(e["list_index"] == 1 for e in trace["executions"])
    kinds = {f["kind"] for f in trace["findings"]}
    assert {"max-graphics-program-inputs-exceeded", "program-table-index-out-of-range", "unmapped-va"} <= kinds
    assert main(["exec", capture_path]) == 1
    assert "validator invocations" not in capsys.readouterr().out  # no block without validators


def test_exec_with_validators_on_a_capture_without_a_validation_table(capsys):
    """The bundled culling example is a Tier 1 direct bind: validators load but none runs; the block says so."""
    assert main(["exec", "--validators", MODULE_SPEC]) == 0
    out = capsys.readouterr().out
    assert "validator invocations (0)" in out and "executions (9)" in out


# ----------------------------------------------------------------------------------------------------------------
# dump
# ----------------------------------------------------------------------------------------------------------------


def test_dump_shows_the_validators_of_each_list(capsys, capture_path):
    rc, view = run_json(capsys, "dump", capture_path, "--validators", MODULE_SPEC)
    assert rc == 0 and view["findings"] == []
    assert [[(v["step"], v["area"], v["validator"]) for v in lst["validators"]] for lst in view["lists"]] == [
        [(4, AREA_PRIMARY_LIST, "PrimaryListCheck")],
        [(4, AREA_PRIMARY_LIST, "PrimaryListCheck")],
        [(4, AREA_PRIMARY_LIST, "PrimaryListCheck"), (7, AREA_SECONDARY_LIST, "SecondaryListCheck")]]
    assert view["lists"][1]["primary_records"] == []
    assert [e["list_index"] for e in view["executions"]] == [0, 0, 2, 2, 2]

    assert main(["dump", capture_path, "--validators", MODULE_SPEC]) == 0
    text = capsys.readouterr().out
    blocks = text.split("\nlist ")[1:]
    assert len(blocks) == 3
    assert "validators (1)" in blocks[0] and "validators (1)" in blocks[1] and "validators (2)" in blocks[2]
    assert "primary [" not in blocks[1]  # the neutralized list has no records
    third = blocks[2]
    assert third.index("PrimaryListCheck") < third.index("SecondaryListCheck") < third.index("primary [0]")


def test_dump_without_validators_has_no_validators_block(capsys, capture_path):
    assert main(["dump", capture_path]) == 1
    text = capsys.readouterr().out
    assert "validators (" not in text and "validators: none" not in text
    rc, view = run_json(capsys, "dump", capture_path)
    assert all(lst["validators"] == [] for lst in view["lists"]) and view["lists"][1]["primary_records"]


# ----------------------------------------------------------------------------------------------------------------
# bad specs: exit 2, the message names the spec
# ----------------------------------------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


BAD = {
    "no-colon": (lambda tmp: "d3d12wl.examples.validators", "module:attr"),
    "missing-module": (lambda tmp: "no_such_validators_module:VALIDATORS", "no module named"),
    "missing-file": (lambda tmp: f"{tmp}/missing.py:VALIDATORS", "no such file"),
    "missing-attr": (lambda tmp: "d3d12wl.examples.validators:NOPE", "has no attribute 'NOPE'"),
    "wrong-type": (lambda tmp: "d3d12wl.examples.validators:PRIMARY_LIST_SLOT", "int, not a ValidationRunner"),
    "bad-item": (lambda tmp: _write(tmp, "bad_item.py", "VALIDATORS = [1]\n") + ":VALIDATORS",
                 "VALIDATORS[0] is int, not a Validator"),
    "factory-wrong-type": (lambda tmp: _write(tmp, "factory.py", "def make():\n    return 'x'\n") + ":make",
                           "factory make() returned str"),
    "factory-raises": (lambda tmp: _write(tmp, "raises.py", "def make():\n    raise RuntimeError('boom')\n") + ":make",
                       "RuntimeError: boom"),
    "import-fails": (lambda tmp: _write(tmp, "broken.py", "import no_such_dependency_xyz\n") + ":V",
                     "no_such_dependency_xyz"),
}


@pytest.mark.parametrize("command", ["exec", "dump"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_spec_exits_2_naming_the_spec(tmp_path, capsys, capture_path, command, case):
    make, message = BAD[case]
    spec = make(tmp_path)
    assert main([command, capture_path, "--validators", spec]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"d3d12wl {command}: error: validator spec {spec!r}" in captured.err and message in captured.err


def test_the_same_identifier_twice_is_an_error(capsys, capture_path):
    assert main(["exec", capture_path, "--validators", MODULE_SPEC, "--validators",
                 "d3d12wl.examples.validators:PRIMARY_LIST_CHECK"]) == 2
    err = capsys.readouterr().err
    assert "'d3d12wl.examples.validators:PRIMARY_LIST_CHECK'" in err and "already registered" in err


# ----------------------------------------------------------------------------------------------------------------
# The Python API and the generator
# ----------------------------------------------------------------------------------------------------------------


def test_load_validators_api(tmp_path, capture_path):
    runner = load_validators(MODULE_SPEC)
    assert [v.name for v in runner.validators.values()] == ["PrimaryListCheck", "SecondaryListCheck"]
    trace = execute(load_capture(capture_path), hooks=runner)
    assert [(v.area, v.list_index) for v in trace.validator_invocations] == [(a, i) for a, i, _, _ in EXPECTED]
    # a single spec naming a runner gives that runner itself (a subclass keeps its behaviour)
    path = _write(tmp_path, "runner.py", "from d3d12wl.executor.validation import ValidationRunner\n"
                                         "class Mine(ValidationRunner):\n    pass\nRUNNER = Mine()\n")
    mine = load_validators([f"{path}:RUNNER"])
    assert type(mine).__name__ == "Mine" and isinstance(mine, ValidationRunner)
    with pytest.raises(ValidatorSpecError) as info:
        load_validators(["d3d12wl.examples.validators:NOPE"])
    assert info.value.where == "validator spec 'd3d12wl.examples.validators:NOPE'"


def test_the_capture_binds_a_validation_table_on_the_array_bind_path(capture_path):
    capture = load_capture(capture_path)
    desc = capture.state.program.WorkList1
    assert desc.pSignatureArray is not None and desc.ValidationProgramTable.Table.StartAddress != 0
    assert desc.ValidationProgramTable.SlotCount == 3
    assert capture.device.Tier == abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_2")


def test_validation_example_is_up_to_date_with_its_generator():
    tool = ROOT / "tools" / "make_example_capture.py"
    if not tool.exists():
        pytest.skip("source checkout only")
    result = subprocess.run([sys.executable, str(tool), "--check", "--example", "validation_chain"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
