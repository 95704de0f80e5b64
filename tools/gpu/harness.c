/* d3d12wl GPU harness: run one lowered call (d3d12wl.vulkan) through VK_EXT_device_generated_commands and record
 * what every sequence's shader received.
 *
 *   dgc_harness --probe
 *   dgc_harness CASE.bin RECORDS.bin SUMMARY.json SPV_DIR [REPEAT]
 *   dgc_harness --walk PLAN.bin CASE.bin WALKED_CASE.bin SUMMARY.json SPV_DIR [REPEAT]
 *
 * --walk runs the GPU walker (tools/gpu/walk.comp; d3d12wl/vulkan/walker.py documents PLAN.bin) that generates the
 * sequence buffer from the captured record bytes, compares it byte for byte with CASE.bin's CPU-generated one, and
 * writes WALKED_CASE.bin: CASE.bin with the GPU-generated sequences, for the DGC run above.
 *
 * CASE.bin is written by d3d12wl.vulkan.harness.write_case (the layout of that file is documented there).  One
 * pipeline per program (specialization constant 0 = the execution-set index), all in one indirect execution set;
 * a vertex shader (rasterizer discard, no attachments) or a compute shader writes, per sequence, a record of
 * RECORD_DWORDS dwords into a storage buffer (see tools/gpu/record.vert).  The sequence buffer is uploaded to
 * device-local memory, preprocessed explicitly (vkCmdPreprocessGeneratedCommandsEXT) and executed; timestamps
 * around the preprocess and the execute give the GPU times (best and median of REPEAT runs).
 *
 * The capture's vertex- and index-buffer VAs are not device memory: VERTEX_BUFFER tokens are pointed at a dummy
 * buffer (the recording shader reads no vertex attributes) and INDEX_BUFFER tokens at an identity index buffer
 * (index i = i), sizes kept; nothing else in the sequence buffer is changed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dgc_ext.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        VkResult r_ = (x);                                                                         \
        if (r_ != VK_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s -> VkResult %d\n", __FILE__, __LINE__, #x, (int)r_);        \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

#define HEADER_DWORDS 16
#define PC_BLOCK_BYTES 256 /* the shaders' push-constant block: 64 dwords; dword 63 = sequence base (harness: 0) */
#define RECORD_HEADER 16

typedef struct {
    uint32_t type, offset, size, push_offset, push_size, vertex_binding_unit, index_mode, reserved;
} CaseToken;

typedef struct {
    uint32_t magic, version, compute, program_count, push_constant_size, stride, count, token_count, seq_dword,
        index_bytes, vertex_bytes, index_size, vbv_size_offset, ibv_size_offset, reserved[2];
    CaseToken *tokens;
    uint8_t *initial_pc;
    uint8_t *sequences;
} Case;

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("short read %s", path);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static Case read_case(const char *path) {
    size_t n;
    uint8_t *b = read_file(path, &n);
    Case c;
    if (n < HEADER_DWORDS * 4) die("%s: too short", path);
    memcpy(&c, b, HEADER_DWORDS * 4);
    if (c.magic != 0x31434744u /* 'DGC1' */ || c.version != 2) die("%s: not a d3d12wl DGC case (version 2)", path);
    size_t off = HEADER_DWORDS * 4;
    size_t need = off + c.token_count * sizeof(CaseToken) + c.push_constant_size + (size_t)c.stride * c.count;
    if (n != need) die("%s: size %zu, expected %zu", path, n, need);
    c.tokens = (CaseToken *)(b + off);
    off += c.token_count * sizeof(CaseToken);
    c.initial_pc = b + off;
    off += c.push_constant_size;
    c.sequences = b + off;
    if (c.push_constant_size > PC_BLOCK_BYTES - 4) die("push-constant block of %u bytes > %u", c.push_constant_size,
                                                       PC_BLOCK_BYTES - 4);
    return c;
}

/* ------------------------------------------------------------------------------------------------------------ */

typedef struct {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkPhysicalDeviceMemoryProperties mem;
    VkPhysicalDeviceProperties props;
    DgcProperties dgc_props;
    DgcFeatures dgc_features;
    double timestamp_ns;
    PFN_dgcGetMemoryRequirements get_reqs;
    PFN_dgcCmdPreprocess preprocess;
    PFN_dgcCmdExecute execute;
    PFN_dgcCreateLayout create_layout;
    PFN_dgcCreateExecutionSet create_set;
    PFN_dgcUpdateExecutionSetPipeline update_set;
} Gpu;

static int has_extension(VkPhysicalDevice phys, const char *name, uint32_t *version) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
    VkExtensionProperties *e = calloc(n, sizeof *e);
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, e);
    int found = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) {
            found = 1;
            if (version) *version = e[i].specVersion;
        }
    free(e);
    return found;
}

static void gpu_instance(Gpu *g) {
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "d3d12wl-dgc", 1, "d3d12wl", 1,
                             VK_MAKE_API_VERSION(0, 1, 3, 0)};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    CHECK(vkCreateInstance(&ici, NULL, &g->instance));
    uint32_t n = 1;
    VkPhysicalDevice devs[8];
    n = 8;
    CHECK(vkEnumeratePhysicalDevices(g->instance, &n, devs));
    if (n == 0) die("no Vulkan physical device");
    g->phys = devs[0];
    vkGetPhysicalDeviceProperties(g->phys, &g->props);
    vkGetPhysicalDeviceMemoryProperties(g->phys, &g->mem);
    memset(&g->dgc_props, 0, sizeof g->dgc_props);
    g->dgc_props.sType = DGC_STYPE_PROPERTIES;
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &g->dgc_props};
    vkGetPhysicalDeviceProperties2(g->phys, &p2);
    memset(&g->dgc_features, 0, sizeof g->dgc_features);
    g->dgc_features.sType = DGC_STYPE_FEATURES;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &g->dgc_features};
    vkGetPhysicalDeviceFeatures2(g->phys, &f2);
    g->timestamp_ns = g->props.limits.timestampPeriod;
}

