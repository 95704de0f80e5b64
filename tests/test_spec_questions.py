"""docs/spec-questions.md (issue 25): every open question quotes the specs exactly, under the section it names, and
says the reading d3d12wl takes and where it shows.

A quote is a line ``> [W|E|D: Section] "text"``: W the Work Lists spec (v0.851, the public Markdown, issue 43), E
the ExecuteIndirect GPU data structures article, D IndirectDrawing.md (paths from ``D3D12WL_SPEC_WORK_LISTS``,
``D3D12WL_SPEC_EXECUTE_INDIRECT``, ``D3D12WL_SPEC_INDIRECT_DRAWING``, by default the team's copies; the quote check is
skipped where a file is absent).  The text must occur, whitespace collapsed, in that section: after the section's
heading and before the next heading of that spec.  A Markdown spec is read as it renders: links by their text, no
code spans, emphasis or HTML tags."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "spec-questions.md"
SPECS = {
    "W": ("D3D12WL_SPEC_WORK_LISTS", "/work/shared/reference/WorkLists-v0.851.md"),
    "E": ("D3D12WL_SPEC_EXECUTE_INDIRECT", "/work/shared/seeds/002_7c59b6854e485be1.txt"),
    "D": ("D3D12WL_SPEC_INDIRECT_DRAWING", "/work/shared/reference/IndirectDrawing.md"),
}
QUOTE = re.compile(r'^> \[([WED]): ([^\]]+)\] "(.+)"$')


#: the specs written in Markdown (read as they render, :func:`_rendered`)
MARKDOWN = ("W", "D")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _rendered(text: str) -> str:
    """Markdown as a reader sees it: images dropped, links by their text, no code spans, bold, italics, HTML tags,
    escapes or blockquote markers."""
    text = re.sub(r"!\[[^\[\]]*\]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\[\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>\n]+>", " ", text)
    text = text.replace("`", "").replace("**", "").replace("\\_", "_")
    text = re.sub(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)", r"\1", text)
    return re.sub(r"^(\s*)> ?", r"\1", text, flags=re.M)


def quotes() -> list[tuple[str, str, str, str]]:
    """(question, spec, section, text) of every quote line of the page."""
    out, question = [], ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## Q"):
            question = line.split(".", 1)[0][3:]
        elif line.startswith("> ["):
            m = QUOTE.match(line)
            assert m, f"a quote line is > [W|E|D: Section] \"text\": {line!r}"
            out.append((question, m.group(1), m.group(2), m.group(3)))
    return out


def _headings(spec: str, lines: list[str]) -> set[int]:
    """Line numbers of the spec's headings: the Work Lists spec's table of contents entries, IndirectDrawing.md's
    Markdown headings, the article's title lines (short, no sentence or code punctuation)."""
    if spec in MARKDOWN:
        return {i for i, line in enumerate(lines) if re.match(r"^#+ ", line)}
    return {i for i, line in enumerate(lines)
            if line and len(line) < 70 and not line[0].isspace() and not re.search(r"[:;.{}]$|^(struct|UINT|INT) ", line)}


def _title(spec: str, line: str) -> str:
    return _rendered(line.lstrip("#")).strip() if spec in MARKDOWN else line.strip()


@cache
def sections(spec: str) -> dict[str, list[str]] | None:
    """Section title -> the whitespace-collapsed texts of the sections of that title (None: the spec is absent)."""
    env, default = SPECS[spec]
    path = Path(os.environ.get(env, default))
    if not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    heads = sorted(_headings(spec, lines))
    out: dict[str, list[str]] = {}
    for a, b in zip(heads, [*heads[1:], len(lines)], strict=True):
        body = "\n".join(lines[a + 1:b])
        out.setdefault(_title(spec, lines[a]), []).append(_norm(_rendered(body) if spec in MARKDOWN else body))
    return out


def test_every_question_quotes_the_specs_and_says_the_reading_and_where_it_shows():
    text = DOC.read_text(encoding="utf-8")
    questions = re.findall(r"^## (Q\d+)\. ", text, re.M)
    assert questions == [f"Q{i}" for i in range(1, len(questions) + 1)] and len(questions) >= 10
    table = re.findall(r"^\| (Q\d+) \|", text, re.M)
    assert table == questions, "the summary table lists every question in order"
    by_question: dict[str, set[str]] = {}
    for q, spec, _section, _quote in quotes():
        by_question.setdefault(q, set()).add(spec)
    for body in re.split(r"^## ", text, flags=re.M)[1:]:
        q = body.split(".", 1)[0]
        if not q.startswith("Q"):
            continue
        assert q in by_question, f"{q} quotes no spec"
        assert "**d3d12wl:**" in body and "**Ask:**" in body, f"{q}: the reading d3d12wl takes and the question"
        assert "**Where it shows:**" in body, f"{q}: where the reading shows"


@pytest.mark.parametrize("question, spec, section, quote", quotes(), ids=lambda v: str(v)[:40])
def test_each_quote_is_the_specs_text_in_the_section_it_names(question, spec, section, quote):
    found = sections(spec)
    if found is None:
        pytest.skip(f"{SPECS[spec][1]} is not here (set {SPECS[spec][0]})")
    assert section in found, f"{question}: no section {section!r} in {spec}"
    assert any(_norm(quote) in body for body in found[section]), f"{question}: not in {spec} {section!r}: {quote!r}"
