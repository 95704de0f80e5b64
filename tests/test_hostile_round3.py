"""Hostile input, round 3 (issue 42): the surfaces added last, each class of the issue's table that this branch
owns (2, 3, 4, 5, 10, 11, 12) proved by a test built from its line there.  Each test names its class.

The rule they hold (design.md, "How the team works"): bad input gets a clear error naming where and why, exit 2 for
unusable input; nothing a user gave is lost or half-written; a driver library's process is the harness's to end.
The output-name rule (no output may be an input or another output) is tests/test_output_claims.py's, the UINT
bounds tests/test_spec_uints.py's, the repeated flags tests/test_repeated_flags.py's.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import require

import d3d12wl
from d3d12wl.cli import main
from d3d12wl.migrate import runs
from d3d12wl.migrate.ei_to_wl import identifier_for

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"


# --- 12: a lone surrogate in a program name, through migrate ei-to-wl --------------------------------------------


def test_class_12_ei_to_wl_of_a_program_named_by_a_lone_surrogate(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Class 12: ``migrate ei-to-wl`` of a call sequence whose program is ``"\\ud800"`` (valid JSON) migrates, as
    every other writer takes such a name: the program keeps its name, and the identifier made from it (the name's
    bytes, zero-padded) is the name's own bytes, distinct from any other name's (``surrogatepass``: a backslash
    escape would give the identifier of the program literally named ``\\ud800``)."""
    folder = tmp_path / "ei"
    shutil.copytree(EXAMPLES / "culling_ei", folder)
    calls = json.loads((folder / "calls.json").read_text())
    calls["calls"][0]["program"] = "\ud800"
    (folder / "calls.json").write_text(json.dumps(calls))
    out = tmp_path / "wl.json"
    assert main(["migrate", "ei-to-wl", str(folder / "calls.json"), "-o", str(out), "--verify"]) == 0
    assert "verify: same executions" in capsys.readouterr().out
    programs = json.loads(out.read_text())["programs"]
    assert "\ud800" in programs
    assert bytes.fromhex(programs["\ud800"]["Identifier"]) == identifier_for("\ud800")
    assert identifier_for("\ud800") != identifier_for("\\ud800")
    assert identifier_for("\ud800").rstrip(b"\0") == b"\xed\xa0\x80"


# --- 2: a saved trace whose members are of the wrong kind, through diff ------------------------------------------


def _saved_trace(capture: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["exec", str(EXAMPLES / capture), "--json"]) in (0, 1)
    trace: dict[str, Any] = json.loads(capsys.readouterr().out)
    return trace


