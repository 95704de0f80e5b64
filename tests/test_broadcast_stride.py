"""A hybrid program command signature without SecondaryRecordByteStride: the broadcast form (spec "Stride
derivation", rule 25(e): "must be 0 or at least the minimum secondary-record size ... a 0 stride is the broadcast
form").  Legal, so ``validate`` gives a note and exits 0; ``layout`` and ``codegen`` show the declared 0 beside the
minimum.  The fixture is the spec's culling example with the member left out."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from d3d12wl import abi
from d3d12wl.cli import main
from d3d12wl.model import description
from d3d12wl.model.state import DeviceCaps
from d3d12wl.rules import check_objects
from d3d12wl.rules.notes import notes

CULLING = Path(str(resources.files("d3d12wl").joinpath("examples/culling.json")))


@pytest.fixture
def broadcast(tmp_path: Path) -> Path:
    doc = json.loads(CULLING.read_text())
    del doc["program_command_signatures"]["PCS"]["SecondaryRecordByteStride"]
    path = tmp_path / "broadcast.json"
    path.write_text(json.dumps(doc))
    return path


def test_validate_notes_the_broadcast_stride_and_exits_0(broadcast: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(broadcast)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no violations\n")
    assert "rule 25(e)" in out and "program_command_signatures.PCS.SecondaryRecordByteStride" in out
    assert "broadcast form" in out and "minimum stride is 24" in out
    assert main(["validate", str(broadcast), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["count"] == 0 and got["violations"] == []
    assert [(n["rule"], n["name"], n["path"]) for n in got["notes"]] == [
        ("rule 25(e)", "PCS", "program_command_signatures.PCS.SecondaryRecordByteStride")]


def test_declared_stride_gives_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    """The spec's own culling PCS declares 24 (``sizeof(SecondaryRecord)``): no note."""
    objects = description.load(CULLING)
    assert notes(objects) == [] and check_objects(objects, DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"))) == []
    assert main(["validate", str(CULLING), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == []


def test_layout_prints_the_declared_stride_beside_the_minimum(broadcast: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layout", str(broadcast)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "secondary record" in x)
    assert line.strip().startswith("secondary record: 24 bytes used, min stride 24, declared stride 0 (broadcast")
    assert main(["layout", str(broadcast), "--json"]) == 0
    secondary = json.loads(capsys.readouterr().out)["program_command_signatures"]["PCS"]["secondary"]
    assert secondary["min_stride"] == 24 and secondary["declared_stride"] == 0


def test_codegen_prints_the_declared_stride_beside_the_minimum(broadcast: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    for lang, comment in (("c", "/* "), ("hlsl", "// ")):
        assert main(["codegen", str(broadcast), "--lang", lang]) == 0
        title = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(f"{comment}secondary record"))
        assert "stride 24 (minimum 24); declared SecondaryRecordByteStride 0: broadcast" in title, title
    assert main(["codegen", str(CULLING), "--lang", "c"]) == 0
    assert "declared SecondaryRecordByteStride" not in capsys.readouterr().out
