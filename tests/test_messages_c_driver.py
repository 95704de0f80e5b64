"""The C boundary (issue 19 item 4) and ``d3d12wl messages check``: a driver shared library, built here by gcc
against the compiled headers, is loaded through cffi, handed real C callback tables and driven through the
conformance workload.  The C reference driver passes every check ("WARP implements the feature and acts as the
reference implementation ... so the conformance suite runs end to end against it rather than skipping"); the same
driver with the issue's attribution bug planted fails exactly ``attribution_across_reset``."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations(handle_types=True)
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)
if shutil.which("gcc") is None:
    pytest.skip("gcc not installed", allow_module_level=True)

from d3d12wl import abi  # noqa: E402
from d3d12wl.cli import main  # noqa: E402
from d3d12wl.messages import Device, MessagesError, Runtime  # noqa: E402
from d3d12wl.messages import c_driver as cd  # noqa: E402
from d3d12wl.messages.conformance import CHECK_NAMES, NOT_DECIDABLE, run_conformance  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
REAL_LAYOUT = ["--callback-offset", "pfnReportMessageCb=64", "--callback-offset", "pfnQueryObjectIdentityCb=0x48",
               "--callback-table-size", "88"]


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("drivers")
    sources = {"reference": cd.REFERENCE_DRIVER_C, "bug": DATA / "attribution_bug_driver.c",
               "real": DATA / "real_layout_driver.c", "missing": DATA / "missing_export_driver.c",
               "crash": DATA / "crash_on_reset_driver.c", "many_features": DATA / "many_features_driver.c"}
    return {name: cd.build_driver(src, out / f"{name}.so") for name, src in sources.items()}


def _device(lib: Path) -> tuple[cd.CDriverDevice, Device]:
    rt = Runtime(cd.CDriver(lib))
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    assert isinstance(device.driver_device, cd.CDriverDevice)
    return device.driver_device, device


# ---- the boundary -------------------------------------------------------------------------------------------------


def test_entry_points_come_from_the_harness_header() -> None:
    points = cd.entry_points()
    assert len(points) == 12 and all(name.startswith("D3D12WLDriver_") for name in points)
    for fn_type in points.values():  # each parses as a function pointer of the compiled headers' types
        assert abi.ffi.typeof(fn_type).kind == "function"


def test_c_reference_driver_passes_every_check__hlk(libs: dict[str, Path]) -> None:
    report = run_conformance(lambda: cd.CDriver(libs["reference"]))
    assert [r.name for r in report.results if r.outcome != "pass"] == [], [(r.name, r.detail) for r in report.results]
    # the probe-dependent checks decided, they did not fall back to "not decidable"
    assert report["attribution_across_reset"].detail != NOT_DECIDABLE
    assert report["attribution_across_reset"].detail.startswith("5 finding(s) attributed, each to its own call")


def test_planted_attribution_bug_fails_exactly_that_check__hlk(libs: dict[str, Path]) -> None:
    """"The driver must cache the most recent CommandListStateIndex ... that the driver attributes to that command list
    operation": reading the list's recording when the GPU runs it, not when it was submitted, misattributes the
    resubmission that runs after a Reset."""
    report = run_conformance(lambda: cd.CDriver(libs["bug"]))
    assert report.failed() == ["attribution_across_reset"]
    assert "had not run" in report["attribution_across_reset"].detail


def test_initialization_message_crosses_the_c_boundary__reporting(libs: dict[str, Path]) -> None:
    """The driver reports through the ``pfnReportMessageCb`` of the C table; the runtime copies the C struct."""
    _, device = _device(libs["reference"])
    messages = device.messages()
    assert [m.pDescription for m in messages] == ["D3D12 Driver Reported Messages Enabled"]
    assert messages[0].provenance is not None and messages[0].provenance.vendor_message_id == 1


def test_callback_table_laid_out_by_the_compiled_headers(libs: dict[str, Path]) -> None:
    """The table handed to the driver is the compiled ``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126``: each callback's
    address at ``abi.offsetof``; past the two members the spec places, the offsets are marked provisional."""
    driver_device, _ = _device(libs["reference"])
    ffi = abi.ffi
    raw = ffi.cast("unsigned char *", driver_device.table)
    for name in ("pfnSetErrorCb", "pfnSetCommandListErrorCb", "pfnReportMessageCb", "pfnQueryObjectIdentityCb"):
        slot = ffi.cast("void **", raw + abi.offsetof(cd.CALLBACKS_STRUCT, name))[0]
        assert slot == ffi.cast("void *", getattr(driver_device.table, name)) and slot != ffi.NULL
    layout = {(m.table, m.member): m.provisional for m in cd.callback_table_layout()}
    assert layout[(cd.CALLBACKS_STRUCT, "pfnSetErrorCb")] is False
    assert layout[(cd.CALLBACKS_STRUCT, "pfnReportMessageCb")] is True
    assert layout[(cd.FUNCS_STRUCT, "pfnSetCommandListStateIndex")] is False
    assert cd.CallbackLayout.compiled().size == abi.sizeof(cd.CALLBACKS_STRUCT)


def test_identity_query_through_the_c_callback__object_identity(libs: dict[str, Path]) -> None:
    """``pfnQueryObjectIdentityCb`` as C code calls it (a ``D3D12DDI_HANDLE_AND_TYPE`` by value): the two-call
    pattern through the table's function pointer."""
    driver_device, device = _device(libs["reference"])
    resource = device.create_resource("MyVertexBuffer")
    ffi = abi.ffi
    hrt = ffi.new("D3D12DDI_HRTDEVICE *")
    hrt.handle = driver_device._rt_token
    size = ffi.new("uint64_t *")
    query = driver_device.table.pfnQueryObjectIdentityCb
    assert query(hrt[0], resource.handle_and_type(), size, ffi.NULL) == values.hresult("S_OK")
    buffer = ffi.new("char[]", int(size[0]))
    assert query(hrt[0], resource.handle_and_type(), size, buffer) == values.hresult("S_OK")
    assert ffi.string(buffer).decode().endswith(":'MyVertexBuffer'")
    stranger = ffi.new("D3D12DDI_HRTDEVICE *")  # a handle the runtime never gave out
    assert query(stranger[0], resource.handle_and_type(), size, ffi.NULL) == values.hresult("E_INVALIDARG")


