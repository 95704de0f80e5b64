"""Compile foreign C/C++ headers for the Windows x64 ABI and read back what they declare and its numbers.

Two clang runs, both ``-target x86_64-pc-windows-msvc -ffreestanding`` (clang's own ``stdint.h`` and
``stddef.h``, never glibc's, whose types are the Linux ABI's):

1. ``-fsyntax-only -Xclang -ast-dump=json``: the declarations (:mod:`d3d12wl.headercheck.clang_ast`);
2. ``-S``: a translation unit that includes the headers and then initializes one ``long long`` array with a
   probe expression per line (``sizeof``, ``_Alignof``, ``__builtin_offsetof``, member ``sizeof``, enumerator
   and constant values).  The numbers are read off the emitted assembly, so they are the Windows target's
   own, with nothing run.  A probe the compiler rejects is dropped and named, never guessed.

Includes, in order: the user's ``--include`` directories; d3d12wl's Windows-target stubs (``windows.h``,
``string.h``, ...; see ``winstubs/README.md``); ``directx-headers-dev``'s ``directx``, ``wsl/stubs`` and
``wsl`` directories when installed (also reachable as ``<directx/...>`` and ``<wsl/...>``); and d3d12wl's own
headers last, so an engine header may ``#include "d3d12wl_work_lists.h"``.  With ``directx-headers-dev``
installed, ``<wsl/winadapter.h>`` is included before the headers (``prelude="auto"``), as DirectX-Headers
require off Windows.
"""

from __future__ import annotations

import functools
import json
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO

from d3d12wl import inputs
from d3d12wl.abi.check import WINDOWS_TARGET, find_clang, find_d3d12_headers
from d3d12wl.abi.tools import AST_BYTES_PER_SOURCE_BYTE, FLAGS, ToolRun, current_limits, run_tool, spawn
from d3d12wl.errors import ABIError
from d3d12wl.headercheck import clang_ast as header_ast
from d3d12wl.headercheck import sources

STUBS = Path(str(resources.files("d3d12wl.headercheck") / "winstubs"))
LANGS = {"c": ("c", "-std=c11"), "c++": ("c++", "-std=c++17")}
PROBE_ARRAY = "d3d12wl_probe"  # prefix of the probe constants
_MAX_DIAGNOSTICS = 30


@dataclass(frozen=True)
class HeaderOptions:
    """What to compile: ``headers`` (paths), extra include directories, ``NAME[=VALUE]`` defines, the language,
    and the prelude: ``'auto'`` (``<wsl/winadapter.h>`` when installed), ``'none'``, or a header path."""

    headers: tuple[Path, ...]
    includes: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    lang: str = "c++"
    prelude: str = "auto"

    def __post_init__(self) -> None:
        if not self.headers:
            raise ABIError("no header to check", where="--header")
        if self.lang not in LANGS:
            raise ABIError(f"unknown language {self.lang!r}; use one of {', '.join(LANGS)}", where="--header-lang")
        for h in self.headers:
            require_includable(h)
        if self.prelude not in ("auto", "none"):  # (a path: checked with the others, before any tool is looked for)
            require_includable(self.prelude, where=f"--prelude {self.prelude}")
        for d in self.includes:
            if inputs.path_kind(d) != "a directory":
                raise ABIError("no such directory", where=str(d))
        for define in self.defines:
            if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", define):
                raise ABIError(f"bad define {define!r}; use NAME or NAME=VALUE", where="--define")

    @property
    def cplusplus(self) -> bool:
        return self.lang == "c++"


def require_includable(path: Path | str, *, where: str | None = None) -> None:
    """A file the compiler is told to ``#include``: a regular file, whose path ``#include "..."`` can spell
    (``where``: what an error names, default the path)."""
    where = str(path) if where is None else where
    kind = inputs.path_kind(path, where=where)
    if kind != "a regular file":
        raise ABIError("no such file" if kind is None else f"is {kind}, not a file", where=where)
    if any(c in str(Path(path).resolve()) for c in '"\n'):
        raise ABIError("a path with a double quote or a line break cannot be #included; rename it", where=where)


