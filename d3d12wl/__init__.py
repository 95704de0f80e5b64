"""d3d12wl: binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages."""

__version__ = "0.1.0"
