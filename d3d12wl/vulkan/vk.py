"""The Vulkan facts the lowering uses, written down once: ``VK_EXT_device_generated_commands`` token types and
input modes, and the shader-stage bits, as the Vulkan registry (``vk.xml`` / ``vulkan_core.h``) gives them.

Debian's Vulkan headers (1.3.239) predate the EXT extension, so these values are stated here from the registry's
facts; ``tools/gpu/dgc_ext.h`` declares the same values for the C harness, and ``tests/test_vulkan_harness.py``
checks the two agree (token types and input modes; the shader stages against the system's ``vulkan_core.h``).
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = ["IndexInputMode", "ShaderStage", "TokenType"]


class TokenType(IntEnum):
    """``VkIndirectCommandsTokenTypeEXT``."""

    EXECUTION_SET = 0
    PUSH_CONSTANT = 1
    SEQUENCE_INDEX = 2
    INDEX_BUFFER = 3
    VERTEX_BUFFER = 4
    DRAW_INDEXED = 5
    DRAW = 6
    DRAW_INDEXED_COUNT = 7
    DRAW_COUNT = 8
    DISPATCH = 9
    DRAW_MESH_TASKS = 1000328000


class IndexInputMode(IntFlag):
    """``VkIndirectCommandsInputModeFlagBitsEXT``: how an ``INDEX_BUFFER`` token reads its 16 bytes."""

    VULKAN_INDEX_BUFFER = 0x1  # VkBindIndexBufferIndirectCommandEXT: address, size, VkIndexType
    DXGI_INDEX_BUFFER = 0x2  # D3D12_INDEX_BUFFER_VIEW: address, size, DXGI_FORMAT


class ShaderStage(IntFlag):
    """``VkShaderStageFlagBits`` (the ones used here)."""

    VERTEX = 0x1
    FRAGMENT = 0x10
    COMPUTE = 0x20
    TASK = 0x40  # VK_SHADER_STAGE_TASK_BIT_EXT
    MESH = 0x80  # VK_SHADER_STAGE_MESH_BIT_EXT

