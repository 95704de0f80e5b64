"""Issue 15, item 4: a description's cost is linear in its arguments, for every command that reads one.

Deterministic, so without a clock: each command runs in this process on the documents of
``tools/bench_description.py`` (a root signature of N root-constant parameters, and a program command signature or
an ExecuteIndirect command signature of N CONSTANT arguments, each naming its own parameter) at N, 2N and 4N
arguments, and ``sys.setprofile`` counts every Python and builtin function call it makes.  A linear cost adds about
twice as many calls from 2N to 4N as from N to 2N; a quadratic one (a rule that re-checks every argument per
argument, a layout recomputed per argument, messages formatted for every argument up front) adds four times as many.

What a call count cannot see is quadratic work inside one builtin (``x in a_list``, ``a_list.index(x)``, a string
grown by ``+=``): that is left to the benchmark's linearity check (``tools/bench_description.py`` prints the
per-argument cost at each size), which times it.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from d3d12wl import cli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from bench_description import CASES, COMMANDS, argument_document  # noqa: E402

SIZES = (250, 500, 1000)
#: increment from 2N to 4N over the increment from N to 2N: 2.0 is linear, 4.0 quadratic
MOST_GROWTH = 2.3


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Path]:
    directory = tmp_path_factory.mktemp("linear")
    out = {}
    for case in CASES:
        for n in (SIZES[0] // 2, *SIZES):
            path = directory / f"{case}_{n}.json"
            path.write_text(json.dumps(argument_document(case, n)), encoding="utf-8")
            out[(case, n)] = path
    return out


@contextlib.contextmanager
def counting_calls() -> Iterator[list[int]]:
    """Counts every Python and builtin call made inside the block (``count[0]``)."""
    count = [0]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def calls(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), counting_calls() as count:
        code = cli.main(argv)
    assert code == 0, argv
    return count[0]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_calls_grow_linearly_with_the_arguments(documents: dict[tuple[str, int], Path], case: str,
                                                command: str) -> None:
    argv = COMMANDS[command]
    calls([*argv, str(documents[(case, SIZES[0] // 2)])])  # (warm: every cache a first run fills)
    counts = [calls([*argv, str(documents[(case, n)])]) for n in SIZES]
    first, second = counts[1] - counts[0], counts[2] - counts[1]
    assert first > 0 and second <= MOST_GROWTH * first, (
        f"{command} on {case}: {counts} calls at {SIZES} arguments: from {SIZES[1]} to {SIZES[2]} it adds "
        f"{second / first:.2f}x what it adds from {SIZES[0]} to {SIZES[1]} (linear: 2)")


def test_the_count_sees_a_quadratic_cost(documents: dict[tuple[str, int], Path],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is live: a rule that looks at every argument once per argument fails it."""
    from d3d12wl.rules import _common

    real = _common.decode_args

    def quadratic(args: Any, sink: Any, *, work_lists: bool = True) -> Any:
        decoded = real(args, sink, work_lists=work_lists)
        for a in decoded:
            sum(1 for b in decoded if b.index < a.index)
        return decoded

    monkeypatch.setattr(_common, "decode_args", quadratic)
    for module in ("pcs", "execute_indirect"):
        monkeypatch.setattr(f"d3d12wl.rules.{module}.decode_args", quadratic)
    counts = [calls(["validate", str(documents[("ei", n)])]) for n in SIZES]
    assert counts[2] - counts[1] > MOST_GROWTH * (counts[1] - counts[0]), counts
