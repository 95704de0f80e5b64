"""The conformance workloads and their probes (spec "HLK / conformance"; the checks are
:mod:`~d3d12wl.messages.conformance_checks`).

* **Probes.**  The workloads' command-list calls carry probes: a finding to report when the GPU runs the call
  (``gpu_message``) or while recording it (``record_message``).  Each probe's text carries a token of its own
  (``[d3d12wl probe 1a2b3c4d-3]``), and a finding is the probe's wherever the token stands in the driver's text (a
  driver may prefix a vendor tag or an object's identity, or add text after it).
* **Workloads.**  :func:`standard_workload` (every flush point but removal, with a Reset before a resubmission runs),
  :func:`removal_workload` (GPU work captured, or work in flight that never completes; the removal; the app going
  on), :func:`concurrent_workload` (two threads recording two lists, their calls interleaved between
  ``pfnSetCommandListStateIndex`` and the call itself).
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass

from d3d12wl.messages.channel import CommandList, Device, ReportRecord
from d3d12wl.messages.conformance_harness import LOCK_TIMEOUT_S, Context, check_context, make_device, traced


@dataclass(frozen=True)
class ProbeKind:
    """One logical message (one message class): every probe of a kind is the same message, "the same logical
    message use a stable VendorMessageId across reports"."""

    vendor_message_id: int
    severity: str
    category: str
    text: str
    gpu: bool  # a GPU-timeline finding (captured when the GPU runs the call) or a recording-time one

    @property
    def payload_key(self) -> str:
        return "gpu_message" if self.gpu else "record_message"

    @property
    def label(self) -> str:
        return "GPU-timeline" if self.gpu else "recording-time"


GPU_PROBE = ProbeKind(0x100, "ERROR", "EXECUTION", "conformance: GPU-timeline finding", True)
RECORD_PROBE = ProbeKind(0x101, "WARNING", "STATE_SETTING", "conformance: recording-time finding", False)
PROBE_KINDS = (GPU_PROBE, RECORD_PROBE)

_TOKEN = re.compile(rb"\[d3d12wl probe ([0-9a-f]{8})-(\d+)\]")


@dataclass(frozen=True)
class Probe:
    """One probe call: its kind, the token its text carries, the index the call was recorded under (None: the
    runtime issued none) and the list that recorded it."""

    kind: ProbeKind
    token: bytes
    index: int | None
    command_list: CommandList


@dataclass(frozen=True)
class Finding:
    """An accepted report carrying a probe's token (a report with two tokens is a finding of each)."""

    report: ReportRecord
    probe: Probe
    position: int  # the report's position in device.reports


