"""``d3d12wl check``: a folder of captures judged in one step for CI (issue 41): the files found in a fixed order and
split into shards that together judge each once; every capture in a process of its own, bounded in memory and
time; the summary, the JSON report and the JUnit XML; the baseline of accepted findings; exit 0 / 1 / 2 / 3, the
highest of the files, the others still judged."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import verdict_captures as vc

from d3d12wl import examples
from d3d12wl.cli import main
from d3d12wl.errors import D3D12WLError
from d3d12wl.verdicts.baseline import MARKER, Accepted, Baseline
from d3d12wl.verdicts.discover import Target, discover, parse_shard
from d3d12wl.verdicts.results import CaptureResult
from d3d12wl.verdicts.runner import Bounds, run_all


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as an engine's CI has it: clean captures, two with findings (one in a subfolder), a description
    and a call sequence beside them, and files that are not to be read (hidden, not JSON)."""
    root = tmp_path_factory.mktemp("frames")
    shutil.copy(examples.path("culling_capture.json"), root / "a_culling.json")
    shutil.copy(examples.path("execute_indirect_capture.json"), root / "b_ei.json")
    vc.save(vc.named_ei_capture(commands=8, bad=(3, 5)), root / "c_bad_cbv.json")
    vc.save(vc.named_work_list_capture(unmapped=[1]), root / "level2" / "d_unmapped.json")
    shutil.copy(examples.path("culling.json"), root / "level2" / "e_description.json")
    (root / ".hidden.json").write_text("{", encoding="utf-8")
    (root / "notes.txt").write_text("not judged", encoding="utf-8")
    return root


def _check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", "check", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _report(*args: str, cwd: Path | None = None) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    done = _check("--json", "--quiet", *args, cwd=cwd)
    return done.returncode, json.loads(done.stdout), done.stderr


# -- the files and the shards --------------------------------------------------------------------------------------


def test_discovery_order_and_what_is_left_out(frames: Path) -> None:
    found = [t.path for t in discover([str(frames)])]
    assert [p.removeprefix(frames.as_posix() + "/") for p in found] == [
        "a_culling.json", "b_ei.json", "c_bad_cbv.json", "level2/d_unmapped.json", "level2/e_description.json"]
    # a file named and also found in a folder is judged once, where first reached
    again = discover([str(frames / "b_ei.json"), str(frames)])
    assert [t.path for t in again][0].endswith("b_ei.json") and again[0].named and len(again) == 5
    with pytest.raises(D3D12WLError, match="no such file or folder"):
        discover([str(frames / "nope")])


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_judge_every_file_once(count: int) -> None:
    """--shard I/N: the N shards are disjoint, their union is the whole set, in order; sizes differ by one."""
    targets = [Target(f"f{i:02}.json", False) for i in range(20)]
    shards = [parse_shard(f"{i}/{count}").of(targets) for i in range(1, count + 1)]
    flat = [t for s in shards for t in s]
    assert sorted(t.path for t in flat) == [t.path for t in targets] and len(flat) == len(targets)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert parse_shard(f"1/{count}").of(targets) == shards[0]  # (the same on every runner)


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""])
def test_a_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(D3D12WLError, match="is not I/N"):
        parse_shard(text)


def test_the_shards_of_a_folder_are_the_whole_run(frames: Path) -> None:
    _, whole, _ = _report(str(frames))
    paths = []
    for i in (1, 2):
        _, part, _ = _report(str(frames), "--shard", f"{i}/2")
        assert part["shard"] == f"{i}/2"
        paths += [c["path"] for c in part["captures"]]
    assert sorted(paths) == sorted(c["path"] for c in whole["captures"])


# -- the verdict --------------------------------------------------------------------------------------------------


def test_a_folder_with_findings_fails_and_says_why(frames: Path) -> None:
    """Exit 1: error findings in two captures; the description found beside them is skipped, not unusable."""
    code, report, err = _report(str(frames))
    assert code == 1 and report["exit_status"] == 1 and report["version"] == 1
    status = {Path(c["path"]).name: c["status"] for c in report["captures"]}
    assert status == {"a_culling.json": "pass", "b_ei.json": "pass", "c_bad_cbv.json": "fail",
                      "d_unmapped.json": "fail", "e_description.json": "skipped"}
    bad = next(c for c in report["captures"] if c["path"].endswith("c_bad_cbv.json"))
    assert bad["new_errors"] == {"cbv-address-misaligned": 2} and bad["executions"] == 8
    assert bad["call"] == "ExecuteIndirect" and len(bad["first_findings"]) == 2
    assert bad["time_s"] > 0 and bad["peak_mib"] > 10 and bad["cpu_s"] >= 0
    assert report["totals"]["fail"] == 2 and report["totals"]["new_errors_by_kind"] == {
        "cbv-address-misaligned": 2, "unmapped-va": 1}
    assert err.startswith("d3d12wl check: 2 of 4 captures fail with new error findings")


