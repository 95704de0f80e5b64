"""The command-line examples of docs/check.md and docs/report.md run as written (their Python examples run in
tests/test_doc_examples.py): each page's ``console`` blocks in order, in one empty working folder, each ``$`` line in
``bash`` as a user types it (``d3d12wl`` this interpreter's ``python -m d3d12wl``; a ``$ export NAME=VALUE`` line
sets NAME for the lines after it), with the exit status the page states (``# exit N``, default 0) and the output
lines it shows: the words of a shown line are the first words of an output line (a line ending in ``...`` may have
more), ``$NAME`` expanded; a line ``...`` stands for lines not shown.  The CI configurations' ``d3d12wl check`` lines
(the ``yaml`` blocks) parse as the command line parses them, their shard variables set."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from d3d12wl.cli import build_parser
from d3d12wl.verdicts.discover import parse_shard

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "docs" / "check.md", ROOT / "docs" / "report.md"]
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(path: Path, lang: str) -> list[str]:
    return [body for kind, body in _BLOCK.findall(path.read_text(encoding="utf-8")) if kind == lang]


def _examples(path: Path) -> list[tuple[str, int, list[str]]]:
    out: list[tuple[str, int, list[str]]] = []
    for body in _blocks(path, "console"):
        for line in body.splitlines():
            if line.startswith("$ "):
                command, _, code = line[2:].partition("  # exit ")
                out.append((command.strip(), int(code) if code else 0, []))
            elif out and line.strip():
                out[-1][2].append(line.rstrip())
    return out


def _shown(expected: str, out: list[list[str]], env: dict[str, str]) -> bool:
    prefix = expected.endswith("...")
    words = [re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), m.group(0)), w)
             for w in expected.removesuffix("...").split()]
    return any(line[: len(words)] == words and (prefix or len(line) == len(words)) for line in out)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_console_examples_run_as_written(page: Path, tmp_path: Path) -> None:
    examples = _examples(page)
    assert examples, page
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "d3d12wl"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m d3d12wl "$@"\n')
    script.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for command, code, shown in examples:
        if command.startswith("export "):
            name = command.removeprefix("export ").partition("=")[0]
            done = subprocess.run(["bash", "-c", f'{command} && printf %s "${name}"'], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0 and done.stdout, (command, done.stderr)
            env[name] = done.stdout
            continue
        done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == code, (command, done.stdout, done.stderr)
        out = [line.split() for line in done.stdout.splitlines()]
        for expected in shown:
            if expected.strip() != "...":
                assert _shown(expected, out, env), (command, expected, done.stdout)


def test_the_ci_configurations_give_check_what_it_reads() -> None:
    """GitLab's $CI_NODE_INDEX/$CI_NODE_TOTAL and a GitHub matrix's shard make a --shard I/N; every flag exists."""
    lines = [line.strip().removeprefix("- ").removeprefix("run: ") for body in _blocks(PAGES[0], "yaml")
             for line in body.splitlines() if "d3d12wl check" in line]
    assert len(lines) == 2
    parser = build_parser()
    for line in lines:
        for index in (1, 4):
            text = (line.replace("$CI_NODE_INDEX", str(index)).replace("$CI_NODE_TOTAL", "4")
                    .replace("${{ matrix.shard }}", str(index)))
            args = parser.parse_args(shlex.split(text)[1:])
            assert args.command == "check" and parse_shard(args.shard).index == index
            assert args.junit == f"junit-{index}.xml" and args.output_dir == "pages" and args.baseline
