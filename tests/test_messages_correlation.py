"""Driver-reported messages (seed 003): CommandListStateIndex correlation and retention, flush points, device
removal, threading, and the two-call identity query.  Each test names the spec section it proves."""

from __future__ import annotations

import threading

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations(handle_types=True)
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)

from d3d12wl.messages import (  # noqa: E402
    CommandList,
    CommandQueue,
    CoreLayerCallbacks,
    Device,
    DeviceFuncs,
    DriverDevice,
    MessagesError,
    ReferenceDriver,
    Runtime,
)
from d3d12wl.messages.identity import make_handle_and_type  # noqa: E402
from d3d12wl.messages.reference_driver import ReferenceDriverDevice  # noqa: E402

S_OK = values.hresult("S_OK")
E_INVALIDARG = values.hresult("E_INVALIDARG")
MORE_DATA = values.hresult("DXGI_ERROR_MORE_DATA")
GPU_FAULT = (0x42, "ERROR", "EXECUTION", "bad shader table")


def make_device(driver: ReferenceDriver | None = None, **kwargs: int) -> Device:
    rt = Runtime(driver or ReferenceDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    return rt.create_device(**kwargs)


def texts(device: Device) -> list[str]:
    return [m.pDescription for m in device.messages()[1:]]  # without the initialization message


def submit(queue: CommandQueue, *lists: CommandList) -> None:
    for cl in lists:
        if not cl.closed:
            cl.close()
    queue.execute_command_lists(list(lists))


def complete(queue: CommandQueue) -> None:
    """The GPU runs everything and the app signals, so the runtime observes completion at the next flush point."""
    queue.signal()
    queue.gpu_run()


# ---- correlation ----------------------------------------------------------------------------------------------


def test_index_issued_before_each_gpu_work_call__correlation() -> None:
    """"The runtime calls pfnSetCommandListStateIndex on the driver before each draw, dispatch, or other GPU-work
    generating command list API call."""
    order: list[tuple[str, object]] = []

    class Spy(ReferenceDriver):
        def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
            dev = super().create_device(callbacks)
            assert isinstance(dev, ReferenceDriverDevice)
            set_index, work = dev.set_command_list_state_index, dev.command_list_work
            dev.set_command_list_state_index = lambda h, i: (order.append(("index", i)), set_index(h, i))[1]
            dev.command_list_work = lambda h, k, p: (order.append(("work", k)), work(h, k, p))[1]
            return dev

    device = make_device(Spy())
    cl = device.create_command_list()
    a, b = cl.draw(), cl.dispatch()
    assert order == [("index", a), ("work", "Draw"), ("index", b), ("work", "Dispatch")]
    assert a != b and values.no_correlation() not in (a, b)


def test_annotation_prefix_names_list_kind_and_ordinal__correlation() -> None:
    """"the runtime prefixes the driver's description with the identity of the command list that recorded the
    work, and the kind and ordinal of that work within the command list — for example, [Draw #12]"."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list("Main")
    for _ in range(12):
        cl.draw()
    cl.dispatch()
    cl.draw(gpu_message=GPU_FAULT)
    submit(queue, cl)
    complete(queue)
    queue.wait()
    (text,) = texts(device)
    assert text == f"{cl.object.identity_string()} [Draw #12] bad shader table"
    assert text.startswith("0x") and ":'Main' [Draw #12] " in text
    provenance = device.messages()[-1].provenance
    assert provenance is not None and provenance.driver_description == "bad shader table"


def test_no_correlation_value_surfaces_unmodified__correlation() -> None:
    """"Messages whose index is 0xFFFFFFFF, unknown, or no longer resolvable are surfaced unmodified."""
    device = make_device()
    cl = device.create_command_list()
    issued = cl.draw()
    assert issued is not None
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "none", None)
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "unknown", issued + 1000)
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "live", issued)
    assert texts(device)[:2] == ["none", "unknown"]
    assert texts(device)[2].endswith("[Draw #0] live")


def test_unsubmitted_list_resolves_until_reset__validity_window() -> None:
    """"A command list that is recorded but never submitted has no such flush; its indices stay resolvable until
    the command list is reset or destroyed."""
    device = make_device()
    cl = device.create_command_list()
    index = cl.draw()
    assert device.indices.resolve(index) is not None
    cl.close()
    cl.reset()
    assert device.indices.resolve(index) is None
    other = device.create_command_list()
    index2 = other.draw()
    other.destroy()
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "stale", index2)
    assert texts(device) == ["stale"]