def test_the_summary_table(frames: Path) -> None:
    done = _check(str(frames), "--quiet", "--jobs", "2")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].split()[:6] == ["capture", "status", "executions", "errors", "warnings", "new"]
    row = next(line for line in lines if "c_bad_cbv.json" in line)
    assert row.split()[1:6] == ["fail", "8", "2", "0", "2"] and row.endswith("cbv-address-misaligned 2")
    assert any(line.startswith("cbv-address-misaligned  error") for line in lines)
    assert lines[-1].startswith("5 files: 2 pass, 2 fail, 1 skipped; ") and "with 2 processes" in lines[-1]


def test_an_unusable_capture_is_exit_2_and_the_others_are_still_judged(frames: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 4, "memory": [', encoding="utf-8")
    code, report, err = _report(str(frames / "a_culling.json"), str(broken), str(frames / "c_bad_cbv.json"),
                                str(examples.path("culling.json")))
    assert code == 2
    got = [(Path(c["path"]).name, c["status"]) for c in report["captures"]]
    assert got == [("a_culling.json", "pass"), ("broken.json", "unusable"), ("c_bad_cbv.json", "fail"),
                   ("culling.json", "unusable")]  # (named: a description given by name is not a capture)
    reason = report["captures"][1]["reason"]
    assert reason["where"].startswith(str(broken)) and reason["kind"] == "CaptureError"
    assert "this is a description, not a capture" in report["captures"][3]["reason"]["message"]
    assert "2 could not be judged" in err


def test_jobs_do_not_change_the_verdict(frames: Path) -> None:
    def verdicts(jobs: str) -> list[tuple[str, str, dict[str, int]]]:
        _, report, _ = _report(str(frames), "--jobs", jobs)
        assert report["jobs"] == min(int(jobs), 5)
        return [(c["path"], c["status"], c["findings_by_kind"]) for c in report["captures"]]

    assert verdicts("1") == verdicts("3")


# -- the baseline -------------------------------------------------------------------------------------------------


def test_a_baseline_accepts_known_findings_and_fails_on_new_ones(frames: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    code, _, _ = _report(str(frames), "--write-baseline", str(baseline))
    assert code == 1
    doc = json.loads(baseline.read_text(encoding="utf-8"))
    assert doc[MARKER] == 1 and sorted(Path(p).name for p in doc["captures"]) == ["c_bad_cbv.json",
                                                                                    "d_unmapped.json"]
    code, report, _ = _report(str(frames), "--baseline", str(baseline))
    assert code == 0 and [c["status"] for c in report["captures"]].count("accepted") == 2
    # one more bad command than accepted: the excess is new
    more = tmp_path / "more"
    shutil.copytree(frames, more)
    # (the baseline keys the captures by their path: the copy's)
    rebased = {k.replace(frames.as_posix(), more.as_posix()): v for k, v in doc["captures"].items()}
    (tmp_path / "b2.json").write_text(json.dumps({MARKER: 1, "captures": rebased}), encoding="utf-8")
    vc.save(vc.named_ei_capture(commands=8, bad=(3, 5, 6)), more / "c_bad_cbv.json")
    code, report, err = _report(str(more), "--baseline", str(tmp_path / "b2.json"))
    bad = next(c for c in report["captures"] if c["path"].endswith("c_bad_cbv.json"))
    assert code == 1 and bad["status"] == "fail" and bad["new_errors"] == {"cbv-address-misaligned": 1}
    assert bad["accepted_errors"] == {"cbv-address-misaligned": 2}
    # fewer than accepted: accepted, and the baseline's slack reported
    vc.save(vc.named_ei_capture(commands=8, bad=(3,)), more / "c_bad_cbv.json")
    code, report, _ = _report(str(more), "--baseline", str(tmp_path / "b2.json"))
    bad = next(c for c in report["captures"] if c["path"].endswith("c_bad_cbv.json"))
    assert code == 0 and bad["status"] == "accepted" and bad["unused_accepted"] == {"cbv-address-misaligned": 1}


def test_the_judgement_of_counts() -> None:
    baseline = Baseline({"f.json": Accepted({"unmapped-va": 2}, 0)})
    j = baseline.judge("f.json", {"unmapped-va": 3, "va-wrap": 1}, 0)
    assert j.new == {"unmapped-va": 1, "va-wrap": 1} and j.accepted == {"unmapped-va": 2} and j.unused == {}
    j = baseline.judge("f.json", {}, 5)  # suppressed findings are of unknown kinds: new unless accepted
    assert j.new == {"(suppressed)": 5} and j.unused == {"unmapped-va": 2}


@pytest.mark.parametrize(("doc", "where"), [
    ({"captures": {}}, "b.json"),
    ({MARKER: 1, "captures": {"f": {"errors": {"no-such-kind": 1}}}}, "captures.f.errors"),
    ({MARKER: 1, "captures": {"f": {"errors": {"unmapped-va": -1}}}}, "captures.f.errors.unmapped-va"),
    ({MARKER: 1, "captures": {"f": {"error": {}}}}, "captures.f"),
])
def test_a_bad_baseline_is_exit_2_naming_the_member(doc: dict, where: str, frames: Path,  # type: ignore[type-arg]
                                                    tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = _check(str(frames), "--baseline", str(path))
    assert done.returncode == 2 and where in done.stderr and "Traceback" not in done.stderr
    assert not done.stdout  # (nothing was judged)


# -- the reports --------------------------------------------------------------------------------------------------


def test_junit_xml_as_a_ci_server_reads_it(frames: Path, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    done = _check(str(frames), "--quiet", "--junit", str(junit))
    assert done.returncode == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("5", "2", "0",
                                                                                                     "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    failure = cases["c_bad_cbv.json"].find("failure")
    assert failure is not None and failure.get("message") == "2 new error findings (cbv-address-misaligned 2)"
    assert failure.text is not None and "command 3" in failure.text and "command 5" in failure.text
    assert cases["d_unmapped.json"].get("classname", "").endswith("level2")
    assert cases["e_description.json"].find("skipped") is not None
    out = cases["a_culling.json"].find("system-out")
    assert out is not None and out.text is not None and out.text.startswith("DispatchList: 9 executions, 1 list")
    assert float(cases["a_culling.json"].get("time", "0")) > 0


def test_pages_of_the_failing_captures(frames: Path, tmp_path: Path) -> None:
    """--output-dir: one page per failing capture, its path mirroring the capture's; none for the others."""
    pages = tmp_path / "pages"
    code, report, _ = _report(str(frames), "--output-dir", str(pages))
    assert code == 1
    made = sorted(p.relative_to(pages).as_posix() for p in pages.rglob("*.html"))
    rel = frames.relative_to(frames.anchor).as_posix()
    assert made == [f"{rel}/c_bad_cbv.html", f"{rel}/level2/d_unmapped.html"]
    for c in report["captures"]:
        assert (c["page"] is not None) == (c["status"] == "fail")
    page = (pages / rel / "c_bad_cbv.html").read_text(encoding="utf-8")
    assert 'class="fld f0 bad" data-field="ObjectCB"' in page


def test_outputs_that_cannot_be_written_are_exit_2_before_any_work(frames: Path, tmp_path: Path) -> None:
    for args, where in ((["--junit", str(tmp_path / "no" / "j.xml")], "no/j.xml"),
                        (["-o", str(frames / "a_culling.json")], "which this command reads"),
                        (["--junit", str(tmp_path / "x"), "--write-baseline", str(tmp_path / "x")], "the same file"),
                        (["--jobs", "0"], "--jobs"), (["--capture-timeout", "0"], "--capture-timeout"),
                        (["--shard", "3/2"], "--shard")):
        done = _check(str(frames), *args)
        assert done.returncode == 2 and where in done.stderr and not done.stdout, (args, done.stderr)


def test_paths_that_hold_nothing_to_judge_are_exit_2(tmp_path: Path) -> None:
    """A CI job whose folder is empty (captures not fetched, a wrong folder) judges nothing: it must not pass.  A
    shard left empty by fewer files than shards is no error: the other shards judge them."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not judged", encoding="utf-8")
    done = _check(str(tmp_path / "empty"), "--junit", str(tmp_path / "j.xml"))
    assert done.returncode == 2 and "found no *.json file to judge" in done.stderr and not done.stdout
    assert not (tmp_path / "j.xml").exists()
    shutil.copy(examples.path("execute_indirect_capture.json"), tmp_path / "one.json")
    done = _check(str(tmp_path / "one.json"), "--shard", "2/2", "--quiet")
    assert done.returncode == 0 and "0 files (shard 2/2)" in done.stdout
    done = _check(str(tmp_path / "one.json"), "--quiet")
    assert done.returncode == 0 and "\n1 file: 1 pass; " in done.stdout


def test_json_on_a_usage_error(frames: Path) -> None:
    done = _check(str(frames), "--json", "--shard", "x")
    assert done.returncode == 2 and json.loads(done.stdout)["where"] == "--shard"


# -- the processes: memory, time, crashes ---------------------------------------------------------------------------


def test_a_capture_past_its_memory_bound_is_unusable_and_the_others_are_judged(frames: Path) -> None:
    """--capture-memory: the capture's process may not map more; the allocation fails, the capture is unusable
    (exit 2), its reason names the flag that raises the bound."""
    code, report, _ = _report(str(frames / "a_culling.json"), "--capture-memory", "64")
    assert code == 2
    (c,) = report["captures"]
    assert c["status"] == "unusable" and c["reason"]["where"] == "--capture-memory"
    assert "64 MiB" in c["reason"]["message"]


def _sleep(target: Target) -> CaptureResult:
    time.sleep(60)
    return CaptureResult(target.path, "pass")


def _crash(target: Target) -> CaptureResult:
    os.kill(os.getpid(), signal.SIGSEGV)
    return CaptureResult(target.path, "pass")


def _raise(target: Target) -> CaptureResult:
    raise KeyError("boom")


def _fine(target: Target) -> CaptureResult:
    return CaptureResult(target.path, "pass", executions=len(target.path))


def test_a_capture_past_its_time_is_killed_and_the_others_are_judged() -> None:
    started = time.monotonic()
    results = run_all([Target("slow", True), Target("fine", True)],
                      lambda t: _sleep(t) if t.path == "slow" else _fine(t), jobs=2, bounds=Bounds(None, 1.0))
    assert time.monotonic() - started < 30
    assert [r.status for r in results] == ["unusable", "pass"]
    assert results[0].reason is not None and results[0].reason["where"] == "--capture-timeout"
    assert results[1].executions == 4 and results[0].time_s is not None and results[0].time_s >= 1.0


def test_captures_are_judged_whatever_the_number_of_their_pipes() -> None:
    """A capture's result comes back through a pipe: one numbered past 1023 (a check of --jobs in the thousands, or
    run from a process holding many files) is waited on like any other (select(2) refused it: ValueError)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1200, hard))  # a hard limit under 1200 fails here, loudly
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        results = run_all([Target(n, True) for n in ("a", "bb")], _fine, jobs=2, bounds=Bounds(None, 30.0))
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert [(r.status, r.executions) for r in results] == [("pass", 1), ("pass", 2)]


def test_a_crash_or_an_exception_is_an_internal_error_of_that_file_alone() -> None:
    work = {"crash": _crash, "raise": _raise, "fine": _fine}
    results = run_all([Target(n, True) for n in work], lambda t: work[t.path](t), jobs=1, bounds=Bounds())
    assert [r.status for r in results] == ["internal-error", "internal-error", "pass"]
    assert results[0].reason is not None and "SIGSEGV" in results[0].reason["message"]
    assert results[1].reason is not None and results[1].reason["message"] == "KeyError: 'boom'"
    assert [r.exit_status for r in results] == [3, 3, 0]


def test_check_in_process_returns_the_exit_status(frames: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """main(['check', ...]) forks its captures from the calling process and returns the status."""
    assert main(["check", str(frames / "a_culling.json"), str(frames / "b_ei.json"), "--quiet"]) == 0
    assert "2 files: 2 pass" in capsys.readouterr().out


def _children(of: int | None = None) -> list[int]:
    """The live children of this process (or of ``of``), from /proc: zombies left out."""
    me, out = os.getpid() if of is None else of, []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def test_an_interrupt_kills_every_capture_process() -> None:
    """Ctrl-C while captures run: every capture's process is killed and reaped before the interrupt goes on (the
    command line then exits 130)."""
    import threading

    before = set(_children())
    started = time.monotonic()
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # (a run started with SIGINT ignored)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_all([Target(f"slow{i}", True) for i in range(4)], _sleep, jobs=2, bounds=Bounds())
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert set(_children()) <= before
    assert time.monotonic() - started < 30


def test_a_check_that_is_killed_takes_its_capture_processes_with_it(tmp_path: Path) -> None:
    """A CI job's timeout ends check with SIGTERM or SIGKILL, which it cannot answer by killing its captures (as it
    does an interrupt): each capture's process is then killed by the kernel (PR_SET_PDEATHSIG), not left running
    with no time bound."""
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_check import _sleep\n"
        "from d3d12wl.verdicts.discover import Target\n"
        "from d3d12wl.verdicts.runner import Bounds, run_all\n"
        "run_all([Target(f'slow{i}', True) for i in range(2)], _sleep, jobs=2, bounds=Bounds())\n", encoding="utf-8")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        parent = subprocess.Popen([sys.executable, str(script)])
        deadline = time.monotonic() + 60
        kids: list[int] = []
        while len(kids) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            kids = _children(parent.pid)
        assert len(kids) == 2, kids
        parent.send_signal(sig)
        parent.wait(30)

        def alive(pid: int) -> bool:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                return False
            return state != "Z"

        while any(alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = [k for k in kids if alive(k)]
        for k in survivors:
            os.kill(k, signal.SIGKILL)
        assert not survivors, (sig, survivors)
