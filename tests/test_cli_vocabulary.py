"""Issue 38: one vocabulary, and mistakes answered.

- One spelling means one thing on every command (the options' kind and value type agree wherever a spelling is
  used; the few that differ in a stated way are listed with why), every command has ``--json``, and the shared
  options are defined once (``cli/_options.py``).
- A renamed option keeps its old spelling for one release: the same standard output, a warning on standard error.
- The reference page (docs/cli-reference.md) is generated from the parsers and equal to them.
- A mistyped command, flag, choice, enum name or record name gets a did-you-mean, the D3D12 meaning first; a usage
  error under ``--json`` is the error object on standard output."""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from d3d12wl import examples
from d3d12wl.cli import COMMANDS, leaf_parsers, main
from d3d12wl.cli._options import RenamedOption, renamed_options
from d3d12wl.cli.reference import page

ROOT = Path(__file__).resolve().parents[1]
CULLING = examples.path("culling.json")
EI = examples.path("execute_indirect.json")

#: spellings whose definitions differ on purpose, and why (anything else must agree across commands)
STATED_DIFFERENCES = {
    "--stride": "bytes between records everywhere; codegen and capture take it once per record class or program "
                "table (codegen names the record: ID=N), decode for the one class it decodes",
    "--format": "the output's format everywhere; each command offers the formats it writes",
    "--limit": "at most N shown; dump's default (1,000) keeps a person's view bounded, exec's (0: all) is for tools",
    "--tier": "the device's D3D12_WORK_LISTS_TIER; validate checks for the most capable device (2), capture records "
              "the least the call needs (1, 2 for DispatchList1)",
    "-o": "one output file; migrate ei-to-wl, capture and remap write a capture (OUT.json), the others PATH",
    "--output": "as -o",
    "--path": "print only the path: headers' include folder, examples' folder or file",
    "--directx-headers": "the DirectX-Headers include root everywhere; headers takes the flag alone too (the flags "
                         "of the root the lookup finds), abi, whose positional NAMEs would be read as the folder, "
                         "takes it with its DIR only",
}


def _signature(action: argparse.Action) -> tuple[object, ...]:
    """What must agree between two commands' options of one spelling: switch or value, how many values, the value
    type, whether it repeats."""
    kind = type(action).__name__
    return kind, action.nargs, getattr(action.type, "__name__", action.type)


def _leaves() -> list[tuple[str, argparse.ArgumentParser]]:
    return list(leaf_parsers())


def test_every_command_has_json_and_every_option_has_help() -> None:
    """design.md "The command line and the docs": --json everywhere; and the reference page can say what each
    option means."""
    for name, parser in _leaves():
        options = {o for a in parser._actions for o in a.option_strings}
        assert "--json" in options, name
        for action in parser._actions:
            if action.option_strings and not isinstance(action, RenamedOption | argparse._HelpAction):
                assert action.help, (name, action.option_strings)


def test_the_shared_json_flag_is_defined_once() -> None:
    """docs/cli.md "One vocabulary": --json is defined once (cli/_options.add_json_flag), so every command's help
    says the same thing of it: the result for programs, and the error object on exit 2 (check, report and the two
    imports spelt their own)."""
    from d3d12wl.cli._options import add_json_flag

    shared = argparse.ArgumentParser()
    prefix = add_json_flag(shared, "WHAT").help.partition("WHAT")[0]  # type: ignore[union-attr]
    for name, parser in _leaves():
        action = parser._option_string_actions["--json"]
        assert (action.help or "").startswith(prefix), (name, action.help)


