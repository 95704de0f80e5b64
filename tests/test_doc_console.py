"""Every command the README and the documentation site show is run: each ``console`` block's ``$ d3d12wl ...``
command runs with the exit code the page states (``# exit N`` after the command, default 0) and prints each output
line the page shows under it (lines that end in ``...`` are prefixes).  (The Python blocks run in
``test_doc_examples.py``.)

The pages run in the order a reader meets them (the README, then the site's tables of contents in ``index.md``), in
one working directory that mirrors the checkout (a symbolic link to each of its top-level entries), so an example
may write a file (``d3d12wl capture ... -o readback_capture.json``) that a later one, on its page or a later page,
reads, without writing into the checkout.  Each runs in ``bash`` as a user types it, ``d3d12wl`` being this
interpreter's ``python -m d3d12wl``, with ``$EXAMPLES`` naming the bundled examples (``d3d12wl examples --path``, as
docs/cli.md has every page assume); a ``$ export NAME=VALUE`` line sets NAME for the commands after it."""

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

from d3d12wl import examples

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
_TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", re.S | re.M)


def listed_pages() -> list[Path]:
    """The pages of index.md's tables of contents, in their order (the site's navigation)."""
    return [DOCS / f"{line.strip()}.md" for body in _TOCTREE.findall((DOCS / "index.md").read_text())
            for line in body.splitlines() if line.strip() and not line.startswith(":")]


def pages() -> list[Path]:
    """The README, then the site's pages in the order of index.md's tables of contents, then any other page."""
    listed = listed_pages()
    rest = sorted(p for p in DOCS.glob("*.md") if p not in listed)
    return [ROOT / "README.md", DOCS / "index.md", *listed, *rest]


def test_every_page_is_in_the_navigation() -> None:
    """A page is added to the site by one line in a table of contents of docs/index.md (Sphinx's strict build in
    .ci/run fails on a page in none; this says so without Sphinx installed)."""
    listed = listed_pages()
    assert all(p.is_file() for p in listed), [p.name for p in listed if not p.is_file()]
    unlisted = sorted(p.name for p in DOCS.glob("*.md") if p not in listed and p.name != "index.md")
    assert not unlisted, f"add {', '.join(unlisted)} to a toctree in docs/index.md"


def test_every_table_row_has_its_header_s_cells() -> None:
    """A ``|`` ends a Markdown table's cell even inside a code span (GFM; markdown-it, which the site's MyST uses),
    and a row's cells past the header's are dropped: docs/cli.md's exit-status table lost the rest of exit 2's
    meaning at "as `| head`".  Write ``\\|`` in a cell."""
    for path in pages():
        in_fence, header = False, None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                in_fence = not in_fence
            if in_fence or not line.startswith("|"):
                header = None
                continue
            cells = len(re.split(r"(?<!\\)\|", line))
            header = cells if header is None else header
            assert cells == header, f"{path.name}:{number}: {cells - 2} cells, the header has {header - 2}"


def _console_examples(path: Path) -> list[tuple[str, int, list[str]]]:
    examples_: list[tuple[str, int, list[str]]] = []
    for kind, body in _BLOCK.findall(path.read_text(encoding="utf-8")):
        if kind != "console":
            continue
        current: tuple[str, int, list[str]] | None = None
        for line in body.splitlines():
            if line.startswith("$ "):
                if current:
                    examples_.append(current)
                command, _, comment = line[2:].partition("  # exit ")
                current = (command.strip(), int(comment) if comment else 0, [])
            elif current and line.strip():
                current[2].append(line.rstrip())
        if current:
            examples_.append(current)
    return [e for e in examples_ if e[0].startswith(("d3d12wl ", "export "))]


EXAMPLES = [(path, *example) for path in pages() for example in _console_examples(path)]


def test_the_pages_have_examples() -> None:
    assert len(_console_examples(ROOT / "README.md")) >= 3
    assert len(EXAMPLES) >= 40
    assert (DOCS / "cli-reference.md") in pages() and (DOCS / "ARCHITECTURE.md") in pages()


#: tools an example needs, by an option it uses (the header check compiles with them)
_NEEDS = {"--header": ("clang",), "--hlsl": ("glslc", "spirv-dis")}


def _require_tools(command: str) -> None:
    words = shlex.split(command, comments=True)
    missing = [t for opt, tools in _NEEDS.items() if opt in words for t in tools if not shutil.which(t)]
    # (a system header an example checks, DirectX-Headers' /usr/include/directx/d3d12.h: directx-headers-dev)
    missing += [w for w in words if w.startswith("/usr/include/") and not Path(w).is_file()]
    require(not missing, f"{', '.join(missing)} not installed")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that looks like the checkout (links to its top-level entries) for the examples to write in."""
    work = tmp_path_factory.mktemp("docs")
    for entry in ROOT.iterdir():
        (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return work


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory: pytest.TempPathFactory, workdir: Path) -> dict[str, str]:
    """The environment the commands run in: ``d3d12wl`` on the path (a script running ``python -m d3d12wl`` with
    this interpreter), ``$EXAMPLES``, and every variable the pages' ``export`` lines set, in their order (so a
    command selected alone with ``-k`` sees them too)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "d3d12wl"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m d3d12wl "$@"\n')
    script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "EXAMPLES": str(examples.path("culling.json").parent)}
    for _, command, _, _ in EXAMPLES:
        if command.startswith("export "):
            name = command.removeprefix("export ").partition("=")[0]
            result = subprocess.run(["bash", "-c", f'{command} && printf %s "${name}"'], cwd=workdir, env=env,
                                    capture_output=True, text=True, timeout=120)
            assert result.returncode == 0 and result.stdout, (command, result.stderr)
            env[name] = result.stdout
    return env


@pytest.mark.parametrize(("page", "command", "exit_code", "shown"), EXAMPLES,
                         ids=[f"{p.name}:{c[:50]}" for p, c, _, _ in EXAMPLES])
def test_console_example(page: Path, command: str, exit_code: int, shown: list[str], workdir: Path,
                         shell_env: dict[str, str]) -> None:
    if command.startswith("export "):  # (run by shell_env: the variable it sets names something)
        assert Path(shell_env[command.removeprefix("export ").partition("=")[0]]).exists()
        return
    _require_tools(command)
    result = subprocess.run(["bash", "-c", command], cwd=workdir, env=shell_env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == exit_code, result.stdout + result.stderr
    assert "warning: " not in result.stderr or "is now" not in result.stderr, "an example uses an old spelling"
    out = [line.rstrip() for line in result.stdout.splitlines()]
    for expected in shown:
        if expected.strip() == "...":
            continue
        if expected.endswith("..."):
            assert any(line.startswith(expected[:-3].rstrip()) for line in out), (expected, result.stdout)
        else:
            assert expected in out, (expected, result.stdout)
