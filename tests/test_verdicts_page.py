"""The page of one captured call (``d3d12wl report``, d3d12wl.verdicts): what a trace executed counted from its
columns (``tally``, held to a count of the Execution objects), the record a finding concerns with its fields and
the bad one marked (``record_bytes``), and the page: self-contained, bounded whatever the frame, its charts' bars
summing to the executions, each finding opening its record's bytes.  The page in a real browser is
tests/test_verdicts_browser.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
import verdict_captures as vc

import d3d12wl
from d3d12wl import examples
from d3d12wl.capture.file import Capture
from d3d12wl.executor.execution_table import execution_runs
from d3d12wl.executor.trace import Execution, Trace
from d3d12wl.verdicts import page as page_mod
from d3d12wl.verdicts.page import PageInput, build_page
from d3d12wl.verdicts.record_bytes import WINDOW, finding_record
from d3d12wl.verdicts.tally import FINE_BUCKETS, NONE, RANGE_LISTS, RangeCounts, Tally, tally


def _run(name: str) -> tuple[Capture, Trace]:
    capture = d3d12wl.load_capture(examples.path(name))
    return capture, d3d12wl.execute(capture)


def _oracle(trace: Trace) -> dict[str, Counter[object]]:
    """The counts, one Execution object at a time."""
    out: dict[str, Counter[object]] = {k: Counter() for k in ("program", "class", "trigger", "list", "record")}
    for e in trace.executions:
        out["program"][e.program or NONE] += 1
        out["class"][e.executable_class] += 1
        out["trigger"][e.trigger.type] += 1
        if e.list_index is not None:
            out["list"][e.list_index] += 1
            out["record"][(e.list_index, e.primary_index)] += 1
        else:
            out["record"][(None, e.command_index)] += 1
    return out


@pytest.mark.parametrize("name", ["culling_capture.json", "execute_indirect_capture.json",
                                  "tier2_chain_capture.json", "validation_chain_capture.json"])
def test_tally_counts_what_the_executions_say(name: str) -> None:
    """Per program, class, trigger and list, the columns' counts are the Execution objects' (the validation chain
    mixes the reference walk's objects and the columnar batches)."""
    _, trace = _run(name)
    got, want = tally(trace), _oracle(trace)
    assert got.executions == len(trace.executions)
    assert got.by_program == dict(want["program"]) and got.by_class == dict(want["class"])
    assert got.by_trigger == dict(want["trigger"]) and got.by_list == dict(want["list"])
    for key, ranges in got.ranges.items():  # every record's executions, bar by bar
        for bar in ranges.bars(1 << 20):
            assert bar.count == sum(n for (k, i), n in want["record"].items() if k == key and
                                    bar.first <= i <= bar.last), (key, bar)


def test_tally_of_a_frame_in_columns_and_its_ranges() -> None:
    """A frame of 60,000 draws (the columnar engine's batches): the counts are exact, the range buckets double to
    stay within FINE_BUCKETS, every primary record is covered, and at most the asked number of bars is drawn."""
    capture = vc.named_work_list_capture(records=20_000, per_record=3)
    trace = d3d12wl.execute(capture)
    got = tally(trace)
    assert got.executions == 60_000 and got.by_program == {"Opaque": 20_001, "Transparent": 20_001,
                                                           "Shadow": 19_998}
    ranges = got.ranges[0]
    assert ranges.width == 32 and ranges.last == 19_999  # 20,000 records in 1,024 buckets of a power of two
    bars = ranges.bars(64)
    assert len(bars) <= 64 and bars[0].first == 0 and bars[-1].last == 19_999
    assert sum(b.count for b in bars) == 60_000
    assert all(b.first == a.last + 1 for a, b in zip(bars, bars[1:], strict=False))


def _table_tally(trace: Trace) -> Tally:
    """The counts from the trace's execution table, every execution a row (the oracle of the columns' counts)."""
    out = Tally(executions=len(trace.executions))
    ei = trace.call == "ExecuteIndirect"
    ranges = {k: RangeCounts(k) for k in ([None] if ei else [lst.index for lst in trace.lists[:RANGE_LISTS]])}
    for key, r in ranges.items():
        walked = trace.call_args["command_count"] if key is None else len(trace.lists[key].primary_records)
        r.extend(walked - 1)
    for run in execution_runs(trace.executions):
        c, names = run.table.columns, run.table.names
        for column, into in (("program", out.by_program), ("executable_class", out.by_class),
                             ("trigger", out.by_trigger)):
            for code in c[column].tolist():
                name = NONE if code < 0 else names[column][code]
                into[name] = into.get(name, 0) + 1
        for i, lst in enumerate(c["list_index"].tolist()):
            key = None if ei else lst
            if key is not None:
                out.by_list[key] = out.by_list.get(key, 0) + 1
            if key in ranges:
                ranges[key].add(c["command_index" if ei else "primary_index"][i:i + 1])
    out.ranges = ranges
    return out


@pytest.mark.parametrize("build", [lambda: vc.named_work_list_capture(records=30_000, per_record=3, unmapped=[7, 900]),
                                   lambda: vc.named_ei_capture(commands=70_000, bad=(5, 66_000))],
                         ids=["work list", "ExecuteIndirect"])
def test_the_batches_are_counted_by_record_as_the_execution_table_counts_them(
        build: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch is counted per record (its groups' first executions, ``exec_off``) or per span of commands
    (``execution_counts.segment_counts``), never an Execution object per execution; the counts are those of the
    execution table, which has a row per execution."""
    trace = d3d12wl.execute(build())  # type: ignore[operator]
    made = []
    init = Execution.__init__

    def counted(self: Execution, *args: object, **kw: object) -> None:
        made.append(1)
        init(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Execution, "__init__", counted)
    fast = tally(trace)
    segments = len(trace.executions.segments)  # (a batch per chunk between the records the reference walks)
    assert 0 < len(made) <= 3 * segments < len(trace.executions) // 1000  # at most one per program and batch
    monkeypatch.undo()
    slow = _table_tally(trace)
    assert (fast.executions, fast.by_program, fast.by_class, fast.by_trigger, fast.by_list) == (
        slow.executions, slow.by_program, slow.by_class, slow.by_trigger, slow.by_list)
    assert fast.ranges.keys() == slow.ranges.keys()
    for key in fast.ranges:
        assert fast.ranges[key].bars(64) == slow.ranges[key].bars(64)
        assert (fast.ranges[key].counts == slow.ranges[key].counts).all()


def test_range_counts_merge_buckets_as_the_indices_grow() -> None:
    import numpy as np

    r = RangeCounts(0)
    r.add(np.array([0, 1, 1], dtype=np.int64))
    r.add(np.array([FINE_BUCKETS * 5], dtype=np.int64))
    assert r.width == 8 and int(r.counts.sum()) == 4 and r.last == FINE_BUCKETS * 5
    assert [(b.first, b.count) for b in r.bars(2)][0] == (0, 3)
    spans = RangeCounts(None)
    spans.add_span(3, 10_000)
    assert spans.width == 16 and spans.last == 10_002 and int(spans.counts.sum()) == 10_000
    assert spans.counts[0] == 13 and spans.counts[1] == 16


def test_a_finding_opens_the_record_with_the_users_field_marked() -> None:
    """IndirectDrawing.md "Command signature Creation" (a root CBV's address a multiple of 256): the finding's byte
    lies in command 3's ObjectCB, named so by the description; the view holds the command's bytes, its fields by
    the user's Names (a struct payload's members as Draw.Member), ObjectCB marked."""
    capture = vc.named_ei_capture(commands=8, bad=(3,))
    trace = d3d12wl.execute(capture)
    (f,) = trace.findings
    assert f.kind == "cbv-address-misaligned" and f.command_index == 3
    r = finding_record(capture.memory, capture.objects, trace, capture.call, f)
    assert r is not None and r.what == "command" and r.marked == "ObjectCB"
    assert r.va == vc.ARGS_VA + 3 * 24 and r.size == 24 and len(r.data) == 24
    assert [s.name for s in r.spans] == ["ObjectCB", "Draw.VertexCountPerInstance", "Draw.InstanceCount",
                                         "Draw.StartVertexLocation", "Draw.StartInstanceLocation"]
    assert all(s.named for s in r.spans) and r.spans[0].value == f"0x{vc.CB_VA + 3 * 256 + 4:x}"
    assert bytes(b for b in r.data[:8] if b is not None) == (vc.CB_VA + 3 * 256 + 4).to_bytes(8, "little")


def test_the_records_of_the_validation_chain_findings() -> None:
    """Rule 12 names the list header (its NumProgramInputs at the finding's byte); a ProgramTableIndex out of range
    names a primary record whose PCS is unknown (the header struct the rule names gives its fields); a primary
    record past the mapped bytes, whose ProgramTableIndex could not be read ("Primary record layout": bytes [0..3]
    of both non-raytracing headers), has that field marked, not mapped; secondary records that are not mapped show
    the primary record with the SecondaryRecords member the rule names."""
    capture, trace = _run("validation_chain_capture.json")
    views = [finding_record(capture.memory, capture.objects, trace, capture.call, f) for f in trace.findings]
    got = [(v.what, v.marked) if v is not None else None for v in views]
    assert got[0] == ("D3D12_DISPATCH_LIST_INPUT1", "NumProgramInputs")
    assert got[1:10] == [("primary record", "ProgramTableIndex")] * 9
    assert got[10] == ("primary record", "ProgramTableIndex") and set(views[10].data) == {None}  # type: ignore[union-attr]
    assert trace.findings[10].message.startswith("primary record 12 ProgramTableIndex: VA")
    assert [(s.name, s.offset, s.value) for s in views[10].spans] == [  # type: ignore[union-attr]
        ("ProgramTableIndex", 0, "(not mapped)")]
    assert "in no field" not in views[10].note  # type: ignore[union-attr]
    assert got[11] == ("primary record", "SecondaryRecords") and "is not mapped" in views[11].note  # type: ignore[union-attr]


def test_a_view_keeps_a_window_of_a_large_record() -> None:
    """A record wider than WINDOW bytes is shown around its marked field, not whole."""
    from d3d12wl.verdicts.record_bytes import _Candidate, _Field, _view

    fields = tuple(_Field(f"f{i}", i * 8, 8, "uint64_t") for i in range(128))
    c = _Candidate("command", "a wide record", vc.ARGS_VA, 1024, fields)
    capture = vc.named_ei_capture()
    r = _view(capture.memory, c, fields[100], "")
    assert len(r.data) == WINDOW and r.start <= 800 < r.start + WINDOW and r.start % 16 == 0
    assert r.marked == "f100" and all(r.start <= s.offset < r.start + WINDOW for s in r.spans)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Tags()
    p.feed(html)
    return p.tags


def test_the_page_holds_the_findings_their_bytes_and_the_charts() -> None:
    capture = vc.named_ei_capture(commands=40, bad=(3, 17))
    trace = d3d12wl.execute(capture)
    html = build_page(PageInput(capture, trace, "frame.json", limit=100))
    tags = _tags(html)
    findings = [a for t, a in tags if t == "details" and "finding" in (a.get("class") or "")]
    assert [a["data-kind"] for a in findings] == ["cbv-address-misaligned"] * 2
    bad = [a for t, a in tags if t == "span" and "bad" in (a.get("class") or "").split()]
    assert [a["data-field"] for a in bad] == ["ObjectCB", "ObjectCB"]
    bars = [a for t, a in tags if t == "rect" and a.get("class") == "bar"]
    commands = [a for a in bars if (a["data-label"] or "").startswith("commands")]
    assert sum(int(a["data-count"] or 0) for a in commands) == 40
    markers = [a for t, a in tags if t == "path" and a.get("class") == "marker"]
    assert sum(int(a["data-findings"] or 0) for a in markers) == 2
    assert "FAIL: 2 errors" in html and "All 40 executions are shown." in html
    # self-contained: no script, nothing fetched (a policy forbidding it), no URL but the SVG namespace
    assert "<script" not in html and "default-src 'none'" in html
    assert set(re.findall(r"(?:https?|ftp)://[^\"' >]+", html)) == {"http://www.w3.org/2000/svg"}


def test_the_page_says_what_it_left_out() -> None:
    capture = vc.named_ei_capture(commands=300, bad=range(0, 300, 2))
    trace = d3d12wl.execute(capture)
    html = build_page(PageInput(capture, trace, "frame.json", limit=10))
    assert html.count('<details class="finding') == 10
    assert "10 of 150 findings shown; 140 left out (--limit)." in html
    assert "10 of 300 executions shown; 290 left out" in html


def test_the_page_of_a_large_frame_is_bounded() -> None:
    """200,001 draws (66,667 primary records), the secondary records of every 500th primary record unmapped (134
    findings): the page stays a few hundred KB whatever the frame, its charts a bounded number of bars, its
    findings and executions cut at the limit."""
    capture = vc.named_work_list_capture(records=66_667, per_record=3, unmapped=range(0, 66_667, 500))
    trace = d3d12wl.execute(capture)
    assert len(trace.findings) == 134 and len(trace.executions) == 3 * (66_667 - 134)
    html = build_page(PageInput(capture, trace, "frame.json"))
    assert len(html.encode()) < 400_000
    tags = _tags(html)
    assert sum(1 for t, a in tags if t == "rect") <= 3 * page_mod.ROWS + 2 * page_mod.COLUMNS + 8
    assert html.count('<details class="finding') == page_mod.DEFAULT_LIMIT
    assert f"100 of {len(trace.executions):,} executions shown" in html


def test_report_writes_the_page_and_says_the_verdict(tmp_path: Path) -> None:
    """d3d12wl report: the page written atomically, exit 1 with the findings' line on stderr; --json says where
    and how big; an output path that cannot be written is exit 2 naming it."""
    capture = vc.save(vc.named_ei_capture(), tmp_path / "frame.json")
    page = tmp_path / "frame.html"
    done = subprocess.run([sys.executable, "-m", "d3d12wl", "report", str(capture), "-o", str(page), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "1 error finding (cbv-address-misaligned 1)" in done.stderr and str(page) in done.stderr
    result = json.loads(done.stdout)
    assert result["page"] == str(page) and result["bytes"] == page.stat().st_size
    assert result["verdict"]["findings_by_kind"] == {"cbv-address-misaligned": 1}
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    done = subprocess.run([sys.executable, "-m", "d3d12wl", "report", str(capture), "-o",
                           str(tmp_path / "no" / "such" / "x.html")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no/such/x.html" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "d3d12wl", "report", str(capture), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "-o PATH" in done.stderr


def test_report_of_the_bundled_example_passes(capsys: pytest.CaptureFixture[str]) -> None:
    from d3d12wl.cli import main

    assert main(["report", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and "PASS: no findings" in out
