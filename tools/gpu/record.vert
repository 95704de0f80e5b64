#version 460
// d3d12wl GPU harness: every sequence's vertex shader invocations record what they received (tools/gpu/harness.c,
// d3d12wl/vulkan/case.py documents the record).  Record layout (dwords): 0 invocations, 1 program (the program's
// index in the case), 2 record index (the execute's first record + the sequence index), 3 gl_DrawID,
// 4 gl_BaseVertex, 5 gl_BaseInstance, 6 max(vi) + 1, 7 max(gl_InstanceIndex - gl_BaseInstance) + 1,
// 8 0xFFFFFFFF - min(vi) (vi = gl_VertexIndex - gl_BaseVertex: the fetched index of an indexed draw), 9-12 a 128-bit
// bloom of the fetched vertex attributes (slot, gl_VertexIndex, value), 13-14 a 64-bit bloom of vi, 15 zero,
// 16.. the push-constant block.  Every reduction is an atomic max / or, so a vertex shaded twice or reused changes
// nothing but the invocation count.
//
// FETCH_MASK (a compile-time define, one SPIR-V per mask: tools/gpu_check.py prepare): bit s = vertex buffer slot s
// is fetched, its first uint32 per vertex as the R32_UINT attribute at location s.
#ifndef FETCH_MASK
#define FETCH_MASK 0
#endif
layout(constant_id = 0) const uint PROGRAM = 0;
layout(constant_id = 1) const uint PC_DWORDS = 0;
layout(constant_id = 2) const uint SEQ_DWORD = 0;
layout(constant_id = 3) const uint RECORD_DWORDS = 16;
layout(push_constant) uniform Block { uint v[64]; } pc;  // v[63]: the execute's first record
layout(std430, set = 0, binding = 0) buffer Records { uint r[]; } o;

#if (FETCH_MASK >> 0) & 1
layout(location = 0) in uint a0;
#endif
#if (FETCH_MASK >> 1) & 1
layout(location = 1) in uint a1;
#endif
#if (FETCH_MASK >> 2) & 1
layout(location = 2) in uint a2;
#endif
#if (FETCH_MASK >> 3) & 1
layout(location = 3) in uint a3;
#endif
#if (FETCH_MASK >> 4) & 1
layout(location = 4) in uint a4;
#endif
#if (FETCH_MASK >> 5) & 1
layout(location = 5) in uint a5;
#endif
#if (FETCH_MASK >> 6) & 1
layout(location = 6) in uint a6;
#endif
#if (FETCH_MASK >> 7) & 1
layout(location = 7) in uint a7;
#endif
#if (FETCH_MASK >> 8) & 1
layout(location = 8) in uint a8;
#endif
#if (FETCH_MASK >> 9) & 1
layout(location = 9) in uint a9;
#endif
#if (FETCH_MASK >> 10) & 1
layout(location = 10) in uint a10;
#endif
#if (FETCH_MASK >> 11) & 1
layout(location = 11) in uint a11;
#endif
#if (FETCH_MASK >> 12) & 1
layout(location = 12) in uint a12;
#endif
#if (FETCH_MASK >> 13) & 1
layout(location = 13) in uint a13;
#endif
#if (FETCH_MASK >> 14) & 1
layout(location = 14) in uint a14;
#endif
#if (FETCH_MASK >> 15) & 1
layout(location = 15) in uint a15;
#endif
#if (FETCH_MASK >> 16) & 1
layout(location = 16) in uint a16;
#endif
#if (FETCH_MASK >> 17) & 1
layout(location = 17) in uint a17;
#endif
#if (FETCH_MASK >> 18) & 1
layout(location = 18) in uint a18;
#endif
#if (FETCH_MASK >> 19) & 1
layout(location = 19) in uint a19;
#endif
#if (FETCH_MASK >> 20) & 1
layout(location = 20) in uint a20;
#endif
#if (FETCH_MASK >> 21) & 1
layout(location = 21) in uint a21;
#endif
#if (FETCH_MASK >> 22) & 1
layout(location = 22) in uint a22;
#endif
#if (FETCH_MASK >> 23) & 1
layout(location = 23) in uint a23;
#endif
#if (FETCH_MASK >> 24) & 1
layout(location = 24) in uint a24;
#endif
#if (FETCH_MASK >> 25) & 1
layout(location = 25) in uint a25;
#endif
#if (FETCH_MASK >> 26) & 1
layout(location = 26) in uint a26;
#endif
#if (FETCH_MASK >> 27) & 1
layout(location = 27) in uint a27;
#endif
#if (FETCH_MASK >> 28) & 1
layout(location = 28) in uint a28;
#endif
#if (FETCH_MASK >> 29) & 1
layout(location = 29) in uint a29;
#endif
#if (FETCH_MASK >> 30) & 1
layout(location = 30) in uint a30;
#endif
#if (FETCH_MASK >> 31) & 1
layout(location = 31) in uint a31;
#endif

