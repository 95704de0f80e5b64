"""The conformance suite's values: a check, its result, a driver fault, the report (spec "HLK / conformance").

A check decides one spec sentence (:attr:`Check.sentence`, quoted verbatim) and returns ``(passed, detail)``; a check
of a "should" (:attr:`Check.advisory`) that is not followed is a ``warn``, never a ``fail``: "A conformance suite never
fails a correct implementation."  A driver that faults -- raises out of a DDI entry point, crashes the process, exits
it, or hangs -- does so at a *site* (the entry point, :class:`Fault`); the runner turns one fault into one failure
(see :mod:`d3d12wl.messages.conformance`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: what a check can come to: passed, failed, not decided (skip), or a "should" not followed (warn)
OUTCOMES = ("pass", "fail", "skip", "warn")

DriverFactory = Callable[[], Any]  # () -> d3d12wl.messages.driver.Driver


@dataclass(frozen=True)
class CheckResult:
    name: str
    section: str
    outcome: str  # one of OUTCOMES
    detail: str = ""
    sentence: str = ""  # the spec sentence the check decides

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"


#: the most bytes of what a driver writes to its process's standard output and error that are kept, per process
DRIVER_OUTPUT_KEPT = 4096


@dataclass(frozen=True)
class DriverOutput:
    """What a driver wrote to the standard output and error of one isolated process (``process``: the check it
    ran, or the preflight that loaded it), kept apart from d3d12wl's own output: ``size`` bytes in all, of which
    ``head`` holds the first :data:`DRIVER_OUTPUT_KEPT`."""

    process: str
    size: int
    head: bytes

    def lines(self, most: int = 10, width: int = 200) -> list[str]:
        """The head as at most ``most`` lines of at most ``width`` characters (what UTF-8 cannot decode escaped), and
        a last line saying what was left out."""
        text = self.head.decode("utf-8", "backslashreplace")
        lines = text.splitlines() or [""]
        shown = [line if len(line) <= width else line[:width] + f"... ({len(line) - width:,} more characters)"
                 for line in lines[:most]]
        left = self.size - len(self.head)
        if len(lines) > most or left > 0:
            shown.append(f"... ({self.size:,} bytes in all)")
        return shown


@dataclass(frozen=True)
class ConformanceReport:
    results: tuple[CheckResult, ...]
    internal_errors: tuple[str, ...] = ()  # the harness's own errors (``run_conformance(internal_errors=...)``)
    #: what the driver wrote to standard output and error, per isolated process that wrote any (kept apart)
    driver_output: tuple[DriverOutput, ...] = ()

    @property
    def passed(self) -> bool:
        """No check failed (a warning or a skip is not a failure)."""
        return all(r.outcome != "fail" for r in self.results)

    def failed(self) -> list[str]:
        return [r.name for r in self.results if r.outcome == "fail"]

    def outcomes(self, outcome: str) -> list[str]:
        """The names of the checks with ``outcome``."""
        return [r.name for r in self.results if r.outcome == outcome]

    def __getitem__(self, name: str) -> CheckResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)


@dataclass(frozen=True)
class Fault:
    """A driver fault: at ``site`` (the DDI entry point, the key one failure is counted by), shown as ``where`` (the
    call with its context), ``what`` happened (``raised ValueError: ...``, ``crashed the check process (SIGSEGV)``,
    ``did not return within 1 s``); ``hang`` marks a call that did not return."""

    site: str
    where: str
    what: str
    hang: bool = False

    def describe(self) -> str:
        return f"the driver {self.what} in {self.where}"


class DriverFault(Exception):
    """Raised through a check when the driver faulted (see :class:`Fault`)."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.describe())
        self.fault = fault


class HarnessError(Exception):
    """An error of the suite itself (not of the driver): the report carries it as an internal error."""


@dataclass(frozen=True)
class Check:
    """One check: its name, the spec section and sentence it decides, and the function that decides it.

    ``decide(factory) -> (passed, detail)``.  ``advisory``: the sentence is a "should"; not followed is ``warn``.
    ``needs_feature``: skipped when the driver does not offer the feature (False: decidable on any driver).
    ``owns``: the fault sites whose faults this check reports (a fault elsewhere is reported by the first check, in
    order, that met it)."""

    name: str
    section: str
    sentence: str
    decide: Callable[[DriverFactory], tuple[bool, str]]
    advisory: bool = False
    needs_feature: bool = True
    owns: tuple[str, ...] = ()

    @property
    def decides(self) -> str:
        """What the check decides, in one paragraph: its decide function's docstring (the one place it is said)."""
        doc = inspect.getdoc(self.decide) or ""
        return " ".join(doc.split("\n\n")[0].split())

    def result(self, outcome: str, detail: str = "") -> CheckResult:
        return CheckResult(self.name, self.section, outcome, detail, self.sentence)

    def verdict(self, passed: bool, detail: str) -> CheckResult:
        return self.result("pass" if passed else ("warn" if self.advisory else "fail"), detail)
