"""The conformance suite against its corpus of C drivers (tests/messages_corpus.py, built from the one source
tests/data/driver_corpus.c), spec "HLK / conformance": "Every test asserts only what is decidable on any implementing
driver" -- every correct-but-unusual variant passes, three times (twice in this process, once with each check in a
process of its own, as ``d3d12wl messages check --driver`` runs it); every planted bug gets the verdict pinned for it,
failing the check that claims it.  tools/messages_corpus.py runs each variant 20 times (docs/messages.md has the
figures)."""

from __future__ import annotations

import multiprocessing
import re
import shutil
from pathlib import Path

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations(handle_types=True)
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)
if shutil.which("gcc") is None:
    pytest.skip("gcc not installed", allow_module_level=True)

import messages_corpus as corpus  # noqa: E402

from d3d12wl.messages import c_driver  # noqa: E402
from d3d12wl.messages.conformance import CHECK_NAMES, CHECKS, run_conformance  # noqa: E402

#: how each correct variant runs in CI: twice in this process, once isolated; a planted bug once (isolated when it
#: crashes the process)
CORRECT_MODES = ("in-process", "in-process", "isolated")


def _modes(v: corpus.Variant) -> tuple[str, ...]:
    if v.correct:
        return CORRECT_MODES
    return ("isolated",) if v.isolated else ("in-process",)


def _run(job: tuple[str, str, str]) -> tuple[str, str, str | None]:
    name, path, mode = job
    report = run_conformance(lambda: c_driver.CDriver(c_driver.load_library(path)), isolate=mode == "isolated",
                             timeout_s=60)
    problem = corpus.BY_NAME[name].mismatch(report)
    if report.internal_errors:
        problem = f"internal errors: {report.internal_errors}"
    return name, mode, problem


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str | None]]]:
    """Every run of every variant, two at a time (forked workers): name -> [(mode, mismatch or None)]."""
    libs = corpus.build(tmp_path_factory.mktemp("corpus"))
    jobs = [(v.name, str(libs[v.name]), mode) for v in corpus.VARIANTS for mode in _modes(v)]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_run, jobs, chunksize=1)
    out: dict[str, list[tuple[str, str | None]]] = {}
    for name, mode, problem in results:
        out.setdefault(name, []).append((mode, problem))
    return out


@pytest.mark.parametrize("variant", corpus.CORRECT, ids=lambda v: v.name)
def test_correct_variant_passes_every_run__hlk(variant: corpus.Variant,
                                               verdicts: dict[str, list[tuple[str, str | None]]]) -> None:
    """"A conformance suite never fails a correct implementation": no failure, warning or skip, in any run."""
    runs = verdicts[variant.name]
    assert len(runs) == len(CORRECT_MODES)
    assert [(mode, problem) for mode, problem in runs if problem] == []


@pytest.mark.parametrize("variant", corpus.PLANTED, ids=lambda v: v.name)
def test_planted_bug_gets_its_pinned_verdict__hlk(variant: corpus.Variant,
                                                  verdicts: dict[str, list[tuple[str, str | None]]]) -> None:
    """Each planted bug fails (or, for a "should", warns) the check that claims it, and exactly the pinned set."""
    assert variant.claims in variant.fails + variant.warns
    assert [(mode, problem) for mode, problem in verdicts[variant.name] if problem] == []


def test_every_check_has_a_planted_bug_and_every_variant_is_pinned() -> None:
    """One planted bug per check at least, and the table lists exactly the variants the C source defines."""
    assert {v.claims for v in corpus.PLANTED} == set(CHECK_NAMES)
    source = corpus.CORPUS_C.read_text(encoding="utf-8")
    declared = set(re.findall(r"^#ifndef VARIANT_(\w+)$", source, re.M)) | {"TAGGED_ATTRIBUTION_BUG"}
    assert declared == {v.name for v in corpus.VARIANTS} - {"REFERENCE"}
    advisory = {c.name for c in CHECKS if c.advisory}
    assert all(set(v.warns) <= advisory and not set(v.fails) & advisory for v in corpus.VARIANTS)


def test_the_corpus_builds_from_one_source(tmp_path: Path) -> None:
    """Two variants are the same source with different defines: they differ, and the reference passes a
    cross-check against the C reference driver built from d3d12wl/messages/c/reference_driver.c itself."""
    libs = corpus.build(tmp_path, [corpus.BY_NAME["REFERENCE"], corpus.BY_NAME["QUIET"]])
    assert libs["REFERENCE"].read_bytes() != libs["QUIET"].read_bytes()
    reference = c_driver.build_driver(c_driver.REFERENCE_DRIVER_C, tmp_path / "reference_driver.so")
    assert run_conformance(lambda: c_driver.CDriver(reference)).failed() == []
