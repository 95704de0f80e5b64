/* d3d12wl_execute_indirect.h - ExecuteIndirect argument structures and command signature
 * (IndirectDrawing.md "Indirect argument buffer structures", "Command signature creation";
 * seed 002 "The Indirect Argument Buffer"), with the D3D12_INDIRECT_ARGUMENT_TYPE members
 * Work Lists adds ("Supported argument types").  Needs d3d12wl_base.h first.
 */

typedef struct D3D12_DRAW_ARGUMENTS
{
    uint32_t VertexCountPerInstance;
    uint32_t InstanceCount;
    uint32_t StartVertexLocation;
    uint32_t StartInstanceLocation;
} D3D12_DRAW_ARGUMENTS;

typedef struct D3D12_DRAW_INDEXED_ARGUMENTS
{
    uint32_t IndexCountPerInstance;
    uint32_t InstanceCount;
    uint32_t StartIndexLocation;
    int32_t BaseVertexLocation;
    uint32_t StartInstanceLocation;
} D3D12_DRAW_INDEXED_ARGUMENTS;

typedef struct D3D12_DISPATCH_ARGUMENTS
{
    uint32_t ThreadGroupCountX;
    uint32_t ThreadGroupCountY;
    uint32_t ThreadGroupCountZ;
} D3D12_DISPATCH_ARGUMENTS;

typedef struct D3D12_DISPATCH_MESH_ARGUMENTS
{
    uint32_t ThreadGroupCountX;
    uint32_t ThreadGroupCountY;
    uint32_t ThreadGroupCountZ;
} D3D12_DISPATCH_MESH_ARGUMENTS;

typedef struct D3D12_VERTEX_BUFFER_VIEW
{
    D3D12_GPU_VIRTUAL_ADDRESS BufferLocation;
    uint32_t SizeInBytes;
    uint32_t StrideInBytes;
} D3D12_VERTEX_BUFFER_VIEW;

typedef struct D3D12_INDEX_BUFFER_VIEW
{
    D3D12_GPU_VIRTUAL_ADDRESS BufferLocation;
    uint32_t SizeInBytes;
    DXGI_FORMAT Format;
} D3D12_INDEX_BUFFER_VIEW;

typedef struct D3D12_DISPATCH_RAYS_DESC
{
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE RayGenerationShaderRecord;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE MissShaderTable;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE HitGroupTable;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE CallableShaderTable;
    uint32_t Width;
    uint32_t Height;
    uint32_t Depth;
} D3D12_DISPATCH_RAYS_DESC;

typedef enum D3D12_INDIRECT_ARGUMENT_TYPE
{
    D3D12_INDIRECT_ARGUMENT_TYPE_DRAW = 0,
    D3D12_INDIRECT_ARGUMENT_TYPE_DRAW_INDEXED = 1,
    D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH = 2,
    D3D12_INDIRECT_ARGUMENT_TYPE_VERTEX_BUFFER_VIEW = 3,
    D3D12_INDIRECT_ARGUMENT_TYPE_INDEX_BUFFER_VIEW = 4,
    D3D12_INDIRECT_ARGUMENT_TYPE_CONSTANT = 5,
    D3D12_INDIRECT_ARGUMENT_TYPE_CONSTANT_BUFFER_VIEW = 6,
    D3D12_INDIRECT_ARGUMENT_TYPE_SHADER_RESOURCE_VIEW = 7,
    D3D12_INDIRECT_ARGUMENT_TYPE_UNORDERED_ACCESS_VIEW = 8,
    D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH_RAYS = 9,
    D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH_MESH = 10,
    D3D12_INDIRECT_ARGUMENT_TYPE_INCREMENTING_CONSTANT = 11,
    /* Work Lists additions, in the order of the spec's "Supported argument types" table (design.md "ABI rules"). */
    D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = 12, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_DESCRIPTOR_TABLE = 13, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH_RAYS_DIMENSIONS = 14, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_INLINE_ROOT_PARAMETER = 15, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_INLINE_STATIC_SAMPLER = 16, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH_LIST_HEADER_POINTER = 17, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_PROGRAM_TABLE_POINTER = 18, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_PRIMARY_LIST_POINTER = 19, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_PRIMARY_RECORD_POINTER = 20, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_SECONDARY_LIST_POINTER = 21, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
    D3D12_INDIRECT_ARGUMENT_TYPE_SECONDARY_RECORD_POINTER = 22, /* d3d12wl:provisional: Work Lists adds it to the enum without a value */
} D3D12_INDIRECT_ARGUMENT_TYPE;

