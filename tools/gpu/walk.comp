#version 460
// d3d12wl GPU walker: the sequence buffer of a DispatchList lowering, generated on the GPU from the record bytes
// (d3d12wl/vulkan/walker.py documents the plan it reads and models both passes on the CPU).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Plan { uint d[]; } p;
layout(std430, set = 0, binding = 1) buffer Sequences { uint o[]; } q;
layout(std430, set = 0, binding = 2) buffer Scratch { uint s[]; } w;  // s[0] error bits, s[1 + k] first sequence
layout(push_constant) uniform Pass { uint pass; } pc;

const uint N_PRIMARY = 2u, P_STRIDE = 3u, P_SIZE = 4u, PTI = 5u, HYBRID = 6u, NUM_OFF = 7u, SEC_OFF = 8u,
           S_STRIDE = 9u, S_SIZE = 10u, T_STRIDE = 11u, SLOTS = 12u, SLOT_SIZE = 13u, N_PROG = 14u, N_COL = 15u,
           N_REG = 16u, OUT_STRIDE = 17u;
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
        if (va >= base && va + uint64_t(size) <= base + len && ((va - base) & uint64_t(3)) == uint64_t(0)) {
            return data_at() + H(r0 + REGION_DWORDS * r + 3u) + uint((va - base) >> 2);
        }
    }
    atomicOr(w.s[0], 1u);
    return NONE;
}

uint rd(uint at, uint k) { return at == NONE ? 0u : p.d[at + k]; }

void main() {
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
        uint ob = (first + j) * ostride;
        for (uint c = 0u; c < H(N_COL); ++c) {
            uint cb = cols_at() + COLUMN_DWORDS * c;
            uint src = H(cb), off = H(cb + 1u) / 4u, n = H(cb + 2u) / 4u, fo = H(cb + 3u) / 4u;
            for (uint i = 0u; i < n; ++i) {
                uint v = 0u;
                if (src == 0u) v = set_index;
                else if (src == 2u) v = H(cb + 4u + i);
                else if (src == 3u) v = j;
                else if (src == 4u) v = i == 0u ? uint(rva) : uint(rva >> 32);
                else if (src == 5u) v = i == 0u ? uint(secva) : uint(secva >> 32);
                else if (src == 6u) v = i == 0u ? uint(tva) : uint(tva >> 32);  // spec "_PROGRAM_TABLE_POINTER": the table start
                else if (src == 7u) v = rd(rec, fo + i);
                else if (src == 8u) v = rd(sec, fo + i);
                else if (src == 9u) v = rd(slot, fo + i);
                q.o[ob + off + i] = v;
            }
        }
    }
}
