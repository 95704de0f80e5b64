"""The JUnit XML report of a ``check`` run, as CI servers read it (GitLab's ``artifacts:reports:junit``, GitHub
Actions' test-report actions, Jenkins): one ``<testsuite name="d3d12wl check">``, one ``<testcase>`` per file
(``classname`` its folder, ``name`` its file name, ``time`` its seconds), and in it:

* ``<failure type="findings">`` for a capture that fails: the message says how many new error findings of which
  kinds; the text lists its first findings and, where one was written, its page;
* ``<error>`` for a file that could not be judged (``type`` the error's kind: ``CaptureError``, ``LimitError``,
  ``InternalError``, ...) and for a page that could not be written;
* ``<skipped>`` for a file found in a folder that is not a capture;
* ``<system-out>``: the capture's executions, findings by severity, accepted findings, peak memory.

Suite totals (``tests``, ``failures``, ``errors``, ``skipped``, ``time``) are the files'.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import IO

from d3d12wl.verdicts.results import CaptureResult, CheckResults

__all__ = ["SUITE", "junit_xml", "write_junit"]

SUITE = "d3d12wl check"


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {n:,}" for k, n in counts.items())


def _case(suite: ET.Element, r: CaptureResult) -> None:
    folder, _, name = r.path.rpartition("/")
    case = ET.SubElement(suite, "testcase", classname=folder or ".", name=name,
                         time=f"{r.time_s or 0.0:.3f}")
    if r.status == "fail":
        n = sum(r.new_errors.values())
        text = "\n".join(r.first_findings)
        if r.page:
            text += f"\n\nthe page: {r.page}"
        failure = ET.SubElement(case, "failure", type="findings",
                                message=f"{n:,} new error finding{'s' if n != 1 else ''} ({_kinds(r.new_errors)})")
        failure.text = text
    elif r.status in ("unusable", "internal-error"):
        reason = r.reason or {}
        where = reason.get("where")
        message = f"{where}: {reason.get('message')}" if where else str(reason.get("message"))
        ET.SubElement(case, "error", type=str(reason.get("kind") or r.status), message=message)
    elif r.status == "skipped":
        ET.SubElement(case, "skipped", message=str((r.reason or {}).get("message", "")))
    if r.page_error:
        ET.SubElement(case, "error", type="OutputError", message=r.page_error)
    if r.judged:
        lines = [f"{r.call}: {r.executions:,} execution{'s' if r.executions != 1 else ''}, {r.lists:,} "
                 f"list{'s' if r.lists != 1 else ''}",
                 "findings: " + (_kinds(r.findings_by_severity) or "none")]
        if r.accepted_errors:
            lines.append("accepted by the baseline: " + _kinds(r.accepted_errors))
        if r.unused_accepted:
            lines.append("accepted but not found: " + _kinds(r.unused_accepted))
        if r.peak_mib is not None:
            lines.append(f"peak {r.peak_mib:,.0f} MiB, {r.cpu_s or 0.0:.2f} s of CPU")
        ET.SubElement(case, "system-out").text = "\n".join(lines)


def junit_xml(run: CheckResults) -> bytes:
    """The report as UTF-8 XML."""
    counts = run.counts()
    suites = ET.Element("testsuites", name=SUITE)
    suite = ET.SubElement(suites, "testsuite", name=SUITE + (f" (shard {run.shard})" if run.shard else ""),
                          tests=str(len(run.results)), failures=str(counts["fail"]),
                          errors=str(counts["unusable"] + counts["internal-error"] +
                                     sum(1 for r in run.results if r.page_error)),
                          skipped=str(counts["skipped"]), time=f"{run.wall_s:.3f}")
    for r in run.results:
        _case(suite, r)
    ET.indent(suites)
    out: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return out + b"\n"


def write_junit(run: CheckResults, out: IO[bytes]) -> None:
    out.write(junit_xml(run))