typedef struct D3D12_INDIRECT_ARGUMENT_DESC
{
    D3D12_INDIRECT_ARGUMENT_TYPE Type;
    union
    {
        struct
        {
            uint32_t Slot;
        } VertexBuffer;
        struct
        {
            uint32_t RootParameterIndex;
            uint32_t DestOffsetIn32BitValues;
            uint32_t Num32BitValuesToSet;
        } Constant;
        struct
        {
            uint32_t RootParameterIndex;
        } ConstantBufferView;
        struct
        {
            uint32_t RootParameterIndex;
        } ShaderResourceView;
        struct
        {
            uint32_t RootParameterIndex;
        } UnorderedAccessView;
        struct
        {
            uint32_t RootParameterIndex;
            uint32_t DestOffsetIn32BitValues;
        } IncrementingConstant;
    };
} D3D12_INDIRECT_ARGUMENT_DESC;

typedef struct D3D12_COMMAND_SIGNATURE_DESC
{
    uint32_t ByteStride;
    uint32_t NumArgumentDescs;
    const D3D12_INDIRECT_ARGUMENT_DESC *pArgumentDescs;
    uint32_t NodeMask;
} D3D12_COMMAND_SIGNATURE_DESC;

typedef enum D3D12_EXECUTE_INDIRECT_TIER
{
    D3D12_EXECUTE_INDIRECT_TIER_1_0 = 10,
    D3D12_EXECUTE_INDIRECT_TIER_1_1 = 11,
} D3D12_EXECUTE_INDIRECT_TIER;

/* Pre-existing d3d12.h facts the ExecuteIndirect call-time checks read.  IndirectDrawing.md "Command signature
 * Creation": "CBV -- Address and size must be a multiple of 256 bytes" (d3d12.h's name for that multiple).
 * IndirectDrawing.md "Drawing" and the ExecuteIndirect seed: both buffers must be in the INDIRECT_ARGUMENT state.
 * d3d12.h's aliases D3D12_RESOURCE_STATE_PRESENT (= COMMON) and D3D12_RESOURCE_STATE_PREDICATION
 * (= INDIRECT_ARGUMENT) are left out, so that every value has one name. */
#define D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT 256

typedef enum D3D12_RESOURCE_STATES
{
    D3D12_RESOURCE_STATE_COMMON = 0,
    D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER = 0x1,
    D3D12_RESOURCE_STATE_INDEX_BUFFER = 0x2,
    D3D12_RESOURCE_STATE_RENDER_TARGET = 0x4,
    D3D12_RESOURCE_STATE_UNORDERED_ACCESS = 0x8,
    D3D12_RESOURCE_STATE_DEPTH_WRITE = 0x10,
    D3D12_RESOURCE_STATE_DEPTH_READ = 0x20,
    D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE = 0x40,
    D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE = 0x80,
    D3D12_RESOURCE_STATE_STREAM_OUT = 0x100,
    D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT = 0x200,
    D3D12_RESOURCE_STATE_COPY_DEST = 0x400,
    D3D12_RESOURCE_STATE_COPY_SOURCE = 0x800,
    D3D12_RESOURCE_STATE_RESOLVE_DEST = 0x1000,
    D3D12_RESOURCE_STATE_RESOLVE_SOURCE = 0x2000,
    D3D12_RESOURCE_STATE_RAYTRACING_ACCELERATION_STRUCTURE = 0x400000,
    D3D12_RESOURCE_STATE_SHADING_RATE_SOURCE = 0x1000000,
    D3D12_RESOURCE_STATE_GENERIC_READ = 0xac3, /* VERTEX_AND_CONSTANT_BUFFER | INDEX_BUFFER | NON_PIXEL_SHADER_RESOURCE | PIXEL_SHADER_RESOURCE | INDIRECT_ARGUMENT | COPY_SOURCE */
    D3D12_RESOURCE_STATE_ALL_SHADER_RESOURCE = 0xc0, /* NON_PIXEL_SHADER_RESOURCE | PIXEL_SHADER_RESOURCE */
    D3D12_RESOURCE_STATE_VIDEO_DECODE_READ = 0x10000,
    D3D12_RESOURCE_STATE_VIDEO_DECODE_WRITE = 0x20000,
    D3D12_RESOURCE_STATE_VIDEO_PROCESS_READ = 0x40000,
    D3D12_RESOURCE_STATE_VIDEO_PROCESS_WRITE = 0x80000,
    D3D12_RESOURCE_STATE_VIDEO_ENCODE_READ = 0x200000,
    D3D12_RESOURCE_STATE_VIDEO_ENCODE_WRITE = 0x800000,
} D3D12_RESOURCE_STATES;
