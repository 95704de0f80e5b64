"""The surface fuzz suite, bounded for CI (issue 26: the surfaces the JSON mutations do not reach): generated command
lines over hostile paths, stdin streams, environment variables, a full disk and an interrupt (``surfaces``); each
must end as a user is promised (exit 0/1/2/130, no traceback, old files kept, no temporary file left, special files
kept).  ``tools/fuzz.py --kinds cli`` runs long campaigns of the same engine."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import surfaces

SEEDS = range(60)


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    surfaces.preload()  # every module imported before the children fork
    return surfaces.make_pool(tmp_path_factory.mktemp("surfaces"))


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_command_lines_end_as_promised(seed: int, pool: Path) -> None:
    outcome, why, *_ = surfaces.exercise(surfaces.case(seed), pool)
    assert outcome in ("ok", "error"), (surfaces.case(seed).to_json(), why)


def test_the_engine_reaches_every_surface() -> None:
    """Over a few thousand seeds every command, hostile output, stream and fault is drawn (a fuzz engine that never
    drew /dev/full or an interrupt would prove nothing about them)."""
    cases = [surfaces.case(seed) for seed in range(3000)]
    commands = Counter(c.argv[0] if c.argv[0] not in ("migrate", "messages", "abi") else " ".join(c.argv[:2])
                       for c in cases)
    assert set(commands) >= {"validate", "layout", "codegen", "decode", "capture", "dump", "exec", "diff",
                             "migrate wl-to-ei", "migrate ei-to-wl", "migrate scene", "messages check", "abi check",
                             "patch-list", "remap"}
    outputs = {item.split(":", 1)[0] for c in cases for item in c.outputs}
    assert outputs >= {"new", "existing", "fifo", "symlink", "dangling", "loop", "dir", "missing-folder", "long",
                       "nonutf8", "through-file"}
    assert {c.stdin for c in cases} >= {"document", "nul", "binary", "endless"}
    assert any(c.fsize is not None for c in cases) and any(c.sigint_ms is not None for c in cases)
    assert any("/dev/full" in c.argv for c in cases) and any(c.env for c in cases)
    assert {c.stdout for c in cases} == {"null", "full", "closed"}


# --- issue 42: one thing named twice -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_clash_cases_are_refused(seed: int, pool: Path) -> None:
    """A case that names one thing twice (an output as an input the command reads or as its other output, a flag
    given two values) ends in exit 2 (or 130, interrupted), and no input of the pool is written over."""
    case = surfaces.case(seed, clash=True)
    assert case.refused
    outcome, why, *_ = surfaces.exercise(case, pool)
    assert outcome == "error", (case.to_json(), why)


def test_the_clash_cases_reach_every_kind() -> None:
    """The clash cases name an output as an input (as given and spelt another way), two outputs as one, and give
    flags twice; the saved traces reach diff."""
    cases = [surfaces.case(seed, clash=True) for seed in range(600)]
    flat = [" ".join(c.argv) for c in cases]
    assert any("-o ./ex-" in f or "-o dir/../" in f for f in flat)
    assert any(any(f"-o {p}" in f for p in ("ex-", "readback/", "culling_ei/", "vamap.csv")) for f in flat)
    assert any("-o - --findings -" in f or "-o P.csv --findings P.csv" in f for f in flat)
    assert any("--descriptor-heap SAMPLER" in f for f in flat) and any("--format json --format csv" in f for f in flat)
    assert any(c.argv[0] == "diff" and any(a.startswith("trace-") for a in c.argv)
               for c in map(surfaces.case, range(3000)))


def test_a_clash_the_rule_let_through_is_a_finding(pool: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The surface would see a command that wrote over its input: with the rule switched off, a migration writing
    over its own call sequence is reported (exit 0 where 2 was due, and the input written over), and the pool is put
    back for the cases after it."""
    from d3d12wl.output import claims

    case = surfaces.Case(0, ["migrate", "ei-to-wl", "culling_ei/calls.json", "-o", "culling_ei/calls.json"],
                         refused=True)
    before = (pool / "culling_ei" / "calls.json").read_bytes()
    monkeypatch.setattr(claims, "check", lambda *a, **k: None)
    monkeypatch.setattr(claims, "claim", lambda *a, **k: None)
    outcome, why, *_ = surfaces.exercise(case, pool)
    assert outcome == "crash" and "where one thing is named twice" in why and "inputs written over" in why, why
    assert (pool / "culling_ei" / "calls.json").read_bytes() == before
