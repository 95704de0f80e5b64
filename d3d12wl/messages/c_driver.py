"""The C boundary: a driver shared library driven through the conformance workload.

A driver library exports the entry points of ``c/d3d12wl_conformance_ddi.h`` (d3d12wl's provisional stand-ins for
the pre-existing DDI the spec builds on: device, queue and command-list creation, recording, submission, the GPU
running it).  :class:`CDriverLibrary` loads it (``dlopen`` with ``RTLD_NOW``, through ctypes) and types every entry point with the
*compiled* headers' ffi (:mod:`d3d12wl.abi`), so the driver is handed real C tables laid out by the compiled
headers:

* at device creation a ``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126`` whose ``pfnReportMessageCb`` and
  ``pfnQueryObjectIdentityCb`` are C callbacks into this runtime model (``pfnSetErrorCb`` and
  ``pfnSetCommandListErrorCb`` record what the driver sets, :attr:`CDriverDevice.errors`), with a
  ``D3D12DDI_HRTDEVICE`` the driver passes back;
* at ``EnableExtendedFeature`` a ``D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126`` for the driver to fill,
  whose two function pointers the runtime model then calls.

:class:`CDriver` is a :class:`~d3d12wl.messages.driver.Driver`, so ``run_conformance(lambda: CDriver(library))``
runs the same workload as for a Python driver model.  :func:`build_driver` compiles a driver source against the
compiled headers (:func:`write_headers`) with gcc, as the tests build the C reference driver
(``c/reference_driver.c``).

Provisional table offsets: the spec elides "existing fields" of ``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126`` between
``pfnSetCommandListErrorCb`` and ``pfnReportMessageCb``, so past the first two members the offsets are d3d12wl's,
not the real table's (:func:`callback_table_layout` lists them, each marked).  A driver whose real table has the
elided members reads the two new callbacks through its own struct in a shim, or maps the offsets with
``d3d12wl abi check --header`` (docs/messages.md).
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d3d12wl.messages import page_heap, values
from d3d12wl.messages.ddi import DriverMessage
from d3d12wl.messages.driver import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverHandle
from d3d12wl.messages.errors import MessagesError

C_DIR = Path(__file__).resolve().parent / "c"
#: The entry points a driver library exports (d3d12wl's provisional harness DDI).
CONFORMANCE_HEADER = C_DIR / "d3d12wl_conformance_ddi.h"
#: The C reference driver (passes every check).
REFERENCE_DRIVER_C = C_DIR / "reference_driver.c"
#: The umbrella header :func:`write_headers` writes: the compiled headers in order, then the harness DDI.
UMBRELLA = "d3d12wl_driver.h"

CALLBACKS_STRUCT = "D3D12DDI_CORELAYER_DEVICECALLBACKS_0126"
FUNCS_STRUCT = "D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126"
#: The members of the callback table whose offsets the spec fixes (the table starts with them).
_SPEC_PLACED = ("pfnSetErrorCb", "pfnSetCommandListErrorCb")

_PROTOTYPE = re.compile(r"^([A-Za-z_][\w \t*]*?)\s*\b(D3D12WLDriver_\w+)\s*\(([^;]*?)\)\s*;", re.M | re.S)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def entry_points(header: str | None = None) -> dict[str, str]:
    """Entry point name -> its C function-pointer type, read from the harness header's prototypes."""
    return dict(_entry_points(header if header is not None else CONFORMANCE_HEADER.read_text(encoding="utf-8")))


@functools.cache
def _entry_points(header: str) -> tuple[tuple[str, str], ...]:
    text = _COMMENT.sub("", header)
    out: dict[str, str] = {}
    for ret, name, params in _PROTOTYPE.findall(text):
        out[name] = f"{' '.join(ret.split())} (*)({' '.join(params.split())})"
    if not out:
        raise MessagesError("no D3D12WLDriver_ entry points declared", where=str(CONFORMANCE_HEADER))
    return tuple(out.items())


def write_headers(dest: Path) -> Path:
    """Write the compiled headers (the exact text ``d3d12wl._native`` was built from), the harness header and the
    umbrella ``d3d12wl_driver.h`` into ``dest``; returns ``dest``."""
    from d3d12wl import abi

    dest.mkdir(parents=True, exist_ok=True)
    texts = abi.header_texts()
    for name, text in texts.items():
        (dest / name).write_text(text, encoding="utf-8")
    shutil.copyfile(CONFORMANCE_HEADER, dest / CONFORMANCE_HEADER.name)
    lines = ["/* written by d3d12wl.messages.c_driver.write_headers: the compiled headers, then the harness DDI */",
             "#ifndef D3D12WL_DRIVER_H", "#define D3D12WL_DRIVER_H", "#include <stdint.h>", "#include <stddef.h>",
             *(f'#include "{name}"' for name in texts), f'#include "{CONFORMANCE_HEADER.name}"', "#endif", ""]
    (dest / UMBRELLA).write_text("\n".join(lines), encoding="utf-8")
    return dest