static void probe(void) {
    Gpu g;
    gpu_instance(&g);
    uint32_t v_ext = 0, v_nv = 0, v_nvc = 0, v_m5 = 0;
    int ext = has_extension(g.phys, DGC_EXT_NAME, &v_ext);
    int nv = has_extension(g.phys, "VK_NV_device_generated_commands", &v_nv);
    int nvc = has_extension(g.phys, "VK_NV_device_generated_commands_compute", &v_nvc);
    int m5 = has_extension(g.phys, MAINT5_EXT_NAME, &v_m5);
    printf("{\"device\": \"%s\", \"api\": \"%u.%u.%u\", \"driver\": %u, \"vendor\": %u,\n", g.props.deviceName,
           VK_API_VERSION_MAJOR(g.props.apiVersion), VK_API_VERSION_MINOR(g.props.apiVersion),
           VK_API_VERSION_PATCH(g.props.apiVersion), g.props.driverVersion, g.props.vendorID);
    printf(" \"VK_EXT_device_generated_commands\": %d, \"ext_version\": %u, \"VK_NV_device_generated_commands\": %d, "
           "\"nv_version\": %u, \"VK_NV_device_generated_commands_compute\": %d, \"VK_KHR_maintenance5\": %d,\n",
           ext, v_ext, nv, v_nv, nvc, m5);
    printf(" \"deviceGeneratedCommands\": %u, \"dynamicGeneratedPipelineLayout\": %u,\n",
           g.dgc_features.deviceGeneratedCommands, g.dgc_features.dynamicGeneratedPipelineLayout);
    DgcProperties *p = &g.dgc_props;
    printf(" \"maxIndirectPipelineCount\": %u, \"maxIndirectSequenceCount\": %u, \"maxIndirectCommandsTokenCount\": %u,"
           " \"maxIndirectCommandsTokenOffset\": %u, \"maxIndirectCommandsIndirectStride\": %u,"
           " \"supportedIndirectCommandsInputModes\": %u, \"supportedIndirectCommandsShaderStages\": %u,"
           " \"supportedIndirectCommandsShaderStagesPipelineBinding\": %u,"
           " \"maxPushConstantsSize\": %u, \"timestampPeriod\": %f}\n",
           p->maxIndirectPipelineCount, p->maxIndirectSequenceCount, p->maxIndirectCommandsTokenCount,
           p->maxIndirectCommandsTokenOffset, p->maxIndirectCommandsIndirectStride,
           p->supportedIndirectCommandsInputModes, p->supportedIndirectCommandsShaderStages,
           p->supportedIndirectCommandsShaderStagesPipelineBinding, g.props.limits.maxPushConstantsSize,
           g.props.limits.timestampPeriod);
}

static void gpu_device(Gpu *g) {
    if (!has_extension(g->phys, DGC_EXT_NAME, NULL)) die("no %s", DGC_EXT_NAME);
    if (!g->dgc_features.deviceGeneratedCommands) die("deviceGeneratedCommands feature not supported");
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &nq, NULL);
    VkQueueFamilyProperties *q = calloc(nq, sizeof *q);
    vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &nq, q);
    g->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < nq; i++)
        if ((q[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
                (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT) && q[i].timestampValidBits) {
            g->queue_family = i;
            break;
        }
    if (g->queue_family == UINT32_MAX) die("no graphics+compute queue with timestamps");
    free(q);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, g->queue_family, 1, &prio};

    DgcFeatures dgc = {DGC_STYPE_FEATURES, NULL, VK_TRUE, VK_FALSE};
    Maint5Features m5 = {MAINT5_STYPE_FEATURES, &dgc, VK_TRUE};
    VkPhysicalDeviceVulkan13Features v13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &m5};
    v13.dynamicRendering = VK_TRUE;
    v13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features v12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &v13};
    v12.bufferDeviceAddress = VK_TRUE;
    VkPhysicalDeviceVulkan11Features v11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
    v11.shaderDrawParameters = VK_TRUE;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
    f2.features.vertexPipelineStoresAndAtomics = VK_TRUE;
    f2.features.shaderInt64 = VK_TRUE; /* the walker's VA arithmetic */
    const char *exts[] = {MAINT5_EXT_NAME, DGC_EXT_NAME};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2, 0, 1, &qci, 0, NULL, 2, exts, NULL};
    CHECK(vkCreateDevice(g->phys, &dci, NULL, &g->device));
    vkGetDeviceQueue(g->device, g->queue_family, 0, &g->queue);
#define LOAD(field, name)                                                                     \
    g->field = (void *)vkGetDeviceProcAddr(g->device, name);                                  \
    if (!g->field) die("no %s", name);
    LOAD(get_reqs, "vkGetGeneratedCommandsMemoryRequirementsEXT");
    LOAD(preprocess, "vkCmdPreprocessGeneratedCommandsEXT");
    LOAD(execute, "vkCmdExecuteGeneratedCommandsEXT");
    LOAD(create_layout, "vkCreateIndirectCommandsLayoutEXT");
    LOAD(create_set, "vkCreateIndirectExecutionSetEXT");
    LOAD(update_set, "vkUpdateIndirectExecutionSetPipelineEXT");
