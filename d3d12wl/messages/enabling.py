"""Spec "Enabling the feature": the process-global debug toggle, the per-application registry overlay, and
the decision, latched at device creation, of whether a device gets the driver-reported-messages channel.

* ``ID3D12Debug7::SetEnableDriverReportedMessages``: last call before ``D3D12CreateDevice`` returns wins; later
  calls do not affect already-created devices (the runtime copies the value into the device).
* The debug layer must be enabled (``EnableDebugLayer``, or forced on through the existing SDK-layer registry
  settings) or the toggle has no effect.
* ``EnableDriverReportedMessagesAnd`` (default 1) / ``EnableDriverReportedMessagesOr`` (default 0) under
  ``HKCU\\Software\\Microsoft\\Direct3D\\Direct3D12\\<AppName>`` with an HKLM fallback, applied after the
  application's value is latched: ``(app & And) | Or`` -- the registry wins.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

REGISTRY_KEY = "Software\\Microsoft\\Direct3D\\Direct3D12"
AND_VALUE = "EnableDriverReportedMessagesAnd"
OR_VALUE = "EnableDriverReportedMessagesOr"


class DebugInterface:
    """The process-global ``ID3D12Debug`` / ``ID3D12Debug7`` state that device creation reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._debug_layer = False
        self._driver_reported_messages = False  # "FALSE, the default"

    def enable_debug_layer(self) -> None:
        """``ID3D12Debug::EnableDebugLayer``."""
        with self._lock:
            self._debug_layer = True

    def set_enable_driver_reported_messages(self, enable: bool) -> None:
        """``ID3D12Debug7::SetEnableDriverReportedMessages``: fire-and-forget, returns nothing, last call wins."""
        with self._lock:
            self._driver_reported_messages = bool(enable)

    def snapshot(self) -> tuple[bool, bool]:
        """(debug layer enabled, toggle) as device creation latches them."""
        with self._lock:
            return self._debug_layer, self._driver_reported_messages


@dataclass(frozen=True)
class RegistryOverlay:
    """The effective per-application registry values (after the HKCU -> HKLM fallback).

    ``force_debug_layer`` stands for the existing RequireSDKLayers / D3D12SDKLayerFlagsAnd / ...Or settings
    (DXCPL's "Force On"/"Force Off" debug layer): ``None`` leaves the debug layer under application control.
    """

    EnableDriverReportedMessagesAnd: int = 1
    EnableDriverReportedMessagesOr: int = 0
    force_debug_layer: bool | None = None

    def apply(self, app_value: bool) -> bool:
        """The AND/OR mask convention of EnableGPUBasedValidationFlagsAnd/Or, on the toggle's one bit."""
        return bool(((1 if app_value else 0) & self.EnableDriverReportedMessagesAnd & 1)
                    | (self.EnableDriverReportedMessagesOr & 1))

    def debug_layer(self, app_enabled: bool) -> bool:
        return app_enabled if self.force_debug_layer is None else self.force_debug_layer

    @classmethod
    def force_on(cls) -> RegistryOverlay:
        return cls(EnableDriverReportedMessagesOr=1)

    @classmethod
    def force_off(cls) -> RegistryOverlay:
        return cls(EnableDriverReportedMessagesAnd=0)


def read_registry(app_name: str, hkcu: Mapping[str, Mapping[str, int]],
                  hklm: Mapping[str, Mapping[str, int]] | None = None,
                  force_debug_layer: bool | None = None) -> RegistryOverlay:
    """Resolve the two REG_DWORDs for ``app_name``: per value, the HKCU subkey if it has it, else HKLM, else the
    default.  ``hkcu``/``hklm`` map a subkey path (``REGISTRY_KEY + "\\\\" + app``) to its values.  Key and value
    names match case-insensitively, as the Windows registry's do."""
    subkey = f"{REGISTRY_KEY}\\{app_name}"
    user = _values_of(hkcu, subkey)
    machine = _values_of(hklm or {}, subkey)
    defaults = RegistryOverlay()

    def pick(name: str) -> int:
        folded = name.casefold()
        if folded in user:
            return user[folded] & 0xFFFFFFFF
        if folded in machine:
            return machine[folded] & 0xFFFFFFFF
        return int(getattr(defaults, name))

    return RegistryOverlay(pick(AND_VALUE), pick(OR_VALUE), force_debug_layer)


def _values_of(hive: Mapping[str, Mapping[str, int]], subkey: str) -> dict[str, int]:
    """The values of ``subkey`` in ``hive`` by case-folded name (registry names are case-insensitive); when several
    spellings of the subkey are present, their values are merged in the mapping's order."""
    folded = subkey.casefold()
    out: dict[str, int] = {}
    for key, values in hive.items():
        if key.casefold() == folded:
            for name, value in values.items():
                out.setdefault(name.casefold(), int(value))
    return out


@dataclass(frozen=True)
class EnableDecision:
    """What device creation decided (all fixed for the device's lifetime)."""

    debug_layer: bool
    app_toggle: bool
    requested: bool  # toggle after the registry overlay, and the debug layer is active

    @property
    def reason(self) -> str:
        if not self.debug_layer:
            return "debug layer not enabled: the toggle has no effect"
        return "requested" if self.requested else "not requested"


def decide(debug: DebugInterface, registry: RegistryOverlay | None = None) -> EnableDecision:
    """Latch the toggle at device creation, then apply the registry overlay."""
    registry = registry or RegistryOverlay()
    app_debug, app_toggle = debug.snapshot()
    debug_layer = registry.debug_layer(app_debug)
    return EnableDecision(debug_layer, app_toggle, debug_layer and registry.apply(app_toggle))
