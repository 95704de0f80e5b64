"""Verdicts: many captures judged at once for an engine's CI (``d3d12wl check``), and the page of one captured call
(``d3d12wl report``): ``build_page`` makes the page of a capture and its trace, ``tally`` counts what a trace
executed, ``finding_record`` reads the bytes of the record a finding concerns.

Everything reads the executor through its public face: ``execute``, the ``Trace`` with its findings and counts,
``executor.output.verdict`` and the trace's columns (``executor.columnar.execution_runs``)."""

from __future__ import annotations

from d3d12wl.verdicts.page import DEFAULT_LIMIT, PageInput, build_page
from d3d12wl.verdicts.record_bytes import RecordBytes, Span, finding_record
from d3d12wl.verdicts.tally import Tally, tally

__all__ = ["DEFAULT_LIMIT", "PageInput", "RecordBytes", "Span", "Tally", "build_page", "finding_record", "tally"]
