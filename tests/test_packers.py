"""numpy packers and readers: round trips through numpy and construct, strides, padding, PackError/ParseError.

Property tests draw random valid program command signatures (``strategies.valid_pcs``) and random ExecuteIndirect
command signatures, fill every field with random values of its C type, and prove that numpy packing, numpy
reading, construct parsing and construct building all give the same bytes and values (spec "Record byte layouts",
"Program table slot layout"; IndirectDrawing.md "Indirect argument buffer structures").
"""

from __future__ import annotations

import platform
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import command_signature, ei_arg, valid_pcs

from d3d12wl.errors import PackError, ParseError
from d3d12wl.model import description
from d3d12wl.records.dtypes import leaves, record_dtype, struct_dtype
from d3d12wl.records.layout import PCSLayout, RecordLayout, command_layout, pcs_layout
from d3d12wl.records.packers import (
    count_records,
    pack_count_buffer,
    pack_dispatch_list_inputs,
    pack_execute_indirect,
    pack_primary_records,
    pack_program_table,
    pack_records,
    pack_secondary_records,
    read_count_buffer,
    read_dispatch_list_inputs,
    read_execute_indirect,
    read_primary_records,
    read_records,
    read_secondary_records,
    to_columns,
)
from d3d12wl.records.schemas import record_schema, struct_schema

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
PROPERTY = settings(max_examples=30, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def culling() -> PCSLayout:
    return pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])