def test_one_spelling_one_meaning() -> None:
    """A spelling used by several commands is the same kind of option on each (a switch, or a value of one type,
    repeatable or not), unless STATED_DIFFERENCES says why not."""
    by_spelling: dict[str, dict[tuple[object, ...], list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, parser in _leaves():
        for action in parser._actions:
            if isinstance(action, RenamedOption | argparse._HelpAction):
                continue
            for spelling in action.option_strings:
                by_spelling[spelling][_signature(action)].append(name)
    clashes = {s: dict(v) for s, v in by_spelling.items() if len(v) > 1 and s not in STATED_DIFFERENCES}
    assert not clashes


def test_one_meaning_one_spelling_for_the_shared_options() -> None:
    """The shared options have one spelling: --json (never --machine or the like), -o/--output for a file,
    --output-dir for a folder, and no old spelling is also a current one on the same command."""
    for name, parser in _leaves():
        current = {o for a in parser._actions if not isinstance(a, RenamedOption) for o in a.option_strings}
        for old, new in renamed_options(parser):
            assert old not in current and new in current, (name, old, new)
        dirs = [a for a in parser._actions if a.metavar == "DIR" and a.option_strings[:1] == ["-o"]
                and not isinstance(a, RenamedOption)]
        assert not dirs, f"{name}: a folder is --output-dir DIR, not -o"


def test_the_pages_write_the_new_spellings() -> None:
    """An old spelling that no command has any more (capture's --max-inputs, --args, ...) is named only where the
    renames are listed (docs/cli.md and the reference): a page that still teaches it teaches a flag that goes next
    release (docs/check.md said "--max-inputs left at 0")."""
    current = {o for _, parser in _leaves() for a in parser._actions if not isinstance(a, RenamedOption)
               for o in a.option_strings}
    gone = {old for _, parser in _leaves() for old, _ in renamed_options(parser)} - current
    assert {"--max-inputs", "--args", "--directx"} <= gone
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if path.name in ("cli.md", "cli-reference.md"):
            continue
        for old in gone:
            assert not re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", path.read_text(encoding="utf-8")), \
                (path.name, old)


@pytest.mark.parametrize(("old", "new"), [
    (["--args", "args", "--count", "count", "--max", "4"],
     ["--argument-buffer", "args", "--count-buffer", "count", "--max-command-count", "4"]),
    (["--args", "args", "--count-resource", "count,4", "--count", "count", "--max", "4"],
     ["--argument-buffer", "args", "--count-buffer-resource", "count,4", "--count-buffer", "count",
      "--max-command-count", "4"]),
])
def test_old_spellings_work_for_one_release_with_a_warning(old: list[str], new: list[str], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """capture's old spellings of ExecuteIndirect's parameters (IndirectDrawing.md, ExecuteIndirect) write the same
    capture and print the same report; standard error says what to write instead."""
    base = ["capture", str(EI), "args=zeros:160@0x20000", "count=hex:03000000@0x30000", "--execute-indirect",
            "RootConstantsAndVertexBuffers"]
    assert main([*base, *new, "-o", str(tmp_path / "new.json")]) == 0
    by_new = capsys.readouterr()
    assert main([*base, *old, "-o", str(tmp_path / "old.json")]) == 0
    by_old = capsys.readouterr()
    assert (tmp_path / "old.json").read_bytes() == (tmp_path / "new.json").read_bytes()
    assert by_old.out.replace("old.json", "new.json") == by_new.out and not by_new.err
    for o, n in zip(old[::2], new[::2]):
        assert f"warning: {o} is now {n}" in by_old.err


def test_a_renamed_required_option_is_required_under_either_spelling(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """migrate wl-to-ei's folder is --output-dir (-o is one file everywhere); -o still works this release."""
    capture = str(examples.path("culling_capture.json"))
    with pytest.raises(SystemExit) as exit_:
        main(["migrate", "wl-to-ei", capture])
    assert exit_.value.code == 2 and "required: --output-dir" in capsys.readouterr().err
    assert main(["migrate", "wl-to-ei", capture, "-o", str(tmp_path / "old"), "--json"]) == 0
    old = capsys.readouterr()
    assert main(["migrate", "wl-to-ei", capture, "--output-dir", str(tmp_path / "new"), "--json"]) == 0
    new = capsys.readouterr()
    assert json.loads(old.out)["calls"] == json.loads(new.out)["calls"]
    assert "warning: -o is now --output-dir" in old.err and not new.err


def test_exec_json_is_format_json_and_keeps_version_1_for_this_release(capsys: pytest.CaptureFixture[str]) -> None:
    """exec --json wrote JSON version 1 (the trace diff reads); it still does this release, saying on stderr what
    changes next, and --json-version 1 keeps it without a warning."""
    assert main(["exec", "--json"]) == 0
    bare = capsys.readouterr()
    assert main(["exec", "--json", "--json-version", "1"]) == 0
    pinned = capsys.readouterr()
    assert bare.out == pinned.out and "version" not in json.loads(bare.out)  # (version 1 says none)
    assert "warning: --json wrote JSON version 1" in bare.err and not pinned.err


def test_the_reference_page_is_generated_from_the_parsers() -> None:
    """docs/cli-reference.md is `python -m d3d12wl.cli.reference`'s output: regenerate it after changing a flag."""
    assert (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8") == page()


def test_the_reference_page_shows_defaults_a_user_can_type() -> None:
    """The default column of docs/cli-reference.md is a value the option takes that means its default (the
    executor limits whose default scales with the capture say auto, not the -1 that stands for it)."""
    text = page()
    shown = 0
    for name, parser in _leaves():
        section = text[text.index(f"## `d3d12wl {name}`\n"):]
        rows = {cells[1].strip(): cells[3].strip() for line in section.split("\n## ")[0].splitlines()
                if line.startswith("| `") for cells in [re.split(r"(?<!\\)\|", line)]}
        for action in parser._actions:
            default = rows.get(", ".join(f"`{o}`" for o in action.option_strings), "")
            if not default or not action.option_strings:
                continue
            convert = action.type if callable(action.type) else str
            meant = convert(action.default) if isinstance(action.default, str) else action.default
            assert convert(default.replace(",", "")) == meant, (name, action.option_strings, default)
            assert not default.startswith("-"), (name, action.option_strings, default)
            shown += 1
    assert shown > 40


def test_every_row_of_the_reference_page_has_its_four_cells() -> None:
    """A ``|`` in a Markdown table row ends a cell even inside a code span (GFM, markdown-it, MyST), unless escaped:
    an option whose value is ``1|2`` or ``text|json|csv`` lost its default and its meaning on the rendered page."""
    rows = [line for line in page().splitlines() if line.startswith("| `")]
    assert len(rows) > 150
    for line in rows:
        assert len(re.split(r"(?<!\\)\|", line)) == 6, line  # (4 cells between 5 pipes)


def test_the_reference_page_has_every_command_and_option() -> None:
    text = page()
    assert {name.split()[0] for name, _ in _leaves()} == set(COMMANDS)
    for name, parser in _leaves():
        assert f"## `d3d12wl {name}`" in text
        for action in parser._actions:
            for spelling in action.option_strings:
                if spelling not in ("-h", "--help"):
                    assert f"`{spelling}`" in text, (name, spelling)


# --- did you mean -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "said"), [
    (["dumpp"], "invalid command: 'dumpp' (did you mean 'dump'?)"),
    (["exec", "--fromat", "csv"], "unrecognized arguments: --fromat (did you mean --format?)"),
    (["exec", "--format", "cvs"], "invalid choice: 'cvs' (did you mean 'csv'?)"),
    (["dump", "--format", "csv"], "--format is an option of d3d12wl decode, d3d12wl exec, d3d12wl patch-list"),
    (["codegen", str(CULLING), "--lang", "hsl"], "(did you mean 'hlsl'?)"),
    (["layout"], "the following arguments are required: DESC.json (see 'd3d12wl layout --help')"),
])
def test_usage_errors_say_what_to_type(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and said in captured.err and not captured.out


def test_a_usage_error_under_json_is_the_error_object(capsys: pytest.CaptureFixture[str]) -> None:
    """README/docs: exit 2 with --json prints {kind, message, where, rule}, usage errors included."""
    with pytest.raises(SystemExit) as exit_:
        main(["exec", "--format", "cvs", "--json"])
    got = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 2
    assert got == {"kind": "UsageError", "message": got["message"], "where": "--format", "rule": None}
    assert "did you mean 'csv'" in got["message"]
    with pytest.raises(SystemExit):
        main(["exec", "--fromat", "csv", "--json"])
    assert json.loads(capsys.readouterr().out)["where"] == "--fromat"


@pytest.mark.parametrize(("argv", "where"), [
    (["dumpp", "--json"], "COMMAND"),
    (["--json"], "COMMAND"),
    (["migrate", "--json"], "DIRECTION"),
    (["messages", "chek", "--json"], "SUBCOMMAND"),
])
def test_a_mistyped_or_missing_command_under_json_is_the_error_object(argv: list[str], where: str,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md "Mistakes answered": a usage error under --json is the error object, also before a command that
    has --json is reached (every command has it, so a script that passes it reads JSON whatever it mistyped)."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    captured = capsys.readouterr()
    got = json.loads(captured.out)
    assert exit_.value.code == 2 and got["kind"] == "UsageError" and got["where"] == where, got
    assert "error:" in captured.err


@pytest.mark.parametrize(("argv", "where"), [
    (["layout", "--json"], "DESC.json"),
    (["capture", "--json", "--dispatch-list", "0x10000"], "DESC.json, REGION, -o/--output"),
    (["capture", "d.json", "r=zeros:8@0", "-o", "c.json", "--json"],
     "--dispatch-list --dispatch-list1 --execute-indirect"),
])
def test_a_usage_error_under_json_names_the_missing_arguments(argv: list[str], where: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 38 item 2: the error object's ``where`` of "the following arguments are required" (argparse's words)
    names them, as it names the flag of a bad value: a program reading it need not parse the message."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    got = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 2 and got["kind"] == "UsageError" and got["where"] == where, got


def _description_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: dict[str, object]) -> str:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 2
    return capsys.readouterr().err


def test_an_enum_name_gets_its_d3d12_meaning_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The spec's culling PCS ("GPU culling and work list emission": a root SRV and a DRAW from the secondary
    record) with the D3D12 names a programmer types: DRAW_INSTANCED is the call whose arguments DRAW holds
    (IndirectDrawing.md "Overview"), not the closer spelling DRAW_INDEXED; SRV as an argument Type is
    SHADER_RESOURCE_VIEW, as CBV is CONSTANT_BUFFER_VIEW; CONSTANT_BUFFER_VIEW as a ParameterType is CBV."""
    doc = json.loads(CULLING.read_text())
    pcs = doc["program_command_signatures"]["PCS"]["pArgumentDescs"]
    types = [a["Type"] for a in pcs]
    pcs[types.index("SHADER_RESOURCE_VIEW")]["Type"] = "SRV"
    pcs[types.index("DRAW")]["Type"] = "DRAW_INSTANCED"
    err = _description_error(tmp_path, capsys, doc)
    assert "'DRAW_INSTANCED' is not a D3D12_INDIRECT_ARGUMENT_TYPE member" in err and "(did you mean 'DRAW'?)" in err
    assert "(did you mean 'SHADER_RESOURCE_VIEW'?)" in err
    cbv = {"program_command_signatures": {"P": {"pArgumentDescs": [{"Type": "CBV", "Source": "PRIMARY_RECORD"}]}},
           "root_signatures": {"R": {"pParameters": [{"ParameterType": "CONSTANT_BUFFER_VIEW"}]}}}
    err = _description_error(tmp_path, capsys, cbv)
    assert "'CBV' is not a D3D12_INDIRECT_ARGUMENT_TYPE member" in err
    assert "(did you mean 'CONSTANT_BUFFER_VIEW'?)" in err and "(did you mean 'CBV'?)" in err


@pytest.mark.parametrize(("argv", "said"), [
    (["decode", str(CULLING), "PCS.primary_record", "/dev/null"], "(did you mean 'PCS.primary'?)"),
    (["decode", str(CULLING), "PSC.secondary", "/dev/null"], "(did you mean 'PCS.secondary'?)"),
    (["decode", str(CULLING), "D3D12_DISPATCH_LIST_INPT", "/dev/null"], "(did you mean 'D3D12_DISPATCH_LIST_INPUT'?)"),
    (["codegen", str(CULLING), "--lang", "c", "--record", "PCS.secondary_record"], "(did you mean 'PCS.secondary'?)"),
    (["capture", str(EI), "a=zeros:64@0x1000", "--execute-indirect", "RootConstantsAndVertexBufers",
      "--argument-buffer", "a", "-o", "-"], "(did you mean 'RootConstantsAndVertexBuffers'?)"),
    (["dump", "--program", "Opaqe"], "no program 'Opaqe' in the capture (did you mean 'Opaque'?)"),
    (["exec", "--program", "shadow"], "(did you mean 'Shadow'?)"),
    (["exec", "--kind", "misaligned"], "(did you mean 'misaligned-va'?)"),
    (["codegen", str(CULLING), "--lang", "renderdoc", "--struct", "D3D12_DRAW_ARGUMENT"],
     "(did you mean 'D3D12_DRAW_ARGUMENTS'?)"),
])
def test_record_and_object_names_get_a_did_you_mean(argv: list[str], said: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A record class by the spec's Source name (D3D12_INDIRECT_ARGUMENT_SOURCE_PRIMARY_RECORD reads PCS.primary),
    a misspelt record, struct, command signature, program (spec culling example: Opaque, Transparent, Shadow; a
    program no capture has selected nothing before, silently) or finding kind."""
    assert main(argv) == 2
    assert said in capsys.readouterr().err