#undef LOAD
}

typedef struct {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceAddress address;
    void *mapped;
} Buffer;

static uint32_t memory_type(Gpu *g, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < g->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (g->mem.memoryTypes[i].propertyFlags & want) == want) return i;
    die("no memory type for bits 0x%x flags 0x%x", bits, want);
    return 0;
}

static Buffer make_buffer(Gpu *g, VkDeviceSize size, uint64_t usage2, VkMemoryPropertyFlags flags,
                          uint32_t type_bits_mask) {
    Buffer b = {0};
    b.size = size ? size : 4;
    Maint5BufferUsageFlags2 u2 = {MAINT5_STYPE_BUFFER_USAGE_FLAGS_2, NULL, usage2 | 0x00020000ULL /* device address */};
    VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &u2, 0, b.size, 0, VK_SHARING_MODE_EXCLUSIVE, 0,
                              NULL};
    CHECK(vkCreateBuffer(g->device, &bci, NULL, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, b.buffer, &req);
    VkMemoryAllocateFlagsInfo afi = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, NULL,
                                     VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0};
    uint32_t bits = req.memoryTypeBits & (type_bits_mask ? type_bits_mask : 0xFFFFFFFFu);
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &afi, req.size, memory_type(g, bits, flags)};
    CHECK(vkAllocateMemory(g->device, &mai, NULL, &b.memory));
    CHECK(vkBindBufferMemory(g->device, b.buffer, b.memory, 0));
    VkBufferDeviceAddressInfo dai = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, NULL, b.buffer};
    b.address = vkGetBufferDeviceAddress(g->device, &dai);
    if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) CHECK(vkMapMemory(g->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    return b;
}

#define USAGE_TRANSFER_SRC 0x1ULL
#define USAGE_TRANSFER_DST 0x2ULL
#define USAGE_STORAGE 0x20ULL
#define USAGE_INDEX 0x40ULL
#define USAGE_VERTEX 0x80ULL
#define USAGE_INDIRECT 0x100ULL
#define HOST (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
#define DEVICE VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT

static VkShaderModule load_shader(Gpu *g, const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n;
    uint8_t *code = read_file(path, &n);
    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, n, (const uint32_t *)code};
    VkShaderModule m;
    CHECK(vkCreateShaderModule(g->device, &smci, NULL, &m));
    return m;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *case_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void one_shot(Gpu *g, VkCommandPool pool, void (*record)(VkCommandBuffer, void *), void *ctx) {
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                       VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(g->device, &cai, &cb));
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                   VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    record(cb, ctx);
    CHECK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
    CHECK(vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(g->queue));
    vkFreeCommandBuffers(g->device, pool, 1, &cb);
}

typedef struct {
    VkBuffer src, dst;
    VkDeviceSize size;
} Copy;

static void record_copy(VkCommandBuffer cb, void *ctx) {
    Copy *c = ctx;
    VkBufferCopy r = {0, 0, c->size};
    vkCmdCopyBuffer(cb, c->src, c->dst, 1, &r);
}

typedef struct {
    Gpu *g;
    Case *c;
    VkPipeline *pipelines;
    VkPipelineLayout layout;
    VkDescriptorSet set;
    DgcIndirectExecutionSet exec_set;
    DgcIndirectCommandsLayout cmd_layout;
    Buffer *indirect, *preprocess, *records;
    VkQueryPool queries;
    VkShaderStageFlags stages;
    VkPipelineBindPoint bind_point;
} Run;

static void record_run(VkCommandBuffer cb, void *ctx) {
    Run *r = ctx;
    Case *c = r->c;
    vkCmdResetQueryPool(cb, r->queries, 0, 3);
    vkCmdFillBuffer(cb, r->records->buffer, 0, VK_WHOLE_SIZE, 0);
    VkMemoryBarrier fill = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &fill, 0, NULL,
                         0, NULL);
    vkCmdBindPipeline(cb, r->bind_point, r->pipelines[0]);
    vkCmdBindDescriptorSets(cb, r->bind_point, r->layout, 0, 1, &r->set, 0, NULL);
    uint8_t pc[PC_BLOCK_BYTES] = {0};
    memcpy(pc, c->initial_pc, c->push_constant_size);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->queries, 0);
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 1) {
            VkMemoryBarrier pre = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, DGC_ACCESS_COMMAND_PREPROCESS_WRITE,
                                   VK_ACCESS_INDIRECT_COMMAND_READ_BIT | DGC_ACCESS_COMMAND_PREPROCESS_READ};
            vkCmdPipelineBarrier(cb, DGC_STAGE_COMMAND_PREPROCESS, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &pre,
                                 0, NULL, 0, NULL);
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, r->queries, 1);
        }
        /* one DGC execute of every sequence (check_limits: count <= maxIndirectSequenceCount); push-constant DWORD
         * 63, the shaders' sequence base, stays 0 */
        vkCmdPushConstants(cb, r->layout, r->stages, 0, PC_BLOCK_BYTES, pc);
        DgcPipelineInfo pinfo = {DGC_STYPE_PIPELINE_INFO, NULL, r->pipelines[0]};
        DgcGeneratedCommandsInfo info = {DGC_STYPE_GENERATED_COMMANDS_INFO,
                                         r->exec_set ? NULL : &pinfo,
                                         r->stages,
                                         r->exec_set,
                                         r->cmd_layout,
                                         r->indirect->address,
                                         (VkDeviceSize)c->count * c->stride,
                                         r->preprocess->address,
                                         r->preprocess->size,
                                         c->count,
                                         0,
                                         0};
        if (phase == 0) {
            r->g->preprocess(cb, &info, cb);
        } else {
            VkRenderingInfo ri = {VK_STRUCTURE_TYPE_RENDERING_INFO, NULL, 0, {{0, 0}, {1, 1}}, 1, 0, 0, NULL,
                                  NULL, NULL};
            if (!c->compute) vkCmdBeginRendering(cb, &ri);
            r->g->execute(cb, VK_TRUE, &info);
            if (!c->compute) vkCmdEndRendering(cb);
        }
    }
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, 2);
}