def random_columns(dtype: np.dtype, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Every leaf of ``dtype`` filled with random values over its whole C range."""
    out = {}
    for lf in leaves(dtype):
        info = np.iinfo(lf.dtype)
        out[lf.path] = rng.integers(info.min, info.max, size=(n, *lf.shape), dtype=lf.dtype, endpoint=True)
    return out


def get_path(obj: object, path: str) -> object:
    for part in path.split("."):
        obj = obj[part]  # type: ignore[index]
    return obj


def covered_bytes(layout: RecordLayout, stride: int) -> np.ndarray:
    used = np.zeros(stride, dtype=bool)
    for f in layout.fields:
        used[f.offset:f.end] = True
    return used


def assert_round_trip(layout: RecordLayout, stride: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    dtype = record_dtype(layout, stride or None)
    columns = random_columns(dtype, n, rng)
    packed = pack_records(layout, columns, stride=stride)
    step = stride or layout.min_stride
    assert packed.nbytes == n * step
    # numpy: read back the same values, re-pack the same bytes
    back = to_columns(read_records(layout, packed, stride=stride))
    assert back.keys() == columns.keys()
    for path, col in columns.items():
        assert np.array_equal(back[path], col), path
    assert pack_records(layout, back, stride=stride).tobytes() == packed.tobytes()
    assert pack_records(layout, read_records(layout, packed, stride=stride), stride=stride).tobytes() == packed.tobytes()
    # padding is zero
    rows = packed.reshape(n, step)
    assert not rows[:, ~covered_bytes(layout, step)].any()
    # construct: per record, the same values and the same bytes
    schema = record_schema(layout, stride)
    for i in range(n):
        chunk = packed[i * step:(i + 1) * step].tobytes()
        parsed = schema.parse(chunk)
        assert schema.build(parsed) == chunk
        for path, col in columns.items():
            assert get_path(parsed, path) == col[i].tolist(), path


@PROPERTY
@given(generated=valid_pcs(), seed=st.integers(0, 2**32 - 1), n=st.integers(0, 12), extra=st.integers(0, 2))
def test_random_pcs_records_round_trip(generated, seed: int, n: int, extra: int) -> None:  # noqa: ANN001
    """Spec "Record byte layouts" + "Primary record layout" + "Program table slot layout": every record class of
    a random valid signature packs, parses and re-packs byte-identically through numpy and construct."""
    pl = pcs_layout(generated.pcs)
    for layout in (pl.primary, pl.secondary, pl.program_table):
        if layout is not None:
            assert_round_trip(layout, layout.min_stride + 8 * extra, n, seed)


_EI_ARGS = st.sampled_from([
    ("DRAW", {}), ("DRAW_INDEXED", {}), ("DISPATCH", {}), ("DISPATCH_MESH", {}),
    ("VERTEX_BUFFER_VIEW", {"slot": 1}), ("INDEX_BUFFER_VIEW", {}), ("CONSTANT", {"num": 1}),
    ("CONSTANT", {"num": 3}), ("CONSTANT_BUFFER_VIEW", {}), ("SHADER_RESOURCE_VIEW", {}),
    ("UNORDERED_ACCESS_VIEW", {}), ("DISPATCH_RAYS", {}),
])


@PROPERTY
@given(args=st.lists(_EI_ARGS, min_size=1, max_size=5), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8),
       extra=st.integers(0, 3))
def test_random_execute_indirect_records_round_trip(args, seed: int, n: int, extra: int) -> None:  # noqa: ANN001
    """IndirectDrawing.md: ExecuteIndirect arguments are tightly packed (no padding), ByteStride a multiple of 4."""
    cs = command_signature("EI", 0, [ei_arg(t, **kw) for t, kw in args])
    layout = command_layout(cs)
    offsets = [f.offset for f in layout.fields]
    ends = [f.end for f in layout.fields]
    assert offsets == [0, *ends[:-1]]  # tightly packed
    assert_round_trip(layout, layout.min_stride + 4 * extra, n, seed)


def test_broadcast_secondary_stride_packs_one_record() -> None:
    """Spec "Stride derivation": SecondaryRecordByteStride 0 is the broadcast form (one record)."""
    pl = culling()
    assert pl.secondary is not None
    assert_round_trip(pl.secondary, 0, 1, 7)
    cols = random_columns(record_dtype(pl.secondary), 2, np.random.default_rng(0))
    with pytest.raises(PackError, match="exactly 1"):
        pack_secondary_records(pl.secondary, cols, stride=0)


# --- the culling example ------------------------------------------------------------------------------------------


def test_culling_secondary_records_match_the_hlsl_struct() -> None:
    """Spec "GPU culling and work list emission": struct SecondaryRecord {uint64_t MaterialBufferSRV; uint x4}."""
    pl = culling()
    n = 5
    srv = np.arange(n, dtype=np.uint64) * 256 + 0x10000
    vc = np.arange(n, dtype=np.uint32) + 3
    packed = pack_secondary_records(pl, {"arg0_ShaderResourceView": srv, "arg1_Draw.VertexCountPerInstance": vc,
                                         "arg1_Draw.InstanceCount": 1, "arg1_Draw.StartVertexLocation": vc * 2,
                                         "arg1_Draw.StartInstanceLocation": 0})
    expected = b"".join(struct.pack("<QIIII", int(srv[i]), int(vc[i]), 1, int(vc[i]) * 2, 0) for i in range(n))
    assert packed.tobytes() == expected
    back = read_secondary_records(pl, packed)
    assert back["arg1_Draw"]["VertexCountPerInstance"].tolist() == vc.tolist()


def test_culling_program_table_from_float_tints() -> None:
    """Spec "GPU culling and work list emission" step 4: ProgramSlot {D3D12_PROGRAM_IDENTIFIER id; float tint[4]},
    48 bytes."""
    pl = culling()
    ids = [bytes([i + 1]) * 32 for i in range(3)]
    tint = np.array([[1, 1, 1, 1], [0.5, 0.7, 1, 0.5], [0, 0, 0, 1]], dtype=np.float32)
    packed = pack_program_table(pl, {"ProgramIdentifier": ids, "arg2_InlineRootParameter": tint.view(np.uint32)})
    expected = b"".join(ids[i] + tint[i].tobytes() for i in range(3))
    assert packed.tobytes() == expected
    with pytest.raises(PackError, match="float32"):
        pack_program_table(pl, {"ProgramIdentifier": ids, "arg2_InlineRootParameter": tint})


def test_whole_struct_columns_structured_or_bytes() -> None:
    """A struct payload column may be a structured array or raw bytes of the payload's size."""
    pl = culling()
    draws = np.zeros(2, dtype=struct_dtype("D3D12_DRAW_ARGUMENTS"))
    draws["VertexCountPerInstance"] = [3, 6]
    draws["InstanceCount"] = 1
    a = pack_secondary_records(pl, {"arg0_ShaderResourceView": [8, 16], "arg1_Draw": draws})
    raw = np.frombuffer(draws.tobytes(), dtype=np.uint8).reshape(2, 16)
    b = pack_secondary_records(pl, {"arg0_ShaderResourceView": [8, 16], "arg1_Draw": raw})
    assert a.tobytes() == b.tobytes() == struct.pack("<QIIIIQIIII", 8, 3, 1, 0, 0, 16, 6, 1, 0, 0)


def test_structured_array_input_and_out_buffer_padding_is_zeroed() -> None:
    """Padding bytes are zero even when the input's or the out= buffer's padding is not."""
    pl = culling()
    rec = pl.primary
    arr = np.zeros(3, dtype=record_dtype(rec, 32))
    arr["ProgramTableIndex"] = [0, 1, 2]
    arr["SecondaryRecords"] = [8, 16, 24]
    arr.view(np.uint8).reshape(3, 32)[:, 16:] = 0xEE  # garbage in the trailing pad
    out = np.full(200, 0xAB, dtype=np.uint8)
    packed = pack_primary_records(pl, arr, stride=32, out=out)
    assert packed.base is out or packed.base is out.base or np.shares_memory(packed, out)
    rows = packed.reshape(3, 32)
    assert not rows[:, 16:].any()
    packed2 = pack_primary_records(pl, to_columns(arr), stride=32, out=np.full(96, 0xCD, dtype=np.uint8))
    assert packed2.tobytes() == packed.tobytes()


# --- strides -----------------------------------------------------------------------------------------------------


def test_stride_rules() -> None:
    """Rule 25(e) / spec "Stride derivation": >= minimum, a multiple of 8; 0 only for the broadcast forms."""
    pl = culling()
    cols = {"ProgramTableIndex": [1], "NumSecondaryRecords": [1], "SecondaryRecords": [8]}
    assert pack_primary_records(pl, cols).nbytes == 16
    assert pack_primary_records(pl, cols, stride=24).nbytes == 24
    with pytest.raises(PackError, match="multiple of 8"):
        pack_primary_records(pl, cols, stride=20)
    with pytest.raises(PackError, match="below the minimum"):
        pack_primary_records(pl, cols, stride=8)
    with pytest.raises(PackError, match="broadcast"):
        pack_primary_records(pl, cols, stride=0)
    with pytest.raises(PackError, match="D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE"):
        pack_program_table(pl, {"ProgramIdentifier": [bytes(32)], "arg2_InlineRootParameter": [[0, 0, 0, 0]]},
                           stride=8192)


def test_execute_indirect_stride_multiple_of_4_and_count_buffer() -> None:
    """IndirectDrawing.md: ByteStride a multiple of 4; the count buffer is one UINT32."""
    cs = command_signature("EI", 28, [ei_arg("CONSTANT", num=1), ei_arg("DRAW")])
    layout = command_layout(cs)
    assert layout.min_stride == 20
    packed = pack_execute_indirect(cs, {"arg0_Constant": [7, 8], "arg1_Draw": np.arange(8, dtype=np.uint32).reshape(
        2, 4).view(np.uint8).reshape(2, 16)})
    assert packed.nbytes == 56  # the signature's ByteStride
    assert read_execute_indirect(cs, packed)["arg0_Constant"].tolist() == [7, 8]
    with pytest.raises(PackError, match="multiple of 4"):
        pack_execute_indirect(layout, {"arg0_Constant": [1], "arg1_Draw": bytes(16)}, stride=22)
    assert read_count_buffer(pack_count_buffer(5)) == 5
    with pytest.raises(PackError):
        pack_count_buffer(-1)
    with pytest.raises(ParseError, match="count buffer"):
        read_count_buffer(b"\x01\x00")


# --- dispatch list inputs ------------------------------------------------------------------------------------------


def test_dispatch_list_inputs_tier_1_and_2() -> None:
    """Spec D3D12_DISPATCH_LIST_INPUT (24 bytes) and D3D12_DISPATCH_LIST_INPUT1 (40 bytes)."""
    t1 = pack_dispatch_list_inputs({"NumProgramInputs": [3], "Flags": [0], "ProgramInputs.StartAddress": [0x1000],
                                    "ProgramInputs.StrideInBytes": [16]})
    assert t1.tobytes() == struct.pack("<IIQQ", 3, 0, 0x1000, 16)
    assert construct_bytes("D3D12_DISPATCH_LIST_INPUT", read_dispatch_list_inputs(t1)) == t1.tobytes()
    t2 = pack_dispatch_list_inputs({"NumProgramInputs": [1, 0], "Flags": [2, 0], "SignatureIndex": [0, 1],
                                    "ProgramInputs.StartAddress": [0x2000, 3], "ProgramInputs.StrideInBytes": [24, 5],
                                    "NextDispatchList": [0x1028, 0]}, tier=2)
    assert t2.nbytes == 80
    assert t2[:40].tobytes() == struct.pack("<IIIIQQQ", 1, 2, 0, 0, 0x2000, 24, 0x1028)
    assert construct_bytes("D3D12_DISPATCH_LIST_INPUT1", read_dispatch_list_inputs(t2, tier=2)) == t2.tobytes()


def construct_bytes(name: str, arr: np.ndarray) -> bytes:
    schema = struct_schema(name)
    return b"".join(schema.build(schema.parse(arr[i:i + 1].tobytes())) for i in range(len(arr)))


def test_dispatch_list_input_alignment_is_checked() -> None:
    """Spec D3D12_DISPATCH_LIST_INPUT::ProgramInputs: StartAddress and StrideInBytes 8-byte aligned when
    NumProgramInputs > 0 (unconstrained when 0); _INPUT1 ReservedPadding 0, NextDispatchList 0 or 8-aligned."""
    base = {"NumProgramInputs": [1], "Flags": [0], "ProgramInputs.StartAddress": [0x1004],
            "ProgramInputs.StrideInBytes": [16]}
    with pytest.raises(PackError, match="ProgramInputs.StartAddress") as err:
        pack_dispatch_list_inputs(base)
    assert err.value.rule is not None
    pack_dispatch_list_inputs({**base, "NumProgramInputs": [0]})
    t2 = {**base, "ProgramInputs.StartAddress": [0x1000], "SignatureIndex": [0], "NextDispatchList": [0x44]}
    with pytest.raises(PackError, match="NextDispatchList"):
        pack_dispatch_list_inputs(t2, tier=2)
    with pytest.raises(PackError, match="ReservedPadding"):
        pack_dispatch_list_inputs({**t2, "NextDispatchList": [0], "ReservedPadding": [1]}, tier=2)


def test_primary_secondary_records_alignment_is_checked() -> None:
    """Spec D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords: 8-byte aligned."""
    pl = culling()
    with pytest.raises(PackError, match="SecondaryRecords 0x1004 at record 1"):
        pack_primary_records(pl, {"ProgramTableIndex": [0, 1], "NumSecondaryRecords": [1, 1],
                                  "SecondaryRecords": [0x1000, 0x1004]})
    pack_primary_records(pl, {"ProgramTableIndex": [0, 1], "NumSecondaryRecords": [1, 1],
                              "SecondaryRecords": [0x1000, 0x1004]}, validate=False)


# --- PackError cases ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("columns", "match"), [
    ({"ProgramTableIndex": [1], "NumSecondaryRecords": [1]}, "missing column.*SecondaryRecords"),
    ({"ProgramTableIndex": [1], "NumSecondaryRecords": [1], "SecondaryRecords": [8], "Bogus": [1]},
     "unknown column 'Bogus'"),
    ({"ProgramTableIndex": [1, 2], "NumSecondaryRecords": [1], "SecondaryRecords": [8, 8]},
     "'NumSecondaryRecords' has 1 values, expected 2"),
    ({"ProgramTableIndex": [-1], "NumSecondaryRecords": [1], "SecondaryRecords": [8]},
     "'ProgramTableIndex' value -1 at record 0 is outside uint32"),
    ({"ProgramTableIndex": [0, 2**32], "NumSecondaryRecords": [1, 1], "SecondaryRecords": [8, 8]},
     "'ProgramTableIndex' value 4294967296 at record 1"),
    ({"ProgramTableIndex": [0.5], "NumSecondaryRecords": [1], "SecondaryRecords": [8]}, "'ProgramTableIndex' holds"),
    ({"ProgramTableIndex": [0], "NumSecondaryRecords": [1], "SecondaryRecords": [-8]}, "'SecondaryRecords' value -8"),
    ({"ProgramTableIndex": 0, "NumSecondaryRecords": 1, "SecondaryRecords": 8}, "count="),
])
def test_pack_errors_name_the_column(columns: dict, match: str) -> None:
    """design.md "Output": wrong columns raise the package's PackError naming the column."""
    with pytest.raises(PackError, match=match):
        pack_primary_records(culling(), columns)