def test_real_table_offsets_are_mapped(libs: dict[str, Path]) -> None:
    """A driver reading its real table (the elided members present) passes once the harness is told the offsets."""
    layout = cd.CallbackLayout.compiled().with_offsets({"pfnReportMessageCb": 64, "pfnQueryObjectIdentityCb": 72}, 88)
    report = run_conformance(lambda: cd.CDriver(libs["real"], layout))
    assert report.passed and all(r.outcome == "pass" for r in report.results)


@pytest.mark.parametrize(("offsets", "size", "why"), [
    ({"pfnNotACallback": 8}, None, "not a member"),
    ({"pfnReportMessageCb": 12}, None, "aligned"),
    ({"pfnReportMessageCb": 32}, None, "inside"),
    ({"pfnReportMessageCb": 0}, None, "both at offset 0"),
])
def test_bad_callback_layout_is_refused(offsets: dict[str, int], size: int | None, why: str) -> None:
    with pytest.raises(MessagesError, match=why):
        cd.CallbackLayout.compiled().with_offsets(offsets, size)


def test_feature_past_the_first_64_entries_is_found__hlk(libs: dict[str, Path]) -> None:
    """pfnGetSupportedExtendedFeatures "return how many the driver supports" (d3d12wl_conformance_ddi.h): a driver
    listing 80 features, driver-reported messages the 70th, is asked again with room for all of them, so the
    feature is negotiated and the suite runs (not skipped)."""
    features = cd.CDriver(libs["many_features"]).get_supported_extended_features()
    assert len(features) == 80
    assert features[values.feature_driver_reported_messages()] == values.feature_version_0()
    report = run_conformance(lambda: cd.CDriver(libs["many_features"]))
    assert report.passed and all(r.outcome == "pass" for r in report.results), report.failed()


@pytest.mark.parametrize("version", [2, 3, 0xFFFFFFFF])
def test_c_reference_driver_refuses_versions_it_does_not_implement__enabling(libs: dict[str, Path],
                                                                          version: int) -> None:
    """The reference driver implements D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 only: any other version
    fails (E_INVALIDARG), fills no table and reports no initialization message."""
    driver_device, device = _device(libs["reference"])
    before = len(device.reports)
    assert driver_device.enable_extended_feature(values.feature_driver_reported_messages(), version) is None
    assert len(device.reports) == before


def test_library_missing_entry_points_is_unusable(libs: dict[str, Path]) -> None:
    with pytest.raises(MessagesError, match="does not export D3D12WLDriver_CreateDevice"):
        cd.CDriverLibrary(libs["missing"])


def test_build_failure_names_the_compiler_output(tmp_path: Path) -> None:
    bad = tmp_path / "bad.c"
    bad.write_text("this is not C\n")
    with pytest.raises(MessagesError, match="error"):
        cd.build_driver(bad, tmp_path / "bad.so")


# ---- d3d12wl messages check -------------------------------------------------------------------------------------


