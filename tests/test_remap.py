"""Rebasing a capture for replay (d3d12wl.executor.remap, d3d12wl.capture.maps, ``d3d12wl remap``): every reference
the call reads rewritten through the maps, every other byte identical, proved by executing both (``--verify``) and
by rebasing back with the inverse maps to the original bytes (issue 28, "Proof").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from remap_cases import CASES, DELTA, capture_of, full_maps, new_identifier

from d3d12wl.capture.file import Capture, capture_to_dict, load_capture
from d3d12wl.capture.maps import (
    HeapMap,
    IdentifierMap,
    MapError,
    ReferenceMaps,
    VaMap,
    VaRange,
    load_heap_map,
    load_identifier_map,
    load_va_map,
)
from d3d12wl.cli import main
from d3d12wl.executor import execute
from d3d12wl.executor.references import patch_list
from d3d12wl.executor.remap import remap, verify_remap

ROOT = Path(__file__).resolve().parent.parent
CULLING = ROOT / "d3d12wl" / "examples" / "culling_capture.json"


def same_bytes(a: Capture, b: Capture) -> None:
    """Region by region: the same names, bases, sizes and bytes; the same call, state and objects."""
    assert [(r.name, r.base, r.size) for r in a.memory.regions] == [(r.name, r.base, r.size) for r in b.memory.regions]
    for ra, rb in zip(a.memory.regions, b.memory.regions, strict=True):
        assert bytes(ra.data) == bytes(rb.data), ra.name
    da, db = capture_to_dict(a), capture_to_dict(b)
    for key in ("state", "call", "programs", "version"):
        assert da.get(key) == db.get(key), key


def resolved(c: Capture, maps: tuple[VaMap, HeapMap | None, IdentifierMap]) -> ReferenceMaps:
    return ReferenceMaps(*maps).resolved(c.objects, c.state.descriptor_heaps)


@pytest.mark.parametrize("name", list(CASES))
def test_rebased_and_back_byte_for_byte(name: str, tmp_path: Path) -> None:
    """Tier 1, Tier 2 chains, ExecuteIndirect (root views, VB / IB views, buffer resources), descriptor tables
    (global and local), program tables with local root arguments, raytracing records, validation program tables:
    with maps that move every reference (every region and resource VA, every heap with its increment doubled,
    every identifier), the rebased capture executes the same with every reference mapped, every reference it
    reads has moved, and the inverse maps give the original bytes back, region by region."""
    original = CASES[name]()
    maps = full_maps(original)
    out = remap(original, *maps, output=tmp_path / "rebased.json", verify=True)
    assert out.errors == [] and out.path is not None and out.capture is not None
    assert out.verification is not None and out.verification.same, out.verification.differences
    assert out.verification.executions == len(execute(original).executions)
    rebased = out.capture
    assert all(new == old + DELTA for old, new in out.regions.values())
    before, after = patch_list(original).columns, patch_list(rebased).columns
    moved = (before["value"] != 0) & (before["kind"] != 2)
    assert np.all(after["value"][moved] != before["value"][moved])  # every VA and handle changed
    back = remap(rebased, *_inverse(original, maps), output=tmp_path / "back.json")
    assert back.errors == [] and back.capture is not None
    same_bytes(back.capture, original)


def _inverse(c: Capture, maps: tuple[VaMap, HeapMap | None, IdentifierMap]) -> tuple[Any, Any, Any]:
    inv = resolved(c, maps).inverse()
    return inv.va, inv.heaps, inv.identifiers


def test_in_memory_and_written_are_the_same(tmp_path: Path) -> None:
    """Without an output the rebased capture is made in memory; written, a rewritten region larger than 4 KiB goes
    to a .bin file in windows (here of 64 bytes, fields across their ends); both hold the same bytes, and a region
    no reference lies in is referenced in place."""
    c = CASES["descriptor tables"]()
    maps = full_maps(c)
    memory = remap(c, *maps)
    written = remap(c, *maps, output=tmp_path / "w.json", window=64)
    assert memory.capture is not None and written.capture is not None
    same_bytes(memory.capture, written.capture)


def test_large_regions_stream_and_untouched_ones_stay_in_place(tmp_path: Path) -> None:
    """A 128 KiB region the call reads references in is rewritten to OUT.<region>.bin; a 64 KiB file-mapped region
    no reference lies in is referenced in place, not copied."""
    from executor_builder import INPUT_VA, PRIMARY_VA, Scene, arg, dispatch_input, one_program_scene, primary, srv

    from d3d12wl.capture.file import save_capture
    from d3d12wl.model.objects import ProgramCommandSignature
    from d3d12wl.model.state import DispatchListCall
    from d3d12wl.records.layout import pcs_layout

    pcs = ProgramCommandSignature("P", [srv(0, "PRIMARY_RECORD"), arg("DISPATCH")])
    s: Scene = one_program_scene(pcs)
    stride = pcs_layout(pcs).primary.min_stride
    n = (1 << 17) // stride
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=0, arg0_ShaderResourceView=0x100_0000 + 256 * i,
                                       arg1_Dispatch={"ThreadGroupCountX": 1, "ThreadGroupCountY": 1,
                                                      "ThreadGroupCountZ": 1}) for i in range(n)))
    s.put(INPUT_VA, dispatch_input(n, PRIMARY_VA, stride))
    s.put(0x900_0000, bytes(range(256)) * 256, name="untouched")
    saved = save_capture(capture_of(s, DispatchListCall(INPUT_VA)), tmp_path / "in.json")
    c = load_capture(saved)
    va = VaMap([VaRange(r.base, r.size, r.base + DELTA) for r in c.memory.regions]
               + [VaRange(0x100_0000, 256 * n, 0x200_0000)])
    (tmp_path / "out").mkdir()
    out = remap(c, va, output=tmp_path / "out" / "rebased.json", window=4096, verify=True)
    assert out.verification is not None and out.verification.same
    doc = json.loads((tmp_path / "out" / "rebased.json").read_text())
    regions = {r["name"]: r for r in doc["memory"]}
    assert regions[c.memory.regions[1].name]["file"] == "rebased.r_2000.bin"
    assert regions["untouched"]["file"] == "../in.untouched.bin"


def test_unmapped_references_are_findings_naming_the_field(tmp_path: Path) -> None:
    """A reference into no range is an error finding naming the field (and nothing is written), unless
    keep_unmapped: then it stays as it was (a warning) and the rebased capture still executes the same."""
    c = load_capture(CULLING)
    regions_only = VaMap([VaRange(r.base, r.size, r.base + DELTA) for r in c.memory.regions])
    out = remap(c, regions_only, output=tmp_path / "x.json")
    assert out.capture is None and out.path is None and not (tmp_path / "x.json").exists()
    kinds = {f.kind for f in out.findings}
    assert kinds == {"unmapped-reference"} and len(out.findings) == 10  # 9 material SRVs, the root CBV
    first = next(f for f in out.findings if "arg0_ShaderResourceView" in f.message)
    assert first.message.startswith("PCS.secondary.arg0_ShaderResourceView at 0x40000 (region "
                                    "'g_SecondaryBuffer[Opaque]' +0x0): VA 0x100000 lies in no range of the VA map")
    assert first.severity == "error" and first.primary_index == 0 and first.secondary_index == 0
    assert any(f.message.startswith("state.graphics_root_arguments.0.Descriptor (the capture's state member)")
               for f in out.findings)
    kept = remap(c, regions_only, keep_unmapped=True, output=tmp_path / "k.json", verify=True)
    assert {f.severity for f in kept.findings} == {"warning"} and kept.kept == {"va": 10}
    assert kept.verification is not None and kept.verification.same
    assert execute(kept.capture).executions[0].root_argument("global", 1).value == 0x100000


def test_verify_fails_on_a_deliberately_wrong_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--verify is not vacuous: a VA map that moves the primary list 4 bytes off its 8-byte alignment rebases
    cleanly, but the rebased call reads a misaligned ProgramInputs.StartAddress (a finding the original does not
    have): the verification fails, exit 1; and verify_remap with other maps than the rebase's sees every moved
    reference."""
    c = load_capture(CULLING)
    va = full_maps(c)[0]
    primary = c.memory.regions[1]
    wrong = VaMap([VaRange(r.old_base, r.size, r.new_base + (4 if r.old_base == primary.base else 0), r.entry)
                   for r in va.ranges])
    vamap = tmp_path / "wrong.json"
    vamap.write_text(json.dumps([{"old_base": r.old_base, "size": r.size, "new_base": r.new_base}
                                 for r in wrong.ranges]))
    assert main(["remap", str(CULLING), "--va-map", str(vamap), "-o", str(tmp_path / "r.json"), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "verification failed" in out and "misaligned-va" in out
    good = remap(c, va)
    assert good.capture is not None
    diffs = verify_remap(c, good.capture, ReferenceMaps(VaMap([VaRange(r.old_base, r.size, r.new_base + 0x10000)
                                                               for r in va.ranges]))).differences
    assert diffs and "maps to" in diffs[0]


def map_file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BAD_VA_MAPS = [
    ("empty", "0x10000,0,0x7f0000010000\n", "line 1", "empty range"),
    ("wrapping", "0x10000,0x100,0xffffffffffffff80\n", "line 1", "wraps the 64-bit VA space"),
    ("overlapping old", "0x10000,0x20000,0x7f0000010000\n0x20000,0x10000,0x7f1000000000\n", "line 2",
     "old ranges"),
    ("overlapping new", "0x10000,0x10000,0x7f0000010000\n0x20000,0x10000,0x7f0000018000\n", "line 2",
     "new ranges"),
    ("region partly inside", "0x10000,0x20100,0x7f0000010000\n", "line 1", "only partly inside"),
    ("onto a region that stays", "0x10000,0x10000,0x20000\n", "line 1", "which region 'pPrimaryListBuffer' occupies"),
    ("not a number", "0x10000,big,0x20000\n", "line 1", "not a number"),
    ("two values", "0x10000,0x10\n", "line 1", "got 2 values"),
]


@pytest.mark.parametrize("name, text, entry, says", BAD_VA_MAPS, ids=[b[0] for b in BAD_VA_MAPS])
def test_bad_va_maps_exit_2_naming_the_entry(name: str, text: str, entry: str, says: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = map_file(tmp_path, "va.csv", "old_base,size,new_base\n" + text if name != "empty" else text)
    assert main(["remap", str(CULLING), "--va-map", path, "-o", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    line = entry if name == "empty" else f"line {int(entry.split()[1]) + 1}"
    assert f"va.csv: {line}" in err and says in err, err
    assert not (tmp_path / "r.json").exists()


def test_va_map_json_forms(tmp_path: Path) -> None:
    ranges = [{"old_base": "0x10000", "size": 4096, "new_base": 0x7F0000010000}, ["0x20000", "0x1000", "0x30000000"]]
    va = load_va_map(map_file(tmp_path, "va.json", json.dumps(ranges)))
    assert [(r.old_base, r.size, r.new_base) for r in va.ranges] == [(0x10000, 4096, 0x7F0000010000),
                                                                    (0x20000, 0x1000, 0x30000000)]
    assert va.map_one(0x10010) == 0x7F0000010010 and va.map_one(0x11000) is None and va.map_one(0) == 0
    assert va.inverse().map_one(0x7F0000010010) == 0x10010
    with pytest.raises(MapError) as e:
        load_va_map(map_file(tmp_path, "bad.json", json.dumps([{"old_base": 1, "size": 2}])))
    assert e.value.where.endswith("bad.json: [0]")


def heap_capture() -> Capture:
    return CASES["descriptor tables"]()


def test_heap_map_defaults_and_checks(tmp_path: Path) -> None:
    """A heap map entry takes the old heap from the capture's range (version 4) and must agree with it: the same
    increment, a start on its descriptor boundaries inside it; descriptor i goes to descriptor i of the new heap."""
    c = heap_capture()
    heaps = c.state.descriptor_heaps
    hm = load_heap_map(map_file(tmp_path, "h.csv", "heap,old_start,old_increment,new_start,new_increment\n"
                                                   "CBV_SRV_UAV,,,0x1d0000000,64\n")).resolved(heaps)
    e = hm.entries["CBV_SRV_UAV"]
    assert (e.old_start, e.old_increment, e.num_descriptors) == (0xD0000000, 32, 256)
    new, ok = hm.map(np.array([0xD0000000 + 32 * 5, 0xD0000000 + 8, 0xD0000000 + 32 * 256, 0], dtype=np.uint64),
                     "CBV_SRV_UAV")
    assert new.tolist()[0] == 0x1D0000000 + 64 * 5 and ok.tolist() == [True, False, False, True]
    bad = [("CBV_SRV_UAV,0xd0000010,,0x1d0000000,64\n", "does not divide"),
           ("CBV_SRV_UAV,,16,0x1d0000000,64\n", "differs from the capture's"),
           ("CBV_SRV_UAV,,,0x1d0000000,0\n", "never 0"),
           ("SAMPLER,,,0xd0000000,32\nCBV_SRV_UAV,,,0xd0000100,32\n", "overlap"),
           ("RTV,,,0x1,1\n", "never shader-visible"),
           ("CBV_SRV_UAV,,,0x1d0000000,64\nCBV_SRV_UAV,,,0x2d0000000,64\n", "mapped twice")]
    for text, says in bad:
        with pytest.raises(MapError) as err:
            load_heap_map(map_file(tmp_path, "h.csv", text)).resolved(heaps)
        assert says in str(err.value) and "h.csv: line" in err.value.where, (text, str(err.value))
    with pytest.raises(MapError) as err:  # no capture range: the old side must be given
        load_heap_map(map_file(tmp_path, "h.json", json.dumps({"SAMPLER": {"new_start": 1, "new_increment": 8}}))
                      ).resolved(type(heaps)())
    assert "old_start, old_increment, num_descriptors needed" in str(err.value) and err.value.where.endswith(
        "h.json: SAMPLER")


def test_identifier_map_by_name_or_identifier_must_be_a_bijection(tmp_path: Path) -> None:
    c = load_capture(CULLING)
    names = list(c.objects.programs)
    opaque = bytes(c.objects.programs["Opaque"].Identifier)
    good = {"Opaque": new_identifier(opaque).hex(), c.objects.programs["Shadow"].Identifier.hex(): "ab" * 32}
    ids = load_identifier_map(map_file(tmp_path, "i.json", json.dumps(good))).resolved(c.objects)
    assert ids.map(opaque) == new_identifier(opaque) and ids.map(bytes(32)) is None
    assert ids.inverse().map(new_identifier(opaque)) == opaque
    transparent = c.objects.programs["Transparent"].Identifier.hex()
    bad = [({"Opaque": "ab" * 32, "Shadow": "ab" * 32}, "not a bijection"),
           ({"Opaque": transparent}, "which no entry maps away"),
           ({"Opaque": "ab" * 32, opaque.hex(): "cd" * 32}, "mapped twice"),
           ({"Nobody": "ab" * 32}, f"no program named 'Nobody' (known: {', '.join(names)})"),
           ({"Opaque": "xyz"}, "not an identifier")]
    for doc, says in bad:
        with pytest.raises(MapError) as err:
            load_identifier_map(map_file(tmp_path, "i.json", json.dumps(doc))).resolved(c.objects)
        assert says in str(err.value) and "i.json: " in err.value.where, (doc, str(err.value))
    csv_map = load_identifier_map(map_file(tmp_path, "i.csv", f"old,new\nOpaque,{'ee' * 32}\n"))
    assert csv_map.by_name["Opaque"][0] == bytes([0xEE]) * 32


def test_identifiers_move_in_slots_and_programs(tmp_path: Path) -> None:
    """By program name: the programs' identifiers and every slot that holds one change together, so the executor
    still finds each program; a slot identifier the map does not name is an unmapped reference."""
    c = load_capture(CULLING)
    va = full_maps(c)[0]
    ids = IdentifierMap({name: (new_identifier(bytes(p.Identifier)), "test") for name, p in c.objects.programs.items()})
    out = remap(c, va, None, ids, verify=True)
    assert out.errors == [] and out.rewritten["program-identifier"] == 6 and out.verification.same
    rebased = out.capture
    assert rebased is not None
    slot = rebased.memory.read(rebased.state.program.WorkList.Binding.ProgramTable.Table.StartAddress, 32)
    assert slot == bytes(rebased.objects.programs["Opaque"].Identifier) == new_identifier(
        bytes(c.objects.programs["Opaque"].Identifier))
    partial = IdentifierMap({"Opaque": ids.by_name["Opaque"]})
    out = remap(c, va, None, partial)
    assert [f.message.split(": ")[-1] for f in out.findings][:1] == [
        "identifier 5472616e73706172... is in no entry of the identifier map"]


def test_remap_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """d3d12wl remap: the rebased capture written atomically, a summary (or --json), exit 0; --verify says so."""
    c = load_capture(CULLING)
    va = full_maps(c)[0]
    vamap = map_file(tmp_path, "va.csv", "\n".join(f"0x{r.old_base:x},{r.size},0x{r.new_base:x}" for r in va.ranges))
    out = tmp_path / "rebased.json"
    assert main(["remap", str(CULLING), "--va-map", vamap, "-o", str(out), "--verify", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["written"] == str(out) and doc["rewritten"] == {"va": 16} and doc["verification"]["same"]
    assert doc["regions"]["pDispatchInputBuffer"] == {"old_base": 0x10000, "new_base": 0x10000 + DELTA}
    assert load_capture(out).call.DispatchListInput == 0x10000 + DELTA
    assert main(["remap", str(CULLING), "--va-map", vamap, "-o", "-"]) == 2
    assert main(["remap", str(CULLING), "--va-map", str(tmp_path / "none.csv"), "-o", str(out)]) == 2
    assert "none.csv" in capsys.readouterr().err
