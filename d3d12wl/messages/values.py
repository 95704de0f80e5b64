"""Every enum value, HRESULT and constant the channel needs, read from the compiled headers.

Nothing here is retyped: each value comes from :mod:`d3d12wl.abi` (design.md, "Each fact lives in one place").
If the headers do not declare a value, the accessor raises :class:`MessagesError` naming it, rather than
falling back to a Python copy.
"""

from __future__ import annotations

import functools
from enum import IntEnum
from types import ModuleType
from typing import Any

from d3d12wl.messages.errors import MessagesError

SEVERITY_DDI = "D3D12DDI_MESSAGE_SEVERITY_0126"
CATEGORY_DDI = "D3D12DDI_MESSAGE_CATEGORY_0126"
SEVERITY_API = "D3D12_MESSAGE_SEVERITY"
CATEGORY_API = "D3D12_MESSAGE_CATEGORY"
MESSAGE_ID_API = "D3D12_MESSAGE_ID"
DDI_MESSAGE_STRUCT = "D3D12DDI_DRIVER_REPORTED_MESSAGE_0126"
HANDLE_AND_TYPE_STRUCT = "D3D12DDI_HANDLE_AND_TYPE"
HANDLETYPE_ENUM = "D3D12DDI_HANDLETYPE"
FEATURE_ENUM = "D3D12DDI_FEATURE_0020"


def abi() -> ModuleType:
    """The :mod:`d3d12wl.abi` module (imported lazily so this package imports without the compiled headers)."""
    try:
        from d3d12wl import abi as module
    except ImportError as exc:  # pragma: no cover - only before the ABI layer is built
        raise MessagesError(f"the compiled headers are not available ({exc})", where="d3d12wl.abi") from exc
    return module


def ffi() -> Any:
    return abi().ffi


def _lookup(what: str, getter: Any, *args: str) -> Any:
    try:
        return getter(*args)
    except MessagesError:
        raise
    except Exception as exc:
        raise MessagesError(
            f"{'.'.join(args)} is not declared in the compiled headers; it belongs in headers/d3d12wl_messages.h",
            where=f"d3d12wl.abi.{what}",
        ) from exc


@functools.cache
def constant(name: str) -> int:
    """A ``#define`` constant or enum value by its full C name."""
    return int(_lookup("constant", abi().constant, name))


def hresult(name: str) -> int:
    """An HRESULT (``S_OK``, ``E_INVALIDARG``, ``DXGI_ERROR_MORE_DATA``, ...) as the signed 32-bit value
    that ``HRESULT`` (``int32_t``) holds."""
    value = constant(name) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def failed(hr: int) -> bool:
    """``FAILED(hr)``: the sign bit of the 32-bit HRESULT."""
    return bool(hr & 0x80000000) or hr < 0


@functools.cache
def enum(name: str) -> type[IntEnum]:
    """The IntEnum class of a C enum, values from the compiled module."""
    return _lookup("enum", abi().enum, name)


@functools.cache
def enum_value(enum_name: str, member: str) -> int:
    """One member of a C enum, by short or full name."""
    return int(_lookup("enum_value", abi().enum_value, enum_name, member))


def no_correlation() -> int:
    """The CommandListStateIndex meaning "no correlation available" (0xFFFFFFFF in the spec)."""
    return constant("D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126")


def driver_reported_message_id() -> int:
    """``D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE`` (1506 in the spec)."""
    return enum_value(MESSAGE_ID_API, "D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE")


def feature_driver_reported_messages() -> int:
    """``D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES`` of ``D3D12DDI_FEATURE_0020``."""
    return enum_value(FEATURE_ENUM, "D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES")


def feature_version_0() -> int:
    """``D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0``: the highest version this runtime model speaks."""
    return constant("D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0")


def feature_version_none() -> int:
    return constant("D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE")


def severity_range() -> tuple[int, int]:
    """Message validation: Severity within [``_CORRUPTION``, ``_MESSAGE``]."""
    return (enum_value(SEVERITY_DDI, "D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION"),
            enum_value(SEVERITY_DDI, "D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE"))


