"""The exit codes every command shares (d3d12wl.cli.main): 0 clean, 1 findings, 2 unusable input naming the file or
flag, 3 an internal error, whose traceback only ``--debug`` shows."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from d3d12wl.cli import decode_cmd, main

CULLING = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples" / "culling.json"


def test_internal_error_exits_3_without_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(decode_cmd, "run", broken)
    assert main(["decode", str(CULLING), "PCS.primary", "-"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("d3d12wl decode: internal error: RuntimeError: a bug") and "Traceback" not in err
    assert main(["--debug", "decode", str(CULLING), "PCS.primary", "-"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_capture_output_that_cannot_be_written_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "c.json"
    assert main(["capture", str(CULLING), "-o", str(out), "--dispatch-list", "0x10000"]) == 2
    err = capsys.readouterr().err
    assert str(out) in err and "does not exist" in err and "Traceback" not in err