def build_driver(source: Path, out: Path, *, cc: str = "gcc", includes: Sequence[Path] = (),
                 defines: Mapping[str, str] | None = None, headers: Path | None = None,
                 optimize: str = "-O1") -> Path:
    """Compile a driver source into the shared library ``out`` against the compiled headers; returns ``out``.
    ``headers``: a folder :func:`write_headers` already wrote (shared by many builds), else one is written beside
    ``out``.  Raises :class:`MessagesError` with the compiler's output when it fails."""
    compiler = shutil.which(cc)
    if compiler is None:
        raise MessagesError(f"{cc} not found", where="build_driver")
    include_dir = headers if headers is not None else write_headers(out.parent / f"{out.stem}-include")
    argv = [compiler, "-shared", "-fPIC", optimize, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra",
            "-Werror", "-fvisibility=hidden", f"-I{include_dir}", f"-I{C_DIR}",
            *(f"-I{d}" for d in includes), *(f"-D{k}={v}" for k, v in (defines or {}).items()),
            str(source), "-o", str(out), "-lpthread"]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise MessagesError(f"{' '.join(argv)}\n{result.stderr.strip()}", where=str(source))
    return out


@dataclass(frozen=True)
class TableMember:
    """One member of a table the runtime hands over or the driver fills, as the compiled headers lay it out."""

    table: str
    member: str
    offset: int
    size: int
    provisional: bool  # the offset is d3d12wl's (the spec elides the members before it)


def callback_table_layout() -> list[TableMember]:
    """The offsets of both tables (``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126``,
    ``D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126``) from the compiled headers, the provisional ones marked."""
    from d3d12wl import abi

    out: list[TableMember] = []
    for table in (CALLBACKS_STRUCT, FUNCS_STRUCT):
        info = abi.type_info(table)
        for f in info.fields:
            provisional = table == CALLBACKS_STRUCT and f.name not in _SPEC_PLACED
            out.append(TableMember(table, f.name, f.offset, f.size, provisional))
    return out


@dataclass(frozen=True)
class CallbackLayout:
    """Where the runtime writes the four callbacks of ``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126`` in the table it
    hands the driver: a table of ``size`` bytes, each named callback at its byte offset, every other byte zero.

    :meth:`compiled` is the compiled headers' layout (the two new callbacks right after the first two, as the spec's
    listing elides the "existing fields").  A driver built against its real ``d3d12umddi.h`` gives the real offsets
    instead (``d3d12wl messages check --callback-offset pfnReportMessageCb=0x1A8 --callback-table-size 0x1B8``), so
    it reads the callbacks where it expects them without a shim."""

    size: int
    offsets: Mapping[str, int]

    @classmethod
    def compiled(cls) -> CallbackLayout:
        from d3d12wl import abi

        return cls(abi.sizeof(CALLBACKS_STRUCT), {m.member: m.offset for m in callback_table_layout()
                                                   if m.table == CALLBACKS_STRUCT})

    def with_offsets(self, offsets: Mapping[str, int], size: int | None = None) -> CallbackLayout:
        """This layout with some callbacks moved (and the table resized); checked."""
        layout = CallbackLayout(self.size if size is None else size, {**self.offsets, **offsets})
        layout.check()
        return layout

    def check(self) -> None:
        """Every member known, pointer-aligned, inside the table, no two overlapping."""
        from d3d12wl import abi

        members = {m.member for m in callback_table_layout() if m.table == CALLBACKS_STRUCT}
        pointer = abi.ffi.sizeof("void *")
        unknown = sorted(set(self.offsets) - members)
        if unknown:
            raise MessagesError(f"{', '.join(unknown)} is not a member of {CALLBACKS_STRUCT} "
                                f"({', '.join(sorted(members))})", where="callback layout")
        taken: dict[int, str] = {}
        for name, offset in self.offsets.items():
            if offset < 0 or offset % pointer or offset + pointer > self.size:
                raise MessagesError(f"{name} at offset {offset}: not a {pointer}-byte aligned slot inside a "
                                    f"{self.size}-byte table", where="callback layout")
            if offset in taken:
                raise MessagesError(f"{name} and {taken[offset]} both at offset {offset}", where="callback layout")
            taken[offset] = name