def category_range() -> tuple[int, int]:
    """Message validation: Category within [``_APPLICATION_DEFINED``, ``_STATE_OBJECT_DATABASE``]."""
    return (enum_value(CATEGORY_DDI, "D3D12DDI_MESSAGE_CATEGORY_0126_APPLICATION_DEFINED"),
            enum_value(CATEGORY_DDI, "D3D12DDI_MESSAGE_CATEGORY_0126_STATE_OBJECT_DATABASE"))


def ddi_severity(short: str) -> int:
    """A DDI severity by short name (``"ERROR"``)."""
    return enum_value(SEVERITY_DDI, f"{SEVERITY_DDI}_{short}")


def ddi_category(short: str) -> int:
    """A DDI category by short name (``"EXECUTION"``)."""
    return enum_value(CATEGORY_DDI, f"{CATEGORY_DDI}_{short}")


def _short_name(enum_name: str, value: int) -> str | None:
    prefix = enum_name + "_"
    for member in enum(enum_name):
        if int(member) == value:
            name = member.name
            return name[len(prefix):] if name.startswith(prefix) else name
    return None


def api_severity(ddi_value: int) -> int:
    """The ``D3D12_MESSAGE_SEVERITY`` an (already validated) DDI severity surfaces as: the member of the same name."""
    return _to_api(SEVERITY_DDI, SEVERITY_API, ddi_value)


def api_category(ddi_value: int) -> int:
    """The ``D3D12_MESSAGE_CATEGORY`` a DDI category surfaces as: the member of the same name ("Driver-reported
    messages reuse the existing D3D12_MESSAGE_CATEGORY enum")."""
    return _to_api(CATEGORY_DDI, CATEGORY_API, ddi_value)


@functools.cache
def _to_api(ddi_enum: str, api_enum: str, ddi_value: int) -> int:
    """The API member of the same short name; a DDI member with no API namesake (``STATE_OBJECT_DATABASE``: the
    spec adds no API category, yet the DDI enum has it) surfaces with its numeric value unchanged."""
    short = _short_name(ddi_enum, ddi_value)
    if short is None:
        raise MessagesError(f"{ddi_value} is not a member of {ddi_enum}", where=ddi_enum)
    api_names = {m.name for m in enum(api_enum)}
    full = f"{api_enum}_{short}"
    if full not in api_names and short not in api_names:
        return ddi_value
    return enum_value(api_enum, full)


#: The device-removed reasons (winerror.h) the spec's "DXGI_ERROR_DEVICE_REMOVED (or related error)" covers: what
#: ``GetDeviceRemovedReason`` returns after a removal.
REMOVAL_REASONS: tuple[str, ...] = (
    "DXGI_ERROR_DEVICE_REMOVED", "DXGI_ERROR_DEVICE_HUNG", "DXGI_ERROR_DEVICE_RESET",
    "DXGI_ERROR_DRIVER_INTERNAL_ERROR", "DXGI_ERROR_INVALID_CALL",
)

#: The constants this package needs that the spec names but that must come from the headers.
REQUIRED_CONSTANTS: tuple[str, ...] = (
    "S_OK", "E_INVALIDARG", "DXGI_ERROR_MORE_DATA", *REMOVAL_REASONS,
    "D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126",
)
#: ``D3D12DDI_HANDLETYPE`` members the identity query names objects by.
REQUIRED_HANDLE_TYPES: tuple[str, ...] = (
    "D3D12DDI_HT_COMMAND_QUEUE", "D3D12DDI_HT_COMMAND_LIST", "D3D12DDI_HT_0012_RESOURCE",
)


def missing_declarations(*, handle_types: bool = False) -> list[str]:
    """The required declarations the compiled headers lack (empty when the channel can run)."""
    missing: list[str] = []
    try:
        abi()
    except MessagesError:
        return ["d3d12wl.abi"]
    for name in REQUIRED_CONSTANTS:
        try:
            constant(name)
        except MessagesError:
            missing.append(name)
    if handle_types:
        for name in REQUIRED_HANDLE_TYPES:
            try:
                enum_value(HANDLETYPE_ENUM, name)
            except MessagesError:
                missing.append(name)
    return missing
