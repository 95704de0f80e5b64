/* d3d12wl_work_lists.h - the D3D12 Work Lists API (seed 000, section "API", and the
 * per-argument-type payloads of "Per-argument-type layouts" / "System-generated validator
 * pointer arg types").  Needs d3d12wl_base.h and d3d12wl_execute_indirect.h first.
 *
 * D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD is "not a real struct" (spec) and is not declared.
 */

typedef struct ID3D12ProgramCommandSignature ID3D12ProgramCommandSignature;
typedef struct ID3D12WorkListSignature ID3D12WorkListSignature;
typedef struct ID3D12WorkListSignatureArray ID3D12WorkListSignatureArray;

#define D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE 4096

/* --- CheckFeatureSupport ------------------------------------------------------------- */

typedef enum D3D12_WORK_LISTS_TIER
{
    D3D12_WORK_LISTS_TIER_NOT_SUPPORTED = 0,
    D3D12_WORK_LISTS_TIER_1 = 10,
    D3D12_WORK_LISTS_TIER_2 = 20,
} D3D12_WORK_LISTS_TIER;

typedef struct D3D12_FEATURE_DATA_WORK_LISTS
{
    D3D12_WORK_LISTS_TIER Tier;
    int32_t DispatchRaysSupported;
} D3D12_FEATURE_DATA_WORK_LISTS;

/* --- CreateProgramCommandSignature ---------------------------------------------------- */

typedef enum D3D12_INDIRECT_ARGUMENT_SOURCE
{
    D3D12_INDIRECT_ARGUMENT_SOURCE_PRIMARY_RECORD = 1,
    D3D12_INDIRECT_ARGUMENT_SOURCE_SECONDARY_RECORD = 2,
    D3D12_INDIRECT_ARGUMENT_SOURCE_SYSTEM = 3,
    D3D12_INDIRECT_ARGUMENT_SOURCE_PROGRAM_TABLE_RECORD = 4,
    D3D12_INDIRECT_ARGUMENT_SOURCE_STATIC = 5,
} D3D12_INDIRECT_ARGUMENT_SOURCE;

typedef enum D3D12_INDIRECT_ARGUMENT_BINDING
{
    D3D12_INDIRECT_ARGUMENT_BINDING_GLOBAL_ROOT_SIGNATURE = 0,
    D3D12_INDIRECT_ARGUMENT_BINDING_LOCAL_ROOT_SIGNATURE = 1,
} D3D12_INDIRECT_ARGUMENT_BINDING;

typedef enum D3D12_INCREMENTING_CONSTANT_FLAGS
{
    D3D12_INCREMENTING_CONSTANT_FLAG_NONE = 0x0,
    D3D12_INCREMENTING_CONSTANT_FLAG_RESET_PER_SECONDARY_LIST = 0x1,
} D3D12_INCREMENTING_CONSTANT_FLAGS;

typedef struct D3D12_WORK_LIST_INLINE_ROOT_PARAMETER
{
    D3D12_ROOT_PARAMETER1 RootParameter;
    uint32_t DestOffsetIn32BitValues;
    uint32_t Num32BitValuesToSet;
} D3D12_WORK_LIST_INLINE_ROOT_PARAMETER;

/* The union holds the ExecuteIndirect per-type payloads (IndirectDrawing.md) with
 * IncrementingConstant extended by Flags, plus every Work-Lists-specific payload. */
typedef struct D3D12_WORK_LIST_ARGUMENT_DESC
{
    D3D12_INDIRECT_ARGUMENT_TYPE Type;
    D3D12_INDIRECT_ARGUMENT_SOURCE Source;
    D3D12_INDIRECT_ARGUMENT_BINDING Binding;
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
            D3D12_INCREMENTING_CONSTANT_FLAGS Flags;
        } IncrementingConstant;
        struct
        {
            uint32_t RootParameterIndex;
        } DescriptorTable;
        struct
        {
            uint32_t ThreadGroupCountX;
            uint32_t ThreadGroupCountY;
            uint32_t ThreadGroupCountZ;
        } FixedDispatch;
        D3D12_WORK_LIST_INLINE_ROOT_PARAMETER InlineRootParameter;
        D3D12_STATIC_SAMPLER_DESC1 InlineStaticSampler;
        struct
        {
            uint32_t RootParameterIndex;
        } DispatchListHeaderPointer;
        struct
        {
            uint32_t RootParameterIndex;
        } ProgramTablePointer;
        struct
        {
            uint32_t RootParameterIndex;
        } PrimaryListPointer;
        struct
        {
            uint32_t RootParameterIndex;
        } PrimaryRecordPointer;
        struct
        {
            uint32_t RootParameterIndex;
        } SecondaryListPointer;
        struct
        {
            uint32_t RootParameterIndex;
        } SecondaryRecordPointer;
    };
} D3D12_WORK_LIST_ARGUMENT_DESC;