class CDriverLibrary:
    """A driver shared library, loaded, with every entry point of the harness DDI found and typed."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise MessagesError("no such file", where=str(self.path))
        try:  # RTLD_NOW: an unresolved symbol fails here, not at the first call
            self._dl = ctypes.CDLL(str(self.path.resolve()), mode=os.RTLD_NOW)
        except OSError as exc:
            raise MessagesError(f"dlopen failed: {exc}", where=str(self.path)) from exc
        ffi = values.ffi()
        self.functions: dict[str, Any] = {}
        self.page_heap: page_heap.Installation | None = None
        missing: list[str] = []
        for name, fn_type in entry_points().items():
            try:
                address = ctypes.cast(getattr(self._dl, name), ctypes.c_void_p).value
            except AttributeError:
                address = None
            if not address:
                missing.append(name)
                continue
            self.functions[name] = ffi.cast(fn_type, address)
            if self.page_heap is None:  # its C allocator, pointed at the page heap (off until a check turns it on)
                self.page_heap = page_heap.install(self.path, name, address)
        if missing:
            raise MessagesError(f"the library does not export {', '.join(missing)} (see {CONFORMANCE_HEADER.name})",
                                where=str(self.path))

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["functions"][f"D3D12WLDriver_{name}"]
        except KeyError:
            raise AttributeError(name) from None


_loaded: dict[tuple[str, int], CDriverLibrary] = {}


def load_library(path: str | Path) -> CDriverLibrary:
    """The driver library at ``path``, loaded once per process (a forked check process loads its own: the process
    that forks it never needs to load a library that may crash in its constructors)."""
    key = (str(Path(path).resolve()), os.getpid())
    library = _loaded.get(key)
    if library is None:
        library = _loaded[key] = CDriverLibrary(path)
    return library


def warm_up() -> None:
    """Parse, once, every C type the C boundary uses (the entry points, the callback tables, the callbacks): a
    process about to fork check processes does it so that each of them does not."""
    ffi = values.ffi()
    for fn_type in entry_points().values():
        ffi.typeof(fn_type)
    for name in (CALLBACKS_STRUCT, FUNCS_STRUCT, "D3D12DDI_HRTDEVICE", "D3D12DDI_HDEVICE", "D3D12DDI_HCOMMANDLIST",
                 "PFND3D12DDI_SETERROR_CB", "PFND3D12DDI_SETCOMMANDLISTERROR_CB", "PFND3D12DDI_REPORTMESSAGE_CB_0126",
                 "PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126", "D3D12DDI_FEATURE_0020", values.DDI_MESSAGE_STRUCT):
        ffi.typeof(name)
    CallbackLayout.compiled()


#: The most feature entries the runtime reads from pfnGetSupportedExtendedFeatures (a larger count is bounded here).
MAX_FEATURES = 1024


class CDriver(Driver):
    """A driver library at adapter level (the library stays loaded for the life of the process).

    ``feature_query_note``: set when the feature query returned more entries than :data:`MAX_FEATURES`."""

    def __init__(self, library: CDriverLibrary | str | Path, layout: CallbackLayout | None = None) -> None:
        self.library = library if isinstance(library, CDriverLibrary) else load_library(library)
        self.layout = layout or CallbackLayout.compiled()
        self.devices: list[CDriverDevice] = []
        self.feature_query_note: str | None = None

    def get_supported_extended_features(self) -> Mapping[int, int]:
        """Asked for the count first (Capacity 0), then with room for every entry (at most :data:`MAX_FEATURES`);
        asked again while the driver returns more than there was room for, so no entry within the bound is lost."""
        ffi = values.ffi()
        count = int(self.library.GetSupportedExtendedFeatures(0, ffi.NULL, ffi.NULL))
        for _ in range(8):
            capacity = min(max(count, 1), MAX_FEATURES)
            features = ffi.new("D3D12DDI_FEATURE_0020[]", capacity)
            versions = ffi.new("uint32_t[]", capacity)
            count = int(self.library.GetSupportedExtendedFeatures(capacity, features, versions))
            if count <= capacity or capacity == MAX_FEATURES:
                if count > capacity:
                    self.feature_query_note = (f"pfnGetSupportedExtendedFeatures returns a count of {count}: the "
                                               f"runtime read the first {capacity} entries")
                return {int(features[i]): int(versions[i]) for i in range(min(count, capacity))}
        raise MessagesError(f"pfnGetSupportedExtendedFeatures returns a count that keeps growing ({count})",
                            where=str(self.library.path))

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        device = CDriverDevice(self.library, callbacks, self.layout)
        self.devices.append(device)
        return device

    def harness_errors(self) -> list[str]:
        """What the runtime model's C callbacks raised on any device (an error of d3d12wl, not of the driver: the
        callback returned E_INVALIDARG to the driver)."""
        return [error for device in self.devices for error in device.harness_errors]


def _rejected(*args: Any) -> int:
    return values.hresult("E_INVALIDARG")


_RETIRED_CALLBACKS = CoreLayerCallbacks(object(), _rejected, _rejected)
#: Every device made, kept for the life of the process: its C callbacks must outlive anything the driver runs.
_ALIVE: list[CDriverDevice] = []


def _check(hr: int, what: str) -> None:
    if values.failed(hr):
        raise MessagesError(f"{what} failed with HRESULT 0x{hr & 0xFFFFFFFF:08X}", where="driver library")


class CDriverDevice(DriverDevice):
    """One device of a driver library: the C callback table it was handed, its ``D3D12DDI_HDEVICE``, and its queue
    and command-list handles by the runtime's :class:`~d3d12wl.messages.driver.DriverHandle` serial."""

    def __init__(self, library: CDriverLibrary, callbacks: CoreLayerCallbacks,
                 layout: CallbackLayout | None = None) -> None:
        ffi = values.ffi()
        layout = layout or CallbackLayout.compiled()
        self.library = library
        self.callbacks = callbacks
        self.errors: list[tuple[str, int]] = []  # (what, HRESULT) the driver set through pfnSet*ErrorCb
        self.harness_errors: list[str] = []  # exceptions raised inside the C callbacks (a harness bug)
        self._lock = threading.Lock()
        self._rt_token = ffi.new_handle(self)  # D3D12DDI_HRTDEVICE.handle: identifies this device to the callbacks
        self._hrt = ffi.new("D3D12DDI_HRTDEVICE *")
        self._hrt.handle = self._rt_token
        failure = values.hresult("E_INVALIDARG")
        self._c_callbacks = [  # kept alive as long as the device object: the driver may call them until destroyed
            ffi.callback("PFND3D12DDI_SETERROR_CB", self._set_error_cb, onerror=self._on_error),
            ffi.callback("PFND3D12DDI_SETCOMMANDLISTERROR_CB", self._set_command_list_error_cb, onerror=self._on_error),
            ffi.callback("PFND3D12DDI_REPORTMESSAGE_CB_0126", self._report_message_cb, error=failure,
                         onerror=self._on_error),
            ffi.callback("PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126", self._query_object_identity_cb, error=failure,
                         onerror=self._on_error),
        ]
        # the table the driver is handed: layout.size zeroed bytes, each callback at its offset (by default exactly
        # the compiled D3D12DDI_CORELAYER_DEVICECALLBACKS_0126)
        self._table_bytes = ffi.new("unsigned char[]", layout.size)
        names = ("pfnSetErrorCb", "pfnSetCommandListErrorCb", "pfnReportMessageCb", "pfnQueryObjectIdentityCb")
        for name, fn in zip(names, self._c_callbacks, strict=True):
            if name in layout.offsets:
                ffi.cast("void **", self._table_bytes + layout.offsets[name])[0] = ffi.cast("void *", fn)
        self.table = ffi.cast(f"{CALLBACKS_STRUCT} *", self._table_bytes)
        self._hdevice = ffi.new("D3D12DDI_HDEVICE *")
        self.funcs_table = ffi.new(f"{FUNCS_STRUCT} *")
        self._queues: dict[int, Any] = {}
        self._lists: dict[int, Any] = {}  # serial -> 'D3D12DDI_HCOMMANDLIST *'
        self._destroyed = False
        _ALIVE.append(self)  # the driver may call the callbacks at any time, even after DestroyDevice
        _check(int(library.CreateDevice(self._hrt[0], self.table, self._hdevice)), "D3D12WLDriver_CreateDevice")

    def retire(self) -> None:
        """Let go of the runtime model: the C callbacks stay valid for the life of the process (a driver's leftover
        thread may still call them) and answer E_INVALIDARG."""
        self.callbacks = _RETIRED_CALLBACKS

    # ---- the C callbacks -----------------------------------------------------------------------------------------
    def _on_error(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self.harness_errors.append(f"{getattr(exc_type, '__name__', exc_type)}: {exc}")

    def _runtime_device(self, hrt: Any) -> Any:
        """The runtime-side device the driver named: this device's, or a stand-in the runtime rejects."""
        return self.callbacks.hRTDevice if hrt.handle == self._rt_token else object()

    def _set_error_cb(self, hrt: Any, hr: int) -> None:
        self.errors.append(("pfnSetErrorCb", int(hr)))

    def _set_command_list_error_cb(self, hrt_list: Any, hr: int) -> None:
        self.errors.append(("pfnSetCommandListErrorCb", int(hr)))

    def _report_message_cb(self, hrt: Any, p_message: Any) -> int:
        return int(self.callbacks.pfnReportMessageCb(self._runtime_device(hrt), p_message))

    def _query_object_identity_cb(self, hrt: Any, h_object: Any, p_size: Any, p_string: Any) -> int:
        return int(self.callbacks.pfnQueryObjectIdentityCb(self._runtime_device(hrt), h_object, p_size, p_string))

    # ---- the DDI, forwarded ------------------------------------------------------------------------------------
    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        hr = int(self.library.EnableExtendedFeature(self._hdevice[0], feature, version, self.funcs_table))
        if values.failed(hr):
            return None
        flush, set_index = self.funcs_table.pfnFlushDriverReportedMessages, self.funcs_table.pfnSetCommandListStateIndex
        ffi = values.ffi()
        null = [name for name, fn in (("pfnFlushDriverReportedMessages", flush),
                                      ("pfnSetCommandListStateIndex", set_index)) if fn == ffi.NULL]
        if null:
            raise MessagesError(f"EnableExtendedFeature succeeded but left {', '.join(null)} NULL", where=FUNCS_STRUCT)
        hdevice = self._hdevice[0]
        return DeviceFuncs(lambda _hdevice: flush(hdevice), lambda hcl, index: set_index(self._list(hcl), index))

    def _list(self, hcl: DriverHandle) -> Any:
        with self._lock:
            return self._lists[hcl.serial][0]

    def _list_array(self, hcls: tuple[DriverHandle, ...]) -> Any:
        ffi = values.ffi()
        array = ffi.new("D3D12DDI_HCOMMANDLIST[]", max(len(hcls), 1))
        for i, hcl in enumerate(hcls):
            array[i] = self._list(hcl)
        return array

    def create_command_queue(self, hqueue: DriverHandle) -> None:
        handle = self.library.CreateCommandQueue(self._hdevice[0], hqueue.rt())
        if handle == values.ffi().NULL:
            raise MessagesError("D3D12WLDriver_CreateCommandQueue returned NULL", where="driver library")
        with self._lock:
            self._queues[hqueue.serial] = handle

    def destroy_command_queue(self, hqueue: DriverHandle) -> None:
        with self._lock:
            handle = self._queues.pop(hqueue.serial, None)
        if handle is not None:
            self.library.DestroyCommandQueue(handle)

    def create_command_list(self, hcl: DriverHandle) -> None:
        out = values.ffi().new("D3D12DDI_HCOMMANDLIST *")
        _check(int(self.library.CreateCommandList(self._hdevice[0], hcl.rt(), out)), "D3D12WLDriver_CreateCommandList")
        with self._lock:
            self._lists[hcl.serial] = out

    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        ffi = values.ffi()
        record = _probe(payload.get("record_message"))
        gpu = _probe(payload.get("gpu_message"))
        self.library.CommandListWork(self._list(hcl), ffi.new("char[]", kind.encode()),
                                     record.pointer if record else ffi.NULL, gpu.pointer if gpu else ffi.NULL)

    def reset_command_list(self, hcl: DriverHandle) -> None:
        self.library.ResetCommandList(self._list(hcl))

    def destroy_command_list(self, hcl: DriverHandle) -> None:
        with self._lock:
            out = self._lists.pop(hcl.serial, None)
        if out is not None:
            self.library.DestroyCommandList(out[0])

    def execute_command_lists(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        self.library.ExecuteCommandLists(self._queue(hqueue), len(hcls), self._list_array(hcls))

    def gpu_execute(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        self.library.GpuExecute(self._queue(hqueue), len(hcls), self._list_array(hcls))

    def _queue(self, hqueue: DriverHandle) -> Any:
        with self._lock:
            return self._queues[hqueue.serial]

    def destroy_device(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        self.library.DestroyDevice(self._hdevice[0])


def _probe(spec: Any) -> Any:
    """A workload probe ``(vendor_message_id, severity, category, text)`` as the C message it travels as (its index
    0xFFFFFFFF: attributing it is the driver's job)."""
    if spec is None:
        return None
    vendor_id, severity, category, text = spec
    return DriverMessage(vendor_id, values.ddi_severity(severity), values.ddi_category(category), text).encode()