/* The device limits a case needs, checked before anything is created: a case past one exits 2 naming it. */
#define MAX_VERTEX_BINDINGS 32 /* the harness's vertex binding array */
static void check_limits(const Gpu *g, const Case *c) {
    const DgcProperties *p = &g->dgc_props;
    const VkPhysicalDeviceLimits *l = &g->props.limits;
    if (l->maxPushConstantsSize < PC_BLOCK_BYTES)
        die("limit maxPushConstantsSize %u < the shaders' push-constant block of %u bytes", l->maxPushConstantsSize,
            PC_BLOCK_BYTES);
    if (c->count > p->maxIndirectSequenceCount)
        die("limit maxIndirectSequenceCount %u < the case's %u sequences (the harness runs one DGC execute)",
            p->maxIndirectSequenceCount, c->count);
    if (c->token_count > p->maxIndirectCommandsTokenCount)
        die("limit maxIndirectCommandsTokenCount %u < the case's %u tokens", p->maxIndirectCommandsTokenCount,
            c->token_count);
    if (c->stride > p->maxIndirectCommandsIndirectStride)
        die("limit maxIndirectCommandsIndirectStride %u < the case's stride %u", p->maxIndirectCommandsIndirectStride,
            c->stride);
    for (uint32_t t = 0; t < c->token_count; t++) {
        const CaseToken *tk = &c->tokens[t];
        if (tk->offset > p->maxIndirectCommandsTokenOffset)
            die("limit maxIndirectCommandsTokenOffset %u < token %u's offset %u", p->maxIndirectCommandsTokenOffset, t,
                tk->offset);
        if ((uint64_t)tk->offset + tk->size > c->stride)
            die("case: token %u (offset %u, %u bytes) past the stride %u", t, tk->offset, tk->size, c->stride);
        if (tk->type == DGC_TOKEN_INDEX_BUFFER && !(p->supportedIndirectCommandsInputModes & tk->index_mode))
            die("limit supportedIndirectCommandsInputModes 0x%x lacks token %u's index input mode 0x%x",
                p->supportedIndirectCommandsInputModes, t, tk->index_mode);
        if (tk->type == DGC_TOKEN_VERTEX_BUFFER &&
            (tk->vertex_binding_unit >= MAX_VERTEX_BINDINGS || tk->vertex_binding_unit >= l->maxVertexInputBindings))
            die("limit maxVertexInputBindings %u (harness %u) <= token %u's vertexBindingUnit %u",
                l->maxVertexInputBindings, MAX_VERTEX_BINDINGS, t, tk->vertex_binding_unit);
        if (tk->type == DGC_TOKEN_DISPATCH)
            for (uint32_t s = 0; s < c->count; s++) {
                uint32_t groups[3];
                memcpy(groups, c->sequences + (size_t)s * c->stride + tk->offset, sizeof groups);
                for (int k = 0; k < 3; k++)
                    if (groups[k] > l->maxComputeWorkGroupCount[k])
                        die("limit maxComputeWorkGroupCount[%d] %u < sequence %u's %u groups", k,
                            l->maxComputeWorkGroupCount[k], s, groups[k]);
            }
    }
}

