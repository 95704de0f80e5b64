"""Repeated flags that name the same thing differently are exit 2 (issue 42, "What to build", and class 5).

Two kinds of flag can say one thing twice: a flag that takes one value (``-o a -o b``: argparse keeps the last one
silently), and a repeatable flag whose value names a thing (``--descriptor-heap TYPE=...``: one heap type given
twice with two ranges).  Both are refused naming both uses; the same value twice, however it is spelt, is the same
thing said twice and is kept.  The tests enumerate every flag of every command from the parser itself, so a flag
added later is held to the rule (or must say here why it is not keyed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from cli_flags import CULLING, CULLING_REGIONS, EXAMPLES, actions, flag_name

from d3d12wl.cli import ALL, build_parser, main

CULLING_CAPTURE = EXAMPLES / "culling_capture.json"
CULLING_CALL = ["--dispatch-list", "dispatch_input", "--max-inputs", "3", "--program-table", "program_table"]


def _capture(tmp_path: Path) -> list[str]:
    return ["capture", str(CULLING), *CULLING_REGIONS, *CULLING_CALL, "-o", str(tmp_path / "c.json")]


def test_class_05_one_heap_type_given_twice_with_different_ranges(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Class 5: ``capture --descriptor-heap T=A --descriptor-heap T=B`` kept the last silently (exit 0); it is exit
    2 naming both, whichever way the type is spelt; the same range twice is one heap."""
    a, b = "CBV_SRV_UAV=0xd0000000,4096,32", "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV=0xd0100000,4096,32"
    assert main([*_capture(tmp_path), "--descriptor-heap", a, "--descriptor-heap", b]) == 2
    err = capsys.readouterr().err
    assert f"--descriptor-heap {a} and --descriptor-heap {b}" in err and "CBV_SRV_UAV heap" in err, err
    assert not (tmp_path / "c.json").exists()
    assert main([*_capture(tmp_path), "--descriptor-heap", a, "--descriptor-heap", "CBV_SRV_UAV"]) == 2
    same = "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV=0xd0000000,0x1000,32"
    assert main([*_capture(tmp_path), "--descriptor-heap", a, "--descriptor-heap", same]) == 0


#: every repeatable flag whose value names a thing: (argv before it, flag, a value, the same thing given another
#: value, the same thing given the first value spelt another way); argv may hold {tmp} for the test's folder
KEYED: dict[tuple[str, str], tuple[list[str], str, str, str]] = {
    ("capture", "--descriptor-heap"): ([], "SAMPLER=0xe0000000,16,32", "SAMPLER=0xe0000000,16,64",
                                       "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER=0xe0000000,0x10,32"),
    ("capture", "--root-arg"): ([], "0=0x50000", "graphics:0=0x60000", "graphics:0=0x50000"),
    ("capture", "--vertex-buffer"): ([], "0=0x100000,65536,12", "0x0=0x100000,65536,16", "0=1048576,0x10000,12"),
    ("exec", "--reading"): ([str(CULLING_CAPTURE)], "render_pass=selected", "render_pass=bound",
                            "render_pass = selected"),
    ("dump", "--reading"): ([str(CULLING_CAPTURE)], "render_pass=selected", "render_pass=bound",
                            " render_pass=selected"),
    ("codegen", "--stride"): ([str(CULLING), "--lang", "c"], "PCS.secondary=24", "PCS.secondary=32",
                              "PCS.secondary=0x18"),
    ("abi", "--map"): (["check", "--header", str(EXAMPLES / "culling_records.h")], "A=B", "A=C", "A = B"),
    ("abi", "--record-struct"): (["check", "--header", str(EXAMPLES / "culling_records.h"), "--description",
                                  str(CULLING)], "PCS.secondary=SecondaryRecord", "PCS.secondary=PrimaryRecord",
                                 "PCS.secondary= SecondaryRecord"),
    ("check", "--reading"): ([str(CULLING_CAPTURE)], "render_pass=selected", "render_pass=bound",
                             "render_pass =selected"),
    ("report", "--reading"): ([str(CULLING_CAPTURE), "-o", "{tmp}/r.html"], "render_pass=selected",
                              "render_pass=bound", "render_pass= selected"),
    ("abi", "--define"): (["check", "--header", str(EXAMPLES / "culling_records.h")], "A=1", "A=2", "A"),
    ("messages check", "--callback-offset"): (["--driver", "{tmp}/no-driver.so"], "pfnReportMessageCb=8",
                                              "pfnReportMessageCb=16", "pfnReportMessageCb=0x8"),
}
#: every repeatable flag (or positional list) that names no thing of its own, and why
NOT_KEYED = {
    ("abi", "--header"): "headers, each checked",
    ("abi", "--hlsl"): "HLSL files, each checked",
    ("abi", "--include"): "include folders, searched in order",
    ("codegen", "--record"): "records to write; one named twice is written once",
    ("codegen", "--struct"): "declared structs to write; one named twice is written once",
    ("capture", "--region"): "regions: a region NAME given twice is refused by name (assemble.document)",
    ("capture", "regions"): "the same regions as --region",
    ("capture", "--program-table"): "one program table per binding index of a signature array, in order",
    ("capture", "--slots"): "one per --program-table, in order",
    ("capture", "--stride"): "one per --program-table, in order",
    ("exec", "--validators"): "specs of validators; an identifier registered twice is refused by load_validators",
    ("dump", "--validators"): "specs of validators; an identifier registered twice is refused by load_validators",
    ("check", "--validators"): "specs of validators; an identifier registered twice is refused by load_validators",
    ("report", "--validators"): "specs of validators; an identifier registered twice is refused by load_validators",
    ("check", "--baseline"): "baseline files, merged (a capture in two: the larger count of each kind)",
    ("check", "paths"): "captures and folders to judge",
    ("import gfxr", "dumps"): "dump folders, one call each",
    ("import gits", "dumps"): "dump files, each given once (a call's pre or post dump twice is refused by name)",
    ("exec", "--kind"): "finding kinds to show: a set",
    ("dump", "--kind"): "finding kinds to show: a set",
    ("migrate ei-to-wl", "inputs"): "calls in command-list order; one program may have several calls",
    ("abi", "names"): "names to show",
    ("decode", "operands"): "DESC.json WHAT FILE, by position",
}


