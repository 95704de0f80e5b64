"""Union members of the model's desc classes are made when first read (model.objects.union_member): an argument desc
has fifteen and one is used, and 100,000 arguments would otherwise be millions of objects.  Everything a user can
do with the objects sees what it saw when every member was made with the object."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest

from d3d12wl.model import description, objects
from d3d12wl.model.objects import UNION_MEMBER, IndirectArgumentDesc, RootParameter1, WorkListArgumentDesc

CLASSES = (WorkListArgumentDesc, IndirectArgumentDesc, RootParameter1)


def eager_twin(cls: type) -> type:
    """The same dataclass with every member made with the object (what the model was)."""
    fields = [(f.name, f.type, dataclasses.field(default=f.default) if f.default is not dataclasses.MISSING
               else dataclasses.field(default_factory=f.default_factory))
              for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, fields, namespace={"__qualname__": cls.__qualname__})


@pytest.mark.parametrize("cls", CLASSES)
def test_the_union_members_are_the_c_unions(cls: type) -> None:
    """The members made when read are exactly the C desc's anonymous-union members (abi's union groups)."""
    table = description.members(cls, _c_info(cls))
    assert {m.name for m in table if m.union} == {f.name for f in dataclasses.fields(cls)
                                                   if f.metadata.get(UNION_MEMBER)}


def _c_info(cls: type) -> Any:
    from d3d12wl import abi

    return abi.type_info({WorkListArgumentDesc: "D3D12_WORK_LIST_ARGUMENT_DESC",
                          IndirectArgumentDesc: "D3D12_INDIRECT_ARGUMENT_DESC",
                          RootParameter1: "D3D12_ROOT_PARAMETER1"}[cls])


@pytest.mark.parametrize("cls", CLASSES)
def test_objects_behave_as_with_every_member_made(cls: type) -> None:
    twin = eager_twin(cls)
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    fresh, made = cls(), twin()
    assert dataclasses.asdict(fresh) == dataclasses.asdict(made)
    unread = cls()
    shown = repr(unread)  # (the compact repr: it makes no union member, and says what reading them all says)
    assert not any(f.metadata.get(UNION_MEMBER) and f.name in vars(unread) for f in dataclasses.fields(cls))
    for f in dataclasses.fields(cls):
        getattr(unread, f.name)
    assert repr(unread) == shown
    assert cls() == cls() and dataclasses.astuple(cls()) == dataclasses.astuple(made)
    members = [f.name for f in dataclasses.fields(cls) if f.metadata.get(UNION_MEMBER)]
    assert not any(hasattr(cls, name) for name in members)  # (as a dataclass field with a default factory)
    first = members[1]
    written = cls(**{first: type(getattr(made, first))()})
    assert getattr(written, first) == getattr(made, first) and written == cls()
    # a shallow copy, a replace and a pickle see every member, as they did
    original = cls()
    shallow = copy.copy(original)
    assert all(getattr(shallow, name) is getattr(original, name) for name in members)
    replaced = dataclasses.replace(cls())
    assert replaced == cls()
    deep = copy.deepcopy(original)
    assert deep == original and all(getattr(deep, name) is not getattr(original, name) for name in members)
    assert pickle.loads(pickle.dumps(original)) == original


def test_a_member_read_is_the_member_kept() -> None:
    """The first read stores what it makes; a read racing it gets the stored one (setdefault), and a write wins."""
    arg = WorkListArgumentDesc()
    constant = arg.Constant
    assert arg.Constant is constant
    constant.RootParameterIndex = 7
    assert arg.Constant.RootParameterIndex == 7
    other = WorkListArgumentDesc()
    stored = objects.ConstantArg(RootParameterIndex=3)
    vars(other)["Constant"] = stored  # (another thread's first read got there first)
    assert WorkListArgumentDesc.__dict__["Constant"].__get__(other) is stored
    arg.Constant = objects.ConstantArg(RootParameterIndex=9)
    assert arg.Constant.RootParameterIndex == 9


def test_loading_makes_only_the_union_members_written() -> None:
    objs = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "Num32BitValuesToSet": 1}},
        {"Type": "DRAW"}]}}})
    constant, draw = objs.program_command_signatures["P"].pArgumentDescs
    assert set(vars(constant)) == {"Type", "Source", "Binding", "Constant", "Name"}
    assert set(vars(draw)) == {"Type", "Source", "Binding", "Name"}
    assert draw.VertexBuffer == objects.VertexBufferArg() and "VertexBuffer" in vars(draw)
