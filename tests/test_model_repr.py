"""The model objects' repr (issue 29): the members written (C's zero values left out, as the canonical JSON does,
the discriminating enum members kept), enums and flags by name, a referenced named object by its name, a program
identifier as its text; and reading a repr makes no union member (model.objects.union_member)."""

from __future__ import annotations

import dataclasses

from d3d12wl import abi, examples, load_description
from d3d12wl.model import description, objects
from d3d12wl.model.objects import WorkListArgumentDesc


def test_the_culling_example_reads_as_its_json() -> None:
    """Spec "GPU culling and work list emission": the Opaque program, its PCS and the global root signature."""
    objs = load_description(examples.path("culling.json"))
    assert repr(objs.programs["Opaque"]) == (
        "Program('Opaque', Identifier=b'OpaqueProgram' + bytes(19), "
        "ProgramCommandSignature=<ProgramCommandSignature 'PCS'>)")
    assert repr(objs.root_signatures["GRS"]) == (
        "RootSignature('GRS', pParameters=[RootParameter1(ParameterType=CBV, ShaderVisibility=ALL), "
        "RootParameter1(ParameterType=SRV, ShaderVisibility=ALL)], Flags=ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT)")
    pcs = objs.program_command_signatures["PCS"]
    text = repr(pcs)
    assert text.startswith("ProgramCommandSignature('PCS', pArgumentDescs=[WorkListArgumentDesc(Type="
                           "SHADER_RESOURCE_VIEW, Source=SECONDARY_RECORD, Binding=GLOBAL_ROOT_SIGNATURE, "
                           "ShaderResourceView=RootParameterIndexArg(RootParameterIndex=1)), "
                           "WorkListArgumentDesc(Type=DRAW, Source=SECONDARY_RECORD, Binding=GLOBAL_ROOT_SIGNATURE), ")
    assert text.endswith("SecondaryRecordByteStride=24, pGlobalRootSignature=<RootSignature 'GRS'>)")
    assert "Constant=" not in text and "VertexBuffer=" not in text  # (union members no one wrote)
    # under a third of what the dataclass repr wrote (every union member of every argument, enums as integers)
    assert len(text) * 3 < len(_dataclass_repr(pcs))


def _dataclass_repr(obj: object) -> str:
    """What the dataclass-generated repr wrote (every field, recursively, enums as integers)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = ", ".join(f"{f.name}={_dataclass_repr(getattr(obj, f.name))}" for f in dataclasses.fields(obj))
        return f"{type(obj).__name__}({fields})"
    if isinstance(obj, list):
        return "[" + ", ".join(map(_dataclass_repr, obj)) + "]"
    return repr(obj)


def test_repr_makes_no_union_member() -> None:
    arg = WorkListArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "CONSTANT"),
                               Constant=objects.ConstantArg(RootParameterIndex=2, Num32BitValuesToSet=1))
    assert repr(arg) == ("WorkListArgumentDesc(Type=CONSTANT, Source=0, Binding=GLOBAL_ROOT_SIGNATURE, "
                         "Constant=ConstantArg(RootParameterIndex=2, Num32BitValuesToSet=1))")
    assert set(vars(arg)) == {"Type", "Source", "Binding", "Constant", "Name"}  # (Name: a plain member, not a union's)
    arg.VertexBuffer.Slot = 3  # a union member read and written shows, as in C's bytes
    assert "VertexBuffer=VertexBufferArg(Slot=3)" in repr(arg)


def test_flags_and_values_outside_the_enum() -> None:
    """A flag enum as NAME|NAME, bits no member names as a number, a value outside an enum as its number
    (abi.enum_text, as decode shows them: C's zero Source is no D3D12_INDIRECT_ARGUMENT_SOURCE member); a non-text
    identifier as its hex."""
    rs = objects.RootSignature("R", Flags=abi.enum_value("D3D12_ROOT_SIGNATURE_FLAGS", "LOCAL_ROOT_SIGNATURE")
                               | abi.enum_value("D3D12_ROOT_SIGNATURE_FLAGS", "DENY_VERTEX_SHADER_ROOT_ACCESS"))
    assert repr(rs) == "RootSignature('R', Flags=DENY_VERTEX_SHADER_ROOT_ACCESS|LOCAL_ROOT_SIGNATURE)"
    assert repr(WorkListArgumentDesc(Type=999)) == ("WorkListArgumentDesc(Type=999, Source=0, "
                                                    "Binding=GLOBAL_ROOT_SIGNATURE)")
    program = objects.Program("P", Identifier=bytes(range(32)))
    assert repr(program) == f"Program('P', Identifier=bytes.fromhex({bytes(range(32)).hex()!r}))"
    assert repr(objects.Program("Q")) == "Program('Q')"


def test_every_model_class_has_the_compact_repr() -> None:
    """Every class the description loader fills (each member table's class) shows the compact repr."""
    classes = set(description._nested_c_infos())
    assert classes and all(c.__repr__ is objects.compact_repr for c in classes), [
        c.__name__ for c in classes if c.__repr__ is not objects.compact_repr]