def test_every_repeatable_flag_is_keyed_or_says_why_not() -> None:
    """The tables above hold every repeatable flag of every command (an ``append`` action, a positional list):
    one added later must be classified, and a keyed one tested."""
    repeatable = {(cmd, flag_name(a)) for cmd, a in actions(build_parser(ALL))
                  if isinstance(a, argparse._AppendAction) or (not a.option_strings and a.nargs in ("*", "+"))}
    assert repeatable == set(KEYED) | set(NOT_KEYED)


@pytest.mark.parametrize("key", sorted(KEYED), ids=" ".join)
def test_a_keyed_flag_naming_one_thing_twice_differently_is_exit_2(key: tuple[str, str], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Each keyed repeatable flag: the same thing given two values is exit 2 naming both uses; the same value spelt
    another way is not refused for it."""
    command, flag = key
    before, first, other, same = KEYED[key]
    base = _capture(tmp_path) if command == "capture" else [*command.split(), *(a.format(tmp=tmp_path)
                                                                               for a in before)]
    assert main([*base, flag, first, flag, other]) == 2
    err = capsys.readouterr().err
    assert f"{flag} {first} and {flag} {other}" in err and "two different values" in err, err
    main([*base, flag, first, flag, same])
    assert "two different values" not in capsys.readouterr().err


def _two_values(action: argparse.Action) -> tuple[str, str] | None:
    """Two different values ``action`` takes (its type's), or None for a flag that takes no value."""
    if action.nargs == 0 or action.nargs in ("*", "+") or isinstance(action, argparse._AppendAction):
        return None
    if action.choices:
        choices = [str(c) for c in action.choices]
        return (choices[0], choices[1]) if len(choices) > 1 else None
    for pair in (("1", "2"), ("6_0", "5_1"), ("1/2", "2/2")):  # (a number, a shader model, a shard)
        try:
            if callable(action.type):
                for value in pair:
                    action.type(value)
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            continue
        return pair
    return None


def test_every_flag_of_one_value_given_two_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Every flag of every command that takes one value, given twice with two values, is exit 2 naming both
    (argparse kept the last one silently: ``-o a.csv -o b.csv`` wrote b.csv), whichever of its spellings gives
    them; given the same value twice, it is not refused for it.  (Parsed only: nothing is run.)"""
    parser = build_parser(ALL)
    checked = 0
    for command, action in actions(parser):
        values = _two_values(action)
        if values is None or not action.option_strings:
            continue
        first, last = action.option_strings[0], action.option_strings[-1]
        with pytest.raises(SystemExit) as exited:
            parser.parse_known_args([*command.split(), last, values[0], first, values[1]])
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "one flag given two values" in err, (command, last, err)
        assert f"{last} " in err and f" and {first} " in err, err
        try:
            parser.parse_known_args([*command.split(), last, values[0], last, values[0]])
        except SystemExit:  # (a command's required flag missing: another error)
            pass
        assert "one flag given two values" not in capsys.readouterr().err, (command, last)
        checked += 1
    assert checked >= 60


def test_an_old_spelling_and_its_new_one_given_two_values(capsys: pytest.CaptureFixture[str]) -> None:
    """An option's old spelling, kept for a release, runs the option itself: the old and the new spelling given two
    values are one flag given twice (the same value twice is kept)."""
    parser = build_parser(ALL)
    with pytest.raises(SystemExit) as exited:
        parser.parse_known_args(["capture", "--max-inputs", "3", "--max-graphics-program-inputs-per-primary-list",
                                 "4"])
    assert exited.value.code == 2 and "one flag given two values" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # (for the arguments capture requires, not for this)
        parser.parse_known_args(["capture", "--max-inputs", "3", "--max-graphics-program-inputs-per-primary-list",
                                 "3"])
    assert "one flag given two values" not in capsys.readouterr().err
