"""Migration between ExecuteIndirect buckets and Work Lists, and checks that a migration (or a producer) kept
every draw: ``ei_to_wl`` / ``wl_to_ei`` (the ``d3d12wl migrate`` commands), ``compare_runs`` /
``assert_same_executions`` / ``assert_draws`` (equivalence through the executor), ``diff_runs`` (``d3d12wl diff``).

Everything reads the executor through its public face only (``execute(capture)`` and ``Trace.to_dict()``)."""

from __future__ import annotations

from d3d12wl.migrate.diff import diff_runs
from d3d12wl.migrate.ei_to_wl import ei_to_wl
from d3d12wl.migrate.equivalence import assert_draws, assert_same_executions, compare_runs, load_expected_draws
from d3d12wl.migrate.runs import (
    CallSequenceEntry,
    MigrationError,
    Run,
    load_call_sequence,
    load_run,
    save_call_sequence,
)
from d3d12wl.migrate.wl_to_ei import wl_to_ei

__all__ = ["CallSequenceEntry", "MigrationError", "Run", "assert_draws", "assert_same_executions", "compare_runs",
           "diff_runs", "ei_to_wl", "load_call_sequence", "load_expected_draws", "load_run", "save_call_sequence",
           "wl_to_ei"]
