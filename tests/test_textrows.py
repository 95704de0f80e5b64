"""d3d12wl.output.textrows: text rows from columns by the C kernel d3d12wl_format_rows, held to what Python's own
formatting writes (str, format(v, "x"), json.dumps) value by value."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d3d12wl.output.textrows import Cell, Field, RowFormatter, Splice, Text, Value, json_parts, split

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


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-(1 << 7), (1 << 7) - 1), st.integers(0, (1 << 16) - 1),
                          st.integers(-(1 << 31), (1 << 31) - 1), U64), min_size=1, max_size=30),
       st.lists(st.integers(0, 29), min_size=1, max_size=40))
def test_a_field_value_reads_the_record_its_column_names(records, picks):
    """A Value with a Field writes the little-endian integer at its offset of the record that its column names
    (sign-extended where signed), as numpy reads that field of the same records."""
    dtype = np.dtype([("a", "<i1"), ("b", "<u2"), ("c", "<i4"), ("d", "<u8")], align=False)
    table = np.array(records, dtype=dtype)
    rows = np.array([p % len(records) for p in picks], dtype=np.int64)
    source = table.view(np.uint8).reshape(len(table), dtype.itemsize)
    parts = [Value("row", "sdec", field=Field("t", dtype.fields["a"][1], 1, signed=True)), " ",
             Value("row", "udec", field=Field("t", dtype.fields["b"][1], 2)), " ",
             Value("row", "sdec", field=Field("t", dtype.fields["c"][1], 4, signed=True)), " ",
             Value("row", "hex", field=Field("t", dtype.fields["d"][1], 8)), " ",
             Value("row", "udec", field=Field("t", dtype.fields["c"][1], 4)), "\n"]
    f = RowFormatter([parts])
    got = bytes(f.format({"row": rows}, len(rows), sources={"t": source})).decode()
    want = "".join(f"{table['a'][r]} {table['b'][r]} {table['c'][r]} {int(table['d'][r]):x} "
                   f"{int(table['c'][r]) % (1 << 32)}\n" for r in rows)
    assert got == want


def test_a_field_past_its_source_is_refused():
    """A record named past the source's rows is an error of the call, never a read outside it; a source whose
    records are shorter than a field's end, or not a uint8 table, is refused before the kernel runs."""
    f = RowFormatter([[Value("row", field=Field("t", 4, 4)), "\n"]])
    source = np.zeros((3, 8), dtype=np.uint8)
    assert bytes(f.format({"row": np.array([2, 0])}, 2, sources={"t": source})) == b"0\n0\n"
    with pytest.raises(RuntimeError, match="row 1 .*does not hold"):
        f.format({"row": np.array([0, 3])}, 2, sources={"t": source})
    for bad in (np.zeros((3, 7), dtype=np.uint8), np.zeros((3, 2), dtype=np.uint32), np.zeros(24, dtype=np.uint8),
                np.zeros((8, 3), dtype=np.uint8).T):
        with pytest.raises(ValueError, match="source 't'"):
            f.format({"row": np.array([0])}, 1, sources={"t": bad})


def test_prepared_rows_made_on_other_threads_are_formats_bytes():
    """RowFormatter.prepare takes every Python step of a call; PreparedRows.make on several threads at once, each
    with a buffer of its own, writes what format writes, less the first ``skip`` bytes."""
    from concurrent.futures import ThreadPoolExecutor

    from d3d12wl.output.textrows import RowBuffer

    f = RowFormatter([["#", Value("i"), " ", Value("v", "hex", prefix="0x"), "\n"]])
    blocks = [{"i": np.arange(k, k + 500), "v": np.arange(k, k + 500, dtype=np.uint32) * 7} for k in range(0, 8000, 500)]
    want = [bytes(f.format(b, 500)) for b in blocks]
    prepared = [f.prepare(b, 500, skip=3 if k == 0 else 0) for k, b in enumerate(blocks)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: bytes(p.make(RowBuffer())), prepared))
    assert got == [want[0][3:], *want[1:]]
    assert bytes(f.prepare(blocks[0], 0).make(None)) == b""
