"""The one serializer (d3d12wl.output.serialize): ``json_text`` writes what ``json.dumps(..., indent=N)`` writes."""

from __future__ import annotations

import enum
import json
import random
from typing import Any

from d3d12wl.output.serialize import json_text


class _Kind(enum.IntEnum):
    A = 1


def _data(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 4 or r < 0.4:
        return rng.choice([0, -5, 2**70, 1.5, -0.0, 1e300, float("nan"), float("inf"), float("-inf"), "",
                           'a"b\\\n\u00e9\U0001f600\x00', True, False, None, _Kind.A, "x"])
    if r < 0.7:
        return [_data(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if r < 0.75:
        return tuple(_data(rng, depth + 1) for _ in range(rng.randint(0, 3)))
    keys: list[Any] = ["k", "é", "", 'a"', 1, 2.5, None, True]
    return {(rng.choice(keys) if rng.random() < 0.1 else f"{rng.choice(keys[:4])}{i}"): _data(rng, depth + 1)
            for i in range(rng.randint(0, 4))}


def test_json_text_is_json_dumps_with_indent() -> None:
    """Byte for byte, for every JSON type and the cases the fast path hands to ``json.dumps`` (an int enum, a
    non-string key, a tuple), at several indents."""
    rng = random.Random(15)
    for _ in range(5000):
        data, indent = _data(rng), rng.choice([1, 2, 4])
        assert json_text(data, indent=indent) == json.dumps(data, indent=indent), data


def test_json_text_reports_a_cycle_as_json_does() -> None:
    looped: list[Any] = []
    looped.append(looped)
    try:
        json_text({"a": looped})
    except ValueError as exc:
        assert "Circular reference" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("no error")


def test_dataclass_hooks_leave_out_and_rename_members() -> None:
    """A field's metadata shapes its JSON: ``NOT_JSON`` leaves it out, ``IF_SET`` leaves it out where it is None
    (a member a view has only sometimes: ``dump``'s ``hex`` without ``--hex``), ``json_name`` writes it under a key
    that is no Python name (``from``), in the fields' order."""
    import dataclasses

    from d3d12wl.output.serialize import IF_SET, NOT_JSON, to_jsonable

    @dataclasses.dataclass
    class Row:
        a: int
        hidden: int = dataclasses.field(default=0, metadata=NOT_JSON)
        hex: str | None = dataclasses.field(default=None, metadata=IF_SET)
        from_: str = dataclasses.field(default="x", metadata={"json_name": "from"})
        last: None = None

    assert to_jsonable(Row(1)) == {"a": 1, "from": "x", "last": None}
    assert list(to_jsonable(Row(1, 2, "00 01"))) == ["a", "hex", "from", "last"]