def test_overlapping_and_bad_struct_columns() -> None:
    pl = culling()
    base = {"arg0_ShaderResourceView": [8], "arg1_Draw": bytes(16)}
    with pytest.raises(PackError, match="both write"):
        pack_secondary_records(pl, {**base, "arg1_Draw.InstanceCount": [1]})
    with pytest.raises(PackError, match="16 bytes per record"):
        pack_secondary_records(pl, {**base, "arg1_Draw": np.zeros((1, 12), dtype=np.uint8)})
    with pytest.raises(PackError, match="no secondary"):
        pack_secondary_records(pcs_layout(_inline_pcs()), base)


def _inline_pcs():  # noqa: ANN202
    from strategies import wl_arg

    from d3d12wl.model.objects import ProgramCommandSignature

    return ProgramCommandSignature("Inline", [wl_arg("DISPATCH", "PRIMARY_RECORD")])


def test_scalar_columns_broadcast_with_count() -> None:
    pl = culling()
    packed = pack_primary_records(pl, {"ProgramTableIndex": 2, "NumSecondaryRecords": 0, "SecondaryRecords": 0},
                                  count=3)
    assert read_primary_records(pl, packed)["ProgramTableIndex"].tolist() == [2, 2, 2]


def test_readers_are_zero_copy_and_truncation_names_the_record() -> None:
    pl = culling()
    packed = pack_primary_records(pl, {"ProgramTableIndex": [0, 1], "NumSecondaryRecords": [0, 0],
                                       "SecondaryRecords": [0, 0]})
    arr = read_primary_records(pl, packed)
    assert np.shares_memory(arr, packed)
    with pytest.raises(ParseError, match="primary record 1 of 'PCS' field NumSecondaryRecords"):
        read_primary_records(pl, packed[:20], count=2)
    assert len(read_primary_records(pl, packed[:20])) == 1  # whole records only when no count is given


