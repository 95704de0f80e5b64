"""The blocks of a large JSON array or JSON lines, one at a time (d3d12wl.importers.json_blocks): what
gfxrecon-convert writes with --format json and jsonl, read in columns a chunk at a time; strings holding brackets,
quotes and backslashes at any chunk boundary; anything but objects at the top level is refused naming the line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from d3d12wl.importers import ImportInputError
from d3d12wl.importers.json_blocks import blocks, first_block

DOCS = [{"header": {"source-path": "C:\\captures\\a \"b\".gfxr"}},
        {"index": 1, "method": {"name": "X", "args": {"s": "[{]}\\\\\"", "l": [1, [2, {}], []], "e": {}}}},
        {"index": 2, "annotation": {"data": "{\n  \"tool\": \"capture\"\n}"}}, {}]


def _write(tmp_path: Path, text: str, name: str = "f.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["json", "jsonl", "jq"])
def test_every_block_at_every_chunk_size(tmp_path: Path, fmt: str) -> None:
    if fmt == "json":  # JsonWriter: "[\n" + blocks joined by ",\n" (indent 2) + "\n]\n"
        text = "[\n" + ",\n".join(json.dumps(d, indent=2) for d in DOCS) + "\n]\n"
    elif fmt == "jsonl":
        text = "\n".join(json.dumps(d, separators=(",", ":")) for d in DOCS) + "\n"
    else:  # the same array pretty-printed by another tool
        text = json.dumps(DOCS, indent=4)
    path = _write(tmp_path, text)
    for chunk in (1, 2, 3, 5, 8, 13, 64, 1 << 20):
        got = list(blocks(path, chunk=chunk))
        assert [b.parse() for b in got] == DOCS, chunk
        assert [b.ordinal for b in got] == list(range(len(DOCS)))


def test_random_strings_survive_any_chunking(tmp_path: Path) -> None:
    rng = random.Random(40)
    alphabet = '[]{}",\\:ab \n\t'
    docs = [{"k": "".join(rng.choice(alphabet) for _ in range(rng.randrange(30))), "n": [i]} for i in range(60)]
    path = _write(tmp_path, "[" + ",".join(json.dumps(d) for d in docs) + "]")
    for chunk in (1, 7, 31, 4096):
        assert [b.parse() for b in blocks(path, chunk=chunk)] == docs


@pytest.mark.parametrize(("text", "message"), [
    ('[{"a":1} {"b":2}]', "two blocks without a comma"),
    ('[{"a":1},]', "a comma after the last block"),
    ('[{"a":1}', "ends inside a block|is not closed"),
    ('{"a":1}]', "a closing bracket that closes nothing"),
    ('[{"a":1}] x', "bytes after the end of the JSON array"),
    ('["s"]', "a string at the top level"),
    ('[[1]]', "an array at the top level"),
    ('[{"a":1},,{"b":1}]', "at the top level"),
    ('{"a":"', "ends inside a block"),
    ('x', "not a JSON array of objects or JSON lines"),
    ('{"a":1}\n1', "at the top level"),
])
def test_what_is_not_blocks_of_objects_names_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    for chunk in (1, 3, 100):
        with pytest.raises(ImportInputError, match=message) as info:
            list(blocks(path, chunk=chunk))
        assert info.value.where.startswith(f"{path}:")


def test_a_block_over_the_bound_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = _write(tmp_path, '[{"a": "' + "x" * 5000 + '"}]')
    with pytest.raises(ImportInputError, match="a block of more than 1,000 bytes"):
        list(blocks(path, max_block=1000, chunk=256))


def test_a_block_is_parsed_with_the_bounds_of_every_document(tmp_path: Path) -> None:
    path = _write(tmp_path, "[" + "{\"a\":" * 100 + "1" + "}" * 100 + "]")
    (block,) = blocks(path)
    with pytest.raises(ImportInputError, match="nested more deeply"):
        block.parse()
    bad = _write(tmp_path, '[{"a": "\xff"}]'.encode("latin-1").decode("latin-1"), "b.json")
    bad.write_bytes(b'[{"a": "\xff"}]')
    (block,) = blocks(bad)
    with pytest.raises(ImportInputError, match="not UTF-8"):
        block.parse()


def test_not_a_file(tmp_path: Path) -> None:
    from d3d12wl.inputs import InputError

    with pytest.raises(InputError, match="is a directory"):
        list(blocks(tmp_path))


def test_the_first_block_of_a_files_head() -> None:
    """first_block: the first object of what a reader that looks only at a file's head has (importers.recognize's
    header block), found by the same scan; None where it does not end there or the head is no such document."""
    doc = b'[\n{"header": {"a": "}{\\"", "b": [1, {"c": 2}]}},\n{"second": 1}]'
    first = first_block(doc[:doc.index(b'{"second"') + 4], "f")
    assert first is not None and doc[first.start:first.end] == b'{"header": {"a": "}{\\"", "b": [1, {"c": 2}]}}'
    jsonl = b'{"header": {}}\n{"x": 1}\n'
    assert first_block(jsonl, "f") is not None and first_block(jsonl, "f").end == len(b'{"header": {}}')
    for head in (doc[:20], b"", b'"text"', b"123", b"]", b"\x00\x00"):
        assert first_block(head, "f") is None, head
