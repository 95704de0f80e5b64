"""No private name crosses a module boundary (issue 39): what another module uses is public.

A name that starts with one underscore (``_Collector``, ``_write_blocks``) belongs to its module; a module whose
name starts with one (``_frozen``, ``_options``) belongs to its stage (docs/ARCHITECTURE.md: "A module whose name
starts with ``_`` is private to its stage"; one the stage table itself names, ``d3d12wl._version``, is a face of its
stage).  Over every module of the package, this holds:

* ``from M import _x``: only where ``_x`` is a private module of the importer's own stage;
* ``import M._x`` / ``from M._x import y``: likewise;
* ``m._x`` where ``m`` names an imported d3d12wl module: never (the module's private name is reached from outside).
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layering import ARCHITECTURE, module_names, outside, stage_of, stage_table


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _stage_key(module: str, stages: dict[str, int]) -> str:
    """The stage a module is of, as its package (a module outside the stages is its own)."""
    best = max((p for p in stages if module == p or module.startswith(p + ".")), key=len, default=None)
    if best is None or outside(module):
        return module
    return f"stage {stage_of(module, stages)}"


def _resolve(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def crossings(name: str, path: Path, source: str, modules: dict[str, Path], stages: dict[str, int]) -> list[str]:
    """Every private name module ``name`` reaches in another module."""
    mine = _stage_key(name, stages)
    is_package = path.name == "__init__.py"
    out: list[str] = []

    def private_module(target: str, line: int) -> None:
        parts = target.split(".")
        for i, part in enumerate(parts[1:], start=1):
            module = ".".join(parts[: i + 1])
            if module in stages:  # a module the stage table names is its stage's face (d3d12wl._version)
                continue
            if _private(part) and _stage_key(module, stages) != mine:
                out.append(f"{path.name}:{line}: {name} imports {'.'.join(parts[: i + 1])}, private to its stage")
                return

    def visit(node: ast.AST, aliases: dict[str, str]) -> None:
        """``node``'s subtree, with ``aliases``: the local names bound to d3d12wl modules in its scope (a
        function's own imports, parameters and assignments make a scope of their own)."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = dict(aliases)
                args = child.args
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if a is not None:
                        inner.pop(a.arg, None)
                for sub in ast.walk(child):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        inner.pop(sub.id, None)
                visit(child, inner)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("d3d12wl"):
                        private_module(alias.name, child.lineno)
                        if alias.asname:
                            aliases[alias.asname] = alias.name
            elif isinstance(child, ast.ImportFrom):
                target = _resolve(name, is_package, child)
                if target.startswith("d3d12wl"):
                    private_module(target, child.lineno)
                    for alias in child.names:
                        sub = f"{target}.{alias.name}"
                        if sub in modules:  # a submodule
                            private_module(sub, child.lineno)
                            aliases[alias.asname or alias.name] = sub
                        elif _private(alias.name) and target != name:
                            out.append(f"{path.name}:{child.lineno}: {name} imports {alias.name} from {target}")
            elif isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name) and \
                    child.value.id in aliases and _private(child.attr) and aliases[child.value.id] != name:
                target = f"{aliases[child.value.id]}.{child.attr}"
                if target in modules:
                    private_module(target, child.lineno)
                else:
                    out.append(f"{path.name}:{child.lineno}: {name} reads {child.attr} of {aliases[child.value.id]}")
            visit(child, aliases)

    visit(ast.parse(source), {})
    return out


def test_no_private_name_crosses_a_module() -> None:
    stages = stage_table(ARCHITECTURE.read_text(encoding="utf-8"))
    modules = module_names()
    found = []
    for name, path in modules.items():
        found += crossings(name, path, path.read_text(encoding="utf-8"), modules, stages)
    assert not found, "private names used across modules (make them public):\n" + "\n".join(found)


def test_the_check_finds_what_it_forbids() -> None:
    """The check itself: each form it forbids is found, each it allows is not."""
    stages = {"d3d12wl.a": 1, "d3d12wl.b": 2}
    modules = {n: Path(n.replace(".", "/") + ".py") for n in ("d3d12wl.a.x", "d3d12wl.a._p", "d3d12wl.b.y",
                                                              "d3d12wl.a", "d3d12wl.b")}
    source = ("from d3d12wl.a.x import _hidden, shown\n"
              "from d3d12wl.a import x, _p\n"
              "import d3d12wl.a.x as ax\n"
              "ax._inner()\n"
              "x.public()\n"
              "from d3d12wl.a._p import thing\n")
    found = crossings("d3d12wl.b.y", Path("d3d12wl/b/y.py"), source, modules, stages)
    assert sorted(f.split(": ", 1)[1] for f in found) == [
        "d3d12wl.b.y imports _hidden from d3d12wl.a.x",
        "d3d12wl.b.y imports d3d12wl.a._p, private to its stage",
        "d3d12wl.b.y imports d3d12wl.a._p, private to its stage",
        "d3d12wl.b.y reads _inner of d3d12wl.a.x",
    ]
    shadowed = "from d3d12wl.a import x\ndef f(x):\n    return x._own\n"  # (a parameter, not the module)
    assert crossings("d3d12wl.b.y", Path("d3d12wl/b/y.py"), shadowed, modules, stages) == []
    assert crossings("d3d12wl.a.x", Path("d3d12wl/a/x.py"), "from d3d12wl.a import _p\nfrom d3d12wl.a._p import t\n",
                     modules, stages) == []
