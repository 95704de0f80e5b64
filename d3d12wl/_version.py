"""The package version, in one place (pyproject.toml reads it; ``d3d12wl.__version__`` re-exports it), and the
versions of the specs it implements (``d3d12wl --version`` prints them; a finding whose verdict a spec version
decides names it through these)."""

__version__ = "0.2.0"

#: the D3D12 Work Lists spec the model follows: microsoft/DirectX-Specs d3d/WorkLists.md at commit d52157d0
#: (v0.851, 8/24/2026), the public successor of the v0.85 draft
WORK_LISTS_SPEC = "Work Lists v0.851"
#: the D3D12 driver-reported messages spec the runtime model and the conformance suite follow (v0.3, 9/2/2026)
MESSAGES_SPEC = "driver-reported messages v0.3"
#: what ``d3d12wl --version`` says after the version
SPECS_LINE = f"implements D3D12 {WORK_LISTS_SPEC}, ExecuteIndirect and {MESSAGES_SPEC}"