@dataclass
class CompiledHeaders:
    """The declarations of the headers, and how they were compiled."""

    options: HeaderOptions
    decls: header_ast.HeaderDecls
    compiler: str  # clang's version line
    command: list[str]  # the arguments every run used (without the source file)
    source: str  # the translation unit's text without probes
    workdir: Path
    main_files: frozenset[str] = field(default_factory=frozenset)
    owned_workdir: tempfile.TemporaryDirectory[str] | None = None  # removed with this object when we made it

    def declared_by_headers(self, name: str) -> bool:
        """Whether ``name`` is declared in one of the checked headers themselves (not in what they include)."""
        return self.decls.declared_in.get(name) in self.main_files



def write_headers(directory: Path, texts: dict[str, str]) -> list[Path]:
    """Header texts (``abi.header_texts()`` or altered copies) as a user has them on disk: each file once-only
    and including the fixed-width types it uses (the embedded texts are written for cffi's cdef, which has no
    #include)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts.items():
        path = directory / name
        path.write_text("#pragma once\n#include <stdint.h>\n#include <stddef.h>\n" + text)
        paths.append(path)
    return paths


def _d3d12wl_headers(workdir: Path) -> Path:
    """d3d12wl's own headers, written out (an installed package has them embedded, not on disk)."""
    from d3d12wl import abi

    out = workdir / "d3d12wl-headers"
    write_headers(out, abi.header_texts())
    return out


def _include_dirs(options: HeaderOptions, workdir: Path) -> list[Path]:
    """The include directories of every clang run, in clang's search order (the last is ``-idirafter``)."""
    dirs = [Path(d).resolve() for d in options.includes]
    dirs.append(STUBS)
    root = find_d3d12_headers()
    if root is not None:
        # <directx/...> and <wsl/...> without the rest of /usr/include (glibc's headers are the Linux ABI)
        links = workdir / "dx-root"
        links.mkdir(exist_ok=True)
        for sub in ("directx", "wsl", "dxguids"):
            if inputs.path_kind(root / sub) == "a directory" and not (links / sub).exists():
                (links / sub).symlink_to(root / sub)
        dirs += [root / "directx", root / "wsl" / "stubs", root / "wsl", links]
    dirs.append(_d3d12wl_headers(workdir))
    return dirs


def _command(options: HeaderOptions, dirs: list[Path], clang: str) -> list[str]:
    lang, std = LANGS[options.lang]
    cmd = [clang, "-target", WINDOWS_TARGET, "-ffreestanding", "-fgnuc-version=4.2.1", "-x", lang, std,
           "-ferror-limit=0", "-fno-crash-diagnostics", "-Wno-pragma-once-outside-header",
           "-Wno-microsoft-anon-tag"]
    cmd += [f"-D{d}" for d in options.defines]
    cmd += [f"-I{d}" for d in dirs[:-1]]
    cmd += ["-idirafter", str(dirs[-1])]
    return cmd


def _prelude(options: HeaderOptions) -> str:
    if options.prelude == "none":
        return ""
    if options.prelude == "auto":
        return "#include <wsl/winadapter.h>\n" if find_d3d12_headers() is not None else ""
    return f'#include "{Path(options.prelude).resolve()}"\n'


def _source(options: HeaderOptions) -> str:
    lines = ["/* d3d12wl abi check --header: the headers under test */", "#include <stddef.h>",
             "#include <stdint.h>", _prelude(options).rstrip("\n")]
    lines += [f'#include "{Path(h).resolve()}"' for h in options.headers]
    return "\n".join(line for line in lines if line) + "\n"


@functools.cache
def _version(clang: str) -> list[str]:
    """clang's version lines, asked once per process."""
    return run_tool([clang, "--version"], Path(tempfile.gettempdir())).stdout.splitlines()


def _diagnostics(stderr: str, returncode: int = 1) -> str:
    lines = [line for line in stderr.splitlines() if ": error:" in line or ": fatal error:" in line]
    more = f"\n  ... and {len(lines) - _MAX_DIAGNOSTICS} more" if len(lines) > _MAX_DIAGNOSTICS else ""
    if lines:
        return "\n  ".join(lines[:_MAX_DIAGNOSTICS]) + more
    if returncode < 0 or returncode > 128:
        signal = -returncode if returncode < 0 else returncode - 128
        return f"clang stopped on signal {signal} (a crash: a header nested too deeply for it?) {stderr.strip()[:2000]}"
    return stderr.strip()[:4000] or f"clang exited with {returncode} and no message"


