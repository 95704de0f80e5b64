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
