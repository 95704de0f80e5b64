"""The importers' pages say what the code does: every finding kind and verdict is on its page (docs/gfxreconstruct.md,
docs/gits.md), each page names the version of the tool it was read from, and the bundled examples the pages run are
the ones tools/make_importer_examples.py writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from d3d12wl.importers import GITS_FINDING_KINDS, IMPORT_FINDING_KINDS, VERDICTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_gfxr_finding_kind_is_on_the_page() -> None:
    page = (ROOT / "docs" / "gfxreconstruct.md").read_text(encoding="utf-8")
    assert [k for k in IMPORT_FINDING_KINDS if f"| `{k}` |" not in page] == []
    assert "765c3d66e56b3a0bf579e010b0a64804c0e1cad7" in page


def test_every_verdict_and_gits_finding_is_on_the_page() -> None:
    page = (ROOT / "docs" / "gits.md").read_text(encoding="utf-8")
    assert [v for v in VERDICTS if f"`{v}`" not in page] == []
    assert [k for k in GITS_FINDING_KINDS if f"`{k}`" not in page and k not in VERDICTS] == []
    assert "e207f2a5b2a944adfa0ddea69a510ce64c155e0a" in page


def test_the_bundled_examples_are_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_importer_examples.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