static void run_case(const char *case_path, const char *records_path, const char *summary_path, const char *spv,
                     int repeat) {
    Case c = read_case(case_path);
    Gpu g;
    gpu_instance(&g);
    gpu_device(&g);
    check_limits(&g, &c);
    double t0 = now_s();
    uint32_t record_dwords = RECORD_HEADER + c.push_constant_size / 4;
    VkShaderStageFlags stages = c.compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_VERTEX_BIT;
    VkPipelineBindPoint bp = c.compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS;

    /* buffers */
    VkDeviceSize seq_bytes = (VkDeviceSize)c.stride * c.count;
    VkDeviceSize rec_bytes = (VkDeviceSize)record_dwords * 4 * (c.count ? c.count : 1);
    Buffer staging = make_buffer(&g, seq_bytes, USAGE_TRANSFER_SRC, HOST, 0);
    Buffer indirect = make_buffer(&g, seq_bytes, USAGE_INDIRECT | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer records = make_buffer(&g, rec_bytes, USAGE_STORAGE | USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer readback = make_buffer(&g, rec_bytes, USAGE_TRANSFER_DST, HOST, 0);
    Buffer dummy_vb = make_buffer(&g, c.vertex_bytes ? c.vertex_bytes : 16, USAGE_VERTEX, DEVICE, 0);
    Buffer index_buf = make_buffer(&g, c.index_bytes ? c.index_bytes : 16, USAGE_INDEX, HOST, 0);
    uint32_t index_size = c.index_size == 2 ? 2 : 4;
    for (uint32_t i = 0; i < (c.index_bytes ? c.index_bytes : 16) / index_size; i++) {
        if (index_size == 2)
            ((uint16_t *)index_buf.mapped)[i] = (uint16_t)i;
        else
            ((uint32_t *)index_buf.mapped)[i] = i;
    }

    /* relocate VB / IB addresses (see the header comment), then upload */
    uint32_t relocated = 0;
    for (uint32_t t = 0; t < c.token_count; t++) {
        CaseToken *tk = &c.tokens[t];
        if (tk->type != DGC_TOKEN_VERTEX_BUFFER && tk->type != DGC_TOKEN_INDEX_BUFFER) continue;
        for (uint32_t s = 0; s < c.count; s++) {
            uint8_t *p = c.sequences + (size_t)s * c.stride + tk->offset;
            uint64_t addr = tk->type == DGC_TOKEN_VERTEX_BUFFER ? dummy_vb.address : index_buf.address;
            /* where SizeInBytes is in the view: from the compiled headers, in the case header */
            uint32_t size_at = tk->type == DGC_TOKEN_VERTEX_BUFFER ? c.vbv_size_offset : c.ibv_size_offset;
            if (size_at < 8 || size_at + 4 > tk->size) die("case: SizeInBytes offset %u outside a %u-byte view token",
                                                           size_at, tk->size);
            uint32_t size;
            memcpy(&size, p + size_at, 4);
            VkDeviceSize cap = tk->type == DGC_TOKEN_VERTEX_BUFFER ? dummy_vb.size : index_buf.size;
            if (size > cap) size = (uint32_t)cap;
            memcpy(p, &addr, 8); /* BufferLocation: offset 0 of both views */
            memcpy(p + size_at, &size, 4);
            relocated++;
        }
    }
    memcpy(staging.mapped, c.sequences, seq_bytes);
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g.queue_family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(g.device, &cpi, NULL, &pool));
    Copy cp = {staging.buffer, indirect.buffer, seq_bytes};
    if (seq_bytes) one_shot(&g, pool, record_copy, &cp);

    /* descriptor set: the records buffer */
    VkDescriptorSetLayoutBinding dslb = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL};
    VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 1, &dslb};
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(g.device, &dslci, NULL, &dsl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &ps};
    VkDescriptorPool dpool;
    CHECK(vkCreateDescriptorPool(g.device, &dpci, NULL, &dpool));
    VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, dpool, 1, &dsl};
    VkDescriptorSet set;
    CHECK(vkAllocateDescriptorSets(g.device, &dsai, &set));
    VkDescriptorBufferInfo dbi = {records.buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 1,
                              VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &dbi, NULL};
    vkUpdateDescriptorSets(g.device, 1, &w, 0, NULL);
    VkPushConstantRange pcr = {stages, 0, PC_BLOCK_BYTES};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pcr};
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(g.device, &plci, NULL, &layout));

    /* pipelines: one per program; spec constants 0 program, 1 PC_DWORDS, 2 SEQ_DWORD, 3 RECORD_DWORDS */
    VkShaderModule module = load_shader(&g, spv, c.compute ? "record.comp.spv" : "record.vert.spv");
    uint32_t nprog = c.program_count ? c.program_count : 1;
    VkPipeline *pipes = calloc(nprog, sizeof *pipes);
    uint32_t max_unit = 0;
    for (uint32_t t = 0; t < c.token_count; t++)
        if (c.tokens[t].type == DGC_TOKEN_VERTEX_BUFFER && c.tokens[t].vertex_binding_unit + 1 > max_unit)
            max_unit = c.tokens[t].vertex_binding_unit + 1;
    VkVertexInputBindingDescription vbind[MAX_VERTEX_BINDINGS]; /* max_unit <= MAX_VERTEX_BINDINGS: check_limits */
    if (max_unit > MAX_VERTEX_BINDINGS) die("vertexBindingUnit %u past the harness's %u bindings", max_unit - 1,
                                            MAX_VERTEX_BINDINGS);
    for (uint32_t i = 0; i < max_unit; i++) vbind[i] = (VkVertexInputBindingDescription){i, 16, VK_VERTEX_INPUT_RATE_VERTEX};
    for (uint32_t p = 0; p < nprog; p++) {
        uint32_t spec[4] = {p, c.push_constant_size / 4, c.seq_dword, record_dwords};
        VkSpecializationMapEntry me[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
        VkSpecializationInfo si = {4, me, sizeof spec, spec};
        VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                              c.compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_VERTEX_BIT,
                                              module, "main", &si};
        Maint5PipelineCreateFlags2 f2 = {MAINT5_STYPE_PIPELINE_CREATE_FLAGS_2, NULL,
                                         DGC_PIPELINE_CREATE_2_INDIRECT_BINDABLE};
        if (c.compute) {
            VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, &f2, 0, st, layout,
                                                VK_NULL_HANDLE, -1};
            CHECK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipes[p]));
        } else {
            VkPipelineRenderingCreateInfo prci = {VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, NULL, 0, 0, NULL,
                                                  VK_FORMAT_UNDEFINED, VK_FORMAT_UNDEFINED};
            f2.pNext = &prci;
            VkPipelineVertexInputStateCreateInfo vi = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                                       NULL, 0, max_unit, vbind, 0, NULL};
            VkPipelineInputAssemblyStateCreateInfo ia = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                         NULL, 0, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, VK_FALSE};
            VkPipelineRasterizationStateCreateInfo rs = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
            rs.rasterizerDiscardEnable = VK_TRUE;
            rs.lineWidth = 1.0f;
            VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE};
            VkPipelineDynamicStateCreateInfo ds = {VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, NULL, 0,
                                                   max_unit ? 1u : 0u, dyn};
            VkGraphicsPipelineCreateInfo gpci = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &f2, 0, 1, &st, &vi,
                                                 &ia, NULL, NULL, &rs, NULL, NULL, NULL, &ds, layout,
                                                 VK_NULL_HANDLE, 0, VK_NULL_HANDLE, -1};
            CHECK(vkCreateGraphicsPipelines(g.device, VK_NULL_HANDLE, 1, &gpci, NULL, &pipes[p]));
        }
    }

    /* the indirect-commands layout, from the case's tokens */
    DgcLayoutToken *tokens = calloc(c.token_count, sizeof *tokens);
    void **datas = calloc(c.token_count, sizeof *datas);
    int uses_set = 0;
    for (uint32_t t = 0; t < c.token_count; t++) {
        CaseToken *tk = &c.tokens[t];
        void *data = NULL;
        switch (tk->type) {
        case DGC_TOKEN_EXECUTION_SET: {
            DgcExecutionSetToken *d = calloc(1, sizeof *d);
            d->type = DGC_EXECUTION_SET_PIPELINES;
            d->shaderStages = stages;
            data = d;
            uses_set = 1;
            break;
        }
        case DGC_TOKEN_PUSH_CONSTANT:
        case DGC_TOKEN_SEQUENCE_INDEX: {
            DgcPushConstantToken *d = calloc(1, sizeof *d);
            d->updateRange = (VkPushConstantRange){stages, tk->push_offset, tk->push_size};
            data = d;
            break;
        }
        case DGC_TOKEN_VERTEX_BUFFER: {
            DgcVertexBufferToken *d = calloc(1, sizeof *d);
            d->vertexBindingUnit = tk->vertex_binding_unit;
            data = d;
            break;
        }
        case DGC_TOKEN_INDEX_BUFFER: {
            DgcIndexBufferToken *d = calloc(1, sizeof *d);
            d->mode = tk->index_mode;
            data = d;
            break;
        }
        default:
            break;
        }
        datas[t] = data;
        tokens[t] = (DgcLayoutToken){DGC_STYPE_LAYOUT_TOKEN, NULL, tk->type, data, tk->offset};
    }
    DgcLayoutCreateInfo lci = {DGC_STYPE_LAYOUT_CREATE_INFO, NULL, DGC_LAYOUT_USAGE_EXPLICIT_PREPROCESS, stages,
                               c.stride, layout, c.token_count, tokens};
    DgcIndirectCommandsLayout cmd_layout;
    CHECK(g.create_layout(g.device, &lci, NULL, &cmd_layout));
    DgcIndirectExecutionSet exec_set = NULL;
    if (uses_set) {
        DgcExecutionSetPipelineInfo epi = {DGC_STYPE_EXECUTION_SET_PIPELINE_INFO, NULL, pipes[0], nprog};
        DgcExecutionSetCreateInfo eci = {DGC_STYPE_EXECUTION_SET_CREATE_INFO, NULL, DGC_EXECUTION_SET_PIPELINES, &epi};
        CHECK(g.create_set(g.device, &eci, NULL, &exec_set));
        if (nprog > 1) {
            DgcWriteExecutionSetPipeline *wr = calloc(nprog - 1, sizeof *wr);
            for (uint32_t p = 1; p < nprog; p++)
                wr[p - 1] = (DgcWriteExecutionSetPipeline){DGC_STYPE_WRITE_EXECUTION_SET_PIPELINE, NULL, p, pipes[p]};
            g.update_set(g.device, exec_set, nprog - 1, wr);
        }
    }

    /* preprocess buffer */
    uint32_t max_sequences = c.count ? c.count : 1;
    DgcPipelineInfo pinfo = {DGC_STYPE_PIPELINE_INFO, NULL, pipes[0]};
    DgcMemoryRequirementsInfo mri = {DGC_STYPE_MEMORY_REQUIREMENTS_INFO, exec_set ? NULL : &pinfo, exec_set,
                                     cmd_layout, max_sequences, 0};
    VkMemoryRequirements2 req = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, NULL};
    g.get_reqs(g.device, &mri, &req);
    Buffer preprocess = make_buffer(&g, req.memoryRequirements.size, DGC_BUFFER_USAGE_2_PREPROCESS_BUFFER, DEVICE,
                                    req.memoryRequirements.memoryTypeBits);

    VkQueryPoolCreateInfo qpci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP, 3, 0};
    VkQueryPool queries;
    CHECK(vkCreateQueryPool(g.device, &qpci, NULL, &queries));
    double setup_s = now_s() - t0;

    Run r = {&g, &c, pipes, layout, set, exec_set, cmd_layout, &indirect, &preprocess, &records, queries, stages, bp};
    if (repeat < 1) repeat = 1;
    double *pre_ms = calloc(repeat, sizeof(double)), *exe_ms = calloc(repeat, sizeof(double));
    double *wall_ms = calloc(repeat, sizeof(double));
    for (int i = 0; i < repeat; i++) {
        double w0 = now_s();
        one_shot(&g, pool, record_run, &r);
        wall_ms[i] = (now_s() - w0) * 1e3;
        uint64_t ts[3];
        CHECK(vkGetQueryPoolResults(g.device, queries, 0, 3, sizeof ts, ts, 8,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        pre_ms[i] = (ts[1] - ts[0]) * g.timestamp_ns * 1e-6;
        exe_ms[i] = (ts[2] - ts[1]) * g.timestamp_ns * 1e-6;
    }
    Copy back = {records.buffer, readback.buffer, rec_bytes};
    one_shot(&g, pool, record_copy, &back);
    FILE *f = fopen(records_path, "wb");
    if (!f) die("cannot write %s", records_path);
    fwrite(readback.mapped, 1, rec_bytes, f);
    fclose(f);

    double tot[64];
    int nrep = repeat < 64 ? repeat : 64;
    for (int i = 0; i < nrep; i++) tot[i] = pre_ms[i] + exe_ms[i];
    qsort(pre_ms, repeat, sizeof(double), cmp_double);
    qsort(exe_ms, repeat, sizeof(double), cmp_double);
    qsort(tot, nrep, sizeof(double), cmp_double);
    qsort(wall_ms, repeat, sizeof(double), cmp_double);
    f = fopen(summary_path, "w");
    if (!f) die("cannot write %s", summary_path);
    fprintf(f,
            "{\"case\": \"%s\", \"device\": \"%s\", \"driver\": %u, \"sequences\": %u, \"stride\": %u, \"tokens\": %u, "
            "\"programs\": %u, \"compute\": %u, \"record_dwords\": %u, \"relocated_tokens\": %u, "
            "\"maxIndirectSequenceCount\": %u, \"preprocess_bytes\": %" PRIu64 ", \"repeat\": %d, "
            "\"setup_s\": %.4f, \"preprocess_ms_min\": %.4f, \"preprocess_ms_median\": %.4f, "
            "\"execute_ms_min\": %.4f, \"execute_ms_median\": %.4f, \"total_ms_min\": %.4f, "
            "\"total_ms_median\": %.4f, \"submit_wall_ms_min\": %.4f}\n",
            case_name(case_path), g.props.deviceName, g.props.driverVersion, c.count, c.stride, c.token_count, nprog, c.compute,
            record_dwords, relocated, g.dgc_props.maxIndirectSequenceCount, (uint64_t)preprocess.size, repeat, setup_s,
            pre_ms[0], pre_ms[repeat / 2], exe_ms[0], exe_ms[repeat / 2], tot[0], tot[nrep / 2], wall_ms[0]);
    fclose(f);
    printf("ok %s: %u sequences, preprocess %.3f ms, execute %.3f ms (min of %d)\n", case_path, c.count, pre_ms[0],
           exe_ms[0], repeat);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* the GPU walker                                                                                                */

typedef struct {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSet set;
    Buffer *out, *scratch;
    VkQueryPool queries;
    uint32_t primaries;
} Walk;

static void record_walk(VkCommandBuffer cb, void *ctx) {
    Walk *w = ctx;
    vkCmdResetQueryPool(cb, w->queries, 0, 2);
    vkCmdFillBuffer(cb, w->out->buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cb, w->scratch->buffer, 0, VK_WHOLE_SIZE, 0);
    VkMemoryBarrier fill = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &fill, 0,
                         NULL, 0, NULL);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w->pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w->layout, 0, 1, &w->set, 0, NULL);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, w->queries, 0);
    uint32_t pass = 0;
    vkCmdPushConstants(cb, w->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &pass);
    vkCmdDispatch(cb, 1, 1, 1);
    VkMemoryBarrier mid = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mid,
                         0, NULL, 0, NULL);
    pass = 1;
    vkCmdPushConstants(cb, w->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &pass);
    if (w->primaries) vkCmdDispatch(cb, w->primaries, 1, 1);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, w->queries, 1);
}