// the integer mixer of d3d12wl.vulkan.fetch.hash32
uint hash32(uint x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

// d3d12wl.vulkan.fetch.bloom_vertex
void fetched(uint base, uint slot, uint vertex, uint value) {
    uint b = hash32(hash32((slot * 0x9E3779B9u) ^ vertex) ^ value) & 127u;
    atomicOr(o.r[base + 9u + (b >> 5)], 1u << (b & 31u));
}

void main() {
    uint seq = pc.v[SEQ_DWORD] + pc.v[63];
    uint base = seq * RECORD_DWORDS;
    uint vi = uint(gl_VertexIndex - gl_BaseVertex);
    uint vertex = uint(gl_VertexIndex);
    atomicAdd(o.r[base + 0], 1u);
    o.r[base + 1] = PROGRAM;
    o.r[base + 2] = seq;
    o.r[base + 3] = uint(gl_DrawID);
    o.r[base + 4] = uint(gl_BaseVertex);
    o.r[base + 5] = uint(gl_BaseInstance);
    atomicMax(o.r[base + 6], vi + 1u);
    atomicMax(o.r[base + 7], uint(gl_InstanceIndex - gl_BaseInstance) + 1u);
    atomicMax(o.r[base + 8], 0xFFFFFFFFu - vi);
    uint ib = hash32(vi) & 63u;  // d3d12wl.vulkan.fetch.bloom_index
    atomicOr(o.r[base + 13u + (ib >> 5)], 1u << (ib & 31u));
#if (FETCH_MASK >> 0) & 1
    fetched(base, 0u, vertex, a0);
#endif
#if (FETCH_MASK >> 1) & 1
    fetched(base, 1u, vertex, a1);
#endif
#if (FETCH_MASK >> 2) & 1
    fetched(base, 2u, vertex, a2);
#endif
#if (FETCH_MASK >> 3) & 1
    fetched(base, 3u, vertex, a3);
#endif
#if (FETCH_MASK >> 4) & 1
    fetched(base, 4u, vertex, a4);
#endif
#if (FETCH_MASK >> 5) & 1
    fetched(base, 5u, vertex, a5);
#endif
#if (FETCH_MASK >> 6) & 1
    fetched(base, 6u, vertex, a6);
#endif
#if (FETCH_MASK >> 7) & 1
    fetched(base, 7u, vertex, a7);
#endif
#if (FETCH_MASK >> 8) & 1
    fetched(base, 8u, vertex, a8);
#endif
#if (FETCH_MASK >> 9) & 1
    fetched(base, 9u, vertex, a9);
#endif
#if (FETCH_MASK >> 10) & 1
    fetched(base, 10u, vertex, a10);
#endif
#if (FETCH_MASK >> 11) & 1
    fetched(base, 11u, vertex, a11);
#endif
#if (FETCH_MASK >> 12) & 1
    fetched(base, 12u, vertex, a12);
#endif
#if (FETCH_MASK >> 13) & 1
    fetched(base, 13u, vertex, a13);
#endif
#if (FETCH_MASK >> 14) & 1
    fetched(base, 14u, vertex, a14);
#endif
#if (FETCH_MASK >> 15) & 1
    fetched(base, 15u, vertex, a15);
#endif
#if (FETCH_MASK >> 16) & 1
    fetched(base, 16u, vertex, a16);
#endif
#if (FETCH_MASK >> 17) & 1
    fetched(base, 17u, vertex, a17);
#endif
#if (FETCH_MASK >> 18) & 1
    fetched(base, 18u, vertex, a18);
#endif
#if (FETCH_MASK >> 19) & 1
    fetched(base, 19u, vertex, a19);
#endif
#if (FETCH_MASK >> 20) & 1
    fetched(base, 20u, vertex, a20);
#endif
#if (FETCH_MASK >> 21) & 1
    fetched(base, 21u, vertex, a21);
#endif
#if (FETCH_MASK >> 22) & 1
    fetched(base, 22u, vertex, a22);
#endif
#if (FETCH_MASK >> 23) & 1
    fetched(base, 23u, vertex, a23);
#endif
#if (FETCH_MASK >> 24) & 1
    fetched(base, 24u, vertex, a24);
#endif
#if (FETCH_MASK >> 25) & 1
    fetched(base, 25u, vertex, a25);
#endif
#if (FETCH_MASK >> 26) & 1
    fetched(base, 26u, vertex, a26);
#endif
#if (FETCH_MASK >> 27) & 1
    fetched(base, 27u, vertex, a27);
#endif
#if (FETCH_MASK >> 28) & 1
    fetched(base, 28u, vertex, a28);
#endif
#if (FETCH_MASK >> 29) & 1
    fetched(base, 29u, vertex, a29);
#endif
#if (FETCH_MASK >> 30) & 1
    fetched(base, 30u, vertex, a30);
#endif
#if (FETCH_MASK >> 31) & 1
    fetched(base, 31u, vertex, a31);
#endif
    for (uint i = 0; i < PC_DWORDS; ++i) {
        o.r[base + 16 + i] = pc.v[i];
    }
    gl_Position = vec4(0.0);
    gl_PointSize = 1.0;
}
