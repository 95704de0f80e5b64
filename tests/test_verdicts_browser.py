"""The report page in a real browser (issue 41 item 3): headless Chromium (tests/browser.py) opens the page of a
capture with findings; the tests read the rendered DOM (the findings listed, the hex view's marked field once its
finding is opened, the charts' bars drawn to scale), check the page fetches nothing, and take a screenshot they
check is not blank.  Without Chromium they skip saying so; CI=true (.ci/run installs it) forbids the skip."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import verdict_captures as vc
from browser import Browser, find_chromium, png_pixels
from conftest import require

import d3d12wl
from d3d12wl.verdicts.page import PageInput, build_page

#: the red that marks an error (the verdict, the marked field's outline, a finding marker): #cf222e
RED = (207, 34, 46)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = find_chromium()
    require(chromium is not None, "Chromium is not installed (apt-get install chromium)")
    assert chromium is not None
    with Browser(chromium) as b:
        yield b


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The pages of an ExecuteIndirect frame with two misaligned root CBVs (the user named the argument
    ``ObjectCB``) and of a work list whose second primary record's secondary records are not mapped, each made by
    ``d3d12wl report``'s builder."""
    root = tmp_path_factory.mktemp("pages")
    out = {}
    for name, capture in (("ei", vc.named_ei_capture(commands=40, bad=(3, 17))),
                          ("wl", vc.named_work_list_capture(records=300, per_record=3, unmapped=[1]))):
        trace = d3d12wl.execute(capture)
        out[name] = root / f"{name}.html"
        out[name].write_text(build_page(PageInput(capture, trace, f"{name}.json")), encoding="utf-8")
    return out


def test_the_findings_are_listed(browser: Browser, pages: dict[str, Path]) -> None:
    browser.open(pages["ei"])
    findings = browser.evaluate("[...document.querySelectorAll('details.finding')].map(d => "
                                "[d.dataset.kind, d.querySelector('summary').innerText])")
    assert [k for k, _ in findings] == ["cbv-address-misaligned"] * 2
    assert "command 3" in findings[0][1] and "command 17" in findings[1][1]
    assert browser.evaluate("document.getElementById('verdict').innerText") == "FAIL: 2 errors"


def test_an_opened_finding_shows_its_record_with_the_users_field_marked(browser: Browser,
                                                                         pages: dict[str, Path]) -> None:
    """Closed, the hex view is not shown; opened (a click on the finding), it is, its marked bytes are the field the
    user named ObjectCB, outlined in red, and the legend's marked row names it."""
    browser.open(pages["ei"])
    assert browser.evaluate("document.querySelector('#finding-0 .hex').checkVisibility()") is False
    browser.evaluate("document.querySelector('#finding-0 summary').click(); true")
    assert browser.evaluate("document.querySelector('#finding-0 .hex').checkVisibility()") is True
    marked = browser.evaluate("""(() => {
        const bad = [...document.querySelectorAll('#finding-0 .hex .bad')];
        const box = bad[0].getBoundingClientRect();
        const style = getComputedStyle(bad[0]);
        return {fields: bad.map(b => b.dataset.field), text: bad.map(b => b.innerText).join(' '),
                width: box.width, height: box.height, outline: style.outlineColor,
                outlineWidth: style.outlineWidth,
                legend: document.querySelector('#finding-0 tr.marked').dataset.field};
    })()""")
    assert marked["fields"] == ["ObjectCB"] and marked["legend"] == "ObjectCB"
    assert marked["width"] > 0 and marked["height"] > 0 and marked["outlineWidth"] == "2px"
    assert marked["outline"] == f"rgb({RED[0]}, {RED[1]}, {RED[2]})"
    address = vc.CB_VA + 3 * 256 + 4  # (the misaligned address, little-endian, in the marked bytes)
    assert marked["text"].split() == [f"{b:02x}" for b in address.to_bytes(8, "little")]


def test_a_work_list_finding_marks_the_pointer_to_unmapped_records(browser: Browser,
                                                                    pages: dict[str, Path]) -> None:
    browser.open(pages["wl"])
    browser.evaluate("document.querySelector('#finding-0 summary').click(); true")
    got = browser.evaluate("""(() => {
        const bad = document.querySelector('#finding-0 .hex .bad');
        return [bad.dataset.field, bad.getBoundingClientRect().width > 0,
                document.querySelector('#finding-0 .record').dataset.what];
    })()""")
    assert got == ["SecondaryRecords", True, "primary record"]


def test_the_charts_are_drawn_to_scale(browser: Browser, pages: dict[str, Path]) -> None:
    """Every bar with executions is drawn (a box of non-zero size), a column's height in proportion to its count;
    the program chart names the programs; the finding marker is over the range that holds record 1."""
    browser.open(pages["wl"])
    bars = browser.evaluate("""[...document.querySelectorAll('svg.chart')].map(svg => [svg.id,
        [...svg.querySelectorAll('rect.bar')].map(r => { const b = r.getBoundingClientRect();
            return [r.dataset.label, +r.dataset.count, b.width, b.height]; })])""")
    charts = dict((k, v) for k, v in bars)
    assert set(charts) == {"chart-programs", "chart-kinds", "chart-lists", "chart-list-0"}
    assert [label for label, *_ in charts["chart-programs"]] == ["Opaque", "Shadow", "Transparent"]  # (most first)
    for chart in charts.values():
        assert all(w > 0 and h > 0 for _, count, w, h in chart if count), chart
    columns = [(count, h) for _, count, _, h in charts["chart-list-0"] if count]
    top_count, top_h = max(columns)
    assert all(abs(h - top_h * count / top_count) <= 1.0 for count, h in columns)
    assert sum(count for _, count, _, _ in charts["chart-list-0"]) == 3 * 299
    marker = browser.evaluate("[...document.querySelectorAll('#chart-list-0 path.marker')].map(m => "
                              "[m.dataset.label, +m.dataset.findings, m.getBoundingClientRect().width])")
    assert len(marker) == 1 and marker[0][0].startswith("primary records 0-") and marker[0][1] == 1
    assert marker[0][2] > 0


def test_the_page_fetches_nothing(browser: Browser, pages: dict[str, Path]) -> None:
    """Readable offline: the only request the page makes is for itself."""
    browser.open(pages["ei"])
    requests = [e["params"]["request"]["url"] for e in browser.events if e["method"] == "Network.requestWillBeSent"]
    assert requests == [pages["ei"].resolve().as_uri()]


def test_a_screenshot_is_not_blank(browser: Browser, pages: dict[str, Path]) -> None:
    """The rendered page has text, tables and charts: many colours, much of it not white, the verdict's and the
    markers' red and the bars' blue among them."""
    browser.open(pages["ei"])
    pixels = png_pixels(browser.screenshot(scale=0.5))[..., :3]
    height, width, _ = pixels.shape
    assert width >= 500 and height >= 1000
    flat = pixels.reshape(-1, 3)
    not_white = np.any(flat < 245, axis=1).mean()
    colours = len(np.unique(flat.astype(np.uint32) @ np.array([65536, 256, 1], dtype=np.uint32)))
    assert not_white > 0.03 and colours > 50, (not_white, colours)
    near = lambda rgb: np.all(np.abs(flat.astype(int) - rgb) <= 12, axis=1).sum()  # noqa: E731
    assert near(RED) > 20 and near((9, 105, 218)) > 200  # (the verdict and markers; the bars)
