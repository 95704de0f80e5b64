"""One file judged, in the process that runs it (:mod:`d3d12wl.verdicts.runner`): the capture loaded and executed,
its findings counted and judged against the baseline, and, when it fails, its page written
(:mod:`d3d12wl.verdicts.page`) into the pages folder, where its path mirrors the capture's (``frames/forest.json``
-> ``PAGES/frames/forest.html``).

The executor is used through its public face: :func:`d3d12wl.executor.execute`, the trace's findings and counts and
:func:`d3d12wl.executor.output.verdict`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from d3d12wl.capture.file import load_capture
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor import execute
from d3d12wl.executor.output import verdict
from d3d12wl.executor.trace import Limits, Readings
from d3d12wl.output.outfiles import output_file
from d3d12wl.verdicts.baseline import Baseline
from d3d12wl.verdicts.discover import Target
from d3d12wl.verdicts.page import DEFAULT_LIMIT, PageInput, build_page
from d3d12wl.verdicts.results import CaptureResult

__all__ = ["CAPTURE_KIND", "FIRST_FINDINGS", "WARM_UP", "JudgeOptions", "error_reason", "judge", "page_path", "warm_up"]

#: the findings a result lists as text (the JUnit failure's body, the JSON report)
FIRST_FINDINGS = 20
#: what :attr:`JudgeOptions.kind_of` says of a capture
CAPTURE_KIND = "capture"
#: the bundled example captures :func:`warm_up` executes (a work list, a Tier 2 chain, ExecuteIndirect)
WARM_UP = ("culling_capture.json", "tier2_chain_capture.json", "execute_indirect_capture.json")


@dataclass
class JudgeOptions:
    """How every file of a run is judged: the executor's ``limits``, ``readings`` and validation ``hooks``, the
    ``baseline``; ``pages``: the folder the page of a failing capture goes to (None: no pages), each showing
    ``limit`` findings and executions; ``kind_of``: what a file that is not a capture is (``"description"``,
    ``"saved trace"``, ... or None), so that one found in a folder is skipped, not unusable."""

    limits: Limits = field(default_factory=Limits)
    readings: Readings = field(default_factory=Readings)
    hooks: Any = None
    baseline: Baseline = field(default_factory=Baseline)
    pages: str | None = None
    limit: int = DEFAULT_LIMIT
    kind_of: Callable[[str], str | None] | None = None


def error_reason(exc: BaseException) -> dict[str, Any]:
    """Why a file could not be judged, as the command line's error objects say it."""
    if isinstance(exc, D3D12WLError):
        return {"kind": type(exc).__name__, "message": exc.message, "where": exc.where, "rule": exc.rule}
    return {"kind": "InternalError", "message": f"{type(exc).__name__}: {exc}", "where": None, "rule": None}


def page_path(pages: str, capture: str) -> str:
    """Where the page of ``capture`` (its path as shown) goes under the folder ``pages``: the same relative path,
    ``.html`` for its suffix (the parts ``..``, ``.`` and a root left out)."""
    parts = [p for p in PurePosixPath(capture).parts if p not in ("..", ".", "/")]
    name = PurePosixPath(*parts) if parts else PurePosixPath("capture")
    return os.path.join(pages, *name.with_suffix(".html").parts)


def _not_a_capture(target: Target, kind: str) -> CaptureResult:
    article = "an" if kind[0] in "aeiou" else "a"
    reason = {"kind": "InputError", "message": f"this is {article} {kind}, not a capture", "where": target.path,
              "rule": None}
    return CaptureResult(target.path, "unusable" if target.named else "skipped", reason)


def warm_up(options: JudgeOptions) -> None:
    """Execute the bundled example captures (:data:`WARM_UP`) in this process, before the captures' processes are
    forked from it: what the executor, the layouts and the compiled headers fill on first use (types, enums, numpy
    dtypes, code paths) is then filled once here and shared, not filled again in every capture's process (measured
    on the 2-core machine: a 100,000-draw capture's process took 13.5 ms of CPU instead of 23)."""
    from importlib import resources

    for name in WARM_UP:
        with resources.as_file(resources.files("d3d12wl") / "examples" / name) as path:
            execute(load_capture(path), options.limits, readings=options.readings)


def judge(target: Target, options: JudgeOptions) -> CaptureResult:
    """The :class:`~d3d12wl.verdicts.results.CaptureResult` of ``target`` (``time_s``, ``cpu_s`` and
    ``peak_mib`` are the runner's to fill in)."""
    if target.error is not None:
        return CaptureResult(target.path, "unusable", {"kind": "InputError", "message": target.error,
                                                       "where": target.path, "rule": None})
    start = time.perf_counter()
    try:
        capture = load_capture(target.path)
    except D3D12WLError as exc:
        kind = options.kind_of(target.path) if options.kind_of is not None else None
        if kind is not None and kind != CAPTURE_KIND:
            return _not_a_capture(target, kind)
        return CaptureResult(target.path, "unusable", error_reason(exc))
    loaded = time.perf_counter()
    trace = execute(capture, options.limits, hooks=options.hooks, readings=options.readings)
    executed = time.perf_counter()
    v = verdict(trace)
    errors = {kind: n for (severity, kind), n in trace.finding_counts().items() if severity == "error"}
    judgement = options.baseline.judge(target.path, errors, trace.findings_suppressed)
    status = "fail" if judgement.new else ("accepted" if errors or judgement.accepted else "pass")
    result = CaptureResult(
        target.path, status, call=trace.call, executions=len(trace.executions), lists=len(trace.lists),
        findings_by_severity=dict(v["findings_by_severity"]), findings_by_kind=dict(v["findings_by_kind"]),
        errors_by_kind=errors, findings_suppressed=trace.findings_suppressed, new_errors=judgement.new,
        accepted_errors=judgement.accepted, unused_accepted=judgement.unused, stopped_reason=trace.stopped_reason,
        first_findings=[str(f) for f in trace.findings.iter_range(0, min(FIRST_FINDINGS, len(trace.findings)))],
        load_s=loaded - start, execute_s=executed - loaded)
    if status == "fail" and options.pages is not None:
        path = page_path(options.pages, target.path)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            page = build_page(PageInput(capture, trace, target.path, options.limit, loaded - start,
                                        executed - loaded))
            with output_file(path, binary=True) as out:
                out.write(page.encode("utf-8"))
            result.page = path
        except D3D12WLError as exc:
            result.page_error = f"the page: {exc}"
        except OSError as exc:
            result.page_error = f"the page: {exc.filename or path}: {exc.strerror or exc}"
    return result