def _shape_paths(shape: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every member of :data:`~d3d12wl.migrate.runs.TRACE_SHAPE` (a list's first element) and its shape."""
    if isinstance(shape, dict):
        for key, sub in shape.items():
            if key != "*":
                yield (*path, key), sub
                yield from _shape_paths(sub, (*path, key))
    elif isinstance(shape, list):
        yield from _shape_paths(shape[0], (*path, 0))


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any | None:
    """``doc`` with the member at ``path`` replaced (None when the trace has no such member)."""
    doc = copy.deepcopy(doc)
    at = doc
    for step in path[:-1]:
        if isinstance(at, dict) and step in at and at[step] is not None or isinstance(at, list) and at:
            at = at[step]
        else:
            return None
    if isinstance(at, dict) and path[-1] in at or isinstance(at, list) and at:
        at[path[-1]] = value
        return doc
    return None


def _kind_fits(value: Any, shape: Any) -> bool:
    if value is None or shape == runs.ANY:
        return True
    if shape == runs.SCALAR:
        return not isinstance(value, dict | list)
    if isinstance(shape, list):
        return isinstance(value, list) and all(_kind_fits(v, shape[0]) for v in value)
    return isinstance(value, dict) and all(_kind_fits(v, shape.get(k, shape.get("*", runs.ANY)))
                                           for k, v in value.items())


_WRONG = (7, "x", [7], {"a": 1}, 1.5, True)


@pytest.mark.parametrize("capture", ["culling_capture.json", "execute_indirect_capture.json"])
def test_class_02_diff_of_a_saved_trace_with_a_member_of_the_wrong_kind(capture: str, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Class 2: ``diff A B``, B a saved ``exec --json`` trace with a member of the wrong type (``executions``,
    ``root_arguments``, ``ia`` or ``findings`` an integer, ``trigger`` a string; here every member a run reads, each
    given every JSON kind) is exit 2 naming the member, never an internal error; a member of its own kind diffs."""
    trace = _saved_trace(capture, tmp_path, capsys)
    a = tmp_path / "a.json"
    a.write_text(json.dumps(trace))
    tried = set()
    for path, shape in _shape_paths(runs.TRACE_SHAPE):
        for value in _WRONG:
            doc = _replaced(trace, path, value)
            if doc is None:
                continue
            tried.add(path)
            b = tmp_path / "b.json"
            b.write_text(json.dumps(doc))
            code = main(["diff", str(a), str(b)])
            err = capsys.readouterr().err
            shown = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
            if _kind_fits(value, shape):
                assert code in (0, 1), (path, value, err)
            else:
                assert code == 2 and f"{b}: {shown}" in err and "internal error" not in err, (path, value, err)
    # the class's own lines were among them
    assert {("executions",), ("executions", 0, "root_arguments"), ("findings",), ("executions", 0, "trigger")} <= tried
    if capture.startswith("execute_indirect"):
        assert ("executions", 0, "ia") in tried


def test_class_02_a_saved_trace_is_checked_for_the_python_api_too(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Class 2 through the public API: ``compare_runs`` and ``assert_draws`` take a saved trace (a path or a dict);
    one of the wrong shape is a MigrationError naming the member, and values of any JSON kind (a struct where a
    number was, two root arguments of one register) are compared, never a TypeError."""
    from d3d12wl.migrate import MigrationError
    from d3d12wl.migrate.equivalence import assert_draws, compare_runs

    trace = _saved_trace("culling_capture.json", tmp_path, capsys)
    bad = copy.deepcopy(trace)
    bad["executions"][1]["trigger"]["source"] = 5
    with pytest.raises(MigrationError, match=r"executions\[1\]\.trigger\.source"):
        compare_runs(trace, bad)
    with pytest.raises(MigrationError, match=r"executions\[1\]\.trigger\.source"):
        assert_draws(bad, [])
    for member in ("executions", "findings"):  # (a null member is absent; a null element of a list is not)
        holed = dict(trace, **{member: [None]})
        with pytest.raises(MigrationError, match=rf"{member}\[0\]: must be an object .* not null"):
            compare_runs(trace, holed)
    holed = copy.deepcopy(trace)
    holed["executions"][0]["root_arguments"] = [None]
    with pytest.raises(MigrationError, match=r"executions\[0\]\.root_arguments\[0\]"):
        compare_runs(trace, holed)
    odd = copy.deepcopy(trace)
    first = odd["executions"][0]
    first["trigger"]["fields"]["VertexCountPerInstance"] = {"nested": [1, 2]}
    first["root_arguments"].append(dict(first["root_arguments"][0], value=None, values=[1, None]))
    result = compare_runs(trace, odd, order="multiset")
    assert not result.same and len(result.differences) == 2
    assert compare_runs(odd, copy.deepcopy(odd), order="multiset").same
    from d3d12wl.migrate.equivalence import load_expected_draws

    want = load_expected_draws(EXAMPLES / "culling_expected_draws.csv")
    assert_draws(trace, want)
    with pytest.raises(AssertionError, match="draw 0"):  # (the struct where a number was: a difference)
        assert_draws(odd, want, order="multiset")


# --- 10, 11: a driver library that forks, or writes a gigabyte, in its constructor -------------------------------


def _driver(hostilities: tuple[str, ...], tmp_path: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "fuzz"))
    import driver_surface

    require(driver_surface.compiler_available(), "gcc not installed (the hostile driver libraries are built with it)")
    return Path(driver_surface.build(hostilities, 7, tmp_path))


def _check(lib: Path, *extra: str, env: dict[str, str] | None = None, budget: float = 4.0,
           ) -> subprocess.CompletedProcess[bytes]:
    """``messages check --driver lib`` as a user runs it, its output captured: a process that outlives the command
    and holds its output open would keep this waiting (past the bound: TimeoutExpired, the test fails)."""
    argv = [sys.executable, "-m", "d3d12wl", "messages", "check", "--driver", str(lib), "--timeout", str(budget),
            *extra]
    return subprocess.run(argv, capture_output=True, timeout=budget + 20, env={**os.environ, **(env or {})},
                          check=False)


def _gone(pid: int) -> bool:
    """The process ``pid`` is gone or a zombie (killed, waiting for its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process checks read /proc")
def test_class_10_a_driver_whose_constructor_forks(tmp_path: Path) -> None:
    """Class 10: ``messages check --driver`` of a library whose constructor ``fork()``s was reported as "did not
    return within 1 s" (the harness waited for the pipe the child holds to close), the child was never killed and
    wrote into d3d12wl's stdout and stderr after it exited.  Each isolated process is a process group of its own,
    killed whole at the end: the run passes (the library is the reference driver besides), within its budget, every
    child the constructor forked is dead when the command has exited, and what they wrote is the report's marked
    section, never a line of d3d12wl's own output."""
    lib = _driver(("CONSTRUCTOR_FORK",), tmp_path)
    pids = tmp_path / "pids"
    started = time.monotonic()
    done = _check(lib, env={"HOSTILE_PIDFILE": str(pids)})
    assert time.monotonic() - started < 4.0 + 15
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, out + err
    assert "did not return" not in out and "verdict: PASS" in out
    assert "hostile child" not in err
    assert all(line.startswith("  [") for line in out.splitlines() if "hostile child" in line), out
    assert "the driver's output (" in out
    forked = [int(p) for p in pids.read_text().split()]
    assert len(forked) >= 2  # (the preflight's and each check's)
    deadline = time.monotonic() + 5
    while not all(_gone(p) for p in forked) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in forked if not _gone(p)] == []


def test_class_11_a_driver_whose_constructor_writes_a_gigabyte(tmp_path: Path) -> None:
    """Class 11: a constructor that writes 1 GiB to stderr: 590 MB passed through before the kill, and d3d12wl's
    one-line error was glued to the driver's unterminated line.  What the driver writes goes to a pipe of each
    process's own, drained and kept to its first 4 KiB: the command's output is bounded (kilobytes), d3d12wl's own
    lines are whole lines of its own, and the report says how much the driver wrote.  Loading that fails after the
    flood (the constructor then exits) is exit 2, its one error line whole and first on its line."""
    lib = _driver(("CONSTRUCTOR_SPEW",), tmp_path)
    done = _check(lib, budget=6.0)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode in (0, 1), out + err
    assert len(done.stdout) + len(done.stderr) < 200_000
    assert "x" * 1000 not in err and err == "", err[:300]
    assert "bytes in all)" in out and "the driver's output (" in out
    assert out.splitlines()[-1].startswith("verdict: ")
    # the flood, then a constructor that exits: unusable input, the error its own whole line
    exiting = _driver(("CONSTRUCTOR_EXIT", "CONSTRUCTOR_SPEW"), tmp_path)
    done = _check(exiting)
    err = done.stderr.decode()
    assert done.returncode == 2, err[-500:]
    assert len(done.stdout) + len(done.stderr) < 10_000
    assert err.startswith("d3d12wl messages: error: ") and err.count("\n") == 1, err[:500]
    assert "the driver could not be made: it " in err  # (exited; or, on a loaded machine, not done within its share)
    assert "bytes to standard output and error (kept apart; the first line: 'xxxx" in err
