"""The package's own exception hierarchy.

Every error a user can see is a ``D3D12WLError``.  Each carries *where* it happened
(a member path, a VA, an offset, a record index) and, for spec violations, the rule.
No bare IndexError, KeyError or struct.error escapes to a user (design.md, "Output").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


class D3D12WLError(Exception):
    """Base of every error raised by d3d12wl.

    ``where`` names the place (``"program_command_signatures.PCS.pArgumentDescs[1].Source"``,
    ``"VA 0x10000+8"``, ``"primary record 3"``); ``rule`` names the spec rule or section
    (``"rule 25(e)"``, ``"_FIXED_DISPATCH"``) when the error is a spec violation.
    """

    def __init__(self, message: str, *, where: str | None = None, rule: str | None = None) -> None:
        self.message = message
        self.where = where
        self.rule = rule
        parts = []
        if where:
            parts.append(where)
        if rule:
            parts.append(f"[{rule}]")
        prefix = " ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ABIError(D3D12WLError):
    """The compiled headers do not provide a type, field, enum or constant asked for,
    or an ABI check found a disagreement."""


class DescriptionError(D3D12WLError):
    """A JSON description (objects or capture) does not fit the schema; ``where`` is the member path."""


class LayoutError(D3D12WLError):
    """A record layout cannot be derived or a stride is too small for it."""


class ParseError(D3D12WLError):
    """Bytes could not be parsed: short or truncated buffer, bad value.  ``where`` names record and field."""


class PackError(D3D12WLError):
    """Values could not be packed into records (wrong shape, out-of-range value, missing column)."""


class MemoryAccessError(D3D12WLError):
    """A read or write of the simulated GPU virtual address space was unmapped, out of bounds or misaligned."""

    def __init__(self, message: str, *, va: int, size: int, where: str | None = None, rule: str | None = None) -> None:
        self.va = va
        self.size = size
        super().__init__(message, where=where or f"VA 0x{va:x} (+{size} bytes)", rule=rule)


class CaptureError(D3D12WLError):
    """A capture file is malformed; ``where`` is the path of what is wrong."""


class ExecutionError(D3D12WLError):
    """The executor could not run a call at all (as opposed to findings, which it reports in the Trace)."""


class ValidatorSpecError(D3D12WLError):
    """A ``--validators`` spec (``module:attr`` or ``path/to/file.py:attr``) names no module, file or attribute, or
    names something that is not a ValidationRunner, a Validator, an iterable of Validators or a zero-argument
    factory of one of those; ``where`` is the spec."""


class UsageError(D3D12WLError):
    """A command line that cannot be parsed: an unknown command or flag, a flag's value that is not one it takes,
    a required one missing; ``where`` is the flag or argument (``--format``, ``COMMAND``)."""


def closest(word: object, candidates: Iterable[str], synonyms: Mapping[str, str] | None = None) -> str | None:
    """The candidate a misspelt ``word`` most likely meant: first what ``synonyms`` says it means (its other
    names, compared without case: the D3D12 meaning first, ``CBV`` -> ``CONSTANT_BUFFER_VIEW``), else the closest
    by difflib's ratio, compared without case (``draw`` finds ``DRAW``); None when none is close or ``word`` is not
    a string."""
    if not isinstance(word, str) or not word:
        return None
    by_upper: dict[str, str] = {}
    for c in candidates:
        by_upper.setdefault(c.upper(), c)
    if synonyms:
        meant = {k.upper(): v for k, v in synonyms.items()}.get(word.upper())
        if meant is not None and meant.upper() in by_upper:
            return by_upper[meant.upper()]
    close = difflib.get_close_matches(word.upper(), by_upper, n=1, cutoff=0.6)
    return by_upper[close[0]] if close else None


def did_you_mean(word: object, candidates: Iterable[str], synonyms: Mapping[str, str] | None = None) -> str:
    """`` (did you mean 'NAME'?)`` naming :func:`closest`, or ``""`` when there is none."""
    found = closest(word, candidates, synonyms)
    return f" (did you mean {found!r}?)" if found is not None else ""