def test_subarray_value_broadcasts_even_when_its_length_equals_the_count() -> None:
    """A DWORD-array column of shape (count,) is one value for every record, not one value per record."""
    pl = culling()
    ids = [bytes([i]) * 32 for i in range(4)]
    packed = pack_program_table(pl, {"ProgramIdentifier": ids, "arg2_InlineRootParameter": [1, 2, 3, 4]})
    slots = read_records(pl.program_table, packed)  # type: ignore[arg-type]
    assert slots["arg2_InlineRootParameter"].tolist() == [[1, 2, 3, 4]] * 4
    assert count_records(pl.program_table, {"ProgramIdentifier": ids, "arg2_InlineRootParameter": [1, 2, 3, 4]}) == 4


# --- the record kernels (d3d12wl/records/_kernels.c): scatter and gather against construct ----------------------------

_KERNEL = settings(max_examples=40, derandomize=True, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
_CONSTRUCT_TYPES = {"u1": "Int8ul", "u2": "Int16ul", "u4": "Int32ul", "u8": "Int64ul", "i1": "Int8sl",
                    "i2": "Int16sl", "i4": "Int32sl", "i8": "Int64sl", "f4": "Float32l", "f8": "Float64l"}


@st.composite
def random_layouts(draw: st.DrawFn) -> tuple[np.dtype, object]:
    """A random record dtype (naturally aligned fields of every size, subarrays, holes, a stride with trailing
    padding, 8-byte multiple or not) and the construct Struct of the same bytes."""
    import construct as cs

    kinds = draw(st.lists(st.sampled_from(sorted(_CONSTRUCT_TYPES)), min_size=1, max_size=7))
    names, formats, offsets, parts = [], [], [], []
    at = 0
    for i, kind in enumerate(kinds):
        size = int(kind[1])
        count = draw(st.sampled_from([1, 1, 1, 2, 3, 4]))
        gap = draw(st.integers(0, 2)) * size
        start = -(-at // size) * size + gap
        if start > at:
            parts.append(cs.Padding(start - at))
        elem = getattr(cs, _CONSTRUCT_TYPES[kind])
        parts.append(f"f{i}" / (cs.Array(count, elem) if count > 1 else elem))
        names.append(f"f{i}")
        formats.append((f"<{kind}", (count,)) if count > 1 else f"<{kind}")
        offsets.append(start)
        at = start + size * count
    align = draw(st.sampled_from([1, 4, 8]))
    stride = -(-at // align) * align + align * draw(st.integers(0, 2))
    if stride > at:
        parts.append(cs.Padding(stride - at))
    dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": stride})
    return dtype, cs.Struct(*parts)


def random_values(dtype: np.dtype, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    out = {}
    for lf in leaves(dtype):
        if lf.dtype.kind == "f":
            out[lf.path] = rng.standard_normal((n, *lf.shape)).astype(lf.dtype)
        else:
            info = np.iinfo(lf.dtype)
            out[lf.path] = rng.integers(info.min, info.max, size=(n, *lf.shape), dtype=lf.dtype, endpoint=True)
    return out


def construct_build(schema: object, columns: dict[str, np.ndarray], n: int) -> bytes:
    return b"".join(schema.build({p: c[i].tolist() for p, c in columns.items()}) for i in range(n))  # type: ignore[attr-defined]


def restyle(col: np.ndarray, style: str, rng: np.random.Generator) -> np.ndarray:
    """The same values as another array type: non-contiguous, reversed-stride, wider or narrower integer, big-endian."""
    if style == "strided":
        wide = np.zeros((len(col) * 2, *col.shape[1:]), dtype=col.dtype)
        wide[::2] = col
        return wide[::2]
    if style == "fortran":
        return np.asfortranarray(col)
    if style == "reversed":
        return col[::-1].copy()[::-1]
    if style == "big-endian":
        return col.astype(col.dtype.newbyteorder(">"))
    if style == "int64" and col.dtype.kind in "ui" and col.dtype.itemsize < 8:
        return col.astype(np.int64)
    if style == "uint64" and col.dtype.kind == "u":
        return col.astype(np.uint64)
    if style == "narrow" and col.dtype.kind in "ui":
        small = np.dtype(np.uint8 if col.dtype.kind == "u" else np.int8)
        if np.array_equal(col.astype(small).astype(col.dtype), col):
            return col.astype(small)
    if style == "list" and col.size:  # (an empty list is float64 to numpy)
        return col.tolist()  # type: ignore[return-value]
    return col


_STYLES = ["same", "strided", "fortran", "reversed", "big-endian", "int64", "uint64", "narrow", "list"]


# --- both kernel variants: the SSE2 paths and the portable loops (built with -DD3D12WL_NO_SIMD) -----------------


@pytest.fixture(scope="module")
def portable_kernels(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object]:
    """(ffi, lib) of the record kernels alone, compiled with -DD3D12WL_NO_SIMD: the code a host without SSE2 runs."""
    import importlib.util

    from cffi import FFI

    from d3d12wl.abi._ffi_builder import kernel_source

    cdef, source = kernel_source()
    builder = FFI()
    builder.cdef(cdef)
    builder.set_source("_d3d12wl_portable_kernels", source, extra_compile_args=["-DD3D12WL_NO_SIMD"])
    path = builder.compile(tmpdir=str(tmp_path_factory.mktemp("portable_kernels")))
    spec = importlib.util.spec_from_file_location("_d3d12wl_portable_kernels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.lib.d3d12wl_kernels_simd() == 0
    return module.ffi, module.lib


@contextmanager
def kernels(variant: str, portable: tuple[object, object]) -> Iterator[None]:
    """Run the packers and to_columns through the given kernel build ('simd': the extension's, with its SSE2
    paths on x86-64; 'portable': the -DD3D12WL_NO_SIMD build)."""
    from d3d12wl import abi
    from d3d12wl.records import packers

    if variant == "simd":
        if platform.machine().lower() in ("x86_64", "amd64"):
            assert abi.default.lib.d3d12wl_kernels_simd() == 1
        yield
        return
    saved = packers._use_kernels(*portable)
    assert packers._lib.d3d12wl_kernels_simd() == 0
    try:
        yield
    finally:
        packers._use_kernels(*saved)


@pytest.fixture(params=["simd", "portable"])
def kernel_variant(request: pytest.FixtureRequest, portable_kernels: tuple[object, object]) -> Iterator[str]:
    """The test runs through each kernel build in turn (every hypothesis example of it)."""
    with kernels(request.param, portable_kernels):
        yield request.param


def assert_kernel_bytes(dtype: np.dtype, expected: bytes, columns: dict[str, np.ndarray], given_: dict[str, object],
                        n: int) -> None:
    """Packing ``given_`` gives ``expected`` (construct's bytes), also into a dirty out= buffer, from a structured
    array, and the gather reads ``columns`` back from a contiguous and from a strided structured array."""
    from d3d12wl.records.packers import _pack

    assert _pack(dtype, given_, what="test", count=n).tobytes() == expected
    dirty = np.full(n * dtype.itemsize + 5, 0xA5, dtype=np.uint8)
    assert _pack(dtype, given_, what="test", count=n, out=dirty).tobytes() == expected
    arr = np.frombuffer(expected, dtype=dtype, count=n) if n else np.zeros(0, dtype=dtype)
    spaced = np.zeros(2 * n, dtype=dtype)
    spaced[::2] = arr
    for source in (arr, spaced[::2]):
        back = to_columns(source)
        for path, col in columns.items():
            assert back[path].tobytes() == col.tobytes(), path
    # a structured array (the same dtype) packs through the same kernel
    assert _pack(dtype, spaced[::2], what="test").tobytes() == expected


@_KERNEL
@given(layout=random_layouts(), n=st.integers(0, 40), seed=st.integers(0, 2**32 - 1),
       styles=st.lists(st.sampled_from(_STYLES), min_size=7, max_size=7))
def test_kernel_scatter_matches_construct_on_random_layouts(kernel_variant: str, layout, n: int, seed: int,  # noqa: ANN001
                                                            styles: list[str]) -> None:
    """d3d12wl_scatter_columns writes the bytes construct builds, for any field sizes, subarrays, holes and
    strides (the lane path and the column path), from input columns of any layout and integer type; padding is
    zero even in a dirty out= buffer; the gather reads the same values back."""
    dtype, schema = layout
    rng = np.random.default_rng(seed)
    columns = random_values(dtype, n, rng)
    for col in columns.values():  # small values too, so narrower input types fit
        if col.dtype.kind in "ui" and n:
            col[: n // 2] %= 100
    expected = construct_build(schema, columns, n)
    given_ = {path: restyle(col, styles[i % len(styles)], rng) for i, (path, col) in enumerate(columns.items())}
    assert_kernel_bytes(dtype, expected, columns, given_, n)


#: 8-byte words of a record the SIMD paths take word by word or two words at a time: a UINT64-sized field, a
#: two-element 4-byte subarray, two 4-byte fields, one 4-byte field and 4 bytes of padding (either side),
#: padding, a two-element 8-byte subarray (two words); "small" (two 2-byte fields and a 4-byte one) sends the whole
#: record to the column path.
_WORDS = ["u8", "u8", "u4x2", "pair", "pair", "lo", "hi", "pad", "u8x2", "small"]


@st.composite
def word_layouts(draw: st.DrawFn) -> tuple[np.dtype, object]:
    """A random record of whole 8-byte words (a stride of 8 to 56 bytes) and the construct Struct of it."""
    import construct as cs

    kinds = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6))
    names: list[str] = []
    formats: list[object] = []
    offsets: list[int] = []
    parts: list[object] = []

    def field(size: int, count: int, at: int) -> None:
        kind = draw(st.sampled_from(["u", "i", "f"] if size >= 4 else ["u", "i"])) + str(size)
        elem = getattr(cs, _CONSTRUCT_TYPES[kind])
        names.append(f"f{len(names)}")
        parts.append(names[-1] / (cs.Array(count, elem) if count > 1 else elem))
        formats.append((f"<{kind}", (count,)) if count > 1 else f"<{kind}")
        offsets.append(at)

    at = 0
    for kind in kinds:
        if kind == "u8":
            field(8, 1, at)
        elif kind == "u4x2":
            field(4, 2, at)
        elif kind == "pair":
            field(4, 1, at)
            field(4, 1, at + 4)
        elif kind == "lo":
            field(4, 1, at)
            parts.append(cs.Padding(4))
        elif kind == "hi":
            parts.append(cs.Padding(4))
            field(4, 1, at + 4)
        elif kind == "pad":
            parts.append(cs.Padding(8))
        elif kind == "u8x2":
            field(8, 2, at)
            at += 8
        else:
            field(2, 1, at)
            field(2, 1, at + 2)
            field(4, 1, at + 4)
        at += 8
    if not names:
        field(8, 1, at)
        at += 8
    dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": at})
    return dtype, cs.Struct(*parts)


@_KERNEL
@given(layout=word_layouts(), n=st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 9, 255, 256, 257, 513, 1027]),
       seed=st.integers(0, 2**32 - 1),
       styles=st.lists(st.sampled_from(["same", "same", "same", "strided", "int64", "big-endian"]), min_size=7,
                       max_size=7))
def test_kernel_word_paths_match_construct(kernel_variant: str, layout, n: int, seed: int,
                                           styles: list[str]) -> None:  # noqa: ANN001
    """Records of whole 8-byte words (the SIMD paths: two words per 16-byte store or load, word by word, and the
    odd or last 1-3 records of a block through the column loops), counts around the pair, quad and block
    boundaries: the same bytes as construct, the same values back, in both kernel variants."""
    dtype, schema = layout
    rng = np.random.default_rng(seed)
    columns = random_values(dtype, n, rng)
    expected = construct_build(schema, columns, n)
    given_ = {path: restyle(col, styles[i % len(styles)], rng) for i, (path, col) in enumerate(columns.items())}
    assert_kernel_bytes(dtype, expected, columns, given_, n)


@_KERNEL
@given(layout=random_layouts(), n=st.integers(1, 3000), data=st.data())
def test_kernel_range_failure_names_column_and_first_record(kernel_variant: str, layout, n: int,  # noqa: ANN001
                                                            data: st.DataObject) -> None:
    """A value outside its field's C type, given as a wider or differently-signed integer, raises PackError
    naming the column, the value and the first failing record (the lowest record over every column)."""
    from d3d12wl.records.packers import _pack

    dtype, _ = layout
    ints = [lf for lf in leaves(dtype) if lf.dtype.kind in "ui" and lf.dtype.itemsize < 8]
    if not ints:
        return
    rng = np.random.default_rng(n)
    columns: dict[str, np.ndarray] = {p: c for p, c in random_values(dtype, n, rng).items()}
    bad = data.draw(st.lists(st.sampled_from(ints), min_size=1, max_size=3, unique_by=lambda lf: lf.path))
    first: tuple[int, int] | None = None
    for order, lf in enumerate(bad):
        record = data.draw(st.integers(0, n - 1))
        info = np.iinfo(lf.dtype)
        value = data.draw(st.sampled_from([info.max + 1, info.min - 1, 2**40]))
        col = columns[lf.path].astype(np.int64)
        col.reshape(n, -1)[record, -1] = value
        columns[lf.path] = col
        order_in_plan = list(columns).index(lf.path)
        if first is None or (record, order_in_plan) < first:
            first = (record, order_in_plan)
    assert first is not None
    record, index = first
    path = list(columns)[index]
    with pytest.raises(PackError, match=rf"column '{path}' value .* at record {record} is outside"):
        _pack(dtype, columns, what="test")


@PROPERTY
@given(n=st.integers(1, 5000), data=st.data())
def test_kernel_alignment_check_names_the_first_misaligned_record(kernel_variant: str, n: int,
                                                                  data: st.DataObject) -> None:
    """SecondaryRecords must be 8-byte aligned where NumSecondaryRecords > 0: the first such record anywhere in a
    long list (any block of the kernel) is the one named; misaligned addresses of records with no secondary
    records pass; validate=False packs anything."""
    pl = culling()
    rng = np.random.default_rng(n)
    cols = {"ProgramTableIndex": rng.integers(0, 64, n, dtype=np.uint32),
            "NumSecondaryRecords": rng.integers(1, 9, n, dtype=np.uint32),
            "SecondaryRecords": rng.integers(0, 1 << 40, n, dtype=np.uint64) << np.uint64(3)}
    excused = data.draw(st.lists(st.integers(0, n - 1), max_size=4))
    cols["NumSecondaryRecords"][excused] = 0
    cols["SecondaryRecords"][excused] |= np.uint64(4)
    packed = pack_primary_records(pl, cols)
    assert np.array_equal(read_primary_records(pl, packed)["SecondaryRecords"], cols["SecondaryRecords"])
    bad = sorted(set(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))) - set(excused))
    if not bad:
        return
    cols["SecondaryRecords"][bad] += np.uint64(data.draw(st.integers(1, 7)))
    with pytest.raises(PackError, match=rf"SecondaryRecords 0x[0-9a-f]+ at record {bad[0]} is not 8-byte") as err:
        pack_primary_records(pl, cols)
    assert err.value.rule == "D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords"
    assert "column 'SecondaryRecords'" in str(err.value)
    assert pack_primary_records(pl, cols, validate=False).nbytes == 16 * n


