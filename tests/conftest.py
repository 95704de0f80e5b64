"""Shared test helpers.

ABI truth checks whose tool is missing (clang, directx-headers-dev) skip with the reason on a
user's machine, and fail instead when ``CI=true`` (CI installs them; they must run there).
"""

from __future__ import annotations

import os

import pytest


def require_ran(result) -> None:  # noqa: ANN001 - an abi_check.CheckResult
    """Skip (or, under CI=true, fail) when a check could not run on this machine."""
    if result.skipped:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{result.name} check cannot run under CI: {result.skipped}")
        pytest.skip(f"{result.name} check skipped: {result.skipped}")
