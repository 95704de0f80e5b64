#version 460
// d3d12wl GPU walker: the sequence buffer of a DispatchList list or an ExecuteIndirect call, generated on the GPU
// from the record bytes (d3d12wl/vulkan/walker.py documents the plan it reads and models both passes on the CPU).
// DispatchList (KIND 0): pass 0, one invocation, the first sequence of every primary record; pass 1, a workgroup per
// primary record, an invocation per secondary record.  ExecuteIndirect (KIND 1): pass 0, one invocation, the
// command count (MaxCommandCount, or less by the count buffer); pass 1, an invocation per command (grid-stride).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Plan { uint d[]; } p;
layout(std430, set = 0, binding = 1) buffer Sequences { uint o[]; } q;
layout(std430, set = 0, binding = 2) buffer Scratch { uint s[]; } w;  // s[0] error bits, s[1 + k] first sequence
layout(push_constant) uniform Pass { uint pass; } pc;

const uint N_PRIMARY = 2u, P_STRIDE = 3u, P_SIZE = 4u, PTI = 5u, HYBRID = 6u, NUM_OFF = 7u, SEC_OFF = 8u,
           S_STRIDE = 9u, S_SIZE = 10u, T_STRIDE = 11u, SLOTS = 12u, SLOT_SIZE = 13u, N_PROG = 14u, N_COL = 15u,
           N_REG = 16u, OUT_STRIDE = 17u, SEQUENCES = 18u, KIND = 19u;
const uint NONE = 0xFFFFFFFFu;
// the plan's layout, as d3d12wl/vulkan/walker.py writes it (HEADER_DWORDS, IDENTIFIER_BYTES / 4, COLUMN_DWORDS;
// tests/test_vulkan_walker.py checks they agree)
const uint HEADER_DWORDS = 32u, ID_DWORDS = 8u, COLUMN_DWORDS = 8u, REGION_DWORDS = 4u;

uint H(uint i) { return p.d[i]; }
uint cols_at() { return HEADER_DWORDS + ID_DWORDS * H(N_PROG); }
uint regs_at() { return cols_at() + COLUMN_DWORDS * H(N_COL); }
uint data_at() { return regs_at() + REGION_DWORDS * H(N_REG); }
uint64_t u64(uint lo, uint hi) { return uint64_t(lo) | (uint64_t(hi) << 32); }

// the DWORD index in p.d of `size` bytes at `va`, or NONE (error bit 1)
uint locate(uint64_t va, uint size) {
    uint r0 = regs_at();
    for (uint r = 0u; r < H(N_REG); ++r) {
        uint64_t base = u64(H(r0 + REGION_DWORDS * r), H(r0 + REGION_DWORDS * r + 1u));
        uint64_t len = uint64_t(H(r0 + REGION_DWORDS * r + 2u));
        // (the offset first: a region that ends at the top of the VA space has base + len == 2^64, which wraps)
        if (va >= base && va - base <= len && uint64_t(size) <= len - (va - base)
                && ((va - base) & uint64_t(3)) == uint64_t(0)) {
            return data_at() + H(r0 + REGION_DWORDS * r + 3u) + uint((va - base) >> 2);
        }
    }
    atomicOr(w.s[0], 1u);
    return NONE;
}

uint rd(uint at, uint k) { return at == NONE ? 0u : p.d[at + k]; }

// the DWORDs of column c of a sequence: the sources of d3d12wl.vulkan.walker.SOURCES
uint column_value(uint src, uint cb, uint i, uint set_index, uint j, uint position, uint64_t rva, uint64_t secva,
                  uint64_t tva, uint rec, uint sec, uint slot, uint fo) {
    if (src == 0u) return set_index;
    if (src == 2u) return H(cb + 4u + i);
    if (src == 3u) return j;
    if (src == 4u) return i == 0u ? uint(rva) : uint(rva >> 32);
    if (src == 5u) return i == 0u ? uint(secva) : uint(secva >> 32);
    if (src == 6u) return i == 0u ? uint(tva) : uint(tva >> 32);  // spec "_PROGRAM_TABLE_POINTER": the table start
    if (src == 7u || src == 10u) return rd(rec, fo + i);  // a primary record's bytes, or a command record's
    if (src == 8u) return rd(sec, fo + i);
    if (src == 9u) return rd(slot, fo + i);
    if (src == 11u) return position;
    return 0u;  // 1: a SEQUENCE_INDEX slot, written by the driver
}