def test_kernel_checks_dispatch_inputs_in_long_arrays(kernel_variant: str) -> None:
    """The dispatch-input checks run in the kernel over every record: the first failing record is named."""
    n = 2000
    cols = {"NumProgramInputs": np.ones(n, dtype=np.uint32), "Flags": 0, "SignatureIndex": 0,
            "ProgramInputs.StartAddress": np.arange(n, dtype=np.uint64) * 64,
            "ProgramInputs.StrideInBytes": 16, "NextDispatchList": np.zeros(n, dtype=np.uint64),
            "ReservedPadding": np.zeros(n, dtype=np.uint32)}
    assert pack_dispatch_list_inputs(cols, tier=2).nbytes == 40 * n
    cols["ReservedPadding"][1500] = 3
    with pytest.raises(PackError, match="ReservedPadding must be 0, is 3 at record 1500"):
        pack_dispatch_list_inputs(cols, tier=2)
    cols["NextDispatchList"][700] = 0x1234
    with pytest.raises(PackError, match="NextDispatchList 0x1234 at record 700"):
        pack_dispatch_list_inputs(cols, tier=2)
    cols["ProgramInputs.StartAddress"][100] += 2
    with pytest.raises(PackError, match="ProgramInputs.StartAddress 0x[0-9a-f]+ at record 100"):
        pack_dispatch_list_inputs(cols, tier=2)
    cols["NumProgramInputs"][100] = 0  # StartAddress is unconstrained without program inputs
    with pytest.raises(PackError, match="at record 700"):
        pack_dispatch_list_inputs(cols, tier=2)


