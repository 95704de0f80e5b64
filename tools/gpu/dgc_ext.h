/* Declarations of VK_EXT_device_generated_commands and of the VK_KHR_maintenance5 pieces it needs, for building
 * against Vulkan headers that predate them (Debian's 1.3.239).  Written for d3d12wl from the facts of the Vulkan
 * registry (structure layouts, enum values); d3d12wl/vulkan/vk.py holds the same token and input-mode values and
 * tests/test_vulkan_harness.py checks that the two agree. */
#ifndef D3D12WL_DGC_EXT_H
#define D3D12WL_DGC_EXT_H

#include <vulkan/vulkan.h>

#ifndef VK_EXT_device_generated_commands
#define VK_EXT_device_generated_commands 1
#define D3D12WL_DECLARE_DGC_EXT 1
#endif

#define DGC_EXT_NAME "VK_EXT_device_generated_commands"
#define MAINT5_EXT_NAME "VK_KHR_maintenance5"

/* structure types */
#define DGC_STYPE_FEATURES ((VkStructureType)1000572000)
#define DGC_STYPE_PROPERTIES ((VkStructureType)1000572001)
#define DGC_STYPE_MEMORY_REQUIREMENTS_INFO ((VkStructureType)1000572002)
#define DGC_STYPE_EXECUTION_SET_CREATE_INFO ((VkStructureType)1000572003)
#define DGC_STYPE_GENERATED_COMMANDS_INFO ((VkStructureType)1000572004)
#define DGC_STYPE_LAYOUT_CREATE_INFO ((VkStructureType)1000572006)
#define DGC_STYPE_LAYOUT_TOKEN ((VkStructureType)1000572007)
#define DGC_STYPE_WRITE_EXECUTION_SET_PIPELINE ((VkStructureType)1000572008)
#define DGC_STYPE_EXECUTION_SET_PIPELINE_INFO ((VkStructureType)1000572010)
#define DGC_STYPE_PIPELINE_INFO ((VkStructureType)1000572013)
#define MAINT5_STYPE_FEATURES ((VkStructureType)1000470000)
#define MAINT5_STYPE_PIPELINE_CREATE_FLAGS_2 ((VkStructureType)1000470005)
#define MAINT5_STYPE_BUFFER_USAGE_FLAGS_2 ((VkStructureType)1000470006)

/* VkIndirectCommandsTokenTypeEXT */
#define DGC_TOKEN_EXECUTION_SET 0u
#define DGC_TOKEN_PUSH_CONSTANT 1u
#define DGC_TOKEN_SEQUENCE_INDEX 2u
#define DGC_TOKEN_INDEX_BUFFER 3u
#define DGC_TOKEN_VERTEX_BUFFER 4u
#define DGC_TOKEN_DRAW_INDEXED 5u
#define DGC_TOKEN_DRAW 6u
#define DGC_TOKEN_DRAW_INDEXED_COUNT 7u
#define DGC_TOKEN_DRAW_COUNT 8u
#define DGC_TOKEN_DISPATCH 9u
#define DGC_TOKEN_DRAW_MESH_TASKS 1000328000u

/* VkIndirectCommandsInputModeFlagBitsEXT */
#define DGC_INPUT_MODE_VULKAN_INDEX_BUFFER 0x1u
#define DGC_INPUT_MODE_DXGI_INDEX_BUFFER 0x2u
/* VkIndirectCommandsLayoutUsageFlagBitsEXT */
#define DGC_LAYOUT_USAGE_EXPLICIT_PREPROCESS 0x1u
/* VkIndirectExecutionSetInfoTypeEXT */
#define DGC_EXECUTION_SET_PIPELINES 0u

/* 64-bit flags of VK_KHR_maintenance5 / the EXT */
#define DGC_PIPELINE_CREATE_2_INDIRECT_BINDABLE 0x4000000000ULL
#define DGC_BUFFER_USAGE_2_PREPROCESS_BUFFER 0x80000000ULL
#define DGC_STAGE_COMMAND_PREPROCESS 0x00020000u
#define DGC_ACCESS_COMMAND_PREPROCESS_READ 0x00020000u
#define DGC_ACCESS_COMMAND_PREPROCESS_WRITE 0x00040000u

typedef struct DgcHandle_T *DgcIndirectExecutionSet;
typedef struct DgcHandle2_T *DgcIndirectCommandsLayout;

typedef struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 deviceGeneratedCommands;
    VkBool32 dynamicGeneratedPipelineLayout;
} DgcFeatures;

