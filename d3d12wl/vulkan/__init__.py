"""Lowering to Vulkan device-generated commands (``VK_EXT_device_generated_commands``).

A graphics or compute work list (``DispatchList``; ``DispatchList1``: one lowering per list of the chain) or an
``ExecuteIndirect`` call becomes an indirect-commands layout, an indirect execution set of pipelines (one per
program) and a sequence buffer (:mod:`~d3d12wl.vulkan.lowering`); :mod:`~d3d12wl.vulkan.walker` is the plan and CPU
model of the compute shader that generates the same sequences on the GPU; :mod:`~d3d12wl.vulkan.case` and
:mod:`~d3d12wl.vulkan.harness` are what the GPU harness (``tools/gpu/``) reads and the records it must write, from
the lowering and from the reference executor's trace.  See docs/vulkan.md.
"""

from __future__ import annotations

from d3d12wl.vulkan.lowering import (
    CommandsLayout,
    Lowering,
    LoweringError,
    NotLowered,
    PushConstantRange,
    Token,
    lower,
    lower_capture,
)
from d3d12wl.vulkan.vk import IndexInputMode, ShaderStage, TokenType

__all__ = ["CommandsLayout", "IndexInputMode", "Lowering", "LoweringError", "NotLowered", "PushConstantRange",
           "ShaderStage", "Token", "TokenType", "lower", "lower_capture"]
