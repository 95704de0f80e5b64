"""tools/gpu_check.py (docs/vulkan.md): the verdict lists every capture as ran (its mismatches), refused (the
reason) or FAILED (why); a run passes only on positive evidence for every case that ran: a comparison that could not
be made, a missing result, a mismatch, a walker's error bits fail it, and a refusal is an outcome, not a failure.
And run.sh keeps going past a case that fails and packs what it has into one archive."""

from __future__ import annotations

import importlib.util
import io
import json
import lzma
import os
import signal
import subprocess
import sys
import tarfile
import time
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
    """No `set -e` (a case that fails is recorded and the next one runs), every exit status written, the records
    checked on the GPU machine, and one archive of everything at the end (the device tool brings back at most 8
    files of 16 MiB), rebuilt without records when it would be larger."""
    head = gpu_check.RUN_HEAD.format(raw_max=1, back=1, budget=480)
    assert "set -uo pipefail" in head.splitlines()[2] and "set -e" not in head
    script = head + gpu_check.RUN_CASE.format(name="c", dwords=20, repeat=1, limit=60, walk="") + \
        gpu_check.RUN_TAIL.format(archive_max=gpu_check.ARCHIVE_MAX)
    assert 'echo $? > "$R/$n$tag.rc"' in script and "python3 -m d3d12wl.vulkan.case check" in script
    assert "compileall" in head  # the GPU machine sets PYTHONDONTWRITEBYTECODE
    tail = script.rstrip().splitlines()
    assert tail[-6] == 'tar -cJf "$OUT/results.tar.xz" -C "$R" .'
    assert "--exclude='*.bad.rec' --exclude='*.rec.xz'" in tail[-4] and str(gpu_check.ARCHIVE_MAX) in tail[-5]