typedef struct D3D12_PROGRAM_COMMAND_SIGNATURE_DESC
{
    uint32_t NumArgumentDescs;
    const D3D12_WORK_LIST_ARGUMENT_DESC *pArgumentDescs;
    uint32_t SecondaryRecordByteStride;
    ID3D12RootSignature *pGlobalRootSignature;
    uint32_t RecordValidationProgramTableIndex;
} D3D12_PROGRAM_COMMAND_SIGNATURE_DESC;

/* --- CreateWorkListSignature ------------------------------------------------------- */

typedef enum D3D12_PIPELINE_STATE_SUBOBJECT_MASK
{
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_VS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_PS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_PS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_DS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_HS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_HS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_GS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_GS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_CS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_CS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_STREAM_OUTPUT = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_STREAM_OUTPUT),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_BLEND = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_BLEND),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_SAMPLE_MASK = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_SAMPLE_MASK),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_RASTERIZER = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_RASTERIZER),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_DEPTH_STENCIL = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DEPTH_STENCIL),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_INPUT_LAYOUT = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_INPUT_LAYOUT),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_IB_STRIP_CUT_VALUE = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_IB_STRIP_CUT_VALUE),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_PRIMITIVE_TOPOLOGY = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_PRIMITIVE_TOPOLOGY),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_SAMPLE_DESC = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_SAMPLE_DESC),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_VIEW_INSTANCING = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VIEW_INSTANCING),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_AS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_AS),
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK_MS = (1 << D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MS),
} D3D12_PIPELINE_STATE_SUBOBJECT_MASK;

typedef struct D3D12_WORK_LIST_SIGNATURE_DESC
{
    uint32_t NumProgramCommandSignatures;
    ID3D12ProgramCommandSignature *const *pProgramCommandSignatures;
    D3D12_PIPELINE_STATE_SUBOBJECT_MASK SubobjectMask;
    uint32_t ListValidationProgramTableIndex;
} D3D12_WORK_LIST_SIGNATURE_DESC;

/* --- CreateWorkListSignatureArray (Tier 2) ---------------------------------------------- */

typedef struct D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC
{
    uint32_t NumSignatures;
    ID3D12WorkListSignature *const *pSignatures;
} D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC;

/* --- SetProgram ---------------------------------------------------------------------- */

typedef enum D3D12_PROGRAM_TYPE
{
    D3D12_PROGRAM_TYPE_GENERIC_PIPELINE = 1,
    D3D12_PROGRAM_TYPE_RAYTRACING_PIPELINE = 4,
    D3D12_PROGRAM_TYPE_WORK_GRAPH = 5,
    D3D12_PROGRAM_TYPE_WORK_LIST = 7,
    D3D12_PROGRAM_TYPE_WORK_LIST1 = 8,
} D3D12_PROGRAM_TYPE;

typedef enum D3D12_WORK_LIST_BINDING_TYPE
{
    D3D12_WORK_LIST_BINDING_TYPE_PROGRAM_TABLE = 0,
    D3D12_WORK_LIST_BINDING_TYPE_RAYTRACING = 1,
} D3D12_WORK_LIST_BINDING_TYPE;

typedef struct D3D12_DISPATCH_RAYS_DIMENSIONS
{
    uint32_t Width;
    uint32_t Height;
    uint32_t Depth;
} D3D12_DISPATCH_RAYS_DIMENSIONS;

typedef struct D3D12_WORK_LIST_RAYTRACING_BINDING
{
    ID3D12StateObject *pRaytracingStateObject;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE RayGenerationShaderRecord;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE MissShaderTable;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE HitGroupTable;
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE CallableShaderTable;
} D3D12_WORK_LIST_RAYTRACING_BINDING;

typedef struct D3D12_WORK_LIST_PROGRAM_TABLE_BINDING
{
    D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE Table;
    uint32_t SlotCount;
} D3D12_WORK_LIST_PROGRAM_TABLE_BINDING;

typedef struct D3D12_WORK_LIST_BINDING
{
    D3D12_WORK_LIST_BINDING_TYPE Type;
    union
    {
        D3D12_WORK_LIST_PROGRAM_TABLE_BINDING ProgramTable;
        const D3D12_WORK_LIST_RAYTRACING_BINDING *pRaytracing;
    };
} D3D12_WORK_LIST_BINDING;

