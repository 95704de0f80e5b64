/* The Work Lists spec's culling example ("GPU culling and work list emission"), HLSL culling shader: the secondary
 * record the shader writes through a RWStructuredBuffer, verbatim.  Check it against the layout calculator:
 *
 *   d3d12wl abi check --hlsl d3d12wl/examples/culling_records.hlsl --signature d3d12wl/examples/culling.json \
 *       --record PCS.secondary=SecondaryRecord
 */
struct SecondaryRecord
{
    // Matches the signature's SOURCE_SECONDARY_RECORD args:
    //   Root SRV   (8 bytes)
    //   _DRAW args (16 bytes)
    uint64_t MaterialBufferSRV;
    uint VertexCountPerInstance;
    uint InstanceCount;
    uint StartVertexLocation;
    uint StartInstanceLocation;
};
