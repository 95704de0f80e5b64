"""The ``d3d12wl codegen`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys

from d3d12wl import abi, inputs
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import _violations, load_description, summary
from d3d12wl.cli._options import add_description_argument, add_json_flag, add_output_flag
from d3d12wl.errors import LayoutError, did_you_mean
from d3d12wl.executor.reads import call_strides, read_call
from d3d12wl.model.objects import ObjectSet
from d3d12wl.output import claims, outfiles
from d3d12wl.output.serialize import json_text
from d3d12wl.records import codegen, hlsl_bindings, renderdoc
from d3d12wl.records.decode import declared_stride
from d3d12wl.records.layout import (
    PROGRAM_TABLE,
    RecordLayout,
    laying_out_once,
    program_table_layout,
    record_id,
    record_id_synonyms,
    record_layouts,
)

#: the plain-text --help description
DESCRIPTION = """\
C, HLSL or RenderDoc structs for every record a description implies, at the strides a real buffer has.

  d3d12wl codegen DESC.json --lang c [--pcs NAME]     a standalone C11 file (compile it with the package's
                                                     headers on the include path) with _Static_asserts on
                                                     every sizeof and offsetof
  d3d12wl codegen DESC.json --lang hlsl [--pcs NAME]  HLSL structs in the shape of the spec's culling example
  d3d12wl codegen DESC.json --lang hlsl --shader-model 5_1
                                                     ... for HLSL of that Shader Model (default 6_0): below 6_0
                                                     (FXC, cs_5_0 / cs_5_1) no 64-bit type, a GPU VA or handle
                                                     is a uint2 (.x the low DWORD, .y the high)
  d3d12wl codegen DESC.json --lang hlsl --bindings    ... and after them the register/space declarations of every
                                                     root and local root parameter and static sampler
  d3d12wl codegen DESC.json --lang renderdoc --record ID
                                                     the RenderDoc buffer-viewer format of one record: explicit
                                                     [[offset]]s and [[pad]]s, enums declared, flag enums as
                                                     bitfields (an OR shows each flag), VAs [[hex]], the program
                                                     identifier as its 32 bytes in hex
  d3d12wl codegen DESC.json --lang renderdoc --struct D3D12_DISPATCH_LIST_INPUT1
                                                     ... or of a declared struct
  d3d12wl codegen DESC.json --lang c -o records.h     the source to a file (written whole or not at all)
  d3d12wl codegen DESC.json --lang c --json           {"lang", "source", "output", "structs": [{"name", "record",
                                                     "owner", "size", "stride", "stride_from", "text", and for C
                                                     "alignof", "pack"}]} for tools (with --lang hlsl also
                                                     "shader_model"); with -o FILE the source goes to FILE;
                                                     with --bindings also "bindings": {"root_signatures",
                                                     "source", "note", "declarations": [{"name", "kind",
                                                     "register", "space", "count", "type", "type_macro",
                                                     "path", ...}]}

Records: each program command signature's primary, secondary and implicit-path program-table records; each
program whose program-table record differs from its PCS's (the explicit local-root-signature path); each
ExecuteIndirect command signature.  --pcs NAME restricts the output to that program command signature's records,
--record ID (PCS.secondary, as decode and abi check --record-struct name them; repeatable) to those records; with
--struct and no --record, only the structs are written.  RenderDoc's buffer viewer takes one format per buffer, so
--lang renderdoc writes one: name it with --record or --struct (--json gives every format).