def test_index_valid_until_its_flush_returns__validity_window() -> None:
    """"The CommandListStateIndex is valid from the time it is issued until the flush for the submission that
    carried it has completed"; "Messages reported after the flush with stale CommandListStateIndex values will be
    delivered to the InfoQueue but the runtime will not be able to annotate them"."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    index = cl.draw()
    submit(queue, cl)
    cl.reset()  # the app resets after submitting: only the submission holds the old table now
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "early", index)  # before the flush: resolves
    complete(queue)
    queue.wait()  # the flush for that submission
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "late", index)
    early, late = texts(device)
    assert early.endswith("[Draw #0] early") and late == "late"
    assert device.reports[-1].index_state == "late"


def test_resubmission_without_reset_resolves_every_time__validity_window() -> None:
    """"Indices are not invalidated by resubmission. Submitting the same command list again without an
    intervening Reset reuses the same state table, so every submission resolves."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_FAULT)
    for _ in range(3):
        submit(queue, cl)
        complete(queue)
        queue.wait()
    assert len(texts(device)) == 3
    assert all(t.endswith("[Draw #0] bad shader table") for t in texts(device))


def test_reset_keeps_old_table_for_inflight_submission__validity_window() -> None:
    """"Reset installs a fresh table for the new recording while any in-flight submission keeps a reference to the
    old one, so an earlier submission still resolves against the recording that produced it."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list("L")
    cl.dispatch()
    old = cl.dispatch()
    submit(queue, cl)
    cl.reset()
    new = cl.draw()
    resolved_old, resolved_new = device.indices.resolve(old), device.indices.resolve(new)
    assert resolved_old is not None and resolved_new is not None
    assert (resolved_old.site.label(), resolved_old.recording) == ("[Dispatch #1]", 0)
    assert (resolved_new.site.label(), resolved_new.recording) == ("[Draw #0]", 1)


def test_live_index_bound_drops_oldest__validity_window() -> None:
    """"if the application outruns the runtime's limit on live state indices, the oldest are dropped even while
    their submissions are outstanding, and a message referencing one is still delivered but without command list
    annotation."""
    device = make_device(max_live_indices=4)
    queue, cl = device.create_command_queue(), device.create_command_list()
    indices = [cl.draw() for _ in range(6)]
    submit(queue, cl)
    assert device.indices.live_count == 4
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "oldest", indices[0])
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "newest", indices[5])
    assert texts(device)[0] == "oldest" and texts(device)[1].endswith("[Draw #5] newest")
    assert device.reports[-2].index_state == "dropped"


# ---- flush points ---------------------------------------------------------------------------------------------


def test_flush_only_for_observed_complete_work__flush() -> None:
    """"A flush carries work that has already completed — never the submission being made"; "That fence advances
    only as the application signals the queue, so an application that submits work but never calls Signal may see
    no flush from that queue until it is destroyed."  The runtime keeps such a submission's state until a flush
    that carries it."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    index = cl.draw()
    submit(queue, cl)
    cl.reset()  # only the submission references the recording now
    assert device.flushes[-1].submissions == ()  # the flush in ExecuteCommandLists: not this submission
    queue.gpu_run()  # the GPU finished, but no Signal: the runtime cannot observe it
    queue.wait()
    assert device.flushes[-1].kind == "Wait" and device.flushes[-1].submissions == ()
    assert device.indices.resolve(index) is not None  # not processed, so still retained
    queue.signal()
    queue.gpu_run()
    queue.wait()
    assert len(device.flushes[-1].submissions) == 1 and device.indices.resolve(index) is None


def test_execute_command_lists_flushes_completed_work__flush() -> None:
    """"The runtime issues it for a command queue during ID3D12CommandQueue::ExecuteCommandLists, ID3D12CommandQueue::
    Wait, and destruction of the queue" (the primary delivery point)."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_FAULT)
    submit(queue, cl)
    complete(queue)
    assert texts(device) == []  # nothing flushes on its own (no runtime background thread)
    submit(queue, device.create_command_list())
    assert device.flushes[-1].kind == "ExecuteCommandLists" and len(texts(device)) == 1


def test_flush_is_device_wide__flush() -> None:
    """"The flush itself is device-wide rather than scoped to the queue that triggered it, so ... an idle queue's
    messages can still reach the application through a different, active queue."""
    device = make_device()
    idle, active, cl = device.create_command_queue(), device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_FAULT)
    submit(idle, cl)
    complete(idle)
    active.wait()
    assert len(texts(device)) == 1 and device.flushes[-1].queue == active.object.identity_string()


def test_queue_destruction_flush_includes_unfinished_and_is_last__flush() -> None:
    """"Queue destruction flushes unconditionally, including for submissions the GPU has not finished; the driver
    may have nothing to report for those yet, and no further flush follows for that queue."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    index = cl.draw()
    submit(queue, cl)
    cl.reset()
    queue.destroy()
    assert device.flushes[-1].kind == "queue destruction" and len(device.flushes[-1].submissions) == 1
    assert device.indices.resolve(index) is None  # released after that flush
    with pytest.raises(MessagesError):
        queue.wait()


