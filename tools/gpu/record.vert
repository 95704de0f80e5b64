#version 460
// d3d12wl GPU harness: every sequence's vertex shader invocations record what they received (tools/gpu/harness.c,
// d3d12wl/vulkan/harness.py).  Record layout (dwords): 0 invocations, 1 program (the pipeline's execution-set index),
// 2 sequence index (SEQUENCE_INDEX token), 3 gl_DrawID, 4 gl_BaseVertex, 5 gl_BaseInstance,
// 6 max(gl_VertexIndex - gl_BaseVertex) + 1, 7 max(gl_InstanceIndex - gl_BaseInstance) + 1,
// 8 0xFFFFFFFF - min(gl_VertexIndex - gl_BaseVertex), 9-15 zero, 16.. the push-constant block.
layout(constant_id = 0) const uint PROGRAM = 0;
layout(constant_id = 1) const uint PC_DWORDS = 0;
layout(constant_id = 2) const uint SEQ_DWORD = 0;
layout(constant_id = 3) const uint RECORD_DWORDS = 16;
layout(push_constant) uniform Block { uint v[64]; } pc;  // v[63]: the harness's sequence base (0: one DGC execute)
layout(std430, set = 0, binding = 0) buffer Records { uint r[]; } o;

void main() {
    uint seq = pc.v[SEQ_DWORD] + pc.v[63];
    uint base = seq * RECORD_DWORDS;
    uint vi = uint(gl_VertexIndex - gl_BaseVertex);
    atomicAdd(o.r[base + 0], 1u);
    o.r[base + 1] = PROGRAM;
    o.r[base + 2] = pc.v[SEQ_DWORD];
    o.r[base + 3] = uint(gl_DrawID);
    o.r[base + 4] = uint(gl_BaseVertex);
    o.r[base + 5] = uint(gl_BaseInstance);
    atomicMax(o.r[base + 6], vi + 1u);
    atomicMax(o.r[base + 7], uint(gl_InstanceIndex - gl_BaseInstance) + 1u);
    atomicMax(o.r[base + 8], 0xFFFFFFFFu - vi);
    for (uint i = 0; i < PC_DWORDS; ++i) {
        o.r[base + 16 + i] = pc.v[i];
    }
    gl_Position = vec4(0.0);
    gl_PointSize = 1.0;
}
