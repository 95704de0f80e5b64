"""The builder checks its arguments before it writes anything, and a capture is written whole or not at all.

Spec "GPU culling and work list emission" (the bundled culling example) as the fixture; design.md "Output":
errors are the package's own exceptions, naming the argument, never an AttributeError after half a capture.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_builder import BASE, culling_list, objects, table

from d3d12wl.capture import file as capture_file
from d3d12wl.capture.builder import BuiltWorkList, build_work_list
from d3d12wl.capture.file import load_capture, save_capture
from d3d12wl.errors import PackError
from d3d12wl.executor import execute
from d3d12wl.model.objects import ObjectSet, RootSignature
from d3d12wl.model.state import CommandListState, RaytracingBinding, VertexBufferView


def culling(objs: ObjectSet, *, with_objects: bool = False) -> BuiltWorkList:
    return build_work_list([culling_list(objs, [2, 0, 3])], base_va=BASE, program_table=table(objs),
                           signature=objs.work_list_signatures["WLS"], objects=objs if with_objects else None)


def test_a_root_signature_name_that_does_not_resolve_is_refused_up_front() -> None:
    """``command_list_state(graphics_root_signature="RS")``: the culling objects have no "RS" (only "GRS"); the
    error names the argument and the names there are."""
    objs = objects()
    wl = culling(objs, with_objects=True)
    with pytest.raises(PackError, match=r"graphics_root_signature: 'RS' names no root signature .*known: GRS"):
        wl.command_list_state(graphics_root_signature="RS")
    with pytest.raises(PackError, match=r"graphics_root_signature=.*no objects were given"):
        culling(objs).command_list_state(graphics_root_signature="RS")


def test_a_root_signature_name_that_resolves_is_the_object() -> None:
    """A name resolves against the objects (of build_work_list, or given here) and the capture runs."""
    objs = objects()
    state = culling(objs, with_objects=True).command_list_state(graphics_root_signature="GRS")
    assert state.graphics_root_signature is objs.root_signatures["GRS"]
    state = culling(objs).command_list_state("WLS", objects=objs, compute_root_signature="GRS")
    assert state.compute_root_signature is objs.root_signatures["GRS"]
    assert state.program is not None and state.program.WorkList.pSignature is objs.work_list_signatures["WLS"]
    assert not execute(culling(objs).to_capture(objs, state=state)).errors  # the test sets no root argument: warnings only


@pytest.mark.parametrize(("state", "where"), [
    ({"graphics_root_signature": 7}, "graphics_root_signature must be a RootSignature or the name of one, not int"),
    ({"graphics_root_arguments": {0: 0x50000}}, r"graphics_root_arguments\[0\] must be a RootArgument, not int"),
    ({"vertex_buffers": {32: VertexBufferView()}}, r"vertex_buffers is keyed by int in 0..31, not 32"),
    ({"vertex_buffers": [VertexBufferView()]}, "vertex_buffers must be a dict of VertexBufferView, not list"),
    ({"index_buffer": "IB"}, "index_buffer must be an IndexBufferView or None, not str"),
    ({"root_signature": "GRS"}, "command_list_state.. has no member 'root_signature'"),
    ({"program": None}, "program is SetProgram's state, made here from the signature"),
])
def test_objects_and_names_of_the_wrong_kind_are_refused(state: dict, where: str) -> None:
    objs = objects()
    with pytest.raises(PackError, match=where):
        culling(objs, with_objects=True).command_list_state(**state)


def test_a_root_signature_from_other_objects_is_refused() -> None:
    """The capture names its root signature: one that is not among the capture's objects could not be loaded."""
    objs = objects()
    with pytest.raises(PackError, match="root signature 'GRS' is not among the objects"):
        culling(objs).to_capture(objs, state=CommandListState(graphics_root_signature=RootSignature(name="GRS")))


def test_signature_and_raytracing_names() -> None:
    """A signature named where none resolves, and an object where the RTPSO's name is expected."""
    objs = objects()
    with pytest.raises(PackError, match=r"signature: 'Nope' names no work list signature"):
        culling(objs).command_list_state("Nope", objects=objs)
    with pytest.raises(PackError, match=r"bindings\[0\].pRaytracingStateObject.*name \(a str\), not ObjectSet"):
        build_work_list([culling_list(objs, [1])], base_va=BASE, tier=2,
                        bindings=[RaytracingBinding(pRaytracingStateObject=objs)])  # type: ignore[arg-type]


def test_write_capture_with_a_bad_state_writes_nothing(tmp_path: Path) -> None:
    """The issue's case: a bad state used to raise AttributeError after the .bin was written; now nothing is."""
    objs = objects()
    wl = culling(objs)
    state = CommandListState(graphics_root_signature="RS")  # type: ignore[arg-type]
    with pytest.raises(PackError, match="graphics_root_signature"):
        wl.write_capture(tmp_path / "c.json", objs, state=state)
    assert list(tmp_path.iterdir()) == []


def test_save_capture_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save that fails after a region's .bin is complete (here: the state cannot be written) leaves no file, not
    even a temporary one; a save that succeeds leaves exactly the capture and its .bin, readable as before."""
    objs = objects()
    capture = culling(objs).to_capture(objs)

    def broken(state: CommandListState) -> dict:
        raise RuntimeError("disk full")

    monkeypatch.setattr(capture_file, "_dump_state", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        save_capture(capture, tmp_path / "c.json", inline_limit=64)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()

    path = save_capture(capture, tmp_path / "c.json", inline_limit=64)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json", "c.work_list.bin"]
    assert (path.stat().st_mode & 0o777) == (0o666 & ~_umask())
    again = load_capture(path)
    assert np.array_equal(np.frombuffer(again.memory.regions[0].data, np.uint8), capture.memory.regions[0].data)


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_save_capture_into_a_missing_folder(tmp_path: Path) -> None:
    """docs/capture.md: a missing folder is a CaptureError naming the path, not a raw FileNotFoundError."""
    objs = objects()
    capture = culling(objs).to_capture(objs)
    target = tmp_path / "copy" / "c.json"
    with pytest.raises(capture_file.CaptureError, match="folder .*copy' does not exist") as info:
        save_capture(capture, target)
    assert info.value.where == str(target) and not (tmp_path / "copy").exists()
