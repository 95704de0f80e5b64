"""The one table renderer (d3d12wl.output.tables): numbers right-aligned, negatives and hex included; enums by name."""

from __future__ import annotations

from d3d12wl import abi
from d3d12wl.output import tables


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


def test_render_is_every_row_through_the_row_formatter() -> None:
    """``render`` formats a table's rows in one ``str.format`` per row (a layout table has 100,000 rows); its lines
    are those of the one row formatter (``_line``, what ``Columns`` uses) at the measured widths, whatever the
    cells (empty, ``-``, braces, trailing blanks, numbers, enums), alignments, indent and gap."""
    import random

    rng = random.Random(15)
    values = ["", "-", "a", "ab c ", " x", "{}", "{0}", "0x1f", "-3", 7, None, True, 2.5, "é",
              abi.enum("D3D12_INDIRECT_ARGUMENT_TYPE").DRAW]
    for _ in range(2000):
        ncols = rng.randint(0, 4)
        headers = None if rng.random() < 0.3 else tuple(rng.choice(["h", "{", "", "long header"])
                                                        for _ in range(rng.randint(0, ncols)))
        rows = [[rng.choice(values) for _ in range(rng.randint(0, ncols))] for _ in range(rng.randint(0, 5))]
        width = max([len(headers or ()), *(len(r) for r in rows)], default=0)
        align = None if rng.random() < 0.5 else tuple(rng.choice(["<", ">", None]) for _ in range(width))
        indent, gap = rng.choice(["", "  ", "{"]), rng.choice(["  ", " ", "}"])
        cells = [[tables.cell(c) for c in row] + [""] * (width - len(row)) for row in rows]
        head = list(headers) + [""] * (width - len(headers)) if headers is not None else None
        widths = [max([len(head[i]) if head else 0, *(len(r[i]) for r in cells)]) for i in range(width)]
        aligns = tables._aligns(cells, width, align)
        expected = ([tables._line(head, widths, aligns, indent, gap)] if head is not None else []) + [
            tables._line(r, widths, aligns, indent, gap) for r in cells]
        assert tables.render(headers, rows, indent=indent, align=align, gap=gap) == expected, (headers, rows)
