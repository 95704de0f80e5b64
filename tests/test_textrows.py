"""d3d12wl.textrows: text rows from columns by the C kernel d3d12wl_format_rows, held to what Python's own
formatting writes (str, format(v, "x"), json.dumps) value by value."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from d3d12wl.textrows import Cell, RowFormatter, Splice, Text, Value, json_parts, split

U64 = st.integers(0, (1 << 64) - 1)
I64 = st.integers(-(1 << 63), (1 << 63) - 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(U64, I64, st.booleans(), st.integers(0, 3)), min_size=1, max_size=40))
def test_values_are_pythons_own_text(rows):
    u = np.array([r[0] for r in rows], dtype=np.uint64)
    i = np.array([r[1] for r in rows], dtype=np.int64)
    gone = np.array([r[2] for r in rows], dtype=bool)
    code = np.array([r[3] - 1 for r in rows], dtype=np.int64)  # -1: a code outside the names
    names = ("Opaque", "Trans,parent", "Ünicode")
    f = RowFormatter([[Value("u"), " ", Value("i", "sdec"), " ", Value("u", "hex", prefix="0x"), " ",
                       Value("u", "hex", digits=8), " [", Value("i", "sdec", absent="null", mask="gone"), "] ",
                       Value("c", "dict", names=names, absent="-"), " ", Value("u", "udec", add=5), "\n"]])
    got = bytes(f.format({"u": u, "i": i, "c": code}, len(rows), masks={"gone": gone})).decode()
    want = "".join(f"{a} {b} 0x{a:x} {a:08x} [{'null' if g else b}] {names[c - 1] if c else '-'} "
                   f"{(a + 5) % (1 << 64)}\n" for a, b, g, c in rows)
    assert got == want


def test_cells_pad_and_widen_only_their_row():
    f = RowFormatter([[Cell(("#", Value("k")), 5, ">"), "|", Cell((Value("k", "hex"), "h"), 4), "|\n"]])
    got = bytes(f.format({"k": np.array([7, 123456])}, 2)).decode()
    assert got == "   #7|7h  |\n#123456|1e240h|\n"


def test_rows_follow_the_template_each_row_picks():
    f = RowFormatter([["a", Value("v"), "\n"], ["b", Value("v", "hex"), "!\n"]])
    got = bytes(f.format({"v": np.array([10, 11, 12])}, 3, np.array([0, 1, 0]))).decode()
    assert got == "a10\nbb!\na12\n"
    assert bytes(f.format({"v": np.zeros(0)}, 0)) == b""


def test_columns_of_any_integer_type():
    f = RowFormatter([[Value("a", "sdec"), ",", Value("b"), ",", Value("c", "sdec"), "\n"]])
    got = bytes(f.format({"a": np.array([-1, 2], dtype=np.int32), "b": np.array([3, 4], dtype=np.uint16),
                          "c": np.array([True, False])}, 2)).decode()
    assert got == "-1,3,1\n2,4,0\n"


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(1 << 40), 1 << 40), st.text(max_size=8))
JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=4)),
                    max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(JSON, st.sampled_from([None, 1, 2]), st.integers(0, 4), st.integers(0, (1 << 64) - 1))
def test_json_templates_write_what_json_dumps_writes(data, indent, depth, value):
    """A template of JSON-ready data with holes (numbers, strings of parts) writes json.dumps of the same data with
    the values in place, at any indent and depth, compact separators too."""
    holes = {"n": Value("v"), "s": Text(('a"b\\', Value("v", "hex"), "\n"))}
    doc = {"data": data, "holes": holes, "list": [holes["n"], 1]}
    filled = {"data": data, "holes": {"n": value, "s": f'a"b\\{value:x}\n'}, "list": [value, 1]}
    separators = (",", ":") if indent is None else None
    parts = json_parts(doc, indent=indent, separators=separators, depth=depth)
    want = json.dumps(filled, indent=indent, separators=separators).replace("\n", "\n" + " " * depth)
    got = bytes(RowFormatter([parts]).format({"v": np.array([value], dtype=np.uint64)}, 1)).decode()
    assert got == want


def test_splice_cuts_a_template():
    parts = json_parts({"a": 1, "items": Splice("items"), "b": Value("x")}, indent=1)
    head, tail = split(parts)
    assert head == ['{\n "a": 1,\n "items": '] and tail[0] == ',\n "b": ' and tail[1] == Value("x")


def test_rows_fit_the_bound_exactly():
    """A row of short names alone (no number's 21 bytes of room) fits the buffer the template's bound gives."""
    f = RowFormatter([[Value("c", "dict", names=("a", "bc"))]])
    assert bytes(f.format({"c": np.array([1, 0, 1])}, 3)) == b"bcabc"
    f = RowFormatter([[Value("c", "dict", names=("x",), absent="", mask="m")]])
    assert bytes(f.format({"c": np.array([0])}, 1, masks={"m": np.array([True])})) == b""
