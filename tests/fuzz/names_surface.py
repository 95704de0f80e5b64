"""The name surface of the fuzz engine: ``Name``s that trip code generators, through every generator and compiler.

A case (:func:`case`, drawn from a seed) is a bundled description whose argument descs carry ``Name``s drawn from
what a generator can collide with: the keywords and type names of C, C++ and HLSL, the macros the compilers
predefine (read from ``gcc -dM -E`` and ``g++ -dM -E`` themselves: ``linux``, ``unix`` in C's GNU modes), the types,
macros, constants and enum members the package's headers declare (``D3D12_DRAW_ARGUMENTS``, ``UINT``), the names
the generated code itself uses (its struct names, ``D3D12WL_STATIC_ASSERT``), the standard library's (``offsetof``,
``errno``, ``EOF``), HLSL's intrinsics and vector forms, random identifiers and names at the length limit.

:func:`exercise` loads the description: a name the checks refuse (``model.fieldnames``) is the clean ending
``error``.  A name they accept must then work everywhere: the C of ``codegen --lang c`` compiles with gcc in its
default GNU mode and as ``-std=c11``, with clang for the Windows target, and with g++ (C++17, the header used from
C++); the HLSL of ``--lang hlsl`` with glslc (shaderc's HLSL front end) in a compute shader that uses every struct;
the RenderDoc format, the construct schema, the ctypes Structure and the numpy dtype of every record are made.  A
compiler that refuses generated code, or a generator that raises anything but a clean error, is a finding
(``crash``, the compiler's first error line as why).  A compiler that is not installed is left out
(:func:`compilers` says which run).

Issue 42's classes 7, 8 and 9 (``linux``/``unix`` in GNU C, ``globallycoherent`` in HLSL, a member named as a type
the header declares, used from C++) are what this surface finds; their fixes are branch i38-knows's.
"""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
import string
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import d3d12wl
from d3d12wl import abi
from d3d12wl.abi import headers
from d3d12wl.errors import D3D12WLError
from d3d12wl.model import description, fieldnames, reserved_names
from d3d12wl.records import codegen, ctypes_records, dtypes, layout, renderdoc, schemas

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
#: the descriptions whose argument descs get names: (file, collection, object)
TARGETS = (("culling_named.json", "program_command_signatures", "PCS"),
           ("execute_indirect.json", "command_signatures", "RootConstantsAndVertexBuffers"),
           ("tier2_chain.json", "program_command_signatures", None))
#: seconds one compile may take
COMPILE_TIMEOUT = 60

_STDLIB = """offsetof sizeof static_assert alignof bool true false NULL assert errno stdin stdout stderr EOF FILE
BUFSIZ CHAR_BIT INT_MAX UINT32_MAX SIZE_MAX size_t ptrdiff_t wchar_t int8_t uint8_t int16_t uint16_t uintptr_t
intptr_t max_align_t printf malloc free memcpy main exit abort va_list va_arg setjmp longjmp complex imaginary
noreturn alignas thread_local I errno_t nullptr_t INFINITY NAN HUGE_VAL M_PI unreachable"""
_HLSL_MORE = """globallycoherent groupshared precise row_major column_major snorm unorm uint2 float4x4 half4 min16uint2
SV_Position SV_Target SV_DispatchThreadID asuint asfloat mul dot lerp saturate clip abs all any fmod frac lit
Texture2D SamplerState RWTexture2D RaytracingAccelerationStructure RayDesc TriangleStream NodeOutput
DispatchNodeInputRecord RWDispatchNodeInputRecord ThreadNodeInputRecord GroupNodeInputRecords EmptyNodeInput
FeedbackTexture2D RasterizerOrderedBuffer ConstantBuffer vector matrix sampler1D sampler2D texture2D
numthreads shader payload inline linear nointerpolation noperspective centroid sample triangle line point
lineadj triangleadj in out inout uniform export static volatile register packoffset cbuffer tbuffer
unsigned signed auto this interface class namespace template typename typedef union enum"""
_CPP_MORE = """final override import module co_await requires concept consteval constinit char8_t reflexpr
transaction_safe atomic_cancel synchronized and or not xor compl bitand bitor new delete operator std"""
_GENERATED = """D3D12WL_STATIC_ASSERT D3D12WL_PACK PCS_SecondaryRecord PCS_PrimaryRecord PCS_ProgramTableRecord
Opaque Transparent Shadow GRS PCS WLS SecondaryRecord PrimaryRecord MaterialSlot D3D12WL_H"""