def test_no_flush_ddi_when_feature_off__flush() -> None:
    """"If the driver does not support the feature ... or the runtime did not enable it, the runtime does not call
    pfnFlushDriverReportedMessages"; "The runtime only calls pfnSetCommandListStateIndex when the
    driver-reported-messages feature has been enabled"."""
    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer()
    device = rt.create_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    assert cl.draw() is None
    submit(queue, cl)
    complete(queue)
    queue.wait()
    queue.destroy()
    assert device.flushes == []


# ---- device removal -------------------------------------------------------------------------------------------


def test_removal_flush_once_on_first_surfacing__device_removed() -> None:
    """"the runtime calls pfnFlushDriverReportedMessages synchronously the first time it surfaces
    DXGI_ERROR_DEVICE_REMOVED ... It is invoked at most once per device, and only after a removal has been
    detected."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_FAULT)
    submit(queue, cl)
    queue.gpu_run()  # the GPU ran it (the driver captured the fault); no Signal: no regular flush can carry it
    device.remove()
    assert [f.kind for f in device.flushes] == ["ExecuteCommandLists"]  # detection alone does not flush
    assert queue.signal() == values.hresult("DXGI_ERROR_DEVICE_REMOVED")
    assert device.flushes[-1].kind == "device removal" and device.flushes[-1].thread == threading.get_ident()
    assert len(texts(device)) == 1
    device.get_device_removed_reason()
    queue.wait()
    queue.destroy()
    assert [f.kind for f in device.flushes].count("device removal") == 1
    assert device.flushes[-1].kind == "device removal"  # no flush of any kind after it


# ---- threading ------------------------------------------------------------------------------------------------


def test_concurrent_reports_serialize__threading() -> None:
    """"Concurrent calls on the same hDevice are permitted. The runtime serializes reports internally on the
    InfoQueue lock. Concurrent callers block; they do not corrupt state": while one report's registered callback
    runs, a second thread's report waits."""
    device = make_device()
    inside, second_in_callback = threading.Event(), threading.Event()
    overlapped: list[bool] = []

    def on_message(category: int, severity: int, mid: int, text: str, ctx: object) -> None:
        if text == "first":
            inside.set()
            overlapped.append(second_in_callback.wait(0.02))  # the second report must not get in meanwhile
        else:
            second_in_callback.set()

    device.info_queue.register_message_callback(on_message)
    first = threading.Thread(target=device.callbacks.report_values, args=(1, "ERROR", "EXECUTION", "first"))
    first.start()
    assert inside.wait(2)
    second = threading.Thread(target=device.callbacks.report_values, args=(2, "ERROR", "EXECUTION", "second"))
    second.start()
    first.join(2)
    second.join(2)
    assert overlapped == [False]
    assert texts(device) == ["first", "second"]


def test_many_threads_all_delivered__threading() -> None:
    """Concurrent reports from many driver threads are all delivered, none lost or torn."""
    device = make_device()
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(50):
            assert device.callbacks.report_values(n, "INFO", "EXECUTION", f"{n}:{i}") == S_OK

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert sorted(texts(device)) == sorted(f"{n}:{i}" for n in range(8) for i in range(50))


