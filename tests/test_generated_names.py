"""Generated code compiles for every name the checks accept (issue 42, classes 7, 8 and 9, and "Generated code
compiles for every name the checks accept").

An argument desc's ``Name`` is a member name in the generated C (gcc's and clang's default GNU modes, and clang's
Windows x64 target), in that C included from C++, and in the generated HLSL.  The checks
(:func:`d3d12wl.model.fieldnames.name_problem`) refuse every name one of them reads as something else; here the
compilers judge: each class of the issue fails to compile when the check is bypassed, the macros the compilers at
hand predefine are all refused, and random names the checks accept compile in all three languages.

gcc is the one compiler the README's test command may assume; g++, clang, glslc and spirv-dis skip with the reason
(under CI=true they must be there).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import require
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3d12wl.errors import DescriptionError
from d3d12wl.model import description, fieldnames, reserved_names
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, command_layout, pcs_layout

HEADERS = Path(__file__).resolve().parent.parent / "headers"

#: the C compilers and modes of a user's build: gcc's and clang's defaults are GNU modes
C_COMPILERS = {
    "gcc -std=gnu11": ["gcc", "-x", "c", "-std=gnu11"],
    "gcc -std=gnu2x": ["gcc", "-x", "c", "-std=gnu2x"],
    "clang -std=gnu11 (x86_64-pc-windows-msvc)": ["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding",
                                                  "-x", "c", "-std=gnu11"],
}
CPP_COMPILERS = {
    "g++ -std=gnu++20": ["g++", "-x", "c++", "-std=gnu++20"],
    "clang++ -std=gnu++20 (x86_64-pc-windows-msvc)": ["clang", "-target", "x86_64-pc-windows-msvc",
                                                      "-ffreestanding", "-x", "c++", "-std=gnu++20"],
}

#: the argument types names are put on: a DWORD, a VA (uint64_t; uint2 below Shader Model 6.0), a struct payload
#: flattened in HLSL (Name_BufferLocation), a descriptor handle
_TYPES = [{"Type": "CONSTANT", "Constant": {"Num32BitValuesToSet": 1}}, {"Type": "CONSTANT_BUFFER_VIEW"},
          {"Type": "SHADER_RESOURCE_VIEW"}, {"Type": "DESCRIPTOR_TABLE"}]


def named_layouts(names: list[str], tag: str = "") -> list[RecordLayout]:
    """A work list signature and an ExecuteIndirect command signature (``P{tag}``, ``EI{tag}``) whose arguments carry
    ``names`` (one vertex-buffer view each, named by the first name, so that a struct payload is flattened too)."""
    wl = [{**_TYPES[i % len(_TYPES)], "Source": "PRIMARY_RECORD" if i % 2 else "SECONDARY_RECORD", "Name": n}
          for i, n in enumerate(names[1:])]
    wl += [{"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD", "Name": names[0]},
           {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]
    ei = [{**_TYPES[i % 2], "Name": n} for i, n in enumerate(names[1:])]
    ei += [{"Type": "VERTEX_BUFFER_VIEW", "Name": names[0]}, {"Type": "DRAW"}]
    objects = description.load({"program_command_signatures": {f"P{tag}": {"pArgumentDescs": wl}},
                                "command_signatures": {f"EI{tag}": {"pArgumentDescs": ei}}})
    pl = pcs_layout(objects.program_command_signatures[f"P{tag}"])
    return [r for r in (pl.primary, pl.secondary) if r is not None] + [
        command_layout(objects.command_signatures[f"EI{tag}"])]


def renamed(layouts: list[RecordLayout], old: str, new: str) -> list[RecordLayout]:
    """``layouts`` with member ``old`` spelt ``new``: what the generators would write for a name the checks
    refuse (the layout itself refuses to make it)."""
    return [dataclasses.replace(r, fields=tuple(dataclasses.replace(f, name=new) if f.name == old else f
                                                for f in r.fields)) for r in layouts]


def compile_errors(source: str, tmp: Path, compilers: dict[str, list[str]], prelude: str = "") -> dict[str, str]:
    """Each compiler's errors on ``prelude`` + the generated file + a main (empty: it compiled)."""
    (tmp / "records.h").write_text(source)
    main = tmp / "main.c"
    main.write_text(prelude + '#include "records.h"\nint main(void) { return 0; }\n')
    out = {}
    for label, argv in compilers.items():
        r = subprocess.run([*argv, "-Wall", "-Werror", "-fsyntax-only", "-I", str(HEADERS), str(main)],
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            out[label] = r.stderr
    return out


def hlsl_errors(source: str, tmp: Path) -> str:
    """glslc's errors on the generated HLSL with a compute shader that declares a buffer of every struct."""
    structs = re.findall(r"^struct (\w+)$", source, re.M)
    shader = source + "".join(f"StructuredBuffer<{s}> Buffer{i} : register(t{i});\n" for i, s in enumerate(structs))
    shader += "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 0; }\n"
    path = tmp / "records.hlsl"
    path.write_text(shader)
    r = subprocess.run(["glslc", "-x", "hlsl", "-fshader-stage=compute", "-fentry-point=main", str(path), "-o",
                        str(tmp / "records.spv")], capture_output=True, text=True, timeout=120)
    return r.stderr if r.returncode else ""


def available(compilers: dict[str, list[str]]) -> dict[str, list[str]]:
    return {label: argv for label, argv in compilers.items() if shutil.which(argv[0])}


def require_tools(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    require(not missing, f"{', '.join(missing)} not installed: generated code cannot be compiled with it")


def refused(name: str) -> str:
    """The message the description gives a Name (it must refuse it)."""
    with pytest.raises(DescriptionError) as err:
        named_layouts([name])
    errors = getattr(err.value, "errors", [err.value])
    assert [e.where for e in errors] == ["program_command_signatures.P.pArgumentDescs[0].Name",
                                         "command_signatures.EI.pArgumentDescs[0].Name"], errors
    return str(errors[0].message)


# --- the classes, each a name the compilers refuse ------------------------------------------------------------


@pytest.mark.parametrize("name", ["linux", "unix"])
def test_class_7_a_name_gcc_predefines_in_gnu_modes(name: str, tmp_path: Path) -> None:
    """Issue 42 class 7: a Name ``linux`` or ``unix`` did not compile with gcc's default GNU modes (both are
    predefined macros there); it is refused, naming the member, and the C it would make fails gcc -std=gnu11."""
    assert "a macro gcc and clang predefine in their GNU modes" in refused(name)
    source = codegen.c_source(renamed(named_layouts(["Pos", "Fine"]), "Fine", name))
    errors = compile_errors(source, tmp_path, {"gcc -std=gnu11": C_COMPILERS["gcc -std=gnu11"]})
    assert "gcc -std=gnu11" in errors, "the check refuses a name gcc accepts"
    assert compile_errors(source, tmp_path, {"gcc -std=c11": ["gcc", "-x", "c", "-std=c11"]}) == {}


@pytest.mark.parametrize(("name", "glslang"), [("globallycoherent", True), ("sampler2D", True), ("SubpassInput", True),
                                             ("layout", False), ("ConstantBuffer", False), ("reordercoherent", False)])
def test_class_8_hlsl_keywords_missing_from_the_list(name: str, glslang: bool, tmp_path: Path) -> None:
    """Issue 42 class 8: a Name ``globallycoherent`` (an HLSL storage class) made HLSL that does not compile; it and
    the other keywords the list lacked are refused: glslang's (glslc rejects the HLSL the first three make; it
    takes ``layout`` as a member) and DXC's (``ConstantBuffer``, Shader Model 6.9's ``reordercoherent``: no DXC
    here to show it)."""
    assert "an HLSL keyword" in refused(name)
    if glslang:
        require_tools("glslc")
        assert hlsl_errors(codegen.hlsl_source(renamed(named_layouts(["Pos", "Fine"]), "Fine", name)), tmp_path)


def test_class_9_a_name_that_is_a_header_type_hides_the_next_member_s_type_in_cpp(tmp_path: Path) -> None:
    """Issue 42 class 9: ``D3D12_DRAW_ARGUMENTS`` as argument 0's Name made a C file that C++ does not compile (the
    member hides the type from the next member: "does not name a type").  Every name the headers declare (types,
    enumerators, constants), every name with the API's prefixes and the standard typedefs are refused."""
    assert "declared by the D3D12 headers" in refused("D3D12_DRAW_ARGUMENTS")
    assert "starts with D3D12" in refused("D3D12_SOMETHING_NEWER")
    assert "a type of <stddef.h> / <stdint.h>" in refused("uint32_t")
    objects = description.load({"command_signatures": {"EI": {"pArgumentDescs": [
        {"Type": "CONSTANT_BUFFER_VIEW", "Name": "Fine"}, {"Type": "DRAW"}]}}})
    layout = renamed([command_layout(objects.command_signatures["EI"])], "Fine", "D3D12_DRAW_ARGUMENTS")
    source = codegen.c_source(layout)
    require_tools("g++")
    errors = compile_errors(source, tmp_path, {"g++ -std=gnu++20": CPP_COMPILERS["g++ -std=gnu++20"]})
    assert "does not name a type" in errors["g++ -std=gnu++20"]
    assert compile_errors(source, tmp_path, {"gcc -std=gnu11": C_COMPILERS["gcc -std=gnu11"]}) == {}


def test_a_name_of_a_generated_struct_s_form_is_refused() -> None:
    """C++ refuses a member named as its class: ``EI_Command`` on EI's own command, and every name of that form."""
    assert "has the form of a generated struct's name" in refused("EI_Command")
    assert "has the form of a generated struct's name" in refused("Opaque_ProgramTableRecord")


# --- the lists against the compilers at hand ------------------------------------------------------------------------


def _predefined(argv: list[str]) -> set[str]:
    r = subprocess.run([*argv, "-dM", "-E", "-"], input="", capture_output=True, text=True, timeout=60)
    if r.returncode:
        return set()
    return {m.group(1) for m in re.finditer(r"^#define ([A-Za-z]\w*)[ (]", r.stdout, re.M)}


#: clang's targets whose GNU modes predefine names outside the reserved namespace
_CLANG_TARGETS = ["x86_64-linux-gnu", "i386-linux-gnu", "aarch64-linux-gnu", "mips-linux-gnu", "mipsel-linux-gnu",
                  "sparc-linux-gnu", "sparcv9-sun-solaris", "m68k-linux-gnu", "powerpc-linux-gnu", "x86_64-w64-mingw32",
                  "x86_64-pc-cygwin", "x86_64-unknown-freebsd", "x86_64-apple-darwin", "avr", "msp430"]


def test_every_macro_the_compilers_predefine_is_refused() -> None:
    """gcc's GNU modes (C and C++), and clang's on the targets above: every predefined macro outside the reserved
    namespace (``linux``, ``unix``, ``i386``, ``sun``, ``WIN32``...) is a name the checks refuse."""
    seen: dict[str, str] = {}
    for std in ("gnu89", "gnu11", "gnu17", "gnu2x"):
        seen.update(dict.fromkeys(_predefined(["gcc", "-x", "c", f"-std={std}"]), f"gcc -std={std}"))
    if shutil.which("g++"):
        seen.update(dict.fromkeys(_predefined(["g++", "-x", "c++", "-std=gnu++20"]), "g++ -std=gnu++20"))
    assert "linux" in seen and "unix" in seen, "gcc -dM -E on Linux predefines linux and unix"
    if shutil.which("clang"):
        for target in _CLANG_TARGETS:
            for lang, std in (("c", "gnu11"), ("c++", "gnu++17")):
                found = _predefined(["clang", "-target", target, "-x", lang, f"-std={std}"])
                seen.update(dict.fromkeys(found, f"clang -target {target} -std={std}"))
    accepted = {name: where for name, where in seen.items() if fieldnames.name_problem(name) is None}
    assert accepted == {}, "predefined macros the checks accept"
    require_tools("clang")


def test_every_macro_and_typedef_of_the_included_standard_headers_is_refused() -> None:
    """``<stddef.h>`` and ``<stdint.h>``, which the generated C includes: every object-like macro (``NULL``,
    ``SIZE_MAX``, ``INT8_WIDTH``...) and every typedef the checks refuse, as gcc's and clang's headers define them."""
    prelude = "#include <stddef.h>\n#include <stdint.h>\n"
    compilers = {"gcc": ["gcc", "-x", "c", "-std=gnu2x"]}
    if shutil.which("clang"):
        compilers["clang"] = ["clang", "-target", "x86_64-pc-windows-msvc", "-ffreestanding", "-x", "c", "-std=gnu2x"]
    for label, argv in compilers.items():
        r = subprocess.run([*argv, "-dM", "-E", "-"], input=prelude, capture_output=True, text=True, timeout=60)
        macros = set(re.findall(r"^#define ([A-Za-z]\w*) ", r.stdout, re.M))
        r = subprocess.run([*argv, "-E", "-P", "-"], input=prelude, capture_output=True, text=True, timeout=60)
        typedefs = set(re.findall(r"\btypedef\b[^;{]*?\b([A-Za-z]\w*)\s*;", r.stdout))
        assert {"SIZE_MAX", "NULL", "INT8_MAX"} <= macros and {"uint32_t", "size_t"} <= typedefs, label
        assert {n for n in macros | typedefs if fieldnames.name_problem(n) is None} == set(), label
    require_tools("clang")


# --- the compilers as the oracle: every identifier they know ----------------------------------------------------------


def _binary_words(path: str) -> set[str]:
    """The identifiers in a compiler's binary (its keyword tables, predefined macros and builtin names among
    them): every run of identifier characters ``strings`` finds, and each part of it after an underscore (a linker
    merges ``typeof`` into the tail of ``__typeof``)."""
    r = subprocess.run(["strings", "-a", "-n", "2", path], capture_output=True, timeout=120)
    out: set[str] = set()
    for run in set(re.findall(rb"[A-Za-z0-9_]{2,32}", r.stdout)):
        text = run.decode()
        for m in re.finditer(r"(?:^|_)([A-Za-z][A-Za-z0-9_]*)", text):
            out.add(m.group(1))
    return out


def _binary(driver: str, prog: str) -> list[str]:
    """gcc's compiler proper for a language (cc1, cc1plus)."""
    if not shutil.which(driver):
        return []
    found = subprocess.run([driver, f"-print-prog-name={prog}"], capture_output=True, text=True).stdout.strip()
    return [found] if Path(found).is_file() else []


def _glslang_binaries() -> list[str]:
    """glslc and the shaderc / glslang libraries it loads."""
    glslc = shutil.which("glslc")
    if not glslc:
        return []
    ldd = subprocess.run(["ldd", glslc], capture_output=True, text=True).stdout if shutil.which("ldd") else ""
    return [glslc, *re.findall(r"=> (\S*(?:shaderc|glslang)\S*)", ldd)]


#: per language, the binaries whose identifiers are the words tried: gcc's cc1 for C (gcc and clang), cc1plus for
#: C++, glslang's for HLSL
_LANGUAGES = {"c": lambda: _binary("gcc", "cc1"), "c++": lambda: _binary("g++", "cc1plus"), "hlsl": _glslang_binaries}


@pytest.fixture(scope="module")
def accepted_compiler_words() -> dict[str, list[str]]:
    """Per language, every identifier of its compilers' binaries that the checks accept as a Name."""
    require_tools("strings")
    out = {}
    for lang, binaries in _LANGUAGES.items():
        words = set().union(set(), *(_binary_words(p) for p in binaries()))
        assert not words or {"typeof", "linux", "unix", "restrict", "globallycoherent"} & words, lang
        out[lang] = sorted(w for w in words if fieldnames.name_problem(w) is None)
    return out


#: a member after the word's: what a macro or a hidden type would break (the generated structs' other types, the
#: headers' and <stdint.h>'s, are names the checks refuse, so no word tried here can hide them)
_C_NEIGHBOURS = "uint32_t _m0; D3D12_GPU_VIRTUAL_ADDRESS _m1;"


def _c_rejections(words: list[str], argv: list[str], tmp: Path) -> dict[str, str]:
    """The words a C or C++ compiler rejects as a member followed by others: one struct per word in one translation
    unit, the compiler told to go on after errors, each error line mapped to its word."""
    head = ["#include <stddef.h>", "#include <stdint.h>", *[f'#include "{h}"' for h in codegen.C_HEADERS]]
    lines = head + [f"struct S{i} {{ uint32_t {w}; {_C_NEIGHBOURS} }};" for i, w in enumerate(words)]
    path = tmp / ("words.cpp" if "c++" in argv else "words.c")
    path.write_text("\n".join(lines) + "\n")
    r = subprocess.run([*argv, "-fsyntax-only", "-w", "-fmax-errors=0" if argv[0].startswith("g") else "-ferror-limit=0",
                        "-I", str(HEADERS), str(path)], capture_output=True, text=True, timeout=600)
    out: dict[str, str] = {}
    for m in re.finditer(rf"^{re.escape(str(path))}:(\d+):\d+: (?:fatal )?error: (.*)$", r.stderr, re.M):
        line = int(m.group(1)) - len(head) - 1
        if 0 <= line < len(words):
            out.setdefault(words[line], m.group(2))
    assert r.returncode == 0 or out, r.stderr[-2000:]
    return out


@pytest.mark.parametrize("label", ["gcc -std=gnu2x", "clang -std=gnu11 (x86_64-pc-windows-msvc)", *CPP_COMPILERS])
def test_no_compiler_rejects_a_name_the_checks_accept(label: str, accepted_compiler_words: dict[str, list[str]],
                                                       tmp_path: Path) -> None:
    """The oracle: every identifier in gcc's own binary for the language (its keyword tables, predefined macros
    and builtins among some 60,000 words) that the checks accept is a member each C and C++ compiler takes, in its
    GNU mode."""
    argv = {**C_COMPILERS, **CPP_COMPILERS}[label]
    require_tools(argv[0])
    words = accepted_compiler_words["c++" if "c++" in argv else "c"]
    require(bool(words), f"{'cc1plus' if 'c++' in argv else 'cc1'} not found: no words to try")
    assert _c_rejections(words, argv, tmp_path) == {}


def test_glslc_rejects_no_name_the_checks_accept(accepted_compiler_words: dict[str, list[str]],
                                                  tmp_path: Path) -> None:
    """The same oracle for HLSL, with the identifiers of glslc and its glslang: glslc takes every one the checks
    accept as a member (glslang predefines ``VULKAN`` and the GLSL extension macros, ``GL_EXT_ray_query``..., in
    HLSL too: the checks refuse them)."""
    require_tools("glslc")
    chunk = 4000
    accepted = accepted_compiler_words["hlsl"]
    for at in range(0, len(accepted), chunk):
        words = accepted[at:at + chunk]
        source = "struct S\n{\n" + "".join(f"    uint {w};\n" for w in words) + "};\n"
        errors = hlsl_errors(source, tmp_path)
        line = re.search(r"records\.hlsl:(\d+): error", errors)
        assert not errors, (words[int(line.group(1)) - 3] if line else None, errors[:2000])


# --- every name the checks accept compiles (property) ---------------------------------------------------------------

#: words near the refused ones: their other spellings, and the refused words themselves (filtered out by the check)
_NEAR = sorted(reserved_names.C_KEYWORDS | reserved_names.CPP_KEYWORDS | reserved_names.HLSL_KEYWORDS
               | reserved_names.HLSL_TYPES | reserved_names.PREDEFINED_MACROS
               | {"Linux", "UNIX", "Globallycoherent", "Draw", "Material", "Pos", "Count", "Buffer1", "Texture",
                  "uint2x5", "float5", "int8_t", "Command", "PrimaryRecord", "Table", "main", "acc", "Out", "id",
                  "offsetof", "static_assert", "INT8_C", "UINTMAX_C", "SIZE_WIDTH2", "Sampler", "Records0"})


def _spellings(word: str) -> list[str]:
    return [word, word.capitalize(), word.upper(), word + "s", word + "_", word + "1", "my" + word]


@st.composite
def _name(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 2))
    if kind == 0:
        head = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        return head + draw(st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", max_size=12))
    word = draw(st.sampled_from(_NEAR))
    if kind == 1:
        return word
    return draw(st.sampled_from(_spellings(word)))


def _accepted(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        if fieldnames.name_problem(n) is None and n not in out:
            out.append(n)
    return out


@settings(max_examples=12, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(_name(), min_size=1, max_size=12))
def test_generated_c_cpp_and_hlsl_compile_for_random_names_the_checks_accept(tmp_path_factory: pytest.TempPathFactory,
                                                                             names: list[str]) -> None:
    """Random Names (identifiers, the refused words, and their other spellings) that the checks accept: the
    generated C compiles with gcc and clang in their GNU modes, as C++ with g++ and clang++, and the HLSL (at Shader
    Models 6.0 and 5.1) with glslc."""
    ok = _accepted(names)
    if not ok:
        return
    layouts = named_layouts(ok)
    tmp = tmp_path_factory.mktemp("names")
    source = codegen.c_source(layouts)
    assert compile_errors(source, tmp, available(C_COMPILERS)) == {}, ok
    assert compile_errors(source, tmp, available(CPP_COMPILERS)) == {}, ok
    if shutil.which("glslc"):
        for model in ("6_0", "5_1"):
            assert hlsl_errors(codegen.hlsl_source(layouts, shader_model=model), tmp) == "", (model, ok)


def test_the_compilers_of_the_property_test_are_here() -> None:
    """The property test above compiles with what is installed; this one says what was not (CI has them all)."""
    require_tools("g++", "clang", "glslc")
