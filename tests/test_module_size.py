"""No module of the executor is over 1,000 lines (issue 39): past that, a module holds more than one subsystem and
its docstring describes one of them (``columnar.py`` held five at 1,969 lines; ``dispatch_list.py``, at 1,210, held
the record walk, SetProgram's binding, the watched memory writes and the end-of-call reset beside the spec's ten
steps).  Split such a module by what it holds, into modules named for it (docs/ARCHITECTURE.md, stage 8)."""

from __future__ import annotations

from pathlib import Path

from test_layering import PACKAGE

#: the most lines an executor module may have
LIMIT = 1000


def lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_no_executor_module_is_over_the_limit() -> None:
    modules = sorted((PACKAGE / "executor").rglob("*.py"))
    assert len(modules) > 30  # (the stage's modules are found)
    over = {str(p.relative_to(PACKAGE.parent)): n for p in modules if (n := lines(p)) > LIMIT}
    assert not over, f"executor modules over {LIMIT} lines (split them by what they hold): {over}"


def test_lines_counts_every_line(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("a = 1\n" * LIMIT + "b = 2")  # (the last line without its newline counts too)
    assert lines(path) == LIMIT + 1