void write_sequence(uint ob, uint set_index, uint j, uint position, uint64_t rva, uint64_t secva, uint64_t tva,
                    uint rec, uint sec, uint slot) {
    for (uint c = 0u; c < H(N_COL); ++c) {
        uint cb = cols_at() + COLUMN_DWORDS * c;
        uint src = H(cb), off = H(cb + 1u) / 4u, n = H(cb + 2u) / 4u, fo = H(cb + 3u) / 4u;
        for (uint i = 0u; i < n; ++i) {
            q.o[ob + off + i] = column_value(src, cb, i, set_index, j, position, rva, secva, tva, rec, sec, slot, fo);
        }
    }
}

void execute_indirect() {
    uint64_t va = u64(H(20u), H(21u));
    uint64_t cva = u64(H(22u), H(23u));
    if (pc.pass == 0u) {  // the command count: MaxCommandCount, or less by the count buffer
        if (gl_GlobalInvocationID.x != 0u) return;
        uint count = H(N_PRIMARY);
        if (cva != uint64_t(0)) count = min(count, rd(locate(cva, 4u), 0u));
        w.s[1] = count;
        return;
    }
    uint count = min(w.s[1], H(SEQUENCES));  // never past the buffer the harness sized
    uint ostride = H(OUT_STRIDE) / 4u;
    for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
        uint rec = locate(va + uint64_t(k) * uint64_t(H(P_STRIDE)), H(P_SIZE));
        write_sequence(k * ostride, 0u, k, k, uint64_t(0), uint64_t(0), uint64_t(0), rec, NONE, NONE);
    }
}

void main() {
    if (H(KIND) == 1u) {
        execute_indirect();
        return;
    }
    uint np = H(N_PRIMARY);
    bool hybrid = H(HYBRID) != 0u;
    uint64_t pva = u64(H(20u), H(21u));
    uint64_t tva = u64(H(22u), H(23u));
    if (pc.pass == 0u) {  // the first sequence of every primary record, in order
        if (gl_GlobalInvocationID.x != 0u) return;
        uint total = 0u;
        for (uint k = 0u; k < np; ++k) {
            w.s[1u + k] = total;
            uint count = 1u;
            if (hybrid) count = rd(locate(pva + uint64_t(k) * uint64_t(H(P_STRIDE)), H(P_SIZE)), H(NUM_OFF) / 4u);
            total += count;
        }
        w.s[1u + np] = total;
        return;
    }
    uint k = gl_WorkGroupID.x;  // one workgroup per primary record
    uint64_t rva = pva + uint64_t(k) * uint64_t(H(P_STRIDE));
    uint rec = locate(rva, H(P_SIZE));
    uint count = hybrid ? rd(rec, H(NUM_OFF) / 4u) : 1u;
    uint first = w.s[1u + k];
    uint pti = rd(rec, H(PTI) / 4u);
    if (pti >= H(SLOTS)) atomicOr(w.s[0], 4u);
    uint64_t sva = tva + uint64_t(pti) * uint64_t(H(T_STRIDE));
    uint slot = locate(sva, H(SLOT_SIZE));
    uint set_index = NONE;
    for (uint g = 0u; g < H(N_PROG) && set_index == NONE; ++g) {
        bool same = true;
        for (uint i = 0u; i < ID_DWORDS; ++i) same = same && rd(slot, i) == H(HEADER_DWORDS + ID_DWORDS * g + i);
        if (same) set_index = g;
    }
    if (set_index == NONE) atomicOr(w.s[0], 2u);
    uint64_t secbase = hybrid ? u64(rd(rec, H(SEC_OFF) / 4u), rd(rec, H(SEC_OFF) / 4u + 1u)) : uint64_t(0);
    uint ostride = H(OUT_STRIDE) / 4u;
    for (uint j = gl_LocalInvocationID.x; j < count; j += 64u) {  // one invocation per secondary record
        uint64_t secva = secbase + uint64_t(j) * uint64_t(H(S_STRIDE));
        uint sec = hybrid ? locate(secva, H(S_SIZE)) : NONE;
        if (first + j < H(SEQUENCES)) {
            write_sequence((first + j) * ostride, set_index, j, first + j, rva, secva, tva, rec, sec, slot);
        }
    }
}
