"""The GPU harness's input file (a *case*), the CPU model of what its recording shaders write, and the comparison
of two record tables.  This module needs numpy and :mod:`d3d12wl.vulkan.vk` only, so that it also runs on the GPU
machine (which has numpy but not the rest of the package):
``python -m d3d12wl.vulkan.case check CASE.bin RECORDS.bin OUT.json``.

A case file, little endian: a header of 16 uint32 (``magic`` 'DGC1', ``version`` 2, ``compute``,
``program_count``, ``push_constant_size``, ``stride``, ``count``, ``token_count``, ``seq_dword`` (the push-constant
DWORD the harness's SEQUENCE_INDEX token writes), ``index_bytes`` / ``vertex_bytes`` (sizes of the identity index
buffer and the dummy vertex buffer the harness points INDEX_BUFFER / VERTEX_BUFFER tokens at), ``index_size``
(2 or 4), ``vbv_size_offset`` / ``ibv_size_offset`` (the byte offset of ``SizeInBytes`` in the
``D3D12_VERTEX_BUFFER_VIEW`` / ``D3D12_INDEX_BUFFER_VIEW`` a token reads, from the compiled headers: the harness
relocates the view to its own buffers), two zero), then ``token_count`` tokens of 8 uint32 (``type``, ``offset``, ``size``, ``push_offset``,
``push_size``, ``vertex_binding_unit``, ``index_mode``, 0) in layout order, the initial push constants
(``push_constant_size`` bytes) and the sequence buffer (``count * stride`` bytes).

A record (one per sequence, ``RECORD_HEADER + push_constant_size / 4`` uint32; see ``tools/gpu/record.vert``):
0 invocations, 1 program, 2 sequence index, 3 gl_DrawID, 4 gl_BaseVertex (compute: groups X), 5 gl_BaseInstance
(Y), 6 vertex span (Z), 7 instance count, 8 ``0xFFFFFFFF`` - first vertex offset, 9-15 zero, then the push constants.
A sequence whose draw or dispatch runs no invocation writes nothing: its record stays zero.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.vulkan.vk import TokenType

__all__ = ["MAGIC", "RECORD_HEADER", "Case", "CaseToken", "compare_records", "model_records", "read_case",
           "write_case"]

MAGIC = 0x31434744  # b"DGC1"
VERSION = 2
HEADER_DWORDS = 16
TOKEN_DWORDS = 8
RECORD_HEADER = 16
#: record DWORDs compared: all but gl_DrawID (3), which the executor has no counterpart of (each sequence is its own draw)
FIELD_NAMES = ("invocations", "program", "sequence", "draw_id", "base_vertex_or_x", "base_instance_or_y",
               "vertex_span_or_z", "instances", "first_vertex_offset")
NOT_COMPARED = (3,)


@dataclass(frozen=True)
class CaseToken:
    type: int
    offset: int
    size: int
    push_offset: int = 0
    push_size: int = 0
    vertex_binding_unit: int = 0
    index_mode: int = 0


@dataclass
class Case:
    compute: bool
    program_count: int
    push_constant_size: int
    stride: int
    seq_dword: int
    tokens: tuple[CaseToken, ...]
    initial_push_constants: bytes
    sequences: np.ndarray  # (count, stride) uint8
    index_bytes: int = 0
    vertex_bytes: int = 0
    index_size: int = 4
    vbv_size_offset: int = 0
    ibv_size_offset: int = 0

    @property
    def count(self) -> int:
        return int(self.sequences.shape[0])

    @property
    def record_dwords(self) -> int:
        return RECORD_HEADER + self.push_constant_size // 4

    def to_bytes(self) -> bytes:
        header = np.array([MAGIC, VERSION, int(self.compute), self.program_count, self.push_constant_size, self.stride,
                           self.count, len(self.tokens), self.seq_dword, self.index_bytes, self.vertex_bytes,
                           self.index_size, self.vbv_size_offset, self.ibv_size_offset, 0, 0], dtype="<u4")
        tokens = np.array([[t.type, t.offset, t.size, t.push_offset, t.push_size, t.vertex_binding_unit,
                            t.index_mode, 0] for t in self.tokens], dtype="<u4").reshape(-1, TOKEN_DWORDS)
        assert len(self.initial_push_constants) == self.push_constant_size
        return header.tobytes() + tokens.tobytes() + self.initial_push_constants + \
            np.ascontiguousarray(self.sequences, dtype=np.uint8).tobytes()


def write_case(case: Case, path: str | Path) -> Path:
    p = Path(path)
    p.write_bytes(case.to_bytes())
    return p


def read_case(path: str | Path) -> Case:
    data = Path(path).read_bytes()
    h = np.frombuffer(data, dtype="<u4", count=HEADER_DWORDS)
    if int(h[0]) != MAGIC or int(h[1]) != VERSION:
        raise ValueError(f"{path}: not a d3d12wl DGC case")
    compute, programs, pcs, stride, count, ntok, seq_dword, index_bytes, vertex_bytes, index_size, vbv_size, \
        ibv_size = (int(x) for x in h[2:14])
    off = HEADER_DWORDS * 4
    toks = np.frombuffer(data, dtype="<u4", count=ntok * TOKEN_DWORDS, offset=off).reshape(ntok, TOKEN_DWORDS)
    off += toks.nbytes
    initial = data[off:off + pcs]
    off += pcs
    seq = np.frombuffer(data, dtype=np.uint8, count=stride * count, offset=off).reshape(count, stride)
    if off + seq.nbytes != len(data):
        raise ValueError(f"{path}: {len(data)} bytes, expected {off + seq.nbytes}")
    tokens = tuple(CaseToken(*(int(x) for x in row[:7])) for row in toks)
    return Case(bool(compute), programs, pcs, stride, seq_dword, tokens, initial, seq, index_bytes, vertex_bytes,
                index_size, vbv_size, ibv_size)


def _u32(seq: np.ndarray, offset: int, k: int = 1) -> np.ndarray:
    return np.ascontiguousarray(seq[:, offset:offset + 4 * k]).view("<u4").reshape(-1, k)


def model_records(case: Case) -> np.ndarray:
    """What the recording shaders write for every sequence if the GPU executes the case's sequence buffer as
    ``VK_EXT_device_generated_commands`` specifies (tokens applied in layout order over the initial push
    constants; the harness's identity index buffer for indexed draws)."""
    n, seq = case.count, case.sequences
    pc = np.zeros((n, case.push_constant_size), dtype=np.uint8)
    pc[:] = np.frombuffer(case.initial_push_constants, dtype=np.uint8)
    program = np.zeros(n, dtype=np.uint32)
    index = np.arange(n, dtype=np.uint32)
    rec = np.zeros((n, case.record_dwords), dtype=np.uint32)
    inv = np.zeros(n, dtype=np.uint64)
    for t in case.tokens:
        tt = TokenType(t.type)
        if tt is TokenType.EXECUTION_SET:
            program = _u32(seq, t.offset)[:, 0]
        elif tt is TokenType.PUSH_CONSTANT:
            pc[:, t.push_offset:t.push_offset + t.push_size] = seq[:, t.offset:t.offset + t.push_size]
        elif tt is TokenType.SEQUENCE_INDEX:
            pc[:, t.push_offset:t.push_offset + 4] = index.astype("<u4").view(np.uint8).reshape(n, 4)
        elif tt is TokenType.DRAW:
            vc, ic, fv, fi = _u32(seq, t.offset, 4).T
            inv = vc.astype(np.uint64) * ic
            rec[:, 4], rec[:, 5], rec[:, 6], rec[:, 7], rec[:, 8] = fv, fi, vc, ic, 0xFFFFFFFF
        elif tt is TokenType.DRAW_INDEXED:
            nidx, ic, first, vo, fi = _u32(seq, t.offset, 5).T
            inv = nidx.astype(np.uint64) * ic
            if case.index_size == 2 and n and int((first.astype(np.uint64) + nidx).max()) > 0x10000:
                raise ValueError("16-bit identity indices past 65535: the model does not cover the wrap")
            rec[:, 4], rec[:, 5], rec[:, 6], rec[:, 7] = vo, fi, first + nidx, ic
            rec[:, 8] = 0xFFFFFFFF - first
        elif tt is TokenType.DISPATCH:
            x, y, z = _u32(seq, t.offset, 3).T
            inv = x.astype(np.uint64) * y * z
            rec[:, 4], rec[:, 5], rec[:, 6] = x, y, z
    rec[:, 0] = inv.astype(np.uint32)
    rec[:, 1] = program
    rec[:, 2] = index
    rec[:, RECORD_HEADER:] = np.ascontiguousarray(pc).view("<u4")
    rec[inv == 0] = 0
    return rec


def compare_records(got: np.ndarray, want: np.ndarray, *, first: int = 20) -> dict[str, Any]:
    """Record by record: how many were compared, how many differ (gl_DrawID not compared), the first few
    differences, and the gl_DrawID values seen."""
    if got.shape != want.shape:
        return {"compared": 0, "mismatches": None, "error": f"shape {got.shape} != {want.shape}"}
    cols = [c for c in range(got.shape[1]) if c not in NOT_COMPARED]
    diff = got[:, cols] != want[:, cols]
    bad = np.flatnonzero(diff.any(axis=1))
    details = []
    for k in bad[:first]:
        fields = [cols[c] for c in np.flatnonzero(diff[k])]
        details.append({"sequence": int(k), "fields": {_field_name(c): {"gpu": int(got[k, c]), "want": int(want[k, c])}
                                                        for c in fields}})
    executed = got[:, 0] != 0
    return {"compared": int(got.shape[0]), "mismatches": int(len(bad)), "first_mismatches": details,
            "ran": int(executed.sum()), "no_invocation": int((want[:, 0] == 0).sum()),
            "draw_ids": sorted({int(v) for v in np.unique(got[executed, 3])[:8]})}


def _field_name(c: int) -> str:
    return FIELD_NAMES[c] if c < RECORD_HEADER and c < len(FIELD_NAMES) else \
        (f"header{c}" if c < RECORD_HEADER else f"push_dword{c - RECORD_HEADER}")


def read_records(path: str | Path, case: Case) -> np.ndarray:
    data = np.fromfile(path, dtype="<u4")
    return data.reshape(-1, case.record_dwords)[:case.count]


def main(argv: list[str] | None = None) -> int:
    """``check CASE RECORDS OUT.json``: the GPU's records against :func:`model_records` of the case."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 4 or args[0] != "check":
        print("usage: python -m d3d12wl.vulkan.case check CASE.bin RECORDS.bin OUT.json", file=sys.stderr)
        return 2
    case = read_case(args[1])
    result = compare_records(read_records(args[2], case), model_records(case))
    Path(args[3]).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("compared", "mismatches", "ran", "no_invocation")}))
    return 0 if result["mismatches"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