static void run_walk(const char *plan_path, const char *case_path, const char *out_case, const char *summary_path,
                     const char *spv, int repeat) {
    size_t plan_n, case_n;
    uint8_t *plan = read_file(plan_path, &plan_n);
    uint8_t *case_bytes = read_file(case_path, &case_n);
    Case c = read_case(case_path);
    const uint32_t *h = (const uint32_t *)plan;
    if (plan_n < 128 || h[0] != 0x314B4C57u || h[1] != 1) die("%s: not a d3d12wl walker plan", plan_path);
    uint32_t primaries = h[2], out_stride = h[17], count = h[18];
    if (out_stride != c.stride || count != c.count) die("plan and case disagree: stride %u/%u, count %u/%u",
                                                      out_stride, c.stride, count, c.count);
    Gpu g;
    gpu_instance(&g);
    gpu_device(&g);
    if (primaries > g.props.limits.maxComputeWorkGroupCount[0])
        die("limit maxComputeWorkGroupCount[0] %u < the walker's %u workgroups (one per primary record)",
            g.props.limits.maxComputeWorkGroupCount[0], primaries);
    VkDeviceSize seq_bytes = (VkDeviceSize)c.stride * c.count;
    Buffer staging = make_buffer(&g, plan_n, USAGE_TRANSFER_SRC, HOST, 0);
    Buffer planb = make_buffer(&g, plan_n, USAGE_STORAGE | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer out = make_buffer(&g, seq_bytes, USAGE_STORAGE | USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer scratch = make_buffer(&g, 4 * ((VkDeviceSize)primaries + 2), USAGE_STORAGE | USAGE_TRANSFER_SRC |
                                 USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer back = make_buffer(&g, seq_bytes, USAGE_TRANSFER_DST, HOST, 0);
    Buffer back_scratch = make_buffer(&g, scratch.size, USAGE_TRANSFER_DST, HOST, 0);
    memcpy(staging.mapped, plan, plan_n);
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g.queue_family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(g.device, &cpi, NULL, &pool));
    Copy up = {staging.buffer, planb.buffer, plan_n};
    one_shot(&g, pool, record_copy, &up);

    VkDescriptorSetLayoutBinding b[3];
    for (uint32_t i = 0; i < 3; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 3, b};
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(g.device, &dslci, NULL, &dsl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &ps};
    VkDescriptorPool dpool;
    CHECK(vkCreateDescriptorPool(g.device, &dpci, NULL, &dpool));
    VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, dpool, 1, &dsl};
    VkDescriptorSet set;
    CHECK(vkAllocateDescriptorSets(g.device, &dsai, &set));
    VkDescriptorBufferInfo dbi[3] = {{planb.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE},
                                     {scratch.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet wr[3];
    for (uint32_t i = 0; i < 3; i++)
        wr[i] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, i, 0, 1,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &dbi[i], NULL};
    vkUpdateDescriptorSets(g.device, 3, wr, 0, NULL);
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pcr};
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(g.device, &plci, NULL, &layout));
    VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                          VK_SHADER_STAGE_COMPUTE_BIT, load_shader(&g, spv, "walk.comp.spv"), "main",
                                          NULL};
    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0, st, layout,
                                        VK_NULL_HANDLE, -1};
    VkPipeline pipeline;
    CHECK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline));
    VkQueryPoolCreateInfo qpci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP, 2, 0};
    VkQueryPool queries;
    CHECK(vkCreateQueryPool(g.device, &qpci, NULL, &queries));

    Walk w = {pipeline, layout, set, &out, &scratch, queries, primaries};
    if (repeat < 1) repeat = 1;
    double *ms = calloc(repeat, sizeof(double));
    for (int i = 0; i < repeat; i++) {
        one_shot(&g, pool, record_walk, &w);
        uint64_t ts[2];
        CHECK(vkGetQueryPoolResults(g.device, queries, 0, 2, sizeof ts, ts, 8,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        ms[i] = (ts[1] - ts[0]) * g.timestamp_ns * 1e-6;
    }
    qsort(ms, repeat, sizeof(double), cmp_double);
    Copy down = {out.buffer, back.buffer, seq_bytes}, down2 = {scratch.buffer, back_scratch.buffer, scratch.size};
    if (seq_bytes) one_shot(&g, pool, record_copy, &down);
    one_shot(&g, pool, record_copy, &down2);
    const uint32_t *sc = back_scratch.mapped;
    uint32_t mismatched = 0, first_bad = UINT32_MAX;
    for (uint32_t s = 0; s < c.count; s++)
        if (memcmp((uint8_t *)back.mapped + (size_t)s * c.stride, c.sequences + (size_t)s * c.stride, c.stride)) {
            if (first_bad == UINT32_MAX) first_bad = s;
            mismatched++;
        }
    size_t seq_off = HEADER_DWORDS * 4 + c.token_count * sizeof(CaseToken) + c.push_constant_size;
    if (seq_off + seq_bytes != case_n) die("%s: %zu bytes, expected %zu", case_path, case_n, seq_off + seq_bytes);
    FILE *f = fopen(out_case, "wb");
    if (!f) die("cannot write %s", out_case);
    fwrite(case_bytes, 1, seq_off, f);
    fwrite(back.mapped, 1, seq_bytes, f);
    fclose(f);
    f = fopen(summary_path, "w");
    if (!f) die("cannot write %s", summary_path);
    fprintf(f,
            "{\"walk\": \"%s\", \"primary_records\": %u, \"sequences\": %u, \"gpu_total_sequences\": %u, "
            "\"error_bits\": %u, \"mismatched_sequences\": %u, \"first_mismatch\": %d, \"repeat\": %d, "
            "\"walk_ms_min\": %.4f, \"walk_ms_median\": %.4f}\n",
            case_name(plan_path), primaries, c.count, sc[1 + primaries], sc[0], mismatched,
            first_bad == UINT32_MAX ? -1 : (int)first_bad, repeat, ms[0], ms[repeat / 2]);
    fclose(f);
    printf("walk %s: %u sequences, %u mismatched, error bits %u, %.3f ms (min of %d)\n", plan_path, c.count,
           mismatched, sc[0], ms[0], repeat);
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--probe")) {
        probe();
        return 0;
    }
    if (argc >= 7 && !strcmp(argv[1], "--walk")) {
        run_walk(argv[2], argv[3], argv[4], argv[5], argv[6], argc > 7 ? atoi(argv[7]) : 1);
        return 0;
    }
    if (argc < 5)
        die("usage: %s --probe | CASE.bin RECORDS.bin SUMMARY.json SPV_DIR [REPEAT] | --walk PLAN.bin CASE.bin "
            "WALKED_CASE.bin SUMMARY.json SPV_DIR [REPEAT]", argv[0]);
    run_case(argv[1], argv[2], argv[3], argv[4], argc > 5 ? atoi(argv[5]) : 1);
    return 0;
}
