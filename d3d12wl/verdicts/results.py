"""What ``check`` found: one :class:`CaptureResult` per file, the :class:`CheckResults` of the run with their
totals and exit status, the JSON report (:func:`report_document`, version :data:`REPORT_VERSION`) and the human
summary (:func:`summary_lines`).

Statuses (:data:`STATUSES`), and the exit status each gives the run (the highest wins):

* ``pass`` (0): no error findings; ``accepted`` (0): error findings, every one accepted by the baseline;
* ``fail`` (1): error findings the baseline does not accept;
* ``unusable`` (2): the file could not be judged: not a capture, a capture that cannot be loaded, one that needs
  more memory or time than a capture may take (``--capture-memory``, ``--capture-timeout``), or whose page could
  not be written; the other files are still judged;
* ``internal-error`` (3): d3d12wl failed on it (an exception it did not expect, its process crashed);
* ``skipped`` (0): a file found in a folder that is another kind of d3d12wl file (a description, a saved trace, a
  call sequence).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from d3d12wl.output.serialize import to_jsonable
from d3d12wl.output.tables import render

__all__ = ["EXIT_STATUS", "REPORT_VERSION", "STATUSES", "CaptureResult", "CheckResults", "report_document",
           "summary_lines", "verdict_text"]

#: the status of a judged file -> the exit status it gives the run
EXIT_STATUS = {"pass": 0, "accepted": 0, "fail": 1, "unusable": 2, "internal-error": 3, "skipped": 0}
STATUSES = tuple(EXIT_STATUS)
#: the version of the JSON report (``check --json``); a change of its shape is a new version
REPORT_VERSION = 1


@dataclass
class CaptureResult:
    """One file judged.  ``reason``: why it is ``unusable``, ``internal-error`` or ``skipped`` (``kind``,
    ``message``, ``where``, ``rule``, as the command line's error objects), else None.  Counts are of the
    executor's trace; ``errors_by_kind`` only its error findings, judged against the baseline into
    ``new_errors`` / ``accepted_errors`` (``unused_accepted``: what the baseline accepts that was not found).
    ``first_findings``: the first findings as text.  Times in seconds: ``load_s`` and ``execute_s`` measured in
    the capture's process, ``time_s`` the whole of it (forked, loaded, executed, judged, its page written) and
    ``cpu_s`` its CPU time; ``peak_mib``: its process's peak resident memory.  ``page``: where its page was
    written (``page_error``: why it could not be)."""

    path: str
    status: str
    reason: dict[str, Any] | None = None
    call: str | None = None
    executions: int = 0
    lists: int = 0
    findings_by_severity: dict[str, int] = field(default_factory=dict)
    findings_by_kind: dict[str, int] = field(default_factory=dict)
    errors_by_kind: dict[str, int] = field(default_factory=dict)
    findings_suppressed: int = 0
    new_errors: dict[str, int] = field(default_factory=dict)
    accepted_errors: dict[str, int] = field(default_factory=dict)
    unused_accepted: dict[str, int] = field(default_factory=dict)
    stopped_reason: str | None = None
    first_findings: list[str] = field(default_factory=list)
    load_s: float | None = None
    execute_s: float | None = None
    time_s: float | None = None
    cpu_s: float | None = None
    peak_mib: float | None = None
    page: str | None = None
    page_error: str | None = None

    @property
    def exit_status(self) -> int:
        """The status's (:data:`EXIT_STATUS`), and 2 when its page could not be written."""
        return max(EXIT_STATUS[self.status], 2 if self.page_error else 0)

    @property
    def judged(self) -> bool:
        """Whether the capture was executed (its counts mean something)."""
        return self.status in ("pass", "accepted", "fail")


@dataclass
class CheckResults:
    """A run of ``check``: every file's result in the order judged (:mod:`d3d12wl.verdicts.discover`), the shard
    (``"I/N"``, None for all), the processes (``jobs``), the bounds per capture and the wall time."""

    results: list[CaptureResult]
    shard: str | None = None
    jobs: int = 1
    capture_memory_mib: int | None = None
    capture_timeout_s: float | None = None
    wall_s: float = 0.0
    baselines: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        return max((r.exit_status for r in self.results), default=0)

    def counts(self) -> dict[str, int]:
        """Files per status, in :data:`STATUSES` order."""
        out = dict.fromkeys(STATUSES, 0)
        for r in self.results:
            out[r.status] += 1
        return out

    def totals(self) -> dict[str, Any]:
        by_severity: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        new: dict[str, int] = {}
        for r in self.results:
            for into, got in ((by_severity, r.findings_by_severity), (by_kind, r.findings_by_kind),
                              (new, r.new_errors)):
                for k, n in got.items():
                    into[k] = into.get(k, 0) + n
        judged = [r for r in self.results if r.judged]
        peaks = [r.peak_mib for r in self.results if r.peak_mib is not None]
        return {"files": len(self.results), **self.counts(),
                "executions": sum(r.executions for r in judged),
                "findings_by_severity": by_severity, "findings_by_kind": by_kind, "new_errors_by_kind": new,
                "time_s": round(sum(r.time_s or 0.0 for r in self.results), 3),
                "wall_s": round(self.wall_s, 3), "peak_mib": max(peaks, default=None)}


def report_document(run: CheckResults) -> dict[str, Any]:
    """The JSON report (``check --json``)."""
    out: dict[str, Any] = to_jsonable({
        "version": REPORT_VERSION, "exit_status": run.exit_status, "shard": run.shard, "jobs": run.jobs,
        "capture_memory_mib": run.capture_memory_mib, "capture_timeout_s": run.capture_timeout_s,
        "baselines": run.baselines, "totals": run.totals(),
        "captures": [{**to_jsonable(r), "exit_status": r.exit_status} for r in run.results]})
    return out


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {n:,}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} MiB"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _what(r: CaptureResult) -> str:
    """The last column: new errors by kind, or why the file was not judged."""
    if r.reason is not None:
        where = r.reason.get("where")
        return f"{where}: {r.reason['message']}" if where and where != r.path else str(r.reason["message"])
    text = _kinds(r.new_errors)
    if r.accepted_errors:
        text += ("; " if text else "") + "accepted " + _kinds(r.accepted_errors)
    if r.page_error:
        text += ("; " if text else "") + r.page_error
    return text


