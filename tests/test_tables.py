"""The one table renderer (d3d12wl.tables): numbers right-aligned, negatives and hex included; enums by name."""

from __future__ import annotations

from d3d12wl import abi, tables


def test_numbers_right_aligned_negatives_included() -> None:
    lines = tables.render(("offset", "name"), [(0, "a"), (-8, "bb"), (12, "c")])
    assert lines == ["offset  name", "     0  a", "    -8  bb", "    12  c"]


def test_hex_and_mixed_columns() -> None:
    lines = tables.render(("va", "what"), [("0x10000", 1), ("0x8", "x")])
    assert lines[1] == "0x10000  1" and lines[2] == "    0x8  x"  # a column of text and numbers is left-aligned


def test_enum_members_by_name() -> None:
    draw = abi.enum("D3D12_INDIRECT_ARGUMENT_TYPE").DRAW
    flags = abi.enum("D3D12_DISPATCH_LIST_FLAGS1")
    both = flags.END_WITH_WAIT_FOR_COMPLETION | flags.END_WITH_MEMORY_FLUSH
    assert tables.cell(draw) == "DRAW"
    assert tables.cell(both) == "END_WITH_WAIT_FOR_COMPLETION|END_WITH_MEMORY_FLUSH"
    assert tables.cell(flags(0)) == "NONE" and tables.cell(None) == "-" and tables.cell(True) == "true"


def test_placeholders_do_not_make_a_number_column_textual() -> None:
    assert tables.render(("n",), [(1,), (None,), (100,)]) == ["  n", "  1", "  -", "100"]


def test_fixed_columns_stream_rows() -> None:
    cols = tables.Columns(widths=(4, 6, 0), align=(">", "<", "<"))
    assert cols.row((-3, "ab", "tail")) == "  -3 ab     tail"
    assert cols.row((123456, "abcdefgh", "t")) == "123456 abcdefgh t"  # a wide cell widens only its own row