typedef struct D3D12_SET_WORK_LIST_DESC
{
    ID3D12WorkListSignature *pSignature;
    D3D12_WORK_LIST_BINDING Binding;
} D3D12_SET_WORK_LIST_DESC;

typedef struct D3D12_SET_WORK_LIST_DESC1
{
    ID3D12WorkListSignatureArray *pSignatureArray;
    uint32_t NumBindings;
    const D3D12_WORK_LIST_BINDING *pBindings;
    D3D12_WORK_LIST_PROGRAM_TABLE_BINDING ValidationProgramTable;
    uint32_t SignatureSelectionValidationProgramTableIndex;
} D3D12_SET_WORK_LIST_DESC1;

/* Pre-existing SetProgram desc (Agility SDK d3d12.h) with the WorkList / WorkList1 members
 * the spec names ("Used by: SetProgram - WorkList(1) union member of D3D12_SET_PROGRAM_DESC"). */
typedef struct D3D12_SET_PROGRAM_DESC
{
    D3D12_PROGRAM_TYPE Type;
    union
    {
        D3D12_SET_GENERIC_PIPELINE_DESC GenericPipeline;
        D3D12_SET_RAYTRACING_PIPELINE_DESC RaytracingPipeline;
        D3D12_SET_WORK_GRAPH_DESC WorkGraph;
        D3D12_SET_WORK_LIST_DESC WorkList;
        D3D12_SET_WORK_LIST_DESC1 WorkList1;
    };
} D3D12_SET_PROGRAM_DESC;

/* --- DispatchList / DispatchList1 ---------------------------------------------------- */

typedef enum D3D12_DISPATCH_LIST_FLAGS
{
    D3D12_DISPATCH_LIST_FLAG_NONE = 0x0,
    D3D12_DISPATCH_LIST_FLAG_ALLOW_OUT_OF_ORDER_GRAPHICS = 0x1,
} D3D12_DISPATCH_LIST_FLAGS;

typedef struct D3D12_DISPATCH_LIST_INPUT
{
    uint32_t NumProgramInputs;
    D3D12_DISPATCH_LIST_FLAGS Flags;
    D3D12_GPU_VIRTUAL_ADDRESS_AND_STRIDE ProgramInputs;
} D3D12_DISPATCH_LIST_INPUT;

typedef enum D3D12_DISPATCH_LIST_FLAGS1
{
    D3D12_DISPATCH_LIST_FLAG1_NONE = 0x0,
    D3D12_DISPATCH_LIST_FLAG1_ALLOW_OUT_OF_ORDER_GRAPHICS = 0x1,
    D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION = 0x2,
    D3D12_DISPATCH_LIST_FLAG1_END_WITH_WAIT_FOR_COMPLETION = 0x4,
    D3D12_DISPATCH_LIST_FLAG1_END_WITH_MEMORY_FLUSH = 0x8,
} D3D12_DISPATCH_LIST_FLAGS1;

typedef struct D3D12_DISPATCH_LIST_INPUT1
{
    uint32_t NumProgramInputs;
    D3D12_DISPATCH_LIST_FLAGS1 Flags;
    uint32_t SignatureIndex;
    uint32_t ReservedPadding;
    D3D12_GPU_VIRTUAL_ADDRESS_AND_STRIDE ProgramInputs;
    D3D12_GPU_VIRTUAL_ADDRESS NextDispatchList;
} D3D12_DISPATCH_LIST_INPUT1;

/* --- Primary record headers ("Primary record layout") -------------------------------- */

typedef struct D3D12_WORK_LIST_PRIMARY_RECORD
{
    uint32_t ProgramTableIndex;
    uint32_t NumSecondaryRecords;
    D3D12_GPU_VIRTUAL_ADDRESS SecondaryRecords;
} D3D12_WORK_LIST_PRIMARY_RECORD;

typedef struct D3D12_WORK_LIST_INLINE_PRIMARY_RECORD
{
    uint32_t ProgramTableIndex;
} D3D12_WORK_LIST_INLINE_PRIMARY_RECORD;

typedef struct D3D12_WORK_LIST_RAYTRACING_RECORD
{
    uint32_t NumSecondaryRecords;
    uint32_t ReservedPadding;
    D3D12_GPU_VIRTUAL_ADDRESS SecondaryRecords;
} D3D12_WORK_LIST_RAYTRACING_RECORD;

/* --- State object subobject -------------------------------------------------------- */

typedef struct D3D12_PROGRAM_COMMAND_SIGNATURE_SUBOBJECT
{
    ID3D12ProgramCommandSignature *pProgramCommandSignature;
} D3D12_PROGRAM_COMMAND_SIGNATURE_SUBOBJECT;