_CHUNK = 1 << 22
_INDENT_RE = re.compile(rb"\n[ ]+")


def _read_by(stdout: IO[bytes], run: ToolRun) -> bytes:
    """The next chunk of a tool's output, waiting no longer than the run's wall-clock limit (a tool that neither
    writes nor uses CPU, as clang waiting on a FIFO, is stopped at it)."""
    remaining = run.deadline - time.monotonic()
    if remaining <= 0 or not select.select([stdout], [], [], remaining)[0]:
        run.kill()
        raise run.wall_clock_error()
    return stdout.read1(_CHUNK) if hasattr(stdout, "read1") else stdout.read(_CHUNK)


def _ast_dump(cmd: list[str], cwd: Path, where: str) -> subprocess.CompletedProcess[str]:
    """Run clang's JSON AST dump under the tool limits, dropping its indentation as it streams: clang indents two
    spaces per level, so a deeply nested initializer (``1 + 1 + ...``) prints quadratically many spaces
    (gigabytes for a few thousand terms).  Past the limits' ``ast_bytes`` of JSON, clang is stopped and the check
    fails by name (:class:`ABIError`, naming ``where`` and the flag that raises it)."""
    limit = current_limits().ast_bytes
    with tempfile.TemporaryFile() as err:
        run = spawn(cmd, cwd, stdout=subprocess.PIPE, stderr=err, where=where)
        stdout = run.proc.stdout
        assert stdout is not None
        parts: list[bytes] = []
        size, carry = 0, b""
        try:
            while chunk := _read_by(stdout, run):
                text = _INDENT_RE.sub(b"\n", carry + chunk)
                cut = text.rfind(b"\n")  # keep the last (maybe partly indented) line for the next chunk
                carry, text = (text[cut:], text[:cut]) if cut >= 0 else (text, b"")
                parts.append(text)
                size += len(text)
                if size > limit:
                    raise ABIError(f"clang's JSON AST of the headers exceeds {limit >> 20} MiB "
                                   f"({AST_BYTES_PER_SOURCE_BYTE} bytes for each of the "
                                   f"{current_limits().source_bytes:,} bytes of source allowed); raise the bound "
                                   f"with {FLAGS['source_bytes']} N", where=where)
            parts.append(_INDENT_RE.sub(b"\n", carry))
            returncode = run.finish()
        finally:
            run.kill()
            stdout.close()
        err.seek(0)
        stderr = err.read(64 << 20).decode("utf-8", "replace")
    return subprocess.CompletedProcess(cmd, returncode, b"".join(parts).decode("utf-8", "replace"), stderr)


def compile_headers(options: HeaderOptions, workdir: Path | None = None, *, clang: str | None = None
                    ) -> CompiledHeaders:
    """Compile the headers for the Windows x64 target and read their declarations.

    ``workdir`` holds the intermediate files (the translation units, the assembly); without one, a temporary
    directory lives as long as the result.  Raises :class:`ABIError` when clang is missing or the headers do not
    compile (with clang's errors)."""
    clang = clang or find_clang()
    if clang is None:
        raise ABIError("clang not found (apt-get install clang); the header check compiles for "
                       f"{WINDOWS_TARGET} with it", where="--header")
    owned = tempfile.TemporaryDirectory(prefix="d3d12wl-header-") if workdir is None else None
    work = Path(owned.name if owned is not None else str(workdir))
    work.mkdir(parents=True, exist_ok=True)
    dirs = _include_dirs(options, work)
    cmd = _command(options, dirs, clang)
    source = _source(options)
    tu = work / "header_check.cpp"
    tu.write_text(source)
    where = ", ".join(str(h) for h in options.headers)
    sources.walk([tu], dirs, current_limits(), what="headers")
    proc = _ast_dump([*cmd, "-fsyntax-only", "-Xclang", "-ast-dump=json", tu.name], work, where)
    if proc.returncode != 0:
        hint = ""
        if "file not found" in proc.stderr:
            hint = ("\n  (the headers are compiled for Windows with no system headers: d3d12wl's stubs stand in for "
                    "windows.h basics and the C library, directx-headers-dev provides <d3d12.h>"
                    f"{'' if find_d3d12_headers() else ' (not installed here: apt-get install directx-headers-dev)'}"
                    "; anything else, such as the C++ standard library or the WDK, needs --include DIR)")
        raise ABIError(f"the headers do not compile for {WINDOWS_TARGET} ({options.lang}):\n  "
                       f"{_diagnostics(proc.stderr, proc.returncode)}{hint}",
                       where=", ".join(str(h) for h in options.headers))
    decls = _read_deep(proc.stdout, options)
    version = _version(clang)
    mains = frozenset(str(Path(h).resolve()) for h in options.headers) | frozenset(str(h) for h in options.headers)
    return CompiledHeaders(options, decls, version[0] if version else clang, cmd, source, work, mains, owned)


