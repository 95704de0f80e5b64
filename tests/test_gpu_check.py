"""tools/gpu_check.py (docs/vulkan.md): the verdict lists every capture as ran (its mismatches), refused (the
reason) or FAILED (why); a run passes only on positive evidence for every case that ran: a comparison that could not
be made, a missing result, a mismatch, a walker's error bits fail it, and a refusal is an outcome, not a failure.
And run.sh keeps going past a case that fails and packs what it has into one archive."""

from __future__ import annotations

import importlib.util
import json
import lzma
import sys
import tarfile
from pathlib import Path
from typing import Any

import numpy as np
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
WALK = {"walk": "culling.0.plan", "sequences": 9, "error_bits": 0, "mismatched_sequences": 0}


def case(walked: bool = True, **over: Any) -> dict[str, Any]:
    e: dict[str, Any] = {"executions": 9, "executes": 1, "executor_execute_ms": 1.0, "gpu": {"total_ms_min": 0.02},
                         "lowering_vs_executor": dict(GOOD), "gpu_vs_executor": dict(GOOD),
                         "gpu_vs_lowering": dict(GOOD)}
    if walked:
        e["gpu_walker"] = {"0": dict(WALK)}
        e["dgc_on_walked_sequences_vs_executor"] = dict(GOOD)
    e.update(over)
    return {k: v for k, v in e.items() if v is not None}


def report(**cases: dict[str, Any]) -> dict[str, Any]:
    return {"probe": {}, "cases": cases}


def test_a_complete_clean_run_passes(gpu_check: Any) -> None:
    lines, failures = gpu_check.verdict(report(culling=case(), execute_indirect=case(walked=False),
                                               validation_chain={"refused": "not lowered: validation hooks"}))
    assert failures == []
    assert lines[0].startswith("culling: ran (9 executions, 0 mismatches")
    assert lines[2] == "validation_chain: refused (not lowered: validation hooks)"


@pytest.mark.parametrize("what, entry", [
    ("error", case(gpu_vs_executor={"compared": 0, "mismatches": None, "error": "shape (3, 20) != (9, 20)"})),
    ("no records", case(gpu_vs_executor=None, gpu_vs_lowering=None)),
    ("harness failed", case(error="the harness failed (exit 3): VkResult -4")),
    ("no walk", case(gpu_walker={"0": {"error": "no walk result"}})),
    ("no walked run", case(dgc_on_walked_sequences_vs_executor=None)),
    ("mismatch", case(gpu_vs_lowering={"compared": 9, "mismatches": 2})),
    ("walker mismatch", case(gpu_walker={"0": {**WALK, "mismatched_sequences": 1}})),
    ("walker error bits", case(gpu_walker={"0": {**WALK, "error_bits": 2}})),
    ("nothing compared", case(gpu_vs_executor={"compared": 0, "mismatches": None})),
])
def test_a_broken_or_missing_result_fails(gpu_check: Any, what: str, entry: dict[str, Any]) -> None:
    lines, failures = gpu_check.verdict(report(culling=entry, execute_indirect=case(walked=False)))
    assert failures and all(f.startswith("culling: ") for f in failures), (what, failures)
    assert lines[0].startswith("culling: FAILED (")


def test_the_negative_control_must_be_refused(gpu_check: Any) -> None:
    good = report(culling=case())
    good["negative_control"] = {"as_expected": True, "exit": "2", "stderr": "... outside every uploaded region"}
    assert gpu_check.verdict(good)[1] == []
    bad = report(culling=case())
    bad["negative_control"] = {"as_expected": False, "exit": "0", "stderr": ""}
    assert gpu_check.verdict(bad)[1] == [f"{gpu_check.HOSTILE}: the harness did not refuse the view outside every "
                                         "region: exit 0"]


def test_run_sh_keeps_going_and_packs_one_archive(gpu_check: Any) -> None:
    """No `set -e` (a case that fails is recorded and the next one runs), every exit status written, and one
    archive of everything at the end (the device tool brings back at most 8 files)."""
    head = gpu_check.RUN_HEAD.format(every=1024, raw_max=1, back=1)
    assert "set -uo pipefail" in head.splitlines()[2] and "set -e" not in head
    script = head + gpu_check.RUN_CASE.format(name="c", dwords=20, count=3, repeat=1) + gpu_check.RUN_TAIL
    assert 'echo $? > "$R/$n$tag.rc"' in script
    assert script.rstrip().splitlines()[-2] == 'tar -cJf "$OUT/results.tar.xz" -C "$R" .'


def test_results_compare_against_the_executor_by_records_or_digest(gpu_check: Any, tmp_path: Path) -> None:
    """A case's records come back whole (xz) or as their digest and a sample; both are compared with what the
    executor says, and a digest that differs is a failure even when the sample agrees."""
    from d3d12wl.vulkan.case import Model, digest

    want = Model(np.arange(60, dtype=np.uint32).reshape(3, 20), np.zeros(3, dtype=np.uint32))
    want.invocations_min[:] = want.records[:, 0]
    files = {"c.rec.xz": lzma.compress(want.records.tobytes()),
             "d.digest.json": json.dumps({"records": 3, "gpu_digest": digest(want.records)}).encode(),
             "e.digest.json": json.dumps({"records": 3, "gpu_digest": "0" * 64}).encode(),
             "e.sample.rec": want.records[[0, 2]].tobytes()}
    with tarfile.open(tmp_path / "r.tar.xz", "w:xz") as tar:
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
            tar.add(tmp_path / name, arcname=f"./{name}")
    results = gpu_check.Results(tmp_path / "r.tar.xz")
    assert gpu_check._against(results, "c", want, 20, 3)["mismatches"] == 0
    by_digest = gpu_check._against(results, "d", want, 20, 3)
    assert by_digest["mismatches"] == 0 and by_digest["compared"] == 3 and "sha256" in by_digest["by"]
    differs = gpu_check._against(results, "e", want, 20, 3)
    assert differs["mismatches"] == 0 and "digest of the records differs" in differs["error"]
    assert gpu_check._against(results, "missing", want, 20, 3)["error"] == "no records came back"


def test_prepare_takes_any_capture_and_refuses_with_the_reason(gpu_check: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A user's captures: one the harness runs becomes a case, one it cannot represent is refused in the manifest
    with the reason (nothing of it reaches the GPU machine), and a file that is not a capture is unusable input:
    exit 2 naming it, nothing written."""
    examples = Path(gpu_check.EXAMPLES)
    monkeypatch.setattr(gpu_check, "_compile", lambda out, masks: None)  # gcc and glslc: tested in test_vulkan_harness
    out = tmp_path / "gpu"
    assert gpu_check.main(["prepare", str(out), str(examples / "culling_capture.json"),
                           str(examples / "validation_chain_capture.json")]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["cases"]) == {"culling_capture", "validation_chain_capture"}
    assert manifest["cases"]["culling_capture"]["records"] == 9
    assert "validation hooks" in manifest["cases"]["validation_chain_capture"]["refused"]
    assert (out / "cases" / "culling_capture.case").is_file()
    assert not list((out / "cases").glob("validation_chain*"))
    (tmp_path / "not_a_capture.json").write_text("{}", encoding="utf-8")
    assert gpu_check.main(["prepare", str(tmp_path / "elsewhere"), str(tmp_path / "not_a_capture.json")]) == 2
    assert "not_a_capture.json" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere" / "manifest.json").exists()
