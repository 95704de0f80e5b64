"""tools/gpu_check.py's verdict (docs/vulkan.md): a GPU run passes only on positive evidence for every case; a
comparison that could not be made, a missing result file and a walker error fail it.  And run.sh stops on the
first command that fails."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "gpu_check.py"


@pytest.fixture(scope="module")
def gpu_check() -> Any:
    spec = importlib.util.spec_from_file_location("_gpu_check", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_gpu_check"] = module
    spec.loader.exec_module(module)
    return module


GOOD = {"compared": 9, "mismatches": 0, "ran": 9}
WALK = {"walk": "culling", "sequences": 9, "error_bits": 0, "mismatched_sequences": 0}


def case(walked: bool = True, **over: Any) -> dict[str, Any]:
    e: dict[str, Any] = {"executions": 9, "walked": walked, "lowering_vs_executor": dict(GOOD),
                         "gpu_vs_executor": dict(GOOD), "gpu_vs_lowering": dict(GOOD)}
    if walked:
        e["gpu_walker"] = dict(WALK)
        e["dgc_on_walked_sequences_vs_lowering_on_device"] = dict(GOOD)
    e.update(over)
    return {k: v for k, v in e.items() if v is not None}


def report(**cases: dict[str, Any]) -> dict[str, Any]:
    return {"probe": {}, "cases": cases}


def test_a_complete_clean_run_passes(gpu_check: Any) -> None:
    assert gpu_check.verdict(report(culling=case(), execute_indirect=case(walked=False))) == []


def test_big_may_stand_on_sampled_and_on_device_checks(gpu_check: Any) -> None:
    big = case(gpu_vs_executor=None, gpu_vs_lowering=None, gpu_vs_executor_sample=dict(GOOD),
               gpu_vs_lowering_on_device=dict(GOOD))
    assert gpu_check.verdict(report(big=big)) == []


@pytest.mark.parametrize("what, entry", [
    # compare_records on records of the wrong shape (a truncated .rec): mismatches None, an error
    ("error", case(gpu_vs_executor={"compared": 0, "mismatches": None, "error": "shape (3, 20) != (9, 20)"})),
    ("no .rec file", case(gpu_vs_executor=None, gpu_vs_lowering=None)),
    ("no walk file", case(gpu_walker=None)),
    ("no walked check file", case(dgc_on_walked_sequences_vs_lowering_on_device=None)),
    ("mismatch", case(gpu_vs_lowering={"compared": 9, "mismatches": 2})),
    ("walker mismatch", case(gpu_walker={**WALK, "mismatched_sequences": 1})),
    ("walker error bits", case(gpu_walker={**WALK, "error_bits": 2})),
    ("nothing compared", case(gpu_vs_executor={"compared": 0, "mismatches": None})),
])
def test_a_broken_or_missing_result_fails(gpu_check: Any, what: str, entry: dict[str, Any]) -> None:
    failures = gpu_check.verdict(report(culling=entry, execute_indirect=case(walked=False)))
    assert failures and all(f.startswith("culling: ") for f in failures), (what, failures)


def test_run_sh_stops_on_failure(gpu_check: Any) -> None:
    head = gpu_check.RUN_HEAD.format(small="culling", repeat_small=1)
    assert head.splitlines()[2] == "set -euo pipefail"
    script = head + gpu_check.RUN_BIG.format(repeat_big=1) + gpu_check.RUN_WALK.format(walked="c", repeat_small=1)
    # no `a && b` whose failing `a` set -e would let pass
    assert not [line for line in script.splitlines() if "dgc_harness" in line and "&&" in line]
