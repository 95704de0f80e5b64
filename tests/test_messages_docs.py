"""docs/messages.md and ``d3d12wl messages check --help`` say exactly what each conformance check decides, with the
spec sentence it quotes: both are held to the checks themselves (``CHECKS``: the sentence, and the decide function's
docstring), so neither can drift from what the code decides."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from d3d12wl.messages.conformance import CHECKS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "messages.md"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _checks_table() -> dict[str, str]:
    """The rows of docs/messages.md's table of checks, by check name."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    start = lines.index("| check | the sentence it decides (quoted verbatim) | what it decides |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("| `"):
            break
        rows.append(line)
    return {re.match(r"\| `(\w+)`", row).group(1): row for row in rows}  # type: ignore[union-attr]


def test_docs_table_is_the_checks() -> None:
    table = _checks_table()
    assert list(table) == [c.name for c in CHECKS]
    for c in CHECKS:
        assert f"| {c.sentence} | {c.decides} |" in table[c.name], c.name
        assert ("(a should: warn)" in table[c.name]) == c.advisory


def test_help_says_what_each_check_decides() -> None:
    done = subprocess.run([sys.executable, "-m", "d3d12wl", "messages", "check", "--help"], capture_output=True,
                          text=True, check=True)
    text = _flat(done.stdout)
    for c in CHECKS:
        assert f"{c.name}{' (a should: warn)' if c.advisory else ''} spec: \u201c{_flat(c.sentence)}\u201d decides: " \
               f"{_flat(c.decides)}" in text, c.name
    assert "every check the delivery contract makes decidable" not in text