class Workload:
    """The probe calls of one workload on one device."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.nonce = secrets.token_hex(4)
        self.probes: dict[bytes, Probe] = {}
        self._lock = threading.Lock()

    def call(self, command_list: CommandList, method: str, kind: ProbeKind) -> int | None:
        """``command_list.<method>(<kind's payload key>=probe)``: a GPU-work call carrying a fresh probe."""
        with self._lock:
            token = f"[d3d12wl probe {self.nonce}-{len(self.probes)}]".encode()
            self.probes[token] = Probe(kind, token, None, command_list)  # (its place, before the call reports it)
        text = f"{token.decode()} {kind.text}"
        index = getattr(command_list, method)(**{kind.payload_key: (kind.vendor_message_id, kind.severity,
                                                                    kind.category, text)})
        with self._lock:
            self.probes[token] = Probe(kind, token, index, command_list)
        return index

    def findings(self, kind: ProbeKind | None = None, *, reports: list[ReportRecord] | None = None) -> list[Finding]:
        """The accepted reports that carry a token of this workload's probes (of ``kind``), oldest first."""
        out = []
        for position, r in enumerate(self.device.reports if reports is None else reports):
            if r.rejection is not None or r.message is None or not isinstance(r.message.description, bytes):
                continue
            for match in _TOKEN.finditer(r.message.description):
                probe = self.probes.get(match.group(0))
                if probe is not None and match.group(1).decode() == self.nonce and (kind is None or probe.kind is kind):
                    out.append(Finding(r, probe, position))
        return out

    def ran(self, probe: Probe) -> bool:
        """Whether the GPU ran the recording of the probe's call (so a GPU-timeline finding of it exists)."""
        if probe.index is None:
            return False
        rec = self.device._index_recording.get(probe.index)
        return rec is not None and rec.executions > 0

    def of_kind(self, kind: ProbeKind) -> list[Probe]:
        return [p for p in self.probes.values() if p.kind is kind]


# ------------------------------------------------------------------------------------------------------------------
# workloads
# ------------------------------------------------------------------------------------------------------------------


def standard_workload(device: Device) -> Workload:
    """Record, submit, complete, resubmit, Reset before the resubmission runs, and destroy: every flush point but
    removal.  The resubmitted old recording runs after the Reset, so its finding must name the old recording."""
    w = Workload(device)
    queue = device.create_command_queue("conformance queue")
    a, b = device.create_command_list("A"), device.create_command_list("B")
    a.draw()
    w.call(a, "draw", GPU_PROBE)
    w.call(a, "dispatch", RECORD_PROBE)
    w.call(b, "dispatch", GPU_PROBE)
    a.close()
    b.close()
    queue.execute_command_lists([a, b])
    queue.signal()
    queue.gpu_run()
    queue.wait()
    queue.execute_command_lists([a])  # resubmission without Reset
    a.reset()
    w.call(a, "draw", GPU_PROBE)
    a.close()
    queue.signal()
    queue.gpu_run()  # runs the resubmission: the recording before the Reset
    queue.wait()
    queue.execute_command_lists([a])
    queue.gpu_run()  # finished but never signalled: only queue destruction carries it
    queue.destroy()
    return w


def removal_workload(device: Device, *, in_flight: bool = False) -> Workload:
    """GPU work submitted before the removal, the device removed, the removal surfaced (the removal flush), then the
    app going on calling into the removed device, and destroying it.

    The work is either *captured* -- the GPU ran it, and no flush point comes after (no Signal, no other call), so
    no regular flush can have carried its finding -- or, ``in_flight``, submitted and never completed by the GPU
    (the removal flush must return promptly all the same; no earlier flush has work in flight, which a driver may
    wait for on a real GPU, where it completes)."""
    w = Workload(device)
    queue, cl = device.create_command_queue("removal queue"), device.create_command_list("before the removal")
    w.call(cl, "draw", GPU_PROBE)
    cl.close()
    queue.execute_command_lists([cl])
    if not in_flight:
        queue.gpu_run()  # the GPU ran it: its finding is captured
    device.remove()
    device.get_device_removed_reason()  # the removal flush
    queue.wait()
    cl.reset()
    w.call(cl, "draw", GPU_PROBE)
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()
    queue.destroy()
    device.destroy()
    return w


#: Rounds of the concurrent workload (each: one call on each list, interleaved).
CONCURRENT_ROUNDS = 4


def concurrent_workload(device: Device) -> tuple[Workload, int]:
    """Two threads record one list each, ``CONCURRENT_ROUNDS`` probe calls, interleaved so that both lists'
    ``pfnSetCommandListStateIndex`` come before either call ("Concurrent calls ... are permitted": two threads
    recording two lists is legal D3D12); then both lists are submitted, run and flushed.  Returns the workload and
    how many rounds were interleaved (a round whose partner did not arrive within LOCK_TIMEOUT_S runs alone)."""
    w = Workload(device)
    queue = device.create_command_queue("concurrent queue")
    lists = [device.create_command_list("thread 1"), device.create_command_list("thread 2")]
    barrier = threading.Barrier(2)
    recording: set[int] = set()
    interleaved = [0]
    errors: list[BaseException] = []

    def after_set_index() -> None:
        if threading.get_ident() in recording and not barrier.broken:
            try:
                if barrier.wait(LOCK_TIMEOUT_S) == 0:
                    interleaved[0] += 1
            except threading.BrokenBarrierError:
                pass

    def record(cl: CommandList) -> None:
        recording.add(threading.get_ident())
        try:
            for _ in range(CONCURRENT_ROUNDS):
                w.call(cl, "draw", GPU_PROBE)
                w.call(cl, "dispatch", RECORD_PROBE)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)
            barrier.abort()
        finally:
            recording.discard(threading.get_ident())

    traced(device).after_set_index = after_set_index
    threads = [threading.Thread(target=record, args=(cl,), daemon=True) for cl in lists]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        traced(device).after_set_index = None
    if errors:
        raise errors[0]
    for cl in lists:
        cl.close()
    queue.execute_command_lists(lists)
    queue.signal()
    queue.gpu_run()
    queue.wait()
    queue.destroy()
    return w, interleaved[0]


def warm_up() -> None:
    """Do once, in a process about to fork check processes, what every check does first (the compiled headers'
    enums and types, the memory reader, the runtime model): the forked processes inherit it instead of each doing
    it again."""
    from d3d12wl.messages import memory
    from d3d12wl.messages.reference_driver import ReferenceDriver

    memory.read_bytes(id(warm_up), 1)
    with check_context(Context()):
        device = make_device(ReferenceDriver)
        standard_workload(device)
        removal_workload(make_device(ReferenceDriver))
        removal_workload(make_device(ReferenceDriver), in_flight=True)
        device.destroy()
