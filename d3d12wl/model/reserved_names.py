"""The identifiers no generated view can spell a member with: keywords, predefined macros and standard type names of
the languages the record structs are generated in (issue 42: generated code compiles for every name the checks
accept).

A member name is spelled in the generated C (compiled as C11/C23 and their GNU modes by gcc and clang, and for the
Windows x64 ABI by clang ``-target x86_64-pc-windows-msvc``), in C++ (that C included from C++11 to C++23) and in HLSL
(DXC, FXC and glslang's HLSL front end).  A name is unusable when any of them reads it as something else:

* a keyword (:data:`C_KEYWORDS`, :data:`CPP_KEYWORDS`, :data:`HLSL_KEYWORDS`);
* a macro a compiler predefines (:data:`PREDEFINED_MACROS`): in GNU modes gcc and clang predefine a few names
  outside the reserved namespace (``linux`` and ``unix`` on Linux, ``i386``, ``mips``, ``sparc``, ``sun``, ``WIN32``
  under MinGW...), so ``uint32_t linux;`` reads ``uint32_t 1;``;
* a macro or typedef of the standard headers the generated C includes, ``<stddef.h>`` and ``<stdint.h>``
  (:func:`standard_header_name`: ``NULL``, ``SIZE_MAX``, ``UINT32_MAX``, ``INT8_WIDTH``, ``uint32_t``, ``size_t``):
  a macro rewrites the member, and in C++ a member spelt as a type hides that type from the members after it
  (``uint32_t uint32_t; uint32_t Next;`` does not compile: "does not name a type");
* an HLSL built-in type (:data:`HLSL_TYPES`, and the vector and matrix forms :data:`HLSL_VECTOR`), which FXC and
  glslang read as types wherever they appear;
* a macro glslang predefines when it compiles HLSL (``VULKAN``, and the GLSL extension macros, ``GL_EXT_ray_query``:
  every name of their ``GL_`` form).

The names the package's own headers declare (types, enumerators, constants) are the model's to add
(:func:`d3d12wl.model.fieldnames.name_problem`), read from the compiled headers rather than listed here.

Sources: C11 and C23 6.4.1 and the GNU C keywords outside the reserved namespace (``asm``, ``typeof``); C++23
[lex.key] with the alternative tokens [lex.digraph] and the keywords of the transactional-memory and reflection TSs;
the HLSL reference's "Keywords" and "Reserved Words" pages, DXC's HLSL keywords (``KEYHLSL`` in its
``TokenKinds.def``: ``globallycoherent``, ``ConstantBuffer``, ``sampler_state``...), glslang's HLSL keyword map
(``layout``, ``SubpassInput``, ``sampler2D``...), the mesh-shader parameter modifiers and ``reordercoherent`` (Shader
Model 6.9); the macros gcc and clang predefine in GNU modes on their Linux, BSD, Solaris, Darwin, MinGW, Cygwin and
embedded targets (``gcc -std=gnu11 -dM -E``, ``clang -target T -dM -E``; tests/test_generated_names.py compares them
with the compilers at hand).
"""

from __future__ import annotations

import re

__all__ = ["CPP_KEYWORDS", "C_KEYWORDS", "GLSLANG_MACROS", "GLSLANG_MACRO_PREFIX", "HLSL_KEYWORDS", "HLSL_TYPES", "HLSL_VECTOR", "PREDEFINED_MACROS",
           "reserved_word", "standard_header_name"]

#: C11 and C23 keywords (6.4.1), and GNU C's outside the reserved namespace (gnu modes)
C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if inline int long register
restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Alignas
_Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual _BitInt
_Decimal32 _Decimal64 _Decimal128
asm
""".split())

#: C++23 keywords ([lex.key]), the alternative tokens ([lex.digraph]) and the TS keywords compilers reserve
CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl
concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete
do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
requires return short signed sizeof static static_assert static_cast struct switch template this thread_local throw
true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
atomic_cancel atomic_commit atomic_noexcept synchronized reflexpr
""".split())

#: HLSL keywords and reserved words: the HLSL reference (FXC), DXC's KEYHLSL keywords, glslang's HLSL keyword map
HLSL_KEYWORDS = frozenset("""
AppendStructuredBuffer asm asm_fragment BlendState bool break Buffer ByteAddressBuffer case cbuffer centroid class
column_major compile compile_fragment CompileShader const continue ComputeShader ConsumeStructuredBuffer default
DepthStencilState DepthStencilView discard do double DomainShader dword else export extern false float for fxgroup
GeometryShader groupshared half HullShader Hullshader if in inline inout InputPatch int interface line lineadj linear
LineStream matrix min16float min10float min16int min12int min16uint namespace nointerpolation noperspective NULL out
OutputPatch packoffset pass pixelfragment PixelShader point PointStream precise RasterizerState RenderTargetView
return register row_major RWBuffer RWByteAddressBuffer RWStructuredBuffer RWTexture1D RWTexture1DArray RWTexture2D
RWTexture2DArray RWTexture3D sample sampler SamplerState SamplerComparisonState shared snorm stateblock
stateblock_state static string struct switch StructuredBuffer tbuffer technique Technique technique10 technique11
texture Texture1D Texture1DArray Texture2D Texture2DArray Texture2DMS Texture2DMSArray Texture3D TextureCube
TextureCubeArray true typedef triangle triangleadj TriangleStream uint uniform unorm unsigned vector vertexfragment
VertexShader void volatile while
auto catch char const_cast delete dynamic_cast enum explicit friend goto long mutable new operator private protected
public reinterpret_cast short signed sizeof static_cast template this throw try typename union using virtual
globallycoherent reordercoherent ConstantBuffer TextureBuffer sampler_state
layout sampler1D sampler2D sampler3D samplerCUBE SubpassInput SubpassInputMS
indices vertices primitives payload
int16_t int32_t int64_t uint16_t uint32_t uint64_t float16_t float32_t float64_t
""".split())