def _archive(tmp_path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(tmp_path / "r.tar.xz", "w:xz") as tar:
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
            tar.add(tmp_path / name, arcname=f"./{name}")
    return tmp_path / "r.tar.xz"


def test_results_compare_against_the_executor_record_for_record_or_by_chunk(gpu_check: Any, tmp_path: Path) -> None:
    """A case's records come back whole (xz), or as the GPU machine's check of them: per chunk the digest of the
    records as compared and the model's, and the records of the chunks that differ from the model.  Each chunk is
    compared with what the executor says: record for record where its records came back, by equal digests, through
    the model where the GPU equals it; a chunk that differs from the model and did not come back is an error, not a
    pass."""
    from d3d12wl.vulkan.case import Model, Tally, check, digest

    rng = np.random.default_rng(1)
    want = Model(rng.integers(1, 1000, (3, 20), dtype=np.uint64).astype(np.uint32), np.zeros(3, dtype=np.uint32))
    want.records[:, 3] = 0
    want.invocations_min[:] = want.records[:, 0]
    case = type("C", (), {"record_dwords": 20, "count": 3})()
    wrong = want.records.copy()
    wrong[1, 7] += 1

    def one(files: dict[str, bytes], model: Model = want) -> dict[str, Any]:
        results = gpu_check.Results(_archive(tmp_path, files))
        gpu = gpu_check.GpuRecords(results, "c", case)
        tally = Tally()
        gpu_check._compare_chunk(gpu, 0, 0, want, model, tally, Tally() if gpu.stream is not None else None)
        return tally.to_dict()

    def checked(records: np.ndarray, bad: bool) -> dict[str, bytes]:
        chunk = {"first": 0, "count": 3, "gpu": digest(records), "model": digest(want.records),
                 "mismatches": int((records != want.records).any(axis=1).sum())}
        files = {"c.check.json": json.dumps({"chunks": [chunk], "bad_chunks": [0] if bad else []}).encode()}
        if bad:
            files["c.bad.rec"] = records.tobytes()
        return files

    assert one({"c.rec.xz": lzma.compress(want.records.tobytes())})["mismatches"] == 0
    assert one({"c.rec.xz": lzma.compress(wrong.tobytes())})["mismatches"] == 1
    assert one(checked(want.records, bad=False))["mismatches"] == 0  # equal digests
    assert one(checked(wrong, bad=True))["mismatches"] == 1  # the chunk's records came back
    missing = one(checked(wrong, bad=False))
    assert "did not come back" in missing["error"] and missing["mismatches"] == 0
    other_model = Model(wrong, want.invocations_min)
    assert "modelled records 0..2 otherwise" in one(checked(want.records, bad=False), other_model)["error"]
    # the GPU machine's own check: digests per chunk and the records of the chunks that differ
    out = io.BytesIO()
    got = check(_small_case(), _model_of_small_case().records, out)
    assert got["mismatches"] == 0 and got["chunks"] and got["bad_chunks"] == [] and out.getvalue() == b""


def _small_case() -> Any:
    from d3d12wl.vulkan import lower_capture
    from d3d12wl.vulkan.captures import build_indexed_capture
    from d3d12wl.vulkan.harness import prepare_case

    cap = build_indexed_capture()
    return prepare_case(lower_capture(cap, sequence_index=True), cap.memory).case


def _model_of_small_case() -> Any:
    from d3d12wl.vulkan.case import model_records

    return model_records(_small_case())


def test_prepare_takes_any_capture_and_refuses_with_the_reason(gpu_check: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A user's captures: one the harness runs becomes a case, one it cannot represent is refused in the manifest
    with the reason (nothing of it reaches the GPU machine), and a file that is not a capture is unusable input:
    exit 2 naming it, nothing written."""
    examples = Path(gpu_check.EXAMPLES)
    monkeypatch.setattr(gpu_check, "_compile", lambda out, masks: None)  # gcc and glslc: tested in test_vulkan_harness
    monkeypatch.setattr(gpu_check, "check_build_tools", lambda: None)
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


def simulate(d: Path, out: Path, corrupt: dict[str, list[tuple[int, int, int]]] | None = None) -> Path:
    """A CPU stand-in for run.sh on the GPU machine: every case's records as the lowering's model says (what a GPU
    executing the sequences as Vulkan specifies writes), with ``corrupt[name]`` = (record, dword, value) changes,
    checked by the GPU machine's own code (``d3d12wl.vulkan.case.check``), the records whole when small."""
    from d3d12wl.vulkan import case as case_module

    manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    for name, e in manifest["cases"].items():
        if "records" not in e:
            continue
        p = d / "cases" / f"{name}.case"
        data = p.read_bytes() if p.exists() else lzma.decompress((d / "cases" / f"{name}.case.xz").read_bytes())
        case = case_module.case_from_bytes(data)
        rec = case_module.model_records(case).records.copy()
        for record, dword, value in (corrupt or {}).get(name, []):
            rec[record, dword] = value
        (out / f"{name}.rc").write_text("0\n")
        (out / f"{name}.summary.json").write_text(json.dumps({"total_ms_min": 1.0, "submissions": e["executes"],
                                                             "longest_submission_gpu_ms": 0.5}))
        with open(out / f"{name}.bad.rec", "wb") as bad:
            (out / f"{name}.check.json").write_text(json.dumps(case_module.check(case, rec, bad)))
        if rec.nbytes <= 1 << 16:
            (out / f"{name}.rec.xz").write_bytes(lzma.compress(rec.tobytes()))
        for li in e.get("walked_layouts", []):
            (out / f"{name}.walk{li}.json").write_text(json.dumps({"mismatched_sequences": 0, "error_bits": 0}))
    return out


@pytest.fixture
def no_compile(gpu_check: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_check, "_build", lambda out, masks: None)  # gcc and glslc: tested in test_vulkan_harness
    monkeypatch.setattr(gpu_check, "check_build_tools", lambda: None)


def test_prepare_run_and_compare_end_to_end(gpu_check: Any, no_compile: None, tmp_path: Path) -> None:
    """prepare, a GPU that does what the lowering's sequences say, compare: every capture ran with 0 mismatches,
    record for record where the records came back whole and by chunk digests where they did not; a wrong record is
    found and counted, in a chunk whose records came back from the GPU machine because it differs from the model."""
    sources = {k: v for k, v in gpu_check.suite(300_000, 0).items()
               if k in ("culling", "indexed", "ia_split", "big_ei")}
    manifest = gpu_check.prepare(tmp_path / "gpu", sources, 1 << 20, 1, 1)
    assert manifest["cases"]["big_ei"]["records"] == 299_999
    results = gpu_check.Results(simulate(tmp_path / "gpu", tmp_path / "res"))
    report = gpu_check.compare(results, manifest)
    lines, failures = gpu_check.verdict(report)
    assert failures == [], failures
    assert report["cases"]["big_ei"]["gpu_vs_executor"]["compared"] == 299_999
    assert "digests" in report["cases"]["big_ei"]["gpu_vs_executor"]["by"]
    assert report["cases"]["culling"]["gpu_vs_lowering"]["by"] == "record for record, here"
    wrong = simulate(tmp_path / "gpu", tmp_path / "wrong", {"big_ei": [(70_000, 20, 12345), (70_001, 1, 3)]})
    bad = gpu_check.compare(gpu_check.Results(wrong), manifest, ["big_ei"])["cases"]["big_ei"]
    assert bad["gpu_vs_executor"]["mismatches"] == 2 == bad["gpu_vs_lowering"]["mismatches"]
    assert [m["record"] for m in bad["gpu_vs_executor"]["first_mismatches"]] == [70_000, 70_001]


def test_one_capture_failing_is_its_verdict_not_the_end_of_the_run(gpu_check: Any, no_compile: None,
                                                                   tmp_path: Path) -> None:
    """A capture whose preparation raises (here a builder's ValueError) or whose process dies (a signal, the
    out-of-memory killer) is that capture's FAILED verdict with the reason; the others are prepared."""
    sources = {"broken": {"builder": "captures.build_big_capture", "args": {"draws": 3, "per_record": 2}},
               "culling": gpu_check.suite(16, 0)["culling"]}
    manifest = gpu_check.prepare(tmp_path / "gpu", sources, 1 << 20, 1, 1)
    assert "ValueError: draws (3) must be a multiple of per_record (2)" in manifest["cases"]["broken"]["failed"]
    assert manifest["cases"]["culling"]["records"] == 9
    assert gpu_check.verdict(gpu_check.compare(gpu_check.Results(tmp_path), manifest, ["broken"]))[0] == [
        f"broken: FAILED ({manifest['cases']['broken']['failed']})"]
    killed = gpu_check.isolated(lambda: os.kill(os.getpid(), signal.SIGKILL) or {})
    assert killed["failed"].startswith("the process killed by signal 9")
    assert "MemoryError" in gpu_check.isolated(lambda: {"x": bytes(1 << 62)})["failed"]
    assert gpu_check.isolated(lambda: time.sleep(30) or {}, timeout_s=0.5)["failed"] == "ran past its 0.5 s"


def test_the_heavy_frames_of_issue_44_are_compared_in_bounded_memory(gpu_check: Any, no_compile: None,
                                                                   tmp_path: Path) -> None:
    """The Tier 1 frame of 100,000 draws and 2.6e10 vertex invocations whose comparison asked numpy for 24.4 GiB:
    prepared and compared in processes that each peak far below it (the peak stated in the manifest and the
    report), its executes cut so that none is estimated past the 1 s bound."""
    sources = {"heavy_frame": gpu_check.suite(16, 0, 100_000)["heavy_frame"]}
    manifest = gpu_check.prepare(tmp_path / "gpu", sources, 1 << 20, 1, 1)
    entry = manifest["cases"]["heavy_frame"]
    assert entry["executes"] > 100 and entry["estimated_longest_submission_ms"] <= 1000
    report = gpu_check.compare(gpu_check.Results(simulate(tmp_path / "gpu", tmp_path / "res")), manifest)
    assert gpu_check.verdict(report)[1] == []
    assert report["cases"]["heavy_frame"]["gpu_vs_executor"]["compared"] == 100_000
    assert manifest["peak_mib"] < 512 and report["peak_mib"] < 512, (manifest["peak_mib"], report["peak_mib"])


def test_the_test_corpora_are_prepared_each_run_or_refused(gpu_check: Any, no_compile: None, tmp_path: Path) -> None:
    """--corpora: every capture of tests/remap_cases.py and each breaker's kept and broken call
    (tests/call_requirements.py).  A call the executor reports errors for (an invalid call, undefined behaviour)
    is refused with its finding: no GPU need match it, and it never reaches one."""
    corpora = gpu_check.corpora()
    assert len(corpora) >= 2 * 80 + 9 and "remap_explicit_local_root_signature" in corpora
    names = ["remap_explicit_local_root_signature", "breaker_stride_misaligned_kept", "breaker_stride_misaligned_broken"]
    manifest = gpu_check.prepare(tmp_path / "gpu", {n: corpora[n] for n in names}, 1 << 20, 1, 1)
    cases = manifest["cases"]
    assert cases["remap_explicit_local_root_signature"]["records"] == 5
    assert cases["breaker_stride_misaligned_kept"]["records"] > 0
    assert cases["breaker_stride_misaligned_broken"]["refused"].startswith(
        "the executor reports 1 error finding(s), an invalid call or undefined behaviour, which no GPU need match: "
        "stride-misaligned [Validation]")


STAND_IN_HARNESS = """#!/usr/bin/env python3
# dgc_harness on a machine with no GPU: the records the lowering's model says (what a GPU executing the sequences as
# Vulkan specifies writes), through the modules run.sh carries (numpy only)
import json, shutil, sys
from d3d12wl.vulkan import case
a = sys.argv[1:]
if a[0] == "--probe":
    print(json.dumps({"device": "stand-in"}))
elif a[0] == "--walk":
    shutil.copy(a[2], a[4])
    open(a[5], "w").write(json.dumps({"layout": int(a[3]), "mismatched_sequences": 0, "error_bits": 0}))
else:
    c = case.read_case(a[0])
    case.model_records(c).records.tofile(a[1])
    open(a[2], "w").write(json.dumps({"total_ms_min": 0.01, "submissions": len(c.executes),
                                      "longest_submission_gpu_ms": 0.01}))
"""


def test_run_sh_on_the_gpu_machine_end_to_end(gpu_check: Any, no_compile: None, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """run.sh as the GPU machine runs it, with a stand-in for dgc_harness: the modules it carries check every case's
    records chunk by chunk there (none come back whole: RECORDS_BACK is 1 byte), the walker's output is recognised
    as the same sequences (no second run), a case started past the run's time budget is recorded as not run, and
    compare passes every case that ran and fails the one that did not."""
    import shutil

    if shutil.which("bash") is None or shutil.which("timeout") is None:
        pytest.skip("bash and coreutils' timeout are needed")
    monkeypatch.setattr(gpu_check, "RECORDS_BACK", 1)
    sources = {k: v for k, v in gpu_check.suite(70_000, 0).items() if k in ("culling", "robust_ia", "big_ei")}
    out = tmp_path / "gpu"
    manifest = gpu_check.prepare(out, sources, 1 << 20, 1, 1)
    harness = out / "dgc_harness"
    harness.write_text(STAND_IN_HARNESS, encoding="utf-8")
    harness.chmod(0o755)
    script = (out / "run.sh").read_text(encoding="utf-8")  # big_ei last, as if the others had spent the budget
    script = script.replace("# big_ei\nif", "START=$((SECONDS - 300))\n# big_ei\nif")
    (out / "run.sh").write_text(script, encoding="utf-8")
    env = {**os.environ, "OUT": str(tmp_path / "out"), "GPU_RUN_BUDGET_S": "300"}
    (tmp_path / "out").mkdir()
    done = subprocess.run(["bash", str(out / "run.sh")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = gpu_check.Results(tmp_path / "out" / "results.tar.xz")
    assert "culling.rec.xz" not in results.files and "culling.check.json" in results.files
    assert results.text("big_ei.skipped") == "not run: the run's 300 s were spent before it"
    report = gpu_check.compare(results, manifest)
    lines, failures = gpu_check.verdict(report)
    assert [line.split(":")[0] for line in lines if ": ran (" in line] == ["culling", "robust_ia"]
    assert failures == ["big_ei: not run: the run's 300 s were spent before it"]
    assert report["cases"]["robust_ia"]["gpu_vs_executor"]["by"].startswith("per chunk of 65536 records: digests")


def test_a_capture_file_name_is_made_a_safe_case_name(gpu_check: Any, no_compile: None, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's capture file is named as users name files ("my frame.json", a "$(...)" pasted in): its case name is
    a word of run.sh and names the case's files, so every other character becomes ``_`` and run.sh runs it as one
    case (before, ``run my frame ...`` split the name and ``$(...)`` ran on the GPU machine); the negative
    control's name is never a user's."""
    import shutil

    if shutil.which("bash") is None or shutil.which("timeout") is None:
        pytest.skip("bash and coreutils' timeout are needed")
    examples = Path(gpu_check.EXAMPLES)
    paths = [tmp_path / "my frame.json", tmp_path / "x$(touch PWNED).json", tmp_path / "hostile_address.json",
             tmp_path / "a.b.json"]
    for p in paths:
        shutil.copy(examples / "culling_capture.json", p)
    out = tmp_path / "gpu"
    monkeypatch.chdir(tmp_path)
    assert gpu_check.main(["prepare", str(out), *map(str, paths)]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["cases"]) == ["my_frame", "x__touch_PWNED_", "hostile_address_", "a_b"]
    harness = out / "dgc_harness"
    harness.write_text(STAND_IN_HARNESS, encoding="utf-8")
    harness.chmod(0o755)
    (tmp_path / "out").mkdir()
    done = subprocess.run(["bash", str(out / "run.sh")], env={**os.environ, "OUT": str(tmp_path / "out")},
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not list(tmp_path.rglob("PWNED"))
    lines, failures = gpu_check.verdict(gpu_check.compare(gpu_check.Results(tmp_path / "out" / "results.tar.xz"),
                                                          manifest))
    assert failures == [], failures
    assert [line.split(":")[0] for line in lines if ": ran (" in line] == list(manifest["cases"])
    with pytest.raises(ValueError, match="case names"):
        gpu_check.prepare(tmp_path / "other", {"my frame": manifest["cases"]["my_frame"]["source"]}, 1 << 20, 1, 1)


def test_compare_names_a_file_that_is_not_a_manifest_or_results(gpu_check: Any, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """compare given the wrong file (the report for the manifest, the capture for the archive) exits 2 naming it and
    what to give, not with a bare KeyError ('max_sequences') or JSON message."""
    (tmp_path / "report.json").write_text('{"cases": {}}', encoding="utf-8")
    (tmp_path / "run.sh").write_text("#!/bin/bash\n", encoding="utf-8")
    (tmp_path / "manifest.json").write_text('{"max_sequences": 1, "cases": {}}', encoding="utf-8")
    for manifest in ("report.json", "run.sh"):
        assert gpu_check.main(["compare", str(tmp_path), "--manifest", str(tmp_path / manifest)]) == 2
        err = capsys.readouterr().err
        assert f"{tmp_path / manifest}: not the manifest.json gpu_check prepare writes" in err
        assert "give --manifest DIR/manifest.json" in err
    assert gpu_check.main(["compare", str(tmp_path / "run.sh"), "--manifest", str(tmp_path / "manifest.json")]) == 2
    assert f"{tmp_path / 'run.sh'}: not the results.tar.xz run.sh writes" in capsys.readouterr().err


def test_prepare_without_its_compilers_says_what_to_install(gpu_check: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """prepare needs gcc, libvulkan-dev and glslc: a missing one is exit 2 naming it before any capture is prepared,
    and a compiler that fails (gcc without the Vulkan headers) is exit 2 with what it said, not a
    CalledProcessError traceback after every capture was prepared."""
    monkeypatch.setattr(gpu_check, "BUILD_TOOLS", ("gcc", "no-such-glslc"))
    assert gpu_check.main(["prepare", str(tmp_path / "gpu")]) == 2
    assert "no-such-glslc not found: prepare needs gcc, Debian's libvulkan-dev" in capsys.readouterr().err
    assert not (tmp_path / "gpu" / "cases").exists()
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gcc").write_text("#!/bin/sh\necho 'harness.c:1:10: fatal error: vulkan/vulkan.h: No such file' >&2\n"
                              "exit 1\n", encoding="utf-8")
    (fake / "gcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gpu_check, "check_build_tools", lambda: None)
    examples = Path(gpu_check.EXAMPLES)
    assert gpu_check.main(["prepare", str(tmp_path / "gpu"), str(examples / "culling_capture.json")]) == 2
    err = capsys.readouterr().err
    assert "failed (exit 1): harness.c:1:10: fatal error: vulkan/vulkan.h: No such file" in err
    assert "Traceback" not in err
