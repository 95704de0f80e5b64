"""The sources a header or HLSL check hands a compiler, walked before the compiler runs.

How deep their ``#include`` directives nest and how many bytes they total are bounded
(:attr:`~d3d12wl.abi.tools.ToolLimits.include_depth`, :attr:`~d3d12wl.abi.tools.ToolLimits.source_bytes`), so a
file that includes itself without a guard (which glslc follows without end), or gigabytes of headers, is refused
by name (exit 2) instead of being left to the compiler.

The walk is textual, as a compiler's preprocessor would start it: each ``#include "NAME"`` is looked up beside the
file that includes it and then in the include directories, each ``#include <NAME>`` in the include directories;
what is found nowhere is skipped (the compiler says so itself); an include written with a macro is not followed.
A file with ``#pragma once``, or whose first directives are an include guard (``#ifndef G`` / ``#define G``), is
entered once: including it again adds nothing.  Conditional directives are not evaluated, so the depth found is
the deepest the compiler could reach.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from d3d12wl import inputs
from d3d12wl.abi.tools import FLAGS, ToolLimits
from d3d12wl.errors import ABIError

__all__ = ["walk"]

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)
_ONCE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+once\b", re.M)
_SKIP = rb"(?:\s+|//[^\n]*|/\*.*?\*/)*"
_GUARD = re.compile(rb"\A" + _SKIP + rb"#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!\s*defined\s*\(?\s*(\w+)\s*\)?)[^\n]*\n"
                    + _SKIP + rb"#[ \t]*define[ \t]+(\w+)", re.S)


class _File:
    __slots__ = ("guarded", "includes", "path")

    def __init__(self, path: Path, text: bytes) -> None:
        self.path = path
        guard = _GUARD.match(text)
        self.guarded = bool(_ONCE.search(text)) or (guard is not None and (guard.group(1) or guard.group(2))
                                                     == guard.group(3))
        self.includes = [(m.group(1) is not None, (m.group(1) or m.group(2)).decode("utf-8", "replace"))
                         for m in _INCLUDE.finditer(text)]


class _Walk:
    def __init__(self, dirs: Sequence[Path], limits: ToolLimits, what: str) -> None:
        self.dirs, self.limits, self.what = list(dirs), limits, what
        self.files: dict[Path, _File] = {}
        self.total = 0

    def file(self, path: Path) -> _File:
        key = path.resolve()
        found = self.files.get(key)
        if found is None:
            room = self.limits.source_bytes - self.total
            try:
                if path.stat().st_size > room:
                    raise self._too_big(path)
                text = inputs.read_bytes(path, limit=room, what="source file")
            except OSError as exc:
                raise ABIError(f"cannot read it: {exc.strerror or exc}", where=str(path)) from None
            except inputs.InputError as exc:  # (it grew while being read)
                raise ABIError(exc.message, where=exc.where) from None
            self.total += len(text)
            found = self.files[key] = _File(path, text)
        return found

    def _too_big(self, path: Path) -> ABIError:
        return ABIError(f"the {self.what} and what they include total more than {self.limits.source_bytes:,} bytes "
                        f"(reached at {str(path)!r}); raise the bound with {FLAGS['source_bytes']} N",
                        where=str(path))

    def resolve(self, quoted: bool, name: str, beside: Path) -> Path | None:
        """The file an include names, found as the compiler would; one that is not a regular file (a FIFO, which
        a compiler would wait on for ever, a device such as /dev/zero, which it would read without end) is an
        :class:`ABIError` naming it."""
        candidates = [Path(name)] if Path(name).is_absolute() else \
            ([beside.parent / name] if quoted else []) + [d / name for d in self.dirs]
        for candidate in candidates:
            kind = inputs.path_kind(candidate, where=str(beside))
            if kind == "a regular file":
                return candidate
            if kind is not None and kind != "a directory":  # (a directory: the compiler looks further, as here)
                raise ABIError(f"includes {name!r}, which is {kind}, not a source file: a compiler would wait on "
                               "it or read it without end", where=str(beside))
        return None

    def run(self, roots: Sequence[Path]) -> None:
        """Depth first over every include chain; a file entered once (guarded) and already seen adds nothing, an
        unguarded file met again inside its own chain never ends."""
        depth_limit = self.limits.include_depth
        done: set[Path] = set()  # guarded files already walked
        for root in roots:
            stack: list[tuple[_File, int]] = [(self.file(root), 0)]  # (file, index of its next include)
            chain = [stack[0][0].path.resolve()]
            while stack:
                node, i = stack[-1]
                if i == len(node.includes):
                    stack.pop()
                    chain.pop()
                    if node.guarded:
                        done.add(node.path.resolve())
                    continue
                stack[-1] = (node, i + 1)
                quoted, name = node.includes[i]
                target = self.resolve(quoted, name, node.path)
                if target is None:
                    continue
                key = target.resolve()
                child = self.file(target)
                if child.guarded and (key in done or key in chain):
                    continue
                if key in chain:
                    loop = " -> ".join(p.name for p in [*chain[chain.index(key):], key])
                    raise ABIError(f"{target.name} includes itself ({loop}) with no include guard or #pragma once "
                                   "on the way: a compiler would include it without end", where=str(target))
                if len(chain) >= depth_limit:
                    shown = " -> ".join(p.name for p in [*chain[:3], Path("..."), *chain[-3:], key]) \
                        if len(chain) > 6 else " -> ".join(p.name for p in [*chain, key])
                    raise ABIError(f"#include directives nest deeper than {depth_limit} levels ({shown}); raise the "
                                   f"bound with {FLAGS['include_depth']} N", where=str(target))
                stack.append((child, 0))
                chain.append(key)


def walk(roots: Sequence[Path], dirs: Sequence[Path], limits: ToolLimits, *, what: str = "sources") -> int:
    """Walk the includes of ``roots`` (the files a compiler is given) through ``dirs`` (its include directories,
    in its search order); returns the bytes of every file reached.  An include chain deeper than
    ``limits.include_depth``, an unguarded file that includes itself, or more than ``limits.source_bytes`` bytes in
    all is an :class:`ABIError` naming the file and the flag that raises the bound."""
    w = _Walk(dirs, limits, what)
    w.run(roots)
    return w.total