typedef struct {
    VkStructureType sType;
    void *pNext;
    uint32_t maxIndirectPipelineCount;
    uint32_t maxIndirectShaderObjectCount;
    uint32_t maxIndirectSequenceCount;
    uint32_t maxIndirectCommandsTokenCount;
    uint32_t maxIndirectCommandsTokenOffset;
    uint32_t maxIndirectCommandsIndirectStride;
    uint32_t supportedIndirectCommandsInputModes;
    VkShaderStageFlags supportedIndirectCommandsShaderStages;
    VkShaderStageFlags supportedIndirectCommandsShaderStagesPipelineBinding;
    VkShaderStageFlags supportedIndirectCommandsShaderStagesShaderBinding;
    VkBool32 deviceGeneratedCommandsTransformFeedback;
    VkBool32 deviceGeneratedCommandsMultiDrawIndirectCount;
} DgcProperties;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    DgcIndirectExecutionSet indirectExecutionSet;
    DgcIndirectCommandsLayout indirectCommandsLayout;
    uint32_t maxSequenceCount;
    uint32_t maxDrawCount;
} DgcMemoryRequirementsInfo;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkPipeline initialPipeline;
    uint32_t maxPipelineCount;
} DgcExecutionSetPipelineInfo;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint32_t type; /* VkIndirectExecutionSetInfoTypeEXT */
    const DgcExecutionSetPipelineInfo *pPipelineInfo; /* the union's pipeline member */
} DgcExecutionSetCreateInfo;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkShaderStageFlags shaderStages;
    DgcIndirectExecutionSet indirectExecutionSet;
    DgcIndirectCommandsLayout indirectCommandsLayout;
    VkDeviceAddress indirectAddress;
    VkDeviceSize indirectAddressSize;
    VkDeviceAddress preprocessAddress;
    VkDeviceSize preprocessSize;
    uint32_t maxSequenceCount;
    VkDeviceAddress sequenceCountAddress;
    uint32_t maxDrawCount;
} DgcGeneratedCommandsInfo;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint32_t index;
    VkPipeline pipeline;
} DgcWriteExecutionSetPipeline;

typedef struct { VkPushConstantRange updateRange; } DgcPushConstantToken;
typedef struct { uint32_t vertexBindingUnit; } DgcVertexBufferToken;
typedef struct { uint32_t mode; } DgcIndexBufferToken;
typedef struct { uint32_t type; VkShaderStageFlags shaderStages; } DgcExecutionSetToken;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint32_t type; /* VkIndirectCommandsTokenTypeEXT */
    const void *data; /* the union of pointers: one of the four token structs above */
    uint32_t offset;
} DgcLayoutToken;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint32_t flags;
    VkShaderStageFlags shaderStages;
    uint32_t indirectStride;
    VkPipelineLayout pipelineLayout;
    uint32_t tokenCount;
    const DgcLayoutToken *pTokens;
} DgcLayoutCreateInfo;

typedef struct {
    VkStructureType sType;
    void *pNext;
    VkPipeline pipeline;
} DgcPipelineInfo;

typedef struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 maintenance5;
} Maint5Features;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint64_t flags;
} Maint5PipelineCreateFlags2;

typedef struct {
    VkStructureType sType;
    const void *pNext;
    uint64_t usage;
} Maint5BufferUsageFlags2;

typedef void (VKAPI_PTR *PFN_dgcGetMemoryRequirements)(VkDevice, const DgcMemoryRequirementsInfo *,
                                                        VkMemoryRequirements2 *);
typedef void (VKAPI_PTR *PFN_dgcCmdPreprocess)(VkCommandBuffer, const DgcGeneratedCommandsInfo *, VkCommandBuffer);
typedef void (VKAPI_PTR *PFN_dgcCmdExecute)(VkCommandBuffer, VkBool32, const DgcGeneratedCommandsInfo *);
typedef VkResult (VKAPI_PTR *PFN_dgcCreateLayout)(VkDevice, const DgcLayoutCreateInfo *, const VkAllocationCallbacks *,
                                                   DgcIndirectCommandsLayout *);
typedef VkResult (VKAPI_PTR *PFN_dgcCreateExecutionSet)(VkDevice, const DgcExecutionSetCreateInfo *,
                                                         const VkAllocationCallbacks *, DgcIndirectExecutionSet *);
typedef void (VKAPI_PTR *PFN_dgcUpdateExecutionSetPipeline)(VkDevice, DgcIndirectExecutionSet, uint32_t,
                                                             const DgcWriteExecutionSetPipeline *);
/* vkCmdBindIndexBuffer2KHR (VK_KHR_maintenance5): an index buffer bound with its size, so that reads past a D3D12
 * view's SizeInBytes are past the bound range (index 0 under robustBufferAccess2) */
typedef void (VKAPI_PTR *PFN_maint5CmdBindIndexBuffer2)(VkCommandBuffer, VkBuffer, VkDeviceSize offset, VkDeviceSize size,
                                                        VkIndexType);

#endif