def test_kernel_odd_counts_and_broadcasts_across_blocks(kernel_variant: str) -> None:
    """Record counts around the kernel's block and pair boundaries, broadcast values and struct payload bytes."""
    pl = culling()
    assert pl.secondary is not None
    for n in (1, 2, 3, 341, 342, 343, 1023, 1025):
        srv = np.arange(n, dtype=np.uint64) * 8
        packed = pack_secondary_records(pl, {"arg0_ShaderResourceView": srv, "arg1_Draw.VertexCountPerInstance": 3,
                                             "arg1_Draw.InstanceCount": (np.arange(n) % 7).astype(np.uint32),
                                             "arg1_Draw.StartVertexLocation": 0,
                                             "arg1_Draw.StartInstanceLocation": np.uint8(9)})
        expected = b"".join(struct.pack("<QIIII", 8 * i, 3, i % 7, 0, 9) for i in range(n))
        assert packed.tobytes() == expected, n
        back = to_columns(read_secondary_records(pl, packed))
        assert back["arg1_Draw.InstanceCount"].tolist() == [i % 7 for i in range(n)]
        # the same records through the column path (an int64 column the kernel narrows and range-checks)
        assert pack_secondary_records(pl, {**to_columns(read_secondary_records(pl, packed)),
                                           "arg1_Draw.InstanceCount": np.arange(n) % 7}).tobytes() == expected
    with pytest.raises(PackError, match=r"'arg1_Draw.InstanceCount' value -1 at record 0 is outside uint32"):
        pack_secondary_records(pl, {"arg0_ShaderResourceView": [8], "arg1_Draw.VertexCountPerInstance": 3,
                                    "arg1_Draw.InstanceCount": -1, "arg1_Draw.StartVertexLocation": 0,
                                    "arg1_Draw.StartInstanceLocation": 0})