@cache
def _predefined(compiler: str, lang: str) -> tuple[str, ...]:
    """The macros ``compiler`` predefines for ``lang`` (its own ``-dM -E``), without a leading underscore."""
    if shutil.which(compiler) is None:
        return ()
    done = subprocess.run([compiler, "-dM", "-E", "-x", lang, "/dev/null"], capture_output=True, text=True,
                          timeout=COMPILE_TIMEOUT, check=False)
    names = [line.split()[1].split("(")[0] for line in done.stdout.splitlines() if line.startswith("#define ")]
    return tuple(sorted({n for n in names if not n.startswith("_")}))


@cache
def pools() -> dict[str, tuple[str, ...]]:
    """The names a case draws from, by where they come from."""
    declared = [*abi.types(), *abi.constants(), *abi.enums()]
    members = [m for e in abi.enums() for m in abi.enum_members(e)]
    return {
        "keywords": tuple(sorted(reserved_names.C_KEYWORDS | reserved_names.CPP_KEYWORDS
                                 | reserved_names.HLSL_KEYWORDS | reserved_names.HLSL_TYPES)),
        "listed-macros": tuple(sorted(reserved_names.PREDEFINED_MACROS | reserved_names.GLSLANG_MACROS)),
        "c-macros": _predefined("gcc", "c"),
        "c++-macros": _predefined("g++", "c++"),
        "declared": tuple(sorted(set(declared))),
        "enum-members": tuple(sorted(set(members))),
        "stdlib": tuple(_STDLIB.split()),
        "hlsl": tuple(_HLSL_MORE.split()),
        "c++": tuple(_CPP_MORE.split()),
        "generated": tuple(_GENERATED.split()),
        "reserved-members": tuple(sorted(fieldnames.reserved_members())),
    }


def _random_identifier(rng: random.Random) -> str:
    first = rng.choice(string.ascii_letters)
    length = rng.choice((1, 2, 5, 12, 40, fieldnames.MAX_NAME - 1, fieldnames.MAX_NAME, fieldnames.MAX_NAME + 1))
    return first + "".join(rng.choice(string.ascii_letters + string.digits + "_") for _ in range(length - 1))


#: what a random identifier is now and then given, to look like what generated code or a header spells
_AFFIXES = (("D3D12_", ""), ("", "_t"), ("SV_", ""), ("GL_", ""), ("", "_MAX"), ("u", "4"), ("", "2x3"), ("PCS_", ""))


def draw_name(rng: random.Random, *, made_up: float = 0.25) -> str:
    """One name: a random identifier (``made_up`` of the time; now and then with a prefix or suffix that generated
    code, a header or a shading language uses), else one from a pool, now and then with a case change or a digit or
    underscore added."""
    if rng.random() < made_up:
        name = _random_identifier(rng)
        if rng.random() < 0.3:
            before, after = rng.choice(_AFFIXES)
            name = (before + name + after)[:fieldnames.MAX_NAME + 1]
        return name
    pool = [p for p in pools().values() if p]
    name = rng.choice(rng.choice(pool))
    twist = rng.random()
    if twist < 0.1:
        name = name.upper()
    elif twist < 0.2:
        name = name.capitalize()
    elif twist < 0.25:
        name += rng.choice(("_", "1", "x"))
    return name


def case(seed: int) -> tuple[str, dict[str, Any], list[str | None]]:
    """The description of ``seed`` (its file name, the document, the names given, None where none is)."""
    rng = random.Random(seed)
    file, collection, obj = rng.choice(TARGETS)
    doc = json.loads((EXAMPLES / file).read_text(encoding="utf-8"))
    signatures = doc[collection]
    names: list[str | None] = []
    made_up = rng.choice((0.25, 0.9))  # (half the cases mostly made-up names: most of the pools' are refused)
    for key in ([obj] if obj is not None else sorted(signatures)):
        for arg in signatures[key]["pArgumentDescs"]:
            arg.pop("Name", None)
            name = draw_name(rng, made_up=made_up) if rng.random() < 0.7 else None
            if name is not None:
                arg["Name"] = name
            names.append(name)
    return file, doc, names


