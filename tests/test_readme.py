"""The README's examples are tested: every ``console`` block's ``$ d3d12wl ...`` command runs with the exit code the
README states (``# exit N`` after the command, default 0) and prints each output line the README shows under it
(lines that end in ``...`` are prefixes); every ``python`` block runs, in order, in one namespace, and the
``test_*`` functions a block defines (a pytest example) are called.

The console commands run in order in one working directory that mirrors the checkout (a symbolic link to each of
its top-level entries), so an example may write a file (``d3d12wl capture ... -o readback_capture.json``) that a
later one reads, without writing into the checkout.  Each runs in ``bash`` as a user types it (``"$EXAMPLES/..."``
expanded), ``d3d12wl`` being this interpreter's ``python -m d3d12wl``; a ``$ export NAME=VALUE`` line sets NAME for
the commands after it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [body for kind, body in _BLOCK.findall(README.read_text(encoding="utf-8")) if kind == lang]


def _console_examples() -> list[tuple[str, int, list[str]]]:
    examples: list[tuple[str, int, list[str]]] = []
    for body in _blocks("console"):
        current: tuple[str, int, list[str]] | None = None
        for line in body.splitlines():
            if line.startswith("$ "):
                if current:
                    examples.append(current)
                command, _, comment = line[2:].partition("  # exit ")
                current = (command.strip(), int(comment) if comment else 0, [])
            elif current and line.strip():
                current[2].append(line.rstrip())
        if current:
            examples.append(current)
    return [e for e in examples if e[0].startswith(("d3d12wl ", "export "))]


def test_readme_has_examples() -> None:
    assert len(_console_examples()) >= 6
    assert _blocks("python")


#: tools an example needs, by an option it uses (the header check compiles with them)
_NEEDS = {"--header": ("clang",), "--hlsl": ("glslc", "spirv-dis")}


def _require_tools(command: str) -> None:
    missing = [t for opt, tools in _NEEDS.items() if opt in shlex.split(command) for t in tools if not shutil.which(t)]
    require(not missing, f"{', '.join(missing)} not installed")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that looks like the checkout (links to its top-level entries) for the examples to write in."""
    work = tmp_path_factory.mktemp("readme")
    for entry in ROOT.iterdir():
        (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return work


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory: pytest.TempPathFactory, workdir: Path) -> dict[str, str]:
    """The environment the commands run in: ``d3d12wl`` on the path (a script running ``python -m d3d12wl`` with
    this interpreter), and every variable the README's ``export`` lines set, in their order (so a command selected
    alone with ``-k`` sees them too)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "d3d12wl"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m d3d12wl "$@"\n')
    script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for command, _, _ in _console_examples():
        if command.startswith("export "):
            name = command.removeprefix("export ").partition("=")[0]
            result = subprocess.run(["bash", "-c", f'{command} && printf %s "${name}"'], cwd=workdir, env=env,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 0 and result.stdout, (command, result.stderr)
            env[name] = result.stdout
    return env


@pytest.mark.parametrize(("command", "exit_code", "shown"), _console_examples(), ids=lambda v: str(v)[:60])
def test_readme_console_example(command: str, exit_code: int, shown: list[str], workdir: Path,
                                shell_env: dict[str, str]) -> None:
    if command.startswith("export "):  # (run by shell_env: the variable it sets names something)
        assert Path(shell_env[command.removeprefix("export ").partition("=")[0]]).exists()
        return
    _require_tools(command)
    result = subprocess.run(["bash", "-c", command], cwd=workdir, env=shell_env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == exit_code, result.stdout + result.stderr
    out = [line.rstrip() for line in result.stdout.splitlines()]
    for expected in shown:
        if expected.strip() == "...":
            continue
        if expected.endswith("..."):
            assert any(line.startswith(expected[:-3].rstrip()) for line in out), (expected, result.stdout)
        else:
            assert expected in out, (expected, result.stdout)


def test_readme_python_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    ran: set[str] = set()
    for body in _blocks("python"):
        if "header_check" in body:  # compiles with clang (and glslc for the HLSL)
            _require_tools("--header --hlsl")
        exec(compile(body, str(README), "exec"), namespace)  # noqa: S102 - the README's own examples
        for name in [n for n in namespace if n.startswith("test_") and n not in ran]:  # a pytest example's tests
            ran.add(name)
            test = namespace[name]
            assert callable(test), name
            test()
