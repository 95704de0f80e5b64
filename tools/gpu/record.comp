#version 460
// d3d12wl GPU harness, compute: one invocation per workgroup records what it received.  Record layout (dwords):
// 0 workgroups that ran, 1 program, 2 record index, 3 zero, 4-6 gl_NumWorkGroups, 7-15 zero, 16.. push constants.
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const uint PROGRAM = 0;
layout(constant_id = 1) const uint PC_DWORDS = 0;
layout(constant_id = 2) const uint SEQ_DWORD = 0;
layout(constant_id = 3) const uint RECORD_DWORDS = 16;
layout(push_constant) uniform Block { uint v[64]; } pc;  // v[63]: the execute's first record
layout(std430, set = 0, binding = 0) buffer Records { uint r[]; } o;

void main() {
    uint seq = pc.v[SEQ_DWORD] + pc.v[63];
    uint base = seq * RECORD_DWORDS;
    atomicAdd(o.r[base + 0], 1u);
    o.r[base + 1] = PROGRAM;
    o.r[base + 2] = seq;
    o.r[base + 4] = gl_NumWorkGroups.x;
    o.r[base + 5] = gl_NumWorkGroups.y;
    o.r[base + 6] = gl_NumWorkGroups.z;
    for (uint i = 0; i < PC_DWORDS; ++i) {
        o.r[base + 16 + i] = pc.v[i];
    }
}