#: HLSL's built-in object and struct types beyond the keywords (DXC declares them; FXC and glslang read several as
#: types wherever they appear)
HLSL_TYPES = frozenset("""
RWTexture2DMS RWTexture2DMSArray FeedbackTexture2D FeedbackTexture2DArray
RasterizerOrderedBuffer RasterizerOrderedByteAddressBuffer RasterizerOrderedStructuredBuffer
RasterizerOrderedTexture1D RasterizerOrderedTexture1DArray RasterizerOrderedTexture2D RasterizerOrderedTexture2DArray
RasterizerOrderedTexture3D RaytracingAccelerationStructure RayDesc RayQuery BuiltInTriangleIntersectionAttributes
HitObject StateObjectConfig GlobalRootSignature LocalRootSignature SubobjectToExportsAssociation
RaytracingShaderConfig RaytracingPipelineConfig RaytracingPipelineConfig1 TriangleHitGroup ProceduralPrimitiveHitGroup
DispatchNodeInputRecord RWDispatchNodeInputRecord GroupNodeInputRecords RWGroupNodeInputRecords ThreadNodeInputRecord
RWThreadNodeInputRecord EmptyNodeInput NodeOutput NodeOutputArray EmptyNodeOutput EmptyNodeOutputArray
ThreadNodeOutputRecords GroupNodeOutputRecords
""".split())

#: HLSL's vector and matrix types (``float4``, ``uint2x3``, ``min16float4x4``) and the packed 8-bit vectors
HLSL_VECTOR = re.compile(r"(?:(?:bool|int|uint|dword|half|float|double|min16float|min10float|min16int|min12int|"
                         r"min16uint|u?int16_t|u?int32_t|u?int64_t|float16_t|float32_t|float64_t)[1-4](?:x[1-4])?"
                         r"|u?int8_t4_packed)\Z")

#: Macros gcc and clang predefine in GNU modes outside the reserved namespace (``builtin_define_std``): by OS
#: (``linux``, ``unix``, ``sun``, the MinGW ``WIN32``/``WIN64``/``WINNT``) and by CPU (``i386``, ``mips`` and its
#: ``MIPSEB``/``MIPSEL``, ``sparc``, ``mc68000``, ``PPC``/``powerpc``, ``vax``, ``hppa``, ``AVR``, ``MSP430``...)
PREDEFINED_MACROS = frozenset("""
linux unix sun WIN32 WIN64 WINNT hpux vms VMS
i386 mips MIPSEB MIPSEL R3000 sparc mc68000 mc68010 mc68020 m68k PPC powerpc vax hppa hp9000 hp9000s800 ns32000
AVR MSP430 pyr sequent u3b bsd4_2 bsd4_3 tahoe convex apollo ibm032 gcos
""".split())

#: glslang (glslc, shaderc) predefines the GLSL extension macros (``GL_EXT_ray_query``, ``GL_ARB_gpu_shader5``...)
#: when it compiles HLSL too: the prefix of their namespace; and ``VULKAN`` when it compiles for Vulkan
GLSLANG_MACRO_PREFIX = "GL_"
GLSLANG_MACROS = frozenset({"VULKAN"})

#: the macros of ``<stddef.h>`` and ``<stdint.h>`` that are not function-like (C23 7.21, 7.22): limits and widths
_STDINT_MACRO = re.compile(r"(?:U?INT(?:8|16|32|64|_LEAST(?:8|16|32|64)|_FAST(?:8|16|32|64)|PTR|MAX)|PTRDIFF|"
                           r"SIG_ATOMIC|SIZE|WCHAR|WINT)_(?:MIN|MAX|WIDTH)\Z")
#: their typedefs (C23 7.21, 7.22)
_STDINT_TYPE = re.compile(r"(?:u?int(?:8|16|32|64|ptr|max)_t|u?int_(?:least|fast)(?:8|16|32|64)_t|size_t|"
                          r"ptrdiff_t|max_align_t|nullptr_t|wchar_t)\Z")


def standard_header_name(name: str) -> str | None:
    """What ``name`` is in ``<stddef.h>`` or ``<stdint.h>`` (a macro or a type), or None."""
    if name == "NULL" or _STDINT_MACRO.match(name):
        return "a macro of <stddef.h> / <stdint.h>, which the generated C includes"
    if _STDINT_TYPE.match(name):
        return "a type of <stddef.h> / <stdint.h>, which the generated C includes (in C++ a member of that name " \
               "hides the type from the members after it)"
    return None


def reserved_word(name: str) -> str | None:
    """Why the generated C, C++ or HLSL cannot have a member ``name`` (see the module docstring), or None."""
    if name in C_KEYWORDS or name in CPP_KEYWORDS:
        return "a C or C++ keyword"
    standard = standard_header_name(name)
    if standard is not None:
        return standard
    if name in PREDEFINED_MACROS:
        return "a macro gcc and clang predefine in their GNU modes (-std=gnu11, their default)"
    if name in GLSLANG_MACROS:
        return "a macro glslang predefines when it compiles HLSL for Vulkan (glslc)"
    if name.startswith(GLSLANG_MACRO_PREFIX):
        return (f"of the form of the GLSL extension macros ({GLSLANG_MACRO_PREFIX}EXT_ray_query...), which glslang "
                "predefines in HLSL too")
    if name in HLSL_KEYWORDS:
        return "an HLSL keyword"
    if name in HLSL_TYPES or HLSL_VECTOR.match(name):
        return "an HLSL type name"
    return None
