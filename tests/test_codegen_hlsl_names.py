"""HLSL member names stay put when arguments are added (issue 16 item 6: adding two vertex-buffer views renamed the
index buffer view's ``BufferLocation`` to ``arg4_IndexBuffer_BufferLocation``).

A payload member keeps its bare name in the field with the strongest claim on it, judged from that field alone:
the dispatch trigger (spec "exactly one dispatch trigger"), then the index buffer view (rule 25(c): at most one),
then the others by argument index; so additions never rename what is there unless they claim it more strongly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from test_codegen import PROPERTY, signature_doc

from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, pcs_layout

IBV = {"Type": "INDEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}
DRAW_INDEXED = {"Type": "DRAW_INDEXED", "Source": "PRIMARY_RECORD"}


def vbv(slot: int) -> dict[str, Any]:
    return {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD", "VertexBuffer": {"Slot": slot}}


def primary(args: list[dict[str, Any]]) -> RecordLayout:
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": args}}})
    return pcs_layout(objects.program_command_signatures["P"]).primary


def names(layout: RecordLayout) -> dict[tuple[str | None, str, int], str]:
    """(layout field, member path in its C type, byte in it) -> HLSL member name, padding left out."""
    return {(m.field, m.path, m.part): m.name for m in codegen.hlsl_members(layout) if m.field is not None}


def by_payload(layout: RecordLayout) -> dict[tuple[str, str, int], str]:
    """As :func:`names`, keyed by argument type instead of field name (field names carry the argument index)."""
    fields = {f.name: f.arg_type or f.name for f in layout.fields}
    return {(fields[f], path, part): name for (f, path, part), name in names(layout).items() if f is not None}


def test_two_vertex_buffer_views_do_not_rename_the_index_buffer_view() -> None:
    """The issue's case, with the views added before and after: the IBV's and DRAW_INDEXED's members keep their
    names; the views' members that the IBV also has (BufferLocation, SizeInBytes) are prefixed."""
    base = by_payload(primary([IBV, DRAW_INDEXED]))
    assert base[("INDEX_BUFFER_VIEW", "BufferLocation", 0)] == "BufferLocation_lo"  # a uint64_t at 4: split
    for args in ([vbv(0), vbv(1), IBV, DRAW_INDEXED], [IBV, DRAW_INDEXED, vbv(0), vbv(1)],
                 [IBV, vbv(0), DRAW_INDEXED, vbv(1)]):
        layout = primary(args)
        got = by_payload(layout)
        assert {k: got[k] for k in base} == base, args
        shared = {(f, path): n for (f, path, _), n in names(layout).items()
                  if f is not None and "VertexBuffer" in f and path in ("BufferLocation", "SizeInBytes")}
        assert len(shared) == 4 and all(n.startswith(f"{f}_{path}") for (f, path), n in shared.items()), shared


def test_a_later_vertex_buffer_view_does_not_rename_the_first() -> None:
    """Spec "Per-arg natural alignment" example of tests/test_codegen.py (one view at 4, split): a second view
    appended keeps the first's bare names and prefixes its own."""
    one = names(primary([vbv(0), {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]))
    two = names(primary([vbv(0), {"Type": "DRAW", "Source": "PRIMARY_RECORD"}, vbv(1)]))
    assert {k: two[k] for k in one} == one
    assert one[("arg0_VertexBuffer", "BufferLocation", 0)] == "BufferLocation_lo"
    assert two[("arg2_VertexBuffer", "SizeInBytes", 0)] == "arg2_VertexBuffer_SizeInBytes"


_APPENDABLE = st.sampled_from([vbv(7), {"Type": "CONSTANT_BUFFER_VIEW", "Source": "PRIMARY_RECORD"},
                               {"Type": "CONSTANT", "Source": "SECONDARY_RECORD", "Constant": {"Num32BitValuesToSet": 2}},
                               {"Type": "VERTEX_BUFFER_VIEW", "Source": "SECONDARY_RECORD"}])


@PROPERTY
@given(signature_doc(), st.lists(_APPENDABLE, min_size=1, max_size=3))
def test_appending_arguments_renames_no_member(doc: dict[str, Any], extra: list[dict[str, Any]]) -> None:
    """For random signatures, appending arguments that claim no name more strongly (no trigger, no index buffer
    view) leaves every existing HLSL member of every record with its name, and names stay unique."""
    before = pcs_layout(description.load(doc).program_command_signatures["P"])
    doc["program_command_signatures"]["P"]["pArgumentDescs"] += extra
    after = pcs_layout(description.load(doc).program_command_signatures["P"])
    for old, new in ((before.primary, after.primary), (before.secondary, after.secondary)):
        if old is None or new is None or not old.min_stride:
            continue
        a, b = names(old), names(new)
        assert {k: b[k] for k in a} == a
        all_names = [m.name for m in codegen.hlsl_members(new)]
        assert len(all_names) == len(set(all_names))
