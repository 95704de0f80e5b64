"""The stages of docs/ARCHITECTURE.md hold: every import of every module points to its own stage or an earlier one,
and no modules import each other in a cycle (not even under TYPE_CHECKING or inside a function)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import d3d12wl

PACKAGE = Path(d3d12wl.__file__).resolve().parent
ARCHITECTURE = PACKAGE.parent / "docs" / "ARCHITECTURE.md"

#: modules outside the stages (docs/ARCHITECTURE.md, "Outside the stages")
OUTSIDE = ("d3d12wl", "d3d12wl.__main__", "d3d12wl.examples")


def stage_table(text: str) -> dict[str, int]:
    """package -> stage, from the ``| stage | package | ...`` table."""
    stages: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            for name in re.findall(r"`(d3d12wl[\w.]*)`", m.group(2)):
                stages[name] = int(m.group(1))
    return stages


def module_names() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports_of(name: str, path: Path, source: str, modules: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """Every d3d12wl module ``name`` imports (at any depth of the file), with the line."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("d3d12wl"):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("d3d12wl"):
                continue
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{target}.{alias.name}"
                yield (sub if sub in modules else target), node.lineno


def stage_of(name: str, stages: dict[str, int]) -> int | None:
    best = max((p for p in stages if name == p or name.startswith(p + ".")), key=len, default=None)
    return stages[best] if best is not None else None


def outside(name: str) -> bool:
    return name == "d3d12wl" or any(name == o or name.startswith(o + ".") for o in OUTSIDE[1:])


def violations(stages: dict[str, int], sources: dict[str, tuple[Path, str]]) -> list[str]:
    modules = {n: p for n, (p, _) in sources.items()}
    out = []
    for name, (path, source) in sources.items():
        if outside(name):
            continue
        mine = stage_of(name, stages)
        if mine is None:
            out.append(f"{name}: in no stage of docs/ARCHITECTURE.md")
            continue
        for target, line in imports_of(name, path, source, modules):
            theirs = stage_of(target, stages)
            if target == "d3d12wl":
                out.append(f"{path.name}:{line}: {name} imports the top-level package (an entry-point facade)")
            elif theirs is not None and theirs > mine:
                out.append(f"{path.name}:{line}: {name} (stage {mine}) imports {target} (stage {theirs})")
    return out


def cycles(sources: dict[str, tuple[Path, str]]) -> list[list[str]]:
    modules = {n: p for n, (p, _) in sources.items()}
    graph = {n: {t for t, _ in imports_of(n, p, s, modules) if t in modules and t != n}
             for n, (p, s) in sources.items() if not outside(n)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def _sources() -> dict[str, tuple[Path, str]]:
    return {n: (p, p.read_text(encoding="utf-8")) for n, p in module_names().items()}


@pytest.fixture(scope="module")
def stages() -> dict[str, int]:
    table = stage_table(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(set(table.values())) == 15, table  # the foundation and fourteen stages
    return table


def test_the_package_top_holds_only_the_foundation(stages: dict[str, int]) -> None:
    """Every module at the package top (besides ``__init__`` and ``__main__``) is a foundation module of stage 0,
    and there are at most six of them: the output machinery and everything else live in their stage's folder."""
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    top += sorted(p.name.split(".")[0] for p in PACKAGE.glob("*.so"))
    assert len(top) <= 6, top
    assert all(stages.get(f"d3d12wl.{name}") == 0 for name in top), (top, stages)


def test_every_import_points_to_its_own_stage_or_below(stages: dict[str, int]) -> None:
    assert violations(stages, _sources()) == []


def test_no_import_cycles() -> None:
    assert cycles(_sources()) == []


def test_every_stage_package_exists_and_has_a_public_face(stages: dict[str, int]) -> None:
    modules = module_names()
    for name in stages:
        assert name in modules or name == "d3d12wl._native", name
        if modules.get(name, Path()).name == "__init__.py":
            init = ast.parse(modules[name].read_text(encoding="utf-8"))
            assert ast.get_docstring(init), f"{name}/__init__.py says what it holds"
            assert any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets)
                       for n in init.body), f"{name}/__init__.py names its public face (__all__)"


def test_an_upward_import_is_caught(stages: dict[str, int]) -> None:
    """The check fails when a module imports from a stage above its own (tried: the layout calculator importing
    the executor, a foundation module importing abi) and when two modules import each other."""
    sources = _sources()
    path, source = sources["d3d12wl.records.layout"]
    sources["d3d12wl.records.layout"] = (path, source + "\n\ndef _f() -> None:\n    from d3d12wl.executor import trace\n")
    path, source = sources["d3d12wl.errors"]
    sources["d3d12wl.errors"] = (path, source + "\nif TYPE_CHECKING:\n    from d3d12wl import abi\n")
    found = violations(stages, sources)
    assert any("d3d12wl.records.layout (stage 4) imports d3d12wl.executor.trace (stage 8)" in v for v in found)
    assert any("d3d12wl.errors (stage 0) imports d3d12wl.abi (stage 2)" in v for v in found)
    path, source = sources["d3d12wl.model.argtypes"]
    sources["d3d12wl.model.argtypes"] = (path, source + "\nfrom d3d12wl.model.objects import ObjectSet\n")
    assert ["d3d12wl.model.argtypes", "d3d12wl.model.objects"] in cycles(sources)


def _type_checking_imports(init: Path) -> dict[str, str]:
    typed = {}
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                typed[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return typed


def test_entry_points_resolve_and_agree_with_the_type_checking_imports() -> None:
    typed = _type_checking_imports(PACKAGE / "__init__.py")
    assert {k: typed.get(k) for k in d3d12wl.ENTRY_POINTS} == d3d12wl.ENTRY_POINTS
    for name in d3d12wl.ENTRY_POINTS:
        assert callable(getattr(d3d12wl, name)), name
    with pytest.raises(AttributeError):
        d3d12wl.no_such_entry_point  # noqa: B018


def test_the_importers_exports_resolve_agree_with_the_type_checking_imports_and_load_when_used() -> None:
    """d3d12wl.importers imports a module when one of its names is first used, so that asking
    d3d12wl.importers.recognize what a file is (every command's error path, each file check skips) costs no
    importer: held in a fresh interpreter."""
    import d3d12wl.importers as importers

    typed = _type_checking_imports(PACKAGE / "importers" / "__init__.py")
    assert {k: typed.get(k) for k in importers.EXPORTS} == importers.EXPORTS
    assert set(importers.__all__) == set(importers.EXPORTS) <= set(dir(importers))
    for name, target in importers.EXPORTS.items():
        module, attr = target.split(":")
        assert getattr(importers, name) is getattr(importlib.import_module(module), attr), name
    with pytest.raises(AttributeError):
        importers.no_such_name  # noqa: B018
    probe = ("import sys; from d3d12wl.importers import recognize; "
             "print(' '.join(sorted(m for m in sys.modules if m.startswith('d3d12wl.importers.'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    # recognize and what it reads with (the block scanner, its error), no importer
    assert loaded.stdout.split() == [f"d3d12wl.importers.{m}" for m in ("errors", "json_blocks", "recognize")]
