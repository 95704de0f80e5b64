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


def test_docs_count_the_corpus_as_it_is() -> None:
    """Every count of the C driver corpus the messages pages give ("17 correct-but-unusual drivers", "26 planted
    bugs") is the corpus's own (tests/messages_corpus.py): the pages' figures were made on it, and a count left from
    an older corpus says the figures were."""
    import messages_corpus as corpus

    docs = [DOCS, *DOCS.parent.glob("messages-*.md")]
    counts = {"correct": len(corpus.CORRECT), "planted": len(corpus.PLANTED)}
    for page in docs:
        text = _flat(page.read_text(encoding="utf-8"))
        for number, kind in re.findall(r"\b(\d+) (correct|planted)(?:-but-unusual)? (?:variants|drivers|bugs)\b", text):
            assert int(number) == counts[kind], f"{page.name}: {number} {kind}, the corpus has {counts[kind]}"
