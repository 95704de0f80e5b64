"""The messages package's own error class."""

from __future__ import annotations

from d3d12wl.errors import D3D12WLError


class MessagesError(D3D12WLError):
    """Misuse of the driver-reported-messages model (a bad argument to a model API, a value the compiled
    headers do not declare).  Driver contract violations are *not* raised: the runtime returns the HRESULT
    the spec names and records the violation (see :class:`d3d12wl.messages.channel.ReportRecord`)."""
