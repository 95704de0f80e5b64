"""Migration between ExecuteIndirect buckets and Work Lists, and checks that a migration (or a producer) kept
every draw: ``ei_to_wl`` / ``wl_to_ei`` (the ``d3d12wl migrate`` commands), ``compare_runs`` /
``assert_same_executions`` / ``assert_draws`` (equivalence through the executor), ``diff_runs`` (``d3d12wl diff``).

Everything reads the executor through its public face only (``execute(capture)`` and ``Trace.to_dict()``)."""

from __future__ import annotations

from d3d12wl.migrate.equivalence import assert_draws, assert_same_executions, compare_runs, load_expected_draws
from d3d12wl.migrate.runs import CallSequenceEntry, MigrationError, Run, load_call_sequence, load_run

__all__ = ["CallSequenceEntry", "MigrationError", "Run", "assert_draws", "assert_same_executions", "compare_runs",
           "load_call_sequence", "load_expected_draws", "load_run"]