def test_kernel_is_compiled_into_the_extension_not_the_headers() -> None:
    """The kernels live in d3d12wl._native but not in the header bundle the ABI checks read."""
    from d3d12wl import abi

    assert hasattr(abi.default.lib, "d3d12wl_scatter_columns")
    assert hasattr(abi.default.lib, "d3d12wl_gather_columns")
    assert not any("d3d12wl_column" in text for text in abi.header_texts().values())


@pytest.mark.parametrize("count", [10**15, 10**30, -1, 2.5, True])
def test_hostile_or_malformed_count_is_a_pack_error(count: object) -> None:
    """Bad input gets a clear error naming where and why: a count read from a corrupt buffer (too large to
    allocate, negative, not an integer) raises PackError, never a bare MemoryError or ValueError."""
    columns = {"arg0_ShaderResourceView": 0, "arg1_Draw": bytes(16)}
    with pytest.raises(PackError, match="secondary records of 'PCS'"):
        pack_secondary_records(culling(), columns, count=count)  # type: ignore[arg-type]


# --- d3d12wl_field_runs: the references table's reads of strided records (d3d12wl/executor/references_fast.py) ----


def _field_runs_oracle(region: np.ndarray, base: int, bases: list[int], counts: list[int], stride: int,
                       offsets: list[int], ranges: np.ndarray, tables: np.ndarray) -> dict[str, list[int]]:
    """What field_runs gives, row by row in Python: each field's bytes, and its value's range by a linear scan."""
    out: dict[str, list[int]] = {c: [] for c in ("va", "rel", "value", "owner", "index", "target", "target_offset")}
    for k, (b, n) in enumerate(zip(bases, counts)):
        for j in range(n):
            for f, off in enumerate(offsets):
                rel = b - base + j * stride + off
                v = int.from_bytes(region[rel:rel + 8].tobytes(), "little")
                out["va"].append(base + rel)
                out["rel"].append(rel)
                out["value"].append(v)
                out["owner"].append(5 + k)
                out["index"].append(100 + j)
                a, m = tables[f].tolist()
                hit = [(int(r[2]), v - int(r[0])) for r in ranges[a:a + m].tolist() if r[0] <= v <= r[1]]
                t, o = hit[0] if hit else (-1, 0)
                out["target"].append(t)
                out["target_offset"].append(o)
    return out


