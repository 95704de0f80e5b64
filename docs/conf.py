"""Sphinx configuration of the d3d12wl documentation site (Markdown pages through MyST).

Built by `.ci/run` in strict mode: ``sphinx-build -W --keep-going -b html docs build/docs`` (a warning, such as a
broken link, a link to a heading that does not exist or a page in no table of contents, fails the build).  A new
page is one line in the table of contents of ``index.md``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from d3d12wl._version import __version__  # noqa: E402 - the one place the version is written

project = "d3d12wl"
author = "The d3d12wl authors"
copyright = "the d3d12wl authors"  # noqa: A001 - Sphinx's name for it
version = release = __version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
# every heading down to level 4 gets an anchor, so [text](page.md#heading) links are checked
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# the API page documents the entry points from their docstrings, which cite with reST roles (:func:, :class:)
autodoc_typehints = "description"
autodoc_member_order = "bysource"
suppress_warnings = ["myst.xref_ambiguous"]

html_theme = "furo"
html_title = f"d3d12wl {release}"
