"""Names the executor renamed stay importable for one release, with a ``DeprecationWarning`` that says the new name
(``d3d12wl.executor.list_run.RENAMED``): ``Selection``, the signature and binding a list selected (spec "Signature
Selection"), is ``SignatureSelection`` since it shared its name with ``executor.selection.Selection``, what an output
shows of a trace (issue 39)."""

from __future__ import annotations

import ast
import importlib
import warnings

import pytest
from test_layering import PACKAGE

import d3d12wl
from d3d12wl import executor
from d3d12wl.executor import SignatureSelection
from d3d12wl.executor.list_run import RENAMED


def test_the_old_name_imports_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"d3d12wl\.executor\.Selection is renamed SignatureSelection .*"
                                                r"removed in d3d12wl 0\.4\.0") as caught:
        from d3d12wl.executor import Selection  # type: ignore[attr-defined]
    assert Selection is SignatureSelection
    assert all(w.category is DeprecationWarning for w in caught)
    with pytest.warns(DeprecationWarning):
        assert importlib.import_module("d3d12wl.executor").Selection is SignatureSelection


def test_the_new_name_and_every_other_name_import_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from d3d12wl.executor import ListRun, SignatureSelection, ValidationHooks  # noqa: F401
        for name in executor.__all__:
            getattr(executor, name)
    assert "SignatureSelection" in executor.__all__ and "Selection" not in executor.__all__
    with pytest.raises(AttributeError, match="module 'd3d12wl.executor' has no attribute 'Selections'"):
        executor.Selections  # type: ignore[attr-defined]  # noqa: B018


def test_an_old_name_is_gone_by_the_release_that_removes_it() -> None:
    """The release that reaches an old name's removal version must delete it from RENAMED (and this test's
    expectations), not ship it on."""
    def version(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split(".")[:3])

    for old, (new, removed, _) in RENAMED.items():
        assert version(d3d12wl.__version__) < version(removed), f"{old} (now {new}) was to be removed in {removed}"


def test_one_class_called_selection() -> None:
    """Issue 39: the package has one class called ``Selection``, what an output shows of a trace."""
    found = [str(path.relative_to(PACKAGE.parent)) for path in sorted(PACKAGE.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ClassDef) and node.name == "Selection"]
    assert found == ["d3d12wl/executor/selection.py"]