@cache
def compilers() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(language, argv) of every compiler run on generated code that is installed here."""
    include = str(headers.path())
    out = []
    if shutil.which("gcc"):
        out.append(("c (gcc, GNU C)", ("gcc", "-fsyntax-only", "-x", "c", "-I", include)))
        out.append(("c (gcc -std=c11)", ("gcc", "-fsyntax-only", "-std=c11", "-x", "c", "-I", include)))
    if shutil.which("clang"):  # (the ABI's own truth: the Windows target)
        out.append(("c (clang -target x86_64-pc-windows-msvc)", ("clang", "-target", "x86_64-pc-windows-msvc",
                                                              "-ffreestanding", "-std=c11", "-fsyntax-only", "-x",
                                                              "c", "-I", include)))
    if shutil.which("g++"):
        out.append(("c++ (g++ -std=c++17)", ("g++", "-fsyntax-only", "-std=c++17", "-x", "c++", "-I", include)))
    if shutil.which("glslc"):
        out.append(("hlsl (glslc)", ("glslc", "-x", "hlsl", "-fshader-stage=compute", "-o", "/dev/null")))
    return tuple(out)


def _hlsl_shader(source: str, layouts: list[layout.RecordLayout]) -> str:
    """The generated HLSL in a compute shader that declares a buffer of every struct and reads every member (an
    unused struct would not be compiled)."""
    lines = [source, ""]
    reads = []
    for i, r in enumerate(layouts):
        lines.append(f"StructuredBuffer<{codegen.struct_name(r)}> b{i} : register(t{i});")
        for m in codegen.hlsl_members(r):
            ref = f"b{i}[0].{m.name}" + ("[0]" if m.count > 1 else "")
            reads.append(f"    sink[0] += (uint)({ref}{'.x' if m.hlsl_type.endswith(('2', '3', '4')) else ''});")
    lines += ["RWStructuredBuffer<uint> sink : register(u0);", "[numthreads(1, 1, 1)]", "void main()", "{",
              *reads, "}", ""]
    return "\n".join(lines)


def _compile(argv: tuple[str, ...], source: str, folder: Path, suffix: str) -> str:
    """The compiler's first error line ("" when it compiled)."""
    path = folder / f"generated{suffix}"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([*argv, str(path)], capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False)
    if done.returncode == 0:
        return ""
    errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines() or ["?"]
    return errors[0][:300]


def _views(doc: dict[str, Any], folder: Path) -> tuple[str, list[str]]:
    """``doc`` through every generator and compiler: ``("error", [])`` when the checks refuse it, else ``("ok",
    [])`` or ``("crash", what failed)``: each compiler's first error line, or a generator's exception."""
    try:
        objects = description.load(copy.deepcopy(doc))
        layouts = layout.record_layouts(objects)
        c_text = codegen.c_source(layouts)
        hlsl_text = codegen.hlsl_source(layouts)
        renderdoc.source(layouts)
        for r in layouts:
            schemas.record_schema(r)
            ctypes_records.record_ctype(r)
            dtypes.record_dtype(r)
    except D3D12WLError:
        return "error", []
    except Exception as exc:  # noqa: BLE001 - what the campaign looks for
        return "crash", [f"a generator: {type(exc).__name__}: {exc}"]
    failed = []
    for lang, argv in compilers():
        hlsl = lang.startswith("hlsl")
        source = _hlsl_shader(hlsl_text, layouts) if hlsl else c_text
        error = _compile(argv, source, folder, ".hlsl" if hlsl else ".c")
        if error:
            failed.append(f"{lang}: {error.split(': ', 1)[-1]}")
    return ("crash" if failed else "ok"), failed


def _alone(doc: dict[str, Any], keep: str) -> dict[str, Any]:
    """``doc`` with only the ``Name`` ``keep`` (the other names removed)."""
    doc = copy.deepcopy(doc)
    for collection in ("program_command_signatures", "command_signatures"):
        for sig in (doc.get(collection) or {}).values():
            for arg in sig["pArgumentDescs"]:
                if arg.get("Name") != keep:
                    arg.pop("Name", None)
    return doc


def exercise(seed: int, folder: Path | None = None) -> tuple[str, str]:
    """Run the case of ``seed``: ``("error", "")`` when the checks refuse a name, ``("ok", "")`` when every
    generator and compiler took them, else ``("crash", why)``: each name that fails alone (the others removed)
    with what failed, or the names that fail only together."""
    file, doc, names = case(seed)
    given = [n for n in names if n is not None]
    with tempfile.TemporaryDirectory(prefix="d3d12wl-names-", dir=folder) as tmp:
        outcome, failed = _views(doc, Path(tmp))
        if outcome != "crash":
            return outcome, ""
        alone = {name: what for name in dict.fromkeys(given)
                 if (what := _views(_alone(doc, name), Path(tmp))[1])}
    if not alone:
        return "crash", f"{file}: names {given} fail only together: {'; '.join(failed)}"
    return "crash", f"{file}: " + " | ".join(f"{name!r} fails alone: {'; '.join(what)}" for name, what in alone.items())


_ALONE = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)' fails alone: (.*?)(?= \| '|$)")


def failing(why: str) -> dict[str, list[str]]:
    """The names a finding's ``why`` says fail alone, each with the compilers (or generator) that refused it."""
    out: dict[str, list[str]] = {}
    for name, what in _ALONE.findall(why):
        out[name] = sorted({part.split(": ", 1)[0] for part in what.split("; ")})
    return out
