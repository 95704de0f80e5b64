#include <stdint.h>
typedef uint64_t D3D12_GPU_VIRTUAL_ADDRESS;
typedef struct D3D12_DRAW_ARGUMENTS {
    uint32_t VertexCountPerInstance, InstanceCount, StartVertexLocation, StartInstanceLocation;
} D3D12_DRAW_ARGUMENTS;
typedef struct D3D12_DISPATCH_ARGUMENTS {
    uint32_t ThreadGroupCountX, ThreadGroupCountY; uint16_t ThreadGroupCountZ;  /* should be uint32_t */
} D3D12_DISPATCH_ARGUMENTS;
#define D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126 0xFFFFFFFEu
struct SecondaryRecord { D3D12_GPU_VIRTUAL_ADDRESS srv; D3D12_DRAW_ARGUMENTS draw; };
struct EngineOnly { int a; };