def summary_lines(run: CheckResults) -> list[str]:
    """The summary table (one row per file), the findings by kind, and the totals."""
    rows: list[list[Any]] = []
    for r in run.results:
        judged = r.judged
        rows.append([r.path, r.status, f"{r.executions:,}" if judged else "-",
                     f"{r.findings_by_severity.get('error', 0):,}" if judged else "-",
                     f"{r.findings_by_severity.get('warning', 0):,}" if judged else "-",
                     f"{sum(r.new_errors.values()):,}" if judged else "-",
                     _seconds(r.time_s), _mib(r.peak_mib), _what(r)])
    lines = render(("capture", "status", "executions", "errors", "warnings", "new", "time", "peak", "new errors / why"),
                   rows, align=("<", "<", ">", ">", ">", ">", ">", ">", "<"))
    totals = run.totals()
    by_kind: dict[tuple[str, str], list[int]] = {}
    for r in run.results:
        errors = r.errors_by_kind
        for kind, n in r.findings_by_kind.items():
            severity = "error" if kind in errors else "warning/info"
            if kind in errors and errors[kind] != n:
                severity = "error, warning/info"
            got = by_kind.setdefault((kind, severity), [0, 0, 0])
            got[0] += n
            got[1] += 1
            got[2] += r.new_errors.get(kind, 0)
    if by_kind:
        lines.append("")
        lines += render(("finding kind", "severity", "findings", "captures", "new"),
                        [(k, s, f"{n:,}", f"{c:,}", f"{new:,}") for (k, s), (n, c, new) in
                         sorted(by_kind.items(), key=lambda kv: (-kv[1][2], -kv[1][0], kv[0]))])
    counts = ", ".join(f"{n:,} {s}" for s, n in run.counts().items() if n)
    lines.append("")
    lines.append(f"{totals['files']:,} file{'s' if totals['files'] != 1 else ''}"
                 f"{' (shard ' + run.shard + ')' if run.shard else ''}: {counts or 'none'}; "
                 f"{totals['executions']:,} executions; {run.wall_s:.2f} s with {run.jobs} "
                 f"process{'es' if run.jobs != 1 else ''}, the largest capture peak {_mib(totals['peak_mib'])}")
    return lines


def verdict_text(run: CheckResults) -> str:
    """One line for standard error when the run does not pass: what failed and why."""
    counts = run.counts()
    parts = []
    if counts["fail"]:
        captures = len(run.results) - counts["skipped"]
        parts.append(f"{counts['fail']:,} of {captures:,} captures fail with new error findings "
                     f"({_kinds(run.totals()['new_errors_by_kind'])})")
    if counts["unusable"]:
        parts.append(f"{counts['unusable']:,} could not be judged")
    if counts["internal-error"]:
        parts.append(f"{counts['internal-error']:,} met an internal error (please report it)")
    pages = [r for r in run.results if r.page_error]
    if pages:
        parts.append(f"{len(pages):,} page{'s' if len(pages) != 1 else ''} could not be written")
    return "; ".join(parts)

