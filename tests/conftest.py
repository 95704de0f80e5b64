"""Shared test helpers.

ABI truth checks whose tool is missing (clang, directx-headers-dev) skip with the reason on a
user's machine, and fail instead when ``CI=true`` (CI installs them; they must run there).
"""

from __future__ import annotations

import os

import pytest


def require(ok: bool, why: str) -> None:
    """Skip with ``why`` when a tool a test needs is missing; under CI=true, fail instead (CI installs it)."""
    if not ok:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"required under CI: {why}")
        pytest.skip(why)


def require_ran(result) -> None:  # noqa: ANN001 - an abi_check.CheckResult
    """Skip (or, under CI=true, fail) when a check could not run on this machine."""
    require(not result.skipped, f"{result.name} check cannot run: {result.skipped}")


def sigint_default() -> None:
    """A child's ``preexec_fn``: SIGINT back to its default action.  A test that interrupts its child with SIGINT
    needs it: a run started with SIGINT ignored (``cmd &`` in a script without job control) hands its children
    SIG_IGN, and d3d12wl then rightly ignores Ctrl-C as a background job does."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