def test_report_from_inside_flush_on_another_thread__threading() -> None:
    """"Reentrancy from within pfnFlushDriverReportedMessages is expected. The runtime releases its internal locks
    before invoking the flush DDI": a flush that hands reporting to another thread and waits for it completes."""

    class Handoff(ReferenceDriver):
        def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
            dev = super().create_device(callbacks)
            assert isinstance(dev, ReferenceDriverDevice)
            original = dev.flush

            def flush(hdevice: object) -> None:
                worker = threading.Thread(target=original, args=(hdevice,))
                worker.start()
                worker.join(2)
                assert not worker.is_alive(), "report from inside the flush blocked"

            dev.enable_extended_feature = lambda f, v: (  # type: ignore[method-assign]
                ReferenceDriverDevice.enable_extended_feature(dev, f, v) and DeviceFuncs(
                    flush, dev.set_command_list_state_index))
            return dev

    device = make_device(Handoff())
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_FAULT)
    submit(queue, cl)
    complete(queue)
    queue.wait()
    assert device.reports[-1].during_flush == "Wait" and device.reports[-1].index_state == "live"
    assert texts(device)[0].endswith("[Draw #0] bad shader table")


def test_app_callback_may_call_back_into_runtime__threading() -> None:
    """The registered callback runs "inline and still under that lock"; the InfoQueue stays readable from it."""
    device = make_device()
    counts: list[int] = []
    device.info_queue.register_message_callback(
        lambda *a: counts.append(device.info_queue.get_num_stored_messages()))
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "x")
    assert counts == [2]


# ---- the identity-string query --------------------------------------------------------------------------------


def _query(device: Device, hat: object, size: object, buf: object) -> int:
    return device.callbacks.pfnQueryObjectIdentityCb(device.hRTDevice, hat, size, buf)


def test_identity_two_call_pattern__object_identity() -> None:
    """Size call (pIdentityString = nullptr) writes the size in bytes including the NUL and returns S_OK; the fill
    call writes the NUL-terminated UTF-8 string: "0x000001D4A0E50A40:'MyVertexBuffer'"."""
    ffi = values.ffi()
    device = make_device()
    resource = device.create_resource()
    resource.set_name("MyVertexBuffer \u00fcber")
    expected = f"0x{resource.address:016X}:'MyVertexBuffer \u00fcber'".encode()
    size = ffi.new("uint64_t *")
    assert _query(device, resource.handle_and_type(), size, ffi.NULL) == S_OK
    assert size[0] == len(expected) + 1
    buf = ffi.new("char[]", size[0])
    assert _query(device, resource.handle_and_type(), size, buf) == S_OK
    assert ffi.buffer(buf)[:] == expected + b"\0"
    assert device.callbacks.query_identity(device.create_resource().handle_and_type()).endswith(
        ":'Unnamed ID3D12Resource Object'")


def test_identity_buffer_too_small_more_data__object_identity() -> None:
    """"If the buffer supplied in the fill call is too small, the runtime returns DXGI_ERROR_MORE_DATA and updates
    *pIdentityStringSize with the required size"; the name is read at query time ("from the future")."""
    ffi = values.ffi()
    device = make_device()
    cl = device.create_command_list("short")
    size = ffi.new("uint64_t *")
    _query(device, cl.handle.rt(), size, ffi.NULL)
    buf = ffi.new("char[]", size[0])
    cl.set_name("a much longer name set later")
    assert _query(device, cl.handle.rt(), size, buf) == MORE_DATA
    assert size[0] == len(cl.object.identity_string()) + 1
    assert ffi.buffer(buf)[:] == b"\0" * len(buf)
    assert device.callbacks.query_identity(cl.handle.rt()).endswith(":'a much longer name set later'")


def test_identity_invalid_inputs_einvalidarg_no_output__object_identity() -> None:
    """"On invalid inputs — pIdentityStringSize is NULL, hRTObject.Handle is NULL, hRTObject.Type is not a
    recognized D3D12DDI_HANDLETYPE, or the handle does not correspond to an object of the specified type — the
    runtime returns E_INVALIDARG and writes no output."""
    ffi = values.ffi()
    device = make_device()
    cl = device.create_command_list("CL")
    unrecognized = max(int(m) for m in values.enum("D3D12DDI_HANDLETYPE")) + 1000
    cases = [
        (cl.handle.rt(), ffi.NULL),
        (make_handle_and_type(0, cl.object.handle_type), ffi.new("uint64_t *", 77)),
        (make_handle_and_type(cl.object.address, unrecognized), ffi.new("uint64_t *", 77)),
        (make_handle_and_type(cl.object.address, device.create_resource().handle_type), ffi.new("uint64_t *", 77)),
    ]
    for hat, size in cases:
        buf = ffi.new("char[]", 64)
        assert _query(device, hat, size, buf) == E_INVALIDARG
        assert size == ffi.NULL or size[0] == 77
        assert ffi.buffer(buf)[:] == b"\0" * 64
