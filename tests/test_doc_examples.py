"""Every Python example of the README and of docs/*.md runs as a user would run it: from a temporary directory,
not the checkout, with the bundled examples reached through ``d3d12wl.examples.path`` (issue 16 item 8).  The blocks
of one file run in order in one namespace."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import require

from d3d12wl import examples
from d3d12wl.errors import D3D12WLError

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks(path: Path) -> list[str]:
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [p for p in FILES if _blocks(p)], ids=lambda p: p.name)
def test_python_examples_run_from_a_temporary_directory(path: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"__{path.stem}__"}
    for body in _blocks(path):
        if "header_check" in body:  # compiles with clang (and glslc / spirv-dis for the HLSL)
            missing = [t for t in ("clang", "glslc", "spirv-dis") if not shutil.which(t)]
            require(not missing, f"{', '.join(missing)} not installed")
        assert "d3d12wl/examples/" not in body, "reach the bundled examples through d3d12wl.examples.path"
        exec(compile(body, str(path), "exec"), namespace)  # noqa: S102 - the documentation's own examples


def test_examples_path() -> None:
    """d3d12wl.examples.path names the installed file; an unknown name lists the examples."""
    assert examples.path("culling.json").is_file() and "culling_capture.json" in examples.names()
    with pytest.raises(D3D12WLError, match="no bundled example 'nope.json'; the examples are: culling.json"):
        examples.path("nope.json")
    with pytest.raises(D3D12WLError):
        examples.path("../__init__.py")