#: how deep clang's JSON AST may nest (a long `a + b + ...` initializer nests one level per operator)
AST_DEPTH_LIMIT = 100_000
_DEEP_STACK = 512 << 20  # bytes of stack for the thread that reads it


def _read_deep(text: str, options: HeaderOptions) -> header_ast.HeaderDecls:
    """Parse and read the JSON AST in a thread with a deep stack and recursion limit: json and the reader recurse
    once per level, and a header's initializer can nest thousands deep.  Beyond ``AST_DEPTH_LIMIT`` it is an
    :class:`ABIError`, never a crash."""
    result: list[header_ast.HeaderDecls] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            with inputs.paused_cycle_collection():  # (millions of nodes and no cycles: 2-4x faster read)
                result.append(header_ast.read(json.loads(text), cplusplus=options.cplusplus))
        except (RecursionError, json.JSONDecodeError, MemoryError) as exc:
            failure.append(exc)

    limit = sys.getrecursionlimit()
    old_stack = threading.stack_size(_DEEP_STACK)
    sys.setrecursionlimit(max(limit, AST_DEPTH_LIMIT))
    try:
        thread = threading.Thread(target=work, name="d3d12wl-ast")
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(old_stack)
    if failure:
        exc = failure[0]
        why = (f"nests deeper than {AST_DEPTH_LIMIT} levels" if isinstance(exc, RecursionError)
               else "is too large to hold" if isinstance(exc, MemoryError) else f"could not be read: {exc}")
        raise ABIError(f"clang's JSON AST of the headers {why}", where=", ".join(str(h) for h in options.headers))
    return result[0]


# --- probes -----------------------------------------------------------------------------------------------


@dataclass
class Probes:
    """Named integer expressions to evaluate on the Windows target; ``guards`` wraps one in ``#ifdef``."""

    exprs: dict[str, str] = field(default_factory=dict)
    guards: dict[str, str] = field(default_factory=dict)  # key -> macro that must be defined

    def add(self, key: str, expr: str, *, ifdef: str | None = None) -> None:
        self.exprs[key] = expr
        if ifdef is not None:
            self.guards[key] = ifdef


@dataclass
class ProbeResult:
    values: dict[str, int]
    rejected: dict[str, str]  # key -> the compiler's reason
    undefined: set[str]  # keys whose #ifdef macro is not defined


#: an enum with no fixed underlying type, declared in every probe translation unit, as d3d12wl declares all of its
#: enums: its signedness is the one the Windows target gives such an enum (int: signed)
PLAIN_ENUM = "enum d3d12wl_probe_plain_enum"
#: C++: whether a type is signed, an enum by its underlying type (__is_signed alone is false for every enum)
_SIGNED_HELPER = (
    "template <class T, bool = __is_enum(T)> struct d3d12wl_probe_signed { static constexpr bool value = "
    "__is_signed(T); };",
    "template <class T> struct d3d12wl_probe_signed<T, true> { static constexpr bool value = "
    "__is_signed(__underlying_type(T)); };")


def signed_probe(type_text: str, cplusplus: bool) -> str:
    """A probe expression: 1 when the integer or enum type ``type_text`` is signed on the target, else 0 (C: the
    type's -1 compares below its 0; C++: the type traits, an enum through its underlying type)."""
    if cplusplus:
        return f"d3d12wl_probe_signed<{type_text}>::value"
    return f"(({type_text})-1 < ({type_text})0)"


