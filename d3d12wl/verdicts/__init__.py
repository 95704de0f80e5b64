"""Verdicts: many captures judged at once for an engine's CI (``d3d12wl check``), and the page of one captured call
(``d3d12wl report``).

``discover`` finds the files to judge and ``parse_shard`` / ``Shard`` split them across CI jobs; ``judge`` judges
one (against a ``Baseline``), ``run_all`` judges them all in processes of their own within ``Bounds``; a
``CheckResults`` gives the summary (``summary_lines``), the JSON report (``report_document``) and the JUnit XML
(``junit_xml``).  ``build_page`` makes the page of a capture and its trace, ``tally`` counts what a trace executed,
``finding_record`` reads the bytes of the record a finding concerns.

Everything reads the executor through its public face: ``execute``, the ``Trace`` with its findings and counts,
``executor.output.verdict`` and the trace's executions counted from its columns
(``executor.execution_counts.segment_counts``)."""

from __future__ import annotations

from d3d12wl.verdicts.baseline import Baseline, load_baseline
from d3d12wl.verdicts.discover import Shard, Target, discover, parse_shard
from d3d12wl.verdicts.judge import JudgeOptions, judge
from d3d12wl.verdicts.junit import junit_xml
from d3d12wl.verdicts.page import DEFAULT_LIMIT, PageInput, build_page
from d3d12wl.verdicts.record_bytes import RecordBytes, Span, finding_record
from d3d12wl.verdicts.results import CaptureResult, CheckResults, report_document, summary_lines
from d3d12wl.verdicts.runner import Bounds, run_all
from d3d12wl.verdicts.tally import Tally, tally

__all__ = ["DEFAULT_LIMIT", "Baseline", "Bounds", "CaptureResult", "CheckResults", "JudgeOptions", "PageInput",
           "RecordBytes", "Shard", "Span", "Tally", "Target", "build_page", "discover", "finding_record", "judge",
           "junit_xml", "load_baseline", "parse_shard", "report_document", "run_all", "summary_lines", "tally"]
