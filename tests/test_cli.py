"""The ``d3d12wl`` dispatcher: every command the README documents is registered; ``--version`` says which."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import d3d12wl
from d3d12wl._version import SPECS_LINE
from d3d12wl.cli import ALL, COMMANDS, build_parser, main


def test_every_command_is_registered(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert set(COMMANDS) == {"abi", "layout", "validate", "codegen", "decode", "capture", "dump", "exec", "messages",
                             "headers", "examples", "migrate", "diff", "patch-list", "remap", "import", "check",
                             "report"}
    assert all(f"    {name} " in out for name in COMMANDS), out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """``--version`` says the package version and the spec versions it implements (issue 43: Work Lists v0.851)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    out = capsys.readouterr().out.strip()
    assert exit_info.value.code == 0 and out == f"d3d12wl {d3d12wl.__version__} ({SPECS_LINE})"
    assert "Work Lists v0.851" in out and "driver-reported messages v0.3" in out


#: what plain text --help must not hold: reST markup, and files the wheel does not ship (docs, design notes, specs)
_NOT_PLAIN = re.compile(r"``|:(func|meth|mod|class|data|attr):|\b[\w./-]+\.md\b|\bdocs/")


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_is_plain_text(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"] if command else ["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: d3d12wl") and not _NOT_PLAIN.search(out), _NOT_PLAIN.search(out)


def test_help_imports_no_command_module() -> None:
    """``d3d12wl --help`` lists the commands from their summaries; only a command that runs is imported."""
    code = ("import sys\nfrom d3d12wl.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('d3d12wl.') and m.endswith('_cmd')), "
            "'numpy' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[] False"
    assert all(f"    {name} " in done.stdout for name in COMMANDS)


@pytest.mark.parametrize("chosen", [None, "4"])
def test_a_command_that_owns_its_process_starts_one_blas_thread(chosen: str | None) -> None:
    """No command does linear algebra: the command line (argv None, the process's own) sets OpenBLAS to one
    thread before numpy is imported, unless the environment chose a number."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if chosen is not None:
        env["OPENBLAS_NUM_THREADS"] = chosen
    code = ("import os, sys\nsys.argv = ['d3d12wl', 'layout', 'd3d12wl/examples/culling.json']\n"
            "from d3d12wl.cli import main\nmain()\n"
            "print('numpy' in sys.modules, os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 0, done.stderr
    assert done.stderr.split()[-2:] == ["True", chosen or "1"]


def test_every_command_module_imports_and_registers() -> None:
    """A broken install fails loudly: every command's module is there and registers its subcommand."""
    parser = build_parser(ALL)
    for name in COMMANDS:
        args = parser.parse_args([name, *_FIRST_ARGUMENT.get(name, [])])
        assert callable(args.func), name


#: a first argument each command needs to parse
_FIRST_ARGUMENT = {"layout": ["x.json"], "validate": ["x.json"], "codegen": ["x.json", "--lang", "c"],
                   "decode": ["x.json", "PCS.primary", "x.bin"],
                   "capture": ["x.json", "-o", "o.json", "--dispatch-list", "0x0"],
                   "messages": ["check"],
                   "migrate": ["scene", "--output-dir", "x"], "diff": ["a.json", "b.json"], "patch-list": ["c.json"],
                   "remap": ["c.json", "--va-map", "m.csv", "-o", "o.json"],
                   "import": ["gits", "d.txt", "--output-dir", "o"], "check": ["frames"]}