#: each probe's variable in the assembly, and the one value it holds
_VALUE_RE = re.compile(rf"^{PROBE_ARRAY}(\d+):[^\n]*\n\s*\.(quad|zero)\s+(\S+)", re.M)
#: names the probe lines use, freed from any macro a header may have given them
_PROBE_WORDS = ("long", "const", "extern", "constexpr", "sizeof", "alignof", "_Alignof", "__builtin_offsetof")


def _probe_source(compiled: CompiledHeaders, keys: Sequence[str], probes: Probes) -> tuple[str, dict[int, str]]:
    """The translation unit: the headers, then one constant per probe (``d3d12wl_probe<i>``, ``constexpr`` in
    C++ so that a probe that is not a constant is an error on its own line, not a silent run-time initializer),
    each inside ``#ifdef`` when guarded; returns the text and which key each line number holds."""
    lines = compiled.source.rstrip("\n").split("\n")
    lines += [f"#undef {word}" for word in _PROBE_WORDS]
    lines.append(f"{PLAIN_ENUM} {{ d3d12wl_probe_plain_enum_member = 1 }};")
    if compiled.options.cplusplus:
        lines += _SIGNED_HELPER
    decl = 'extern "C" constexpr long long' if compiled.options.cplusplus else "const long long"
    at: dict[int, str] = {}
    for i, key in enumerate(probes.exprs):
        if key not in keys:
            continue
        guard = probes.guards.get(key)
        if guard:
            lines.append(f"#ifdef {guard}")
        at[len(lines) + 1] = key
        lines.append(f"{decl} {PROBE_ARRAY}{i} = (long long)({probes.exprs[key]});")
        if guard:
            lines.append("#endif")
    return "\n".join(lines) + "\n", at


def run_probes(compiled: CompiledHeaders, probes: Probes) -> ProbeResult:
    """Evaluate every probe for the Windows target.  A probe clang rejects (or that is an address, not an integer)
    is named in ``rejected`` with the reason; one whose ``#ifdef`` macro is not defined is in ``undefined``."""
    keys = list(probes.exprs)
    rejected: dict[str, str] = {}
    tu = compiled.workdir / "header_probe.cpp"
    asm = compiled.workdir / "header_probe.s"
    for _attempt in range(4):
        text, at = _probe_source(compiled, keys, probes)
        tu.write_text(text)
        proc = run_tool([*compiled.command, "-S", "-o", asm.name, tu.name], compiled.workdir,
                        where=", ".join(str(h) for h in compiled.options.headers))
        if proc.returncode == 0:
            return _read_values(asm.read_text(), probes, keys, rejected)
        lost = False
        for m in re.finditer(rf"^{re.escape(tu.name)}:(\d+):\d+: (?:fatal )?error: (.*)$", proc.stderr, re.M):
            key = at.get(int(m.group(1)))
            if key is not None and key not in rejected:
                rejected[key] = m.group(2)
                lost = True
        if not lost:
            raise ABIError("the probe constants appended after the headers do not compile (does a header #define "
                           f"a keyword?):\n  {_diagnostics(proc.stderr)}", where=str(tu))
        keys = [k for k in keys if k not in rejected]
    raise ABIError("the probes still do not compile after dropping the rejected ones", where=str(tu))


def _read_values(asm: str, probes: Probes, keys: list[str], rejected: dict[str, str]) -> ProbeResult:
    index = {key: i for i, key in enumerate(probes.exprs)}
    found: dict[int, str] = {}
    for m in _VALUE_RE.finditer(asm):
        found[int(m.group(1))] = "0" if m.group(2) == "zero" else m.group(3)
    values: dict[str, int] = {}
    undefined: set[str] = set()
    out_rejected = dict(rejected)
    for key in keys:
        word = found.get(index[key])
        if word is None:
            if key not in probes.guards:
                raise ABIError(f"no {PROBE_ARRAY}{index[key]} ({key}) in clang's assembly output",
                               where="header_probe.s")
            undefined.add(key)
        elif re.fullmatch(r"-?\d+", word):
            values[key] = int(word)
        else:
            out_rejected[key] = f"not an integer constant (the address {word})"
    return ProbeResult(values, out_rejected, undefined)