Strides (each struct's sizeof, and RenderDoc's [[size]]): the declared one (a PCS's SecondaryRecordByteStride, a
command signature's ByteStride; 0, the broadcast form, and records whose stride the call gives: the minimum),
  --capture CAPTURE.json   the strides the capture's call reads each record at (a list's
                           ProgramInputs.StrideInBytes, the bound program table's StrideInBytes, ...); DESC.json may
                           then be left out (the capture's description is used)
  --stride ID=N            N for record ID (repeatable; below the record's minimum is an error naming it)

The C structs are packed (#pragma pack(push, 4)) only where a member sits below its C alignment (a buffer view or
VA at a 4-byte offset; a stride that is not a multiple of 8): each struct says its alignof and asserts it, so a
struct whose alignof is 4 where an engine's unpacked struct of the same members has 8 says so.

A description that breaks creation-time rules is generated all the same; one line on stderr says how many rules
it breaks (d3d12wl validate lists them), and --strict makes that exit 1."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("codegen", help=summary("codegen"),
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_description_argument(p, optional="with --capture")
    p.add_argument("--lang", choices=("c", "hlsl", "renderdoc"), required=True,
                   help="the language to write: C (and C++), HLSL, or RenderDoc buffer formats")
    p.add_argument("--pcs", metavar="NAME", help="only this program command signature's records")
    p.add_argument("--record", action="append", default=[], metavar="ID", help="only this record (PCS.secondary, "
                                                                               "EI.command); repeatable")
    p.add_argument("--struct", action="append", default=[], metavar="NAME",
                   help="--lang renderdoc: the format of this declared struct")
    p.add_argument("--stride", action="append", default=[], metavar="ID=N",
                   help="the stride of record ID (repeatable)")
    p.add_argument("--capture", metavar="CAPTURE.json", help="the strides this capture's call reads the records at")
    p.add_argument("--bindings", action="store_true",
                   help="--lang hlsl: after the structs, the register/space declarations of the root and local root "
                        "parameters and static samplers (every root signature, or with --pcs that signature's)")
    p.add_argument("--shader-model", type=_shader_model, default=None, metavar="SM",
                   help=f"--lang hlsl: the Shader Model the HLSL is for ({', '.join(codegen.SHADER_MODELS)}; default "
                        f"{codegen.DEFAULT_SHADER_MODEL}); below 6_0 no 64-bit type appears (a VA is a uint2)")
    add_output_flag(p, "the generated source (default: standard output)")
    add_json_flag(p, "the generated source and each struct")
    _violations.add_strict_flag(p)
    p.set_defaults(func=run)


def _shader_model(text: str) -> str:
    try:
        return codegen.parse_shader_model(text)
    except LayoutError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _select(objects: ObjectSet, args: argparse.Namespace) -> list[RecordLayout]:
    layouts = record_layouts(objects, args.pcs)
    if args.struct and not args.record:
        return []
    if not args.record:
        return layouts
    by_id = {record_id(r): r for r in layouts}
    for name, program in objects.programs.items():  # any program's table, as decode names it
        rid = f"{name}.{PROGRAM_TABLE}"
        if rid in args.record and rid not in by_id and (args.pcs is None or (
                program.ProgramCommandSignature is not None and program.ProgramCommandSignature.name == args.pcs)):
            own = program_table_layout(program)  # (owned by the program: its record id is PROGRAM.program_table)
            if own is not None:
                by_id[rid] = own
    unknown = [r for r in args.record if r not in by_id]
    if unknown:
        hint = did_you_mean(unknown[0], by_id, record_id_synonyms(by_id)) if len(unknown) == 1 else ""
        raise LayoutError(f"no record {', '.join(map(repr, unknown))}{hint}; records: {', '.join(by_id) or 'none'}",
                          where="--record")
    return [by_id[r] for r in args.record]


def _stride_flags(flags: list[str], layouts: list[RecordLayout]) -> dict[str, tuple[int, str]]:
    """``--stride ID=N`` values, each checked against its record (spec "Stride derivation", rule 25(e))."""
    by_id = {record_id(r): r for r in layouts}
    out: dict[str, tuple[int, str]] = {}
    given: dict[object, tuple[object, str]] = {}
    for text in flags:
        rid, sep, value = text.partition("=")
        where = f"--stride {text}"
        if not sep:
            raise LayoutError("give --stride ID=N (PCS.secondary=32)", where=where)
        if rid not in by_id:
            raise LayoutError(f"no record {rid!r} is generated{did_you_mean(rid, by_id, record_id_synonyms(by_id))}; "
                              f"records: {', '.join(by_id) or 'none'}", where=where)
        try:
            stride = inputs.integer(value)
        except ValueError as exc:
            raise LayoutError(str(exc), where=where) from None
        problems = by_id[rid].stride_problems(stride)
        if problems:
            raise LayoutError("; ".join(problems), where=where)
        inputs.given_once(given, rid, stride, text, flag="--stride", what=f"record {rid}")
        out[rid] = (stride, "--stride")
    return out


def _declared(r: RecordLayout) -> tuple[int, str]:
    """The declared stride, where the record can be read at it; else the minimum (``layout`` and ``validate`` say
    why the declared one cannot be used: rule 25(e))."""
    stride, whence = declared_stride(r)
    if stride and r.stride_problems(stride):
        return r.min_stride, f"the minimum ({whence} {stride} cannot be used: rule 25(e))"
    return stride, whence


def _strides(objects: ObjectSet, layouts: list[RecordLayout], args: argparse.Namespace
             ) -> dict[str, tuple[int, str]]:
    """Each record's stride and where it comes from: --stride, else the capture's call, else the declared one."""
    out = {record_id(r): _declared(r) for r in layouts}
    if args.capture is not None:
        capture = load_capture(args.capture)
        reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
        for rid, (stride, whence) in call_strides(reads, layouts).items():
            layout = next(r for r in layouts if record_id(r) == rid)
            problems = layout.stride_problems(stride)
            if problems:
                raise LayoutError(f"the capture's call reads {rid} at stride {stride} ({whence}): "
                                  + "; ".join(problems), where=f"--capture {args.capture}")
            out[rid] = (stride, f"the capture's {whence}")
    out.update(_stride_flags(args.stride, layouts))
    return out


def _refuse_input_as_output(args: argparse.Namespace) -> None:
    """``-o`` naming an input (DESC.json, --capture) would replace it with the source: exit 2 before any work
    (:mod:`d3d12wl.output.claims`, the rule of every command)."""
    if outfiles.is_stdout(args.output):
        return
    outfiles.check_target(args.output)
    claims.check([("-o", args.output)], [("DESC.json", args.description), ("--capture", args.capture)])


def run(args: argparse.Namespace) -> int:
    if args.description is None and args.capture is None:
        raise LayoutError("give DESC.json (or --capture CAPTURE.json, whose description is used)", where="DESC.json")
    _refuse_input_as_output(args)
    objects = load_description(args) if args.description is not None else load_capture(args.capture).objects
    with laying_out_once():  # (the rules behind the violations line read the same layouts)
        return _violations.finish(args, objects, _generate(objects, args))


def _generate(objects: ObjectSet, args: argparse.Namespace) -> int:
    # a record or struct named twice is one (written twice it would be a redefinition no compiler takes)
    args.record, args.struct = list(dict.fromkeys(args.record)), list(dict.fromkeys(args.struct))
    layouts = _select(objects, args)
    if args.struct and args.lang != "renderdoc":
        raise LayoutError("--struct applies to --lang renderdoc (the C and HLSL of declared structs are the "
                          "headers' own)", where="--struct")
    for name in args.struct:
        if name not in abi.types():
            raise LayoutError(f"no declared struct named {name!r}{did_you_mean(name, abi.types())} (`d3d12wl abi` lists "
                              "them)", where="--struct")
    if args.bindings and args.lang != "hlsl":
        raise LayoutError("--bindings applies to --lang hlsl", where="--bindings")
    if args.shader_model is not None and args.lang != "hlsl":
        raise LayoutError("--shader-model applies to --lang hlsl", where="--shader-model")
    model = args.shader_model or codegen.DEFAULT_SHADER_MODEL
    if args.bindings and model == "5_0":
        raise LayoutError("--bindings declares ConstantBuffer<T> and register spaces, which need Shader Model 5.1: "
                          "give --shader-model 5_1 or later", where="--shader-model")
    chosen = _strides(objects, layouts, args)
    strides = {rid: stride for rid, (stride, _) in chosen.items()}
    if args.lang == "renderdoc" and not args.json and len(layouts) + len(args.struct) != 1:
        ids = ", ".join(record_id(r) for r in record_layouts(objects, args.pcs)) or "none"
        raise LayoutError("RenderDoc's buffer viewer reads a buffer through one format: pick the record with "
                          f"--record ID ({ids}) or a declared struct with --struct NAME, one of them "
                          "(--json gives every format)", where="--record")
    if args.lang == "c":
        text = codegen.c_source(layouts, strides=strides)
    elif args.lang == "hlsl":
        text = codegen.hlsl_source(layouts, strides, model)
    else:
        text = renderdoc.source(layouts, args.struct, strides)
    bindings = _bindings(objects, args, layouts)
    if bindings is not None:
        text += "\n" + bindings.text
    if not args.json or not outfiles.is_stdout(args.output):
        with outfiles.output_file(args.output) as out:
            out.write(text)
    if not args.json:
        return 0

    def used(r: RecordLayout) -> int:
        return strides[record_id(r)] or r.min_stride

    if args.lang == "renderdoc":
        structs = [{"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                    "stride": used(r), "stride_from": chosen[record_id(r)][1],
                    "text": renderdoc.record_format(r, strides[record_id(r)])} for r in layouts]
        structs += [{"name": s, "record": None, "owner": None, "size": abi.sizeof(s), "stride": abi.sizeof(s),
                     "stride_from": f"sizeof({s})", "text": renderdoc.struct_format(s)} for s in args.struct]
    elif args.lang == "c":
        structs = []
        for r in layouts:
            packing = codegen.c_packing(r, used(r))
            structs.append({"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                            "stride": used(r), "stride_from": chosen[record_id(r)][1],
                            "alignof": packing.alignof, "pack": packing.pack,
                            "text": codegen.c_struct(r, strides[record_id(r)])})
    else:
        structs = [{"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                    "stride": used(r), "stride_from": chosen[record_id(r)][1],
                    "text": codegen.hlsl_struct(r, strides[record_id(r)], model)} for r in layouts]
    doc: dict[str, object] = {"lang": args.lang, "source": text,
                              "output": None if outfiles.is_stdout(args.output) else args.output, "structs": structs}
    if args.lang == "hlsl":
        doc["shader_model"] = model
    if bindings is not None:
        doc["bindings"] = bindings.to_dict()
    sys.stdout.write(json_text(doc, indent=2))
    sys.stdout.write("\n")
    return 0


def _bindings(objects: ObjectSet, args: argparse.Namespace, layouts: list[RecordLayout]
              ) -> hlsl_bindings.HlslBindings | None:
    """``--bindings``: the declarations of the root signatures in scope (None without the flag); none at all is said
    in the file and in one line on stderr, and is no error."""
    if not args.bindings:
        return None
    found = hlsl_bindings.hlsl_bindings(objects, args.pcs, layouts)
    if found.note is not None:
        print(f"d3d12wl codegen: --bindings: {found.note}", file=sys.stderr)
    return found
