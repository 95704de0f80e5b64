"""The ``d3d12wl`` dispatcher: every command the README documents is registered; ``--version`` says which."""

from __future__ import annotations

import pytest

import d3d12wl
from d3d12wl.cli import COMMANDS, main


def test_every_command_is_registered(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert set(COMMANDS) == {"abi", "layout", "validate", "codegen", "dump", "exec", "messages"}
    assert all(f"    {name} " in out for name in COMMANDS), out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.strip() == f"d3d12wl {d3d12wl.__version__}"
