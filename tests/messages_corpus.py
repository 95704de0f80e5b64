"""The C driver corpus of the conformance suite (``tests/data/driver_corpus.c``, one source built with one define per
variant) and the verdict ``d3d12wl messages check`` must give on each: every correct variant passes every check,
every planted bug fails the check that claims it.  Where a planted bug fails more checks, each of them decides a
sentence the bug breaks too (``also``).  Used by tests/test_messages_corpus.py and tools/messages_corpus.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from d3d12wl.messages import c_driver
from d3d12wl.messages.conformance import CHECK_NAMES
from d3d12wl.messages.conformance_results import ConformanceReport

CORPUS_C = Path(__file__).resolve().parent / "data" / "driver_corpus.c"


@dataclass(frozen=True)
class Variant:
    """One build of the corpus: ``VARIANT_<name>=1`` (``REFERENCE``: no define).

    ``claims``: the check a planted bug is for (None: a correct driver).  ``fails`` / ``warns``: exactly the checks
    that fail / warn.  ``passes``: None when every other check passes; else exactly these pass and the rest are
    skipped (the driver does not offer the feature, or one fault skipped the checks that met it).  ``isolated``: runs
    only with each check in a process of its own (it crashes the process)."""

    name: str
    what: str
    claims: str | None = None
    fails: tuple[str, ...] = ()
    warns: tuple[str, ...] = ()
    passes: tuple[str, ...] | None = None
    also: str = ""
    isolated: bool = False

    @property
    def correct(self) -> bool:
        return self.claims is None

    @property
    def defines(self) -> dict[str, str]:
        return {} if self.name == "REFERENCE" else {f"VARIANT_{self.name}": "1"}

    def mismatch(self, report: ConformanceReport) -> str | None:
        """None when ``report`` is the pinned verdict, else what differs."""
        got = {o: set(report.outcomes(o)) for o in ("fail", "warn", "skip")}
        want_pass = set(CHECK_NAMES) - set(self.fails) - set(self.warns) if self.passes is None else set(self.passes)
        want = {"fail": set(self.fails), "warn": set(self.warns),
                "skip": set(CHECK_NAMES) - want_pass - set(self.fails) - set(self.warns)}
        wrong = [f"{o}: got {sorted(got[o])}, want {sorted(want[o])}" for o in want if got[o] != want[o]]
        if not wrong:
            return None
        details = [f"{r.name} {r.outcome}: {r.detail}" for r in report.results if r.outcome != "pass"]
        return "; ".join(wrong) + " | " + " | ".join(details)


_NO_FEATURE = ("advertised_version_supported", "silent_when_not_enabled")

CORRECT: tuple[Variant, ...] = (
    Variant("REFERENCE", "the C reference driver"),
    Variant("QUIET", "honours no probe: reports the initialization message only"),
    Variant("NEVER_ATTRIBUTES", "0xFFFFFFFF on every finding"),
    Variant("FLOODS", "32 uncorrelated INFO messages per flush, 4 correlated ones per GPU-work call"),
    Variant("DEDUPES", "an identical message is reported once per device"),
    Variant("OWN_THREAD", "a reporting thread of its own delivers GPU findings as they are captured"),
    Variant("ENRICHES_IDENTITY", "prefixes findings with the queue's identity from pfnQueryObjectIdentityCb"),
    Variant("REPORTS_AT_RECORDING", "an INFO at recording time for every GPU-work call"),
    Variant("DELIVERS_AT_COMPLETION", "GPU findings reported when the GPU runs the work, before any flush"),
    Variant("VENDOR_TAG", "a vendor tag before every description"),
    Variant("DEFERS_RECORDING_FINDINGS", "recording-time findings held for the next flush"),
    Variant("FUTURE_VERSION", "advertises version 2 of the feature"),
    Variant("MULTILINE", "a second line in every description"),
    Variant("REPORTS_ON_RESET", "an uncorrelated INFO at every Reset"),
    Variant("LONG_DESCRIPTIONS", "descriptions of 100,000 bytes"),
    Variant("FLOODS_FROM_THREADS", "each finding three times; 100 INFO messages from 4 threads of its own in every "
                                   "flush once the device has had a finding"),
    Variant("OWN_THREAD_DRAINS", "its own thread reports findings as they come; a flush drains the rest and waits for "
                                 "that thread's delivery"),
)

PLANTED: tuple[Variant, ...] = (
    Variant("INIT_INFO_SEVERITY", "the initialization message at INFO severity", "initialization_message",
            ("initialization_message",)),
    Variant("NO_INIT", "no initialization message", "registry_force_on", ("initialization_message", "registry_force_on"),
            also="initialization_message: the mandatory message is missing on every device"),
    Variant("REPORTS_WHEN_NOT_ENABLED", "reports at CreateCommandList whether or not the feature is enabled",
            "silent_when_not_enabled", ("silent_when_not_enabled",)),
    Variant("NOT_ADVERTISED_REPORTS", "offers no feature and reports anyway", "silent_when_not_enabled",
            ("silent_when_not_enabled",), passes=("advertised_version_supported",)),
    Variant("NULL_DESCRIPTION", "a NULL pDescription in every flush", "reports_valid", ("reports_valid",)),
    Variant("MADE_UP_INDEX", "an index the runtime never issued", "indices_issued", ("indices_issued",)),
    Variant("READ_RECORDING_AT_GPU_TIME", "the GPU reads the list's recording as it is when it runs",
            "attribution_across_reset", ("attribution_across_reset",)),
    Variant("TAGGED_ATTRIBUTION_BUG", "the same, in a driver that prefixes a vendor tag", "attribution_across_reset",
            ("attribution_across_reset",)),
    Variant("LATE_DISPATCH_INFO", "a correlated INFO reported by a thread 30 ms after the flush",
            "no_late_correlated_reports", ("no_late_correlated_reports",)),
    Variant("CRASH_ON_EMPTY_FLUSH", "SIGSEGV in a flush with nothing to report", "empty_flush_tolerated",
            ("empty_flush_tolerated",),
            passes=("initialization_message", "silent_when_not_enabled", "registry_force_on",
                    "advertised_version_supported"), isolated=True),
    Variant("FRESH_VENDOR_IDS", "a new VendorMessageId for every report", "vendor_message_ids_stable",
            ("vendor_message_ids_stable",)),
    Variant("REPORTS_UNDER_DEVICE_LOCK", "the flush reports holding the device lock every DDI takes",
            "reports_outside_driver_locks", ("reports_outside_driver_locks",)),
    Variant("RECORD_REPORT_UNDER_DEVICE_LOCK", "a recording-time finding reported holding the device lock",
            "reports_outside_driver_locks", ("reports_outside_driver_locks",)),
    Variant("FLUSH_WAITS_FOR_GPU", "every flush waits (up to 2 s) for the GPU to run what was submitted",
            "device_removal", ("device_removal",)),
    Variant("HOLDS_ONE_FLUSH", "each flush reports what the flush before it held", "removal_flush_delivers_captured",
            ("no_late_correlated_reports", "removal_flush_delivers_captured", "flush_reports_everything_held"),
            also="no_late_correlated_reports: every finding comes after the flush for its submission; "
                 "flush_reports_everything_held: what the last flush held is never delivered"),
    Variant("REPORTS_ON_LIST_DESTROY", "a finding about a list's submitted work reported when the list is destroyed",
            "reports_after_removal", ("reports_after_removal",)),
    Variant("REPORTS_AFTER_DESTROY", "a detached thread reports 20 ms after DestroyDevice", "no_report_after_destroy",
            ("no_report_after_destroy",)),
    Variant("VERSION_NONE", "the feature listed at version _NONE", "advertised_version_supported",
            ("advertised_version_supported",), passes=("silent_when_not_enabled",)),
    Variant("REFUSES_ENABLE", "the feature listed, pfnEnableExtendedFeature refuses it", "advertised_version_supported",
            ("advertised_version_supported",), passes=("silent_when_not_enabled",)),
    Variant("DROPS_ALL_BUT_FIRST", "a flush reports its first finding and drops the rest",
            "flush_reports_everything_held", ("flush_reports_everything_held",)),
    Variant("DEVICE_WIDE_INDEX_CACHE", "one CommandListStateIndex cache for the whole device",
            "attribution_concurrent_recording", ("attribution_concurrent_recording",)),
    Variant("REPORTS_UNDER_LIST_LOCK", "the flush reports holding the reported command list's own lock",
            "reports_outside_list_locks", ("reports_outside_list_locks",)),
    Variant("UNTERMINATED_DESCRIPTION", "a description that runs into an unmapped page without a NUL",
            "descriptions_nul_terminated", ("descriptions_nul_terminated",)),
    Variant("DUPLICATES_LIST_IDENTITY", "correlated findings prefixed with the command list's identity",
            "no_duplicated_annotation", warns=("no_duplicated_annotation",)),
    Variant("DESCRIPTION_WITHOUT_NUL", "each finding's description copied into a heap buffer of its length, no NUL",
            "descriptions_nul_terminated", ("descriptions_nul_terminated",)),
    Variant("FLUSH_REPORTS_ON_HELPER_THREAD", "every flush hands what it holds to a thread of its own and waits for it",
            "removal_flush_delivers_captured", ("removal_flush_delivers_captured",)),
)

VARIANTS: tuple[Variant, ...] = CORRECT + PLANTED
BY_NAME: Mapping[str, Variant] = {v.name: v for v in VARIANTS}


def build(out: Path, variants: Iterable[Variant] = VARIANTS, *, jobs: int = 2) -> dict[str, Path]:
    """Build each variant into ``out/<name>.so`` (gcc, against the compiled headers written once); name -> path."""
    headers = c_driver.write_headers(out / "include")

    def one(v: Variant) -> tuple[str, Path]:
        return v.name, c_driver.build_driver(CORPUS_C, out / f"{v.name}.so", includes=[c_driver.C_DIR],
                                             defines=v.defines, headers=headers, optimize="-O0")

    with ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(one, list(variants)))