def test_cli_reference_driver_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("conformance: d3d12wl reference driver")
    rows = [line for line in out if line.startswith(("pass ", "fail ", "skip "))]
    assert len(rows) == len(CHECK_NAMES) and all(line.startswith("pass ") for line in rows)
    assert any("attribution_across_reset" in line and "must cache the most recent CommandListStateIndex" in line
               for line in rows)
    assert out[-1] == f"verdict: PASS: {len(CHECK_NAMES)} passed, 0 failed, 0 skipped"


def test_cli_c_reference_driver_passes(libs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--driver", str(libs["reference"])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"verdict: PASS: {len(CHECK_NAMES)} passed, 0 failed, 0 skipped"


def test_cli_planted_bug_fails_naming_the_check(libs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--driver", str(libs["bug"])]) == 1
    out = capsys.readouterr().out.splitlines()
    failed = [line.split()[1] for line in out if line.startswith("fail ")]
    assert failed == ["attribution_across_reset"]
    assert out[-1] == f"verdict: FAIL: {len(CHECK_NAMES) - 1} passed, 1 failed, 0 skipped"
    assert any(line.startswith("  attribution_across_reset ") for line in out)  # what it saw, under failures:


def test_cli_json(libs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--driver", str(libs["bug"]), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False and data["driver"] == str(libs["bug"])
    by_name = {r["name"]: r for r in data["results"]}
    assert by_name["attribution_across_reset"]["outcome"] == "fail"
    assert all(set(r) >= {"name", "section", "outcome", "detail", "sentence"} for r in data["results"])


def test_cli_junit(libs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "conformance.xml"
    assert main(["messages", "check", "--driver", str(libs["bug"]), "--junit", str(report)]) == 1
    assert "verdict: FAIL" in capsys.readouterr().out
    suite = ET.parse(report).getroot()
    assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", str(len(CHECK_NAMES)), "1")
    failed = [case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None]
    assert failed == ["attribution_across_reset"]


def test_cli_real_layout_needs_the_offsets(libs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--driver", str(libs["real"]), *REAL_LAYOUT]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("verdict: PASS")


@pytest.mark.parametrize("argv", [
    ["--driver", "/nonexistent/driver.so"],
    ["--driver", "MISSING"],
    ["--callback-offset", "pfnReportMessageCb=64"],  # offsets without --driver
    ["--driver", "REFERENCE", "--callback-offset", "pfnReportMessageCb"],
    ["--driver", "REFERENCE", "--callback-table-size", "lots"],
])
def test_cli_unusable_input_exits_2_without_traceback(argv: list[str], libs: dict[str, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    argv = [{"MISSING": str(libs["missing"]), "REFERENCE": str(libs["reference"])}.get(a, a) for a in argv]
    assert main(["messages", "check", *argv]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


def test_cli_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from d3d12wl.cli import messages_cmd

    def broken(factory: object, **options: object) -> object:
        raise RuntimeError("suite bug")

    monkeypatch.setattr(messages_cmd, "run_conformance", broken)
    assert main(["messages", "check"]) == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: suite bug" in err and "Traceback" not in err
    assert main(["messages", "check", "--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_docs_messages_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/messages.md's ``python`` blocks run, in order, in one namespace (the C one builds and checks the C
    reference driver)."""
    import re

    docs = Path(__file__).resolve().parents[1] / "docs" / "messages.md"
    blocks = re.findall(r"^```python\n(.*?)^```", docs.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) >= 2 and any("c_driver.build_driver" in b for b in blocks)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for body in blocks:
        exec(compile(body, str(docs), "exec"), namespace)  # noqa: S102 - the docs' own examples


def test_cli_error_inside_the_runtime_callbacks_is_internal(libs: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A failure of the runtime model's own C callback is d3d12wl's error (exit 3), not a verdict on the driver."""

    def broken(self: cd.CDriverDevice, hrt: object, p_message: object) -> int:
        raise RuntimeError("callback bug")

    monkeypatch.setattr(cd.CDriverDevice, "_report_message_cb", broken)
    assert main(["messages", "check", "--driver", str(libs["reference"])]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "RuntimeError: callback bug" in err and "Traceback" not in err


def test_cli_a_crash_fails_one_check(libs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Each check of a driver library runs in its own process, and one fault is one failure: a driver that crashes
    (SIGSEGV in ResetCommandList) fails the first check whose workload reached the crash, naming the signal and the
    entry point; the other checks that reached it are skipped, naming that check; the rest still run and pass."""
    assert main(["messages", "check", "--driver", str(libs["crash"])]) == 1
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[1]: line.split()[0] for line in out if line.startswith(("pass ", "fail ", "skip "))}
    assert [name for name, outcome in rows.items() if outcome == "fail"] == ["silent_when_not_enabled"]
    assert {"initialization_message", "registry_force_on", "advertised_version_supported"} <= {
        name for name, outcome in rows.items() if outcome == "pass"}
    assert "  silent_when_not_enabled  the driver crashed the check process (SIGSEGV) in ResetCommandList" in out
    assert out[-1].startswith("verdict: FAIL: ") and " 1 failed, " in out[-1]


def _isolated_run(factory: object, budget_s: float) -> tuple[object, float]:
    import time

    from d3d12wl.messages.conformance_isolation import Isolated

    started = time.monotonic()
    report = Isolated(factory, budget_s, None).run()  # type: ignore[arg-type]
    return report, time.monotonic() - started


def test_isolated_check_that_hangs_is_killed_within_the_budget() -> None:
    """A driver that hangs in every check (here: in every Reset) costs the run's one time budget, not the number of
    checks times it: each check gets its share, is killed when it is spent, and one hang is one failure."""
    import time

    from d3d12wl.messages.reference_driver import ReferenceDriver, ReferenceDriverDevice

    class Hangs(ReferenceDriverDevice):
        def reset_command_list(self, hcl: object) -> None:
            time.sleep(60)

    class Driver(ReferenceDriver):
        device_class = Hangs

    report, seconds = _isolated_run(Driver, 2.0)
    assert seconds < 2.0 + 2.5  # the budget, plus the last share of at least MIN_CHECK_S and the reaping
    failed = report.failed()  # type: ignore[attr-defined]
    assert len(failed) == 1
    assert "did not return within" in report[failed[0]].detail  # type: ignore[index]
    assert "in ResetCommandList" in report[failed[0]].detail  # type: ignore[index]
    assert report["initialization_message"].outcome == "pass"  # type: ignore[index]


# ---- hostile libraries (issue 26: every length a driver supplies is bounded) -------------------------------------

HOSTILE_C = Path(__file__).resolve().parent / "fuzz" / "hostile_driver.c"


def _hostile(tmp_path: Path, *hostilities: str) -> Path:
    return cd.build_driver(HOSTILE_C, tmp_path / "hostile.so", includes=[cd.C_DIR],
                           defines={f"HOSTILE_{h}": "1" for h in hostilities})


def test_feature_count_is_bounded__hlk(tmp_path: Path) -> None:
    """A feature count of 0xFFFFFFFF is not an allocation of 4 G entries: the runtime reads at most MAX_FEATURES of
    them, the feature among them is found, and advertised_version_supported says what the driver returned."""
    lib = _hostile(tmp_path, "QUERY_COUNT")
    driver = cd.CDriver(lib)
    assert driver.get_supported_extended_features()[values.feature_driver_reported_messages()] == 1
    assert driver.feature_query_note == (f"pfnGetSupportedExtendedFeatures returns a count of {0xFFFFFFFF}: the "
                                         f"runtime read the first {cd.MAX_FEATURES} entries")
    from d3d12wl.messages.conformance import run_check

    result = run_check("advertised_version_supported", lambda: cd.CDriver(lib))
    assert result.outcome == "pass" and "a count of 4294967295" in result.detail


def test_a_64_mib_description_is_bounded_in_what_the_suite_shows(tmp_path: Path) -> None:
    """A 64 MiB description (legal: "nor does it bound the description's length") is kept to its first 64 KiB by the
    runtime's copy, and a check's detail shows 160 characters of it and its length, not the whole of it."""
    from d3d12wl.messages.conformance import run_check

    result = run_check("initialization_message", lambda: cd.CDriver(_hostile(tmp_path, "HUGE_MESSAGE")))
    assert result.outcome == "fail" and len(result.detail) < 600
    assert f"... ({(64 << 20) - 1:,} bytes)" in result.detail


def test_cli_junit_path_that_cannot_be_written_is_exit_2_before_the_run(libs: dict[str, Path], tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """--junit is written through d3d12wl.output.outfiles: a folder that does not exist is unusable input, named, before a
    single check runs; a report that is written replaces the file whole."""
    missing = tmp_path / "no such folder" / "report.xml"
    assert main(["messages", "check", "--driver", str(libs["reference"]), "--junit", str(missing)]) == 2
    captured = capsys.readouterr()
    assert str(missing) in captured.err and "conformance:" not in captured.out
    target = tmp_path / "report.xml"
    target.write_text("old")
    assert main(["messages", "check", "--junit", str(target)]) == 0
    assert ET.parse(target).getroot().get("failures") == "0"
    assert [p.name for p in tmp_path.iterdir()] == ["report.xml"]  # no staged file left behind


@pytest.mark.parametrize("budget", ["0", "-1", "nan", "inf"])
def test_cli_timeout_must_be_a_positive_number(budget: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--timeout", budget]) == 2
    assert "--timeout" in capsys.readouterr().err