@_KERNEL
@given(seed=st.integers(0, 2**32 - 1), nfields=st.integers(1, 3), nranges=st.integers(0, 7),
       nruns=st.integers(0, 6))
def test_field_runs_matches_a_python_reading_with_its_range_lookups(kernel_variant: str, seed: int, nfields: int,
                                                                    nranges: int, nruns: int) -> None:
    """Every row's VA, offset, value, owner, index and the range its value falls in (the last range a field's
    value fell in is tried first: values that move between ranges, fall between them, and before and after all
    of them still find the right one, or none)."""
    from d3d12wl.records.packers import field_runs

    rng = np.random.default_rng(seed)
    starts = np.sort(rng.choice(1 << 12, size=2 * nranges, replace=False).astype(np.uint64)) * np.uint64(16)
    ranges = np.zeros((nranges, 3), dtype=np.uint64)
    ranges[:, 0], ranges[:, 1] = starts[0::2], starts[1::2] - np.uint64(rng.integers(1, 16))
    ranges[:, 2] = rng.permutation(nranges).astype(np.uint64) + np.uint64(3)
    tables = np.zeros((nfields, 2), dtype=np.int64)
    for f in range(nfields):
        a = int(rng.integers(0, nranges + 1))
        tables[f] = (a, int(rng.integers(0, nranges - a + 1)))
    stride = 8 * nfields + 8 * int(rng.integers(0, 3))
    offsets = [8 * f for f in range(nfields)]
    size, base = 4096, 0x5_0000_0000
    edges = np.concatenate([ranges[:, :2].reshape(-1), ranges[:, :2].reshape(-1) + np.uint64(1),
                            np.array([0, 2**64 - 1], dtype=np.uint64)])
    region = np.frombuffer(rng.choice(edges, size // 8).astype("<u8").tobytes(), dtype=np.uint8).copy()
    some = rng.integers(0, size // 8, size // 16)
    region.view("<u8")[some] = rng.integers(0, 1 << 17, len(some), dtype=np.uint64)  # between the edges too
    counts = [int(c) for c in rng.integers(0, 9, nruns)]
    bases = [base + int(rng.integers(0, (size - 8 * stride - 8 * nfields) // 8)) * 8 for _ in counts]
    got = field_runs(region, base, np.array(bases, dtype=np.uint64), np.array(counts), stride, offsets,
                     first_owner=5, first_index=100, rel32=True, ranges=ranges, tables=tables)
    want = _field_runs_oracle(region, base, bases, counts, stride, offsets, ranges, tables)
    for c in want:
        assert getattr(got, c).tolist() == want[c], c
    assert got.rel32 is not None and got.rel32.tolist() == want["rel"]
    assert got.target is not None and got.target.dtype == np.int32
    bare = field_runs(region, base, np.array(bases, dtype=np.uint64), np.array(counts), stride, offsets)
    assert bare.target is None and bare.target_offset is None and bare.owner is None and bare.rel32 is None
    assert bare.value.tolist() == want["value"] and bare.index.tolist() == [i - 100 for i in want["index"]]


def test_field_runs_refuses_a_field_outside_the_region_before_it_reads() -> None:
    """The kernel checks every run first: a field past the region's last byte (by one byte, or by a stride whose
    product wraps), a run that starts before the region, a negative count."""
    from d3d12wl.records.packers import field_runs

    region = np.arange(64, dtype=np.uint8)
    base = 0x1000
    ok = field_runs(region, base, np.array([base + 40], dtype=np.uint64), np.array([2]), 8, [0, 8])
    assert ok.rel.tolist() == [40, 48, 48, 56]  # the last field ends on the region's last byte
    bad = [([base + 41], [2], 8, [0, 8]),  # one byte past the end
           ([base - 8], [1], 8, [0]),  # before the region
           ([base], [-1], 8, [0]),  # a negative count (the rows would not match the sum of the counts)
           ([base, base], [3, -1], 8, [0]),
           ([base], [3], 2**63, [0]),  # (n - 1) * stride wraps
           ([base + 64], [1], 0, [0]),
           ([base], [1], 0, [2**64 - 4])]  # an offset whose end wraps
    for bases, counts, stride, offsets in bad:
        with pytest.raises(ValueError, match="outside the region"):
            field_runs(region, base, np.array(bases, dtype=np.uint64), np.array(counts), stride, offsets)
    assert len(field_runs(region, base, np.array([base + 400], dtype=np.uint64), np.array([0]), 8, [0]).va) == 0


def test_field_runs_checks_its_range_tables() -> None:
    from d3d12wl.records.packers import field_runs

    region = np.zeros(64, dtype=np.uint8)
    one = (np.array([0], dtype=np.uint64), np.array([1]), 8, [0])
    ranges = np.array([[0, 9, 0], [10, 19, 1]], dtype=np.uint64)
    assert field_runs(region, 0, *one, ranges=ranges, tables=np.array([[0, 2]])).target.tolist() == [0]
    for r, t, match in [(ranges, np.array([[1, 2]]), "a table outside the ranges"),
                        (ranges, np.array([[0, 1], [0, 1]]), "2 tables for 1 fields"),
                        (ranges[::-1], np.array([[0, 2]]), "not ascending and disjoint"),
                        (np.array([[0, 10, 0], [10, 19, 1]], dtype=np.uint64), np.array([[0, 2]]), "not ascending"),
                        (np.array([[5, 4, 0]], dtype=np.uint64), np.array([[0, 1]]), "ends before it starts"),
                        (ranges, None, "ranges without tables")]:
        with pytest.raises(ValueError, match=match):
            field_runs(region, 0, *one, ranges=r, tables=t)
