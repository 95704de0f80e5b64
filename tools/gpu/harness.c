/* d3d12wl GPU harness: run one lowered call (d3d12wl.vulkan) through VK_EXT_device_generated_commands and record
 * what every sequence's shader received.
 *
 *   dgc_harness --probe
 *   dgc_harness --check CASE.bin
 *   dgc_harness CASE.bin RECORDS.bin SUMMARY.json SPV_DIR [REPEAT]
 *   dgc_harness --walk PLAN.bin CASE.bin LAYOUT WALKED_CASE.bin SUMMARY.json SPV_DIR [REPEAT]
 *
 * CASE.bin is written by d3d12wl.vulkan.case (the file's layout is documented there): one or more indirect-commands
 * layouts with their sequences, the executes they run as, the command list's vertex and index buffers, and the
 * regions of memory the draws' vertex and index buffer views read (captured bytes, or stand-ins the harness makes).
 * Before anything is created on the GPU the harness checks the case against the device's limits and checks every
 * address it will hand the GPU: each vertex and index buffer view (every sequence's and the command list's) must lie
 * inside one uploaded region, each draw's index reads inside its index buffer view, and each fetched vertex inside
 * its vertex buffer view; the first that does not exits 2 naming it.  --check does only that, with no GPU.
 *
 * Per layout: one pipeline per program of its execution set (specialization constant 0 = the program's index in the
 * case), a vertex shader (rasterizer discard, no attachments; it fetches the case's fetched vertex buffer slots), a
 * compute shader or a mesh shader, all in one indirect execution set; a sequence buffer in device-local memory; one
 * preprocess buffer sized for the layout's largest execute and reused by each of its executes.  Every execute:
 * state bound (pipeline, push constants with the execute's first record in DWORD 63, the command list's index and
 * vertex buffers), vkCmdPreprocessGeneratedCommandsEXT, a barrier, vkCmdExecuteGeneratedCommandsEXT, a barrier;
 * timestamps around the preprocess and the execute (summed over the executes; best and median of REPEAT runs).
 *
 * --walk runs the GPU walker (tools/gpu/walk.comp; d3d12wl/vulkan/walker.py documents PLAN.bin) that generates
 * layout LAYOUT's sequences from the captured record bytes, compares them byte for byte with CASE.bin's
 * CPU-generated ones, and writes WALKED_CASE.bin: CASE.bin with the GPU-generated sequences.
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

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die("out of host memory (%zu x %zu bytes)", n, size);
    return p;
}

/* the case file: d3d12wl/vulkan/case.py (HEADER_FIELDS, LAYOUT_FIELDS and the table widths) */
#define HEADER_DWORDS 32
#define PC_BLOCK_BYTES 256 /* the shaders' push-constant block: 64 dwords; dword 63 = the execute's first record */
#define SEQUENCE_BASE_DWORD 63
#define RECORD_HEADER 16
#define ATTRIBUTE_BYTES 4
#define MAX_VERTEX_BINDINGS 32 /* D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT */
enum { H_MAGIC, H_VERSION, H_LAYOUTS, H_EXECUTES, H_REGIONS, H_PROGRAMS, H_RECORD_DWORDS, H_RECORDS, H_VBS, H_IB,
       H_VBV_SIZE, H_VBV_STRIDE, H_IBV_SIZE, H_IBV_FORMAT, H_R16, H_R32, H_FETCH_MASK, H_TOKENS, H_SET_ENTRIES,
       H_ROBUST };
enum { KIND_VERTEX, KIND_COMPUTE, KIND_MESH };
enum { REGION_CAPTURED, REGION_IDENTITY, REGION_ZEROS };

typedef struct {
    uint32_t type, offset, size, push_offset, push_size, vertex_binding_unit, index_mode, reserved;
} CaseToken;
typedef struct {
    uint32_t kind, set_size, stride, token_first, token_count, pc_size, seq_dword, count, set_first, pc_offset, seq_lo,
        seq_hi, record_base, reserved[3];
} CaseLayout;
typedef struct {
    uint32_t layout, first, count, record_base;
} CaseExecute;
typedef struct {
    uint32_t slot, loc_lo, loc_hi, size, stride_or_format, reserved[3];
} CaseView;
typedef struct {
    uint32_t base_lo, base_hi, size_lo, size_hi, off_lo, off_hi, kind, reserved;
} CaseRegionRow;

typedef struct {
    uint64_t base, size;
    int kind;
    uint8_t *bytes; /* host copy: the captured bytes, or the stand-in made here */
} HostRegion;

typedef struct {
    const uint32_t *h;
    CaseLayout *layouts;
    CaseToken *tokens;
    uint32_t *set;
    CaseExecute *execs;
    CaseView *views; /* inherited vertex buffers, then the inherited index buffer */
    CaseRegionRow *region_rows;
    uint8_t *pcs, *seqs, *data;
    uint8_t *file;
    size_t size;
    HostRegion *regions;
} Case;

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) die("cannot size %s", path);
    uint8_t *buf = xcalloc((size_t)n + 1, 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("short read %s", path);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static uint64_t u64_of(uint32_t lo, uint32_t hi) { return (uint64_t)lo | (uint64_t)hi << 32; }

static uint8_t *layout_sequences(const Case *c, uint32_t l) {
    return c->seqs + u64_of(c->layouts[l].seq_lo, c->layouts[l].seq_hi);
}

static Case read_case(const char *path) {
    Case c;
    memset(&c, 0, sizeof c);
    c.file = read_file(path, &c.size);
    if (c.size < HEADER_DWORDS * 4) die("%s: %zu bytes, shorter than a case header", path, c.size);
    const uint32_t *h = (const uint32_t *)c.file;
    c.h = h;
    if (h[H_MAGIC] != 0x31434744u /* 'DGC1' */ || h[H_VERSION] != 4) die("%s: not a d3d12wl DGC case (version 4)", path);
    uint64_t off = HEADER_DWORDS * 4;
#define TABLE(field, type, n)                                                                              \
    do {                                                                                                   \
        if (off + (uint64_t)(n) * sizeof(type) > c.size) die("%s: the %s table runs past the file", path, #field); \
        c.field = (type *)(c.file + off);                                                                  \
        off += (uint64_t)(n) * sizeof(type);                                                               \
    } while (0)
    TABLE(layouts, CaseLayout, h[H_LAYOUTS]);
    TABLE(tokens, CaseToken, h[H_TOKENS]);
    TABLE(set, uint32_t, h[H_SET_ENTRIES]);
    TABLE(execs, CaseExecute, h[H_EXECUTES]);
    TABLE(views, CaseView, h[H_VBS] + h[H_IB]);
    TABLE(region_rows, CaseRegionRow, h[H_REGIONS]);
#undef TABLE
    uint64_t pcs = 0, seqs = 0, records = 0;
    for (uint32_t l = 0; l < h[H_LAYOUTS]; l++) {
        CaseLayout *L = &c.layouts[l];
        if ((uint64_t)L->token_first + L->token_count > h[H_TOKENS] || (uint64_t)L->set_first + L->set_size > h[H_SET_ENTRIES])
            die("%s: layout %u's tokens or execution set run past their tables", path, l);
        if (L->pc_offset != pcs || u64_of(L->seq_lo, L->seq_hi) != seqs || L->record_base != records)
            die("%s: layout %u is not where the layouts before it end", path, l);
        if (L->pc_size > PC_BLOCK_BYTES - 4 || L->pc_size % 4 || L->seq_dword * 4 + 4 > L->pc_size)
            die("%s: layout %u: a push-constant block of %u bytes (sequence DWORD %u): the shaders take %u", path, l,
                L->pc_size, L->seq_dword, PC_BLOCK_BYTES - 4);
        if (L->kind > KIND_MESH) die("%s: layout %u: unknown kind %u", path, l, L->kind);
        for (uint32_t s = 0; s < L->set_size; s++)
            if (c.set[L->set_first + s] >= (h[H_PROGRAMS] ? h[H_PROGRAMS] : 1))
                die("%s: layout %u: execution-set entry %u names program %u of %u", path, l, s,
                    c.set[L->set_first + s], h[H_PROGRAMS]);
        pcs += L->pc_size;
        seqs += (uint64_t)L->count * L->stride;
        records += L->count;
    }
    if (records != h[H_RECORDS]) die("%s: %" PRIu64 " sequences, the header says %u records", path, records, h[H_RECORDS]);
    if (h[H_RECORD_DWORDS] < RECORD_HEADER || h[H_RECORD_DWORDS] > RECORD_HEADER + SEQUENCE_BASE_DWORD)
        die("%s: %u record DWORDs", path, h[H_RECORD_DWORDS]);
    if (off + pcs + seqs > c.size) die("%s: the sequences run past the file", path);
    c.pcs = c.file + off;
    c.seqs = c.pcs + pcs;
    c.data = c.seqs + seqs;
    uint64_t data_size = c.size - (off + pcs + seqs), end = 0;
    c.regions = xcalloc(h[H_REGIONS], sizeof *c.regions);
    for (uint32_t r = 0; r < h[H_REGIONS]; r++) {
        CaseRegionRow *R = &c.region_rows[r];
        HostRegion *g = &c.regions[r];
        g->base = u64_of(R->base_lo, R->base_hi);
        g->size = u64_of(R->size_lo, R->size_hi);
        g->kind = (int)R->kind;
        if (g->size == 0 || g->base + g->size < g->base) die("%s: region %u is empty or wraps", path, r);
        if (r && g->base < c.regions[r - 1].base + c.regions[r - 1].size)
            die("%s: region %u overlaps the one before it (regions are sorted and disjoint)", path, r);
        if (g->kind == REGION_CAPTURED) {
            uint64_t at = u64_of(R->off_lo, R->off_hi);
            if (at + g->size > data_size) die("%s: region %u's bytes run past the file", path, r);
            g->bytes = c.data + at;
            uint64_t e = at + g->size + ((4 - g->size % 4) % 4);
            if (e > end) end = e;
        } else if (g->kind == REGION_IDENTITY || g->kind == REGION_ZEROS) {
            g->bytes = xcalloc(g->size + 4, 1);
            if (g->kind == REGION_IDENTITY)
                for (uint64_t m = 0; m * 4 < g->size; m++) {
                    uint32_t v = (uint32_t)m;
                    memcpy(g->bytes + m * 4, &v, 4);
                }
        } else {
            die("%s: region %u: unknown kind %d", path, r, g->kind);
        }
    }
    if (end != data_size) die("%s: %zu bytes, expected %" PRIu64, path, c.size, off + pcs + seqs + end);
    for (uint32_t e = 0; e < h[H_EXECUTES]; e++) {
        CaseExecute *E = &c.execs[e];
        if (E->layout >= h[H_LAYOUTS] || (uint64_t)E->first + E->count > c.layouts[E->layout].count ||
            E->record_base != c.layouts[E->layout].record_base + E->first || E->count == 0)
            die("%s: execute %u does not lie in its layout's sequences", path, e);
    }
    return c;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* What the GPU will be handed: every view inside an uploaded region, every read inside its view                 */

static int find_region(const Case *c, uint64_t va, uint64_t size) {
    uint32_t lo = 0, hi = c->h[H_REGIONS];
    while (lo < hi) { /* the last region whose base <= va */
        uint32_t mid = (lo + hi) / 2;
        if (c->regions[mid].base <= va) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    const HostRegion *g = &c->regions[lo - 1];
    if (va + size < va || va + size > g->base + g->size) return -1;
    return (int)lo - 1;
}

typedef struct {
    uint64_t loc, size, stride_or_format;
    int set;
} View;

static int layout_has_token(const Case *c, uint32_t l, uint32_t type, uint32_t unit, const CaseToken **out) {
    const CaseLayout *L = &c->layouts[l];
    for (uint32_t t = 0; t < L->token_count; t++) {
        const CaseToken *tk = &c->tokens[L->token_first + t];
        if (tk->type == type && (type != DGC_TOKEN_VERTEX_BUFFER || tk->vertex_binding_unit == unit)) {
            if (out) *out = tk;
            return 1;
        }
    }
    return 0;
}

static const CaseToken *action_token(const Case *c, uint32_t l) {
    const CaseLayout *L = &c->layouts[l];
    for (uint32_t t = 0; t < L->token_count; t++) {
        const CaseToken *tk = &c->tokens[L->token_first + t];
        if (tk->type == DGC_TOKEN_DRAW || tk->type == DGC_TOKEN_DRAW_INDEXED || tk->type == DGC_TOKEN_DISPATCH ||
            tk->type == DGC_TOKEN_DRAW_MESH_TASKS)
            return tk;
    }
    die("case: layout %u has no action token", l);
    return NULL;
}

/* the vertex buffer slots a vertex layout binds: its VERTEX_BUFFER tokens' units and the command list's others */
static uint32_t bound_slots(const Case *c, uint32_t l) {
    if (c->layouts[l].kind != KIND_VERTEX) return 0;
    uint32_t mask = 0;
    const CaseLayout *L = &c->layouts[l];
    for (uint32_t t = 0; t < L->token_count; t++) {
        const CaseToken *tk = &c->tokens[L->token_first + t];
        if (tk->type == DGC_TOKEN_VERTEX_BUFFER) {
            if (tk->vertex_binding_unit >= MAX_VERTEX_BINDINGS)
                die("case: layout %u binds vertex buffer slot %u (D3D12 has %u)", l, tk->vertex_binding_unit,
                    MAX_VERTEX_BINDINGS);
            mask |= 1u << tk->vertex_binding_unit;
        }
    }
    for (uint32_t v = 0; v < c->h[H_VBS]; v++) {
        if (c->views[v].slot >= MAX_VERTEX_BINDINGS) die("case: an inherited vertex buffer in slot %u", c->views[v].slot);
        mask |= 1u << c->views[v].slot;
    }
    return mask;
}

static int binds_inherited_ib(const Case *c, uint32_t l) {
    return c->h[H_IB] && c->layouts[l].kind == KIND_VERTEX && action_token(c, l)->type == DGC_TOKEN_DRAW_INDEXED &&
           !layout_has_token(c, l, DGC_TOKEN_INDEX_BUFFER, 0, NULL);
}

static View view_of(const Case *c, uint32_t l, uint32_t s, int index_buffer, uint32_t slot) {
    View v = {0, 0, 0, 0};
    const CaseToken *tk = NULL;
    if (layout_has_token(c, l, index_buffer ? DGC_TOKEN_INDEX_BUFFER : DGC_TOKEN_VERTEX_BUFFER, slot, &tk)) {
        const uint8_t *p = layout_sequences(c, l) + (size_t)s * c->layouts[l].stride + tk->offset;
        uint32_t size, third;
        memcpy(&v.loc, p, 8);
        memcpy(&size, p + (index_buffer ? c->h[H_IBV_SIZE] : c->h[H_VBV_SIZE]), 4);
        memcpy(&third, p + (index_buffer ? c->h[H_IBV_FORMAT] : c->h[H_VBV_STRIDE]), 4);
        v.size = size;
        v.stride_or_format = third;
        v.set = 1;
        return v;
    }
    if (index_buffer) {
        if (binds_inherited_ib(c, l)) {
            const CaseView *w = &c->views[c->h[H_VBS]];
            v = (View){u64_of(w->loc_lo, w->loc_hi), w->size, w->stride_or_format, 1};
        }
        return v;
    }
    for (uint32_t k = 0; k < c->h[H_VBS]; k++)
        if (c->views[k].slot == slot) {
            const CaseView *w = &c->views[k];
            v = (View){u64_of(w->loc_lo, w->loc_hi), w->size, w->stride_or_format, 1};
        }
    return v;
}

static uint32_t index_size(const Case *c, uint64_t format) {
    return format == c->h[H_R16] ? 2 : format == c->h[H_R32] ? 4 : 0;
}

static uint32_t read_index(const Case *c, uint64_t va, uint32_t esize) {
    int r = find_region(c, va, esize);
    if (r < 0) die("an index read at 0x%" PRIx64 " outside every uploaded region", va);
    const uint8_t *p = c->regions[r].bytes + (va - c->regions[r].base);
    if (esize == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void check_view(const Case *c, uint32_t l, uint32_t s, int index_buffer, uint32_t slot, const View *v) {
    if (v->loc == 0) return; /* a null view: bound as an empty range, whose reads return 0 (D3D11.3 8.20) */
    if (find_region(c, v->loc, v->size ? v->size : 1) < 0) {
        char what[64];
        if (index_buffer) snprintf(what, sizeof what, "the index buffer");
        else snprintf(what, sizeof what, "vertex buffer slot %u's", slot);
        die("layout %u sequence %u: %s view 0x%" PRIx64 " + %" PRIu64 " bytes is outside every uploaded region", l, s,
            what, v->loc, v->size);
    }
}

/* every address the GPU is handed, and every read through one, against the uploaded regions (exit 2 naming the
 * first that is not inside); returns the number of views checked */
static uint64_t check_addresses(const Case *c) {
    uint64_t checked = 0;
    uint32_t fetch = c->h[H_FETCH_MASK];
    for (uint32_t l = 0; l < c->h[H_LAYOUTS]; l++) {
        const CaseLayout *L = &c->layouts[l];
        if (L->kind != KIND_VERTEX) continue;
        uint32_t slots = bound_slots(c, l);
        const CaseToken *act = action_token(c, l);
        int indexed = act->type == DGC_TOKEN_DRAW_INDEXED;
        if (indexed && !layout_has_token(c, l, DGC_TOKEN_INDEX_BUFFER, 0, NULL) && !c->h[H_IB])
            die("layout %u: indexed draws with no index buffer (no token, none inherited)", l);
        for (uint32_t s = 0; s < L->count; s++) {
            const uint8_t *draw = layout_sequences(c, l) + (size_t)s * L->stride + act->offset;
            uint32_t a[5];
            memcpy(a, draw, indexed ? 20 : 16);
            uint32_t count = a[0], instances = a[1], first = a[2];
            int64_t base = indexed ? (int64_t)(int32_t)a[3] : (int64_t)a[2];
            View ib = {0, 0, 0, 0};
            uint32_t esize = 0;
            if (indexed) {
                ib = view_of(c, l, s, 1, 0);
                check_view(c, l, s, 1, 0, &ib);
                checked++;
                esize = index_size(c, ib.stride_or_format);
                if (count && instances && !ib.loc && !c->h[H_ROBUST])
                    die("layout %u sequence %u: the draw reads a null index buffer view in a case not marked robust", l,
                        s);
                if (count && instances && ib.loc) {
                    if (!esize) die("layout %u sequence %u: index buffer Format %" PRIu64 " is neither R16_UINT nor "
                                    "R32_UINT", l, s, ib.stride_or_format);
                    if (ib.loc % esize) die("layout %u sequence %u: index buffer 0x%" PRIx64 " not aligned to %u", l, s,
                                            ib.loc, esize);
                    /* past the view D3D12 reads index 0 (D3D11.3 8.19.2): the GPU does too under robustBufferAccess2 */
                    if (((uint64_t)first + count) * esize > ib.size && !c->h[H_ROBUST])
                        die("layout %u sequence %u: indices %u..%u read past the index buffer view's %" PRIu64 " bytes", l,
                            s, first, first + count - 1, ib.size);
                }
            }
            for (uint32_t slot = 0; slot < MAX_VERTEX_BINDINGS; slot++) {
                if (!(slots >> slot & 1)) continue;
                View vb = view_of(c, l, s, 0, slot);
                check_view(c, l, s, 0, slot, &vb);
                checked++;
                if (!(fetch >> slot & 1) || !count || !instances) continue;
                if (!vb.loc) {
                    if (!c->h[H_ROBUST])
                        die("layout %u sequence %u: vertex buffer slot %u: a null view fetched in a case not marked "
                            "robust", l, s, slot);
                    continue;
                }
                if (vb.loc % 4 || vb.stride_or_format % 4 || vb.stride_or_format < ATTRIBUTE_BYTES)
                    die("layout %u sequence %u: vertex buffer slot %u is fetched but not 4-byte aligned", l, s, slot);
                /* a non-indexed draw's vertices are base .. base + count - 1: its last is the one to check; past the
                 * view a vertex reads 0 (D3D11.3 8.19.2), which the GPU does under robustBufferAccess2 */
                for (uint32_t i = indexed ? 0 : count - 1; i < count; i++) {
                    uint64_t at = ((uint64_t)first + i) * esize;
                    int64_t v = indexed ? (int64_t)(ib.loc && at + esize <= ib.size ? read_index(c, ib.loc + at, esize)
                                                                                     : 0) + base
                                        : base + i;
                    if (v < 0 || ((uint64_t)v * vb.stride_or_format + ATTRIBUTE_BYTES > vb.size && !c->h[H_ROBUST]))
                        die("layout %u sequence %u: vertex buffer slot %u: vertex %" PRId64 " is past the view's %" PRIu64
                            " bytes", l, s, slot, v, vb.size);
                }
            }
        }
    }
    return checked;
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
    VkPhysicalDeviceMeshShaderPropertiesEXT mesh_props;
    VkPhysicalDeviceMeshShaderFeaturesEXT mesh_features;
    int has_mesh;
    double timestamp_ns;
    PFN_dgcGetMemoryRequirements get_reqs;
    PFN_dgcCmdPreprocess preprocess;
    PFN_dgcCmdExecute execute;
    PFN_dgcCreateLayout create_layout;
    PFN_dgcCreateExecutionSet create_set;
    PFN_dgcUpdateExecutionSetPipeline update_set;
    PFN_maint5CmdBindIndexBuffer2 bind_index_buffer2;
} Gpu;

static int has_extension(VkPhysicalDevice phys, const char *name, uint32_t *version) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL);
    VkExtensionProperties *e = xcalloc(n, sizeof *e);
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
    memset(g, 0, sizeof *g);
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "d3d12wl-dgc", 1, "d3d12wl", 1,
                             VK_MAKE_API_VERSION(0, 1, 3, 0)};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    CHECK(vkCreateInstance(&ici, NULL, &g->instance));
    uint32_t n = 8;
    VkPhysicalDevice devs[8];
    CHECK(vkEnumeratePhysicalDevices(g->instance, &n, devs));
    if (n == 0) die("no Vulkan physical device");
    g->phys = devs[0];
    vkGetPhysicalDeviceProperties(g->phys, &g->props);
    vkGetPhysicalDeviceMemoryProperties(g->phys, &g->mem);
    g->has_mesh = has_extension(g->phys, VK_EXT_MESH_SHADER_EXTENSION_NAME, NULL);
    g->dgc_props.sType = DGC_STYPE_PROPERTIES;
    g->mesh_props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_PROPERTIES_EXT;
    if (g->has_mesh) g->dgc_props.pNext = &g->mesh_props;
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &g->dgc_props};
    vkGetPhysicalDeviceProperties2(g->phys, &p2);
    g->dgc_features.sType = DGC_STYPE_FEATURES;
    g->mesh_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT;
    if (g->has_mesh) g->dgc_features.pNext = &g->mesh_features;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &g->dgc_features};
    vkGetPhysicalDeviceFeatures2(g->phys, &f2);
    g->has_mesh = g->has_mesh && g->mesh_features.meshShader;
    g->timestamp_ns = g->props.limits.timestampPeriod;
}

static void probe(void) {
    Gpu g;
    gpu_instance(&g);
    uint32_t v_ext = 0, v_nv = 0, v_m5 = 0;
    int ext = has_extension(g.phys, DGC_EXT_NAME, &v_ext);
    int nv = has_extension(g.phys, "VK_NV_device_generated_commands", &v_nv);
    int m5 = has_extension(g.phys, MAINT5_EXT_NAME, &v_m5);
    printf("{\"device\": \"%s\", \"api\": \"%u.%u.%u\", \"driver\": %u, \"vendor\": %u,\n", g.props.deviceName,
           VK_API_VERSION_MAJOR(g.props.apiVersion), VK_API_VERSION_MINOR(g.props.apiVersion),
           VK_API_VERSION_PATCH(g.props.apiVersion), g.props.driverVersion, g.props.vendorID);
    printf(" \"VK_EXT_device_generated_commands\": %d, \"ext_version\": %u, \"VK_NV_device_generated_commands\": %d, "
           "\"nv_version\": %u, \"VK_KHR_maintenance5\": %d, \"VK_EXT_mesh_shader\": %d,\n", ext, v_ext, nv, v_nv, m5,
           g.has_mesh);
    printf(" \"deviceGeneratedCommands\": %u, \"dynamicGeneratedPipelineLayout\": %u,\n",
           g.dgc_features.deviceGeneratedCommands, g.dgc_features.dynamicGeneratedPipelineLayout);
    DgcProperties *p = &g.dgc_props;
    printf(" \"maxIndirectPipelineCount\": %u, \"maxIndirectSequenceCount\": %u, \"maxIndirectCommandsTokenCount\": %u,"
           " \"maxIndirectCommandsTokenOffset\": %u, \"maxIndirectCommandsIndirectStride\": %u,"
           " \"supportedIndirectCommandsInputModes\": %u, \"supportedIndirectCommandsShaderStages\": %u,"
           " \"supportedIndirectCommandsShaderStagesPipelineBinding\": %u,"
           " \"maxPushConstantsSize\": %u, \"maxVertexInputBindingStride\": %u, \"maxMeshWorkGroupTotalCount\": %u,"
           " \"timestampPeriod\": %f}\n",
           p->maxIndirectPipelineCount, p->maxIndirectSequenceCount, p->maxIndirectCommandsTokenCount,
           p->maxIndirectCommandsTokenOffset, p->maxIndirectCommandsIndirectStride,
           p->supportedIndirectCommandsInputModes, p->supportedIndirectCommandsShaderStages,
           p->supportedIndirectCommandsShaderStagesPipelineBinding, g.props.limits.maxPushConstantsSize,
           g.props.limits.maxVertexInputBindingStride, g.has_mesh ? g.mesh_props.maxMeshWorkGroupTotalCount : 0,
           g.props.limits.timestampPeriod);
}

/* robustBufferAccess2 (VK_EXT_robustness2): reads past a bound vertex or index range return 0, as D3D12's do past a
 * view (D3D11.3 8.19.2 "Addressing Bounds"; null views are bound as empty ranges, 8.20) */
static int has_robust_buffer_access2(VkPhysicalDevice phys) {
    if (!has_extension(phys, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME, NULL)) return 0;
    VkPhysicalDeviceRobustness2FeaturesEXT r2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &r2};
    vkGetPhysicalDeviceFeatures2(phys, &f2);
    return r2.robustBufferAccess2 && f2.features.robustBufferAccess;
}

static void gpu_device(Gpu *g, int mesh, int robust) {
    if (!has_extension(g->phys, DGC_EXT_NAME, NULL)) die("no %s", DGC_EXT_NAME);
    if (robust && !has_robust_buffer_access2(g->phys))
        die("the case reads past a vertex or index buffer view or through a null one (D3D12 reads 0 there: D3D11.3 "
            "8.19.2, 8.20), which needs %s robustBufferAccess2; the device has none", VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
    if (!g->dgc_features.deviceGeneratedCommands) die("deviceGeneratedCommands feature not supported");
    if (mesh && !g->has_mesh) die("the case has mesh layouts; the device has no %s meshShader",
                                  VK_EXT_MESH_SHADER_EXTENSION_NAME);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &nq, NULL);
    VkQueueFamilyProperties *q = xcalloc(nq, sizeof *q);
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

    VkPhysicalDeviceMeshShaderFeaturesEXT meshf = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
    meshf.meshShader = VK_TRUE;
    VkPhysicalDeviceRobustness2FeaturesEXT r2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT,
                                                  mesh ? &meshf : NULL};
    r2.robustBufferAccess2 = VK_TRUE;
    DgcFeatures dgc = {DGC_STYPE_FEATURES, robust ? (void *)&r2 : (mesh ? (void *)&meshf : NULL), VK_TRUE, VK_FALSE};
    Maint5Features m5 = {MAINT5_STYPE_FEATURES, &dgc, VK_TRUE};
    VkPhysicalDeviceVulkan13Features v13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &m5};
    v13.dynamicRendering = VK_TRUE;
    v13.synchronization2 = VK_TRUE;
    v13.maintenance4 = VK_TRUE; /* SPIR-V 1.6's LocalSizeId, which glslc may emit for the mesh shader */
    VkPhysicalDeviceVulkan12Features v12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &v13};
    v12.bufferDeviceAddress = VK_TRUE;
    VkPhysicalDeviceVulkan11Features v11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
    v11.shaderDrawParameters = VK_TRUE;
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
    f2.features.vertexPipelineStoresAndAtomics = VK_TRUE;
    f2.features.shaderInt64 = VK_TRUE; /* the walker's VA arithmetic */
    f2.features.robustBufferAccess = robust ? VK_TRUE : VK_FALSE; /* robustBufferAccess2 needs it */
    const char *exts[4] = {MAINT5_EXT_NAME, DGC_EXT_NAME};
    uint32_t next = 2;
    if (mesh) exts[next++] = VK_EXT_MESH_SHADER_EXTENSION_NAME;
    if (robust) exts[next++] = VK_EXT_ROBUSTNESS_2_EXTENSION_NAME;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2, 0, 1, &qci, 0, NULL, next, exts, NULL};
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
    LOAD(bind_index_buffer2, "vkCmdBindIndexBuffer2KHR");
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

static const char *base_name(const char *path) {
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
    VkDeviceSize size, dst_offset;
} Copy;

static void record_copy(VkCommandBuffer cb, void *ctx) {
    Copy *c = ctx;
    /* after what earlier submissions wrote (the records, the walker's output); before the host reads the copy */
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, NULL,
                         0, NULL);
    VkBufferCopy r = {0, c->dst_offset, c->size};
    vkCmdCopyBuffer(cb, c->src, c->dst, 1, &r);
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         0, 1, &after, 0, NULL, 0, NULL);
}

/* host bytes to a device buffer at ``offset``, through a staging buffer of at most STAGING bytes */
#define STAGING (64ull << 20)
static void upload(Gpu *g, VkCommandPool pool, Buffer *staging, const uint8_t *src, VkDeviceSize n, Buffer *dst,
                   VkDeviceSize offset) {
    for (VkDeviceSize at = 0; at < n; at += STAGING) {
        VkDeviceSize k = n - at < STAGING ? n - at : STAGING;
        memcpy(staging->mapped, src + at, k);
        Copy cp = {staging->buffer, dst->buffer, k, offset + at};
        one_shot(g, pool, record_copy, &cp);
    }
}

/* a region's buffer starts REGION_ALIGN - (base % REGION_ALIGN) bytes early, so every address in it keeps the
 * alignment its VA has (an index buffer at a multiple of 4 in the capture is at one on the GPU) */
#define REGION_ALIGN 256u
static VkDeviceSize region_pad(const HostRegion *r) { return r->base % REGION_ALIGN; }

/* ------------------------------------------------------------------------------------------------------------ */
/* Running a case                                                                                                */

typedef struct {
    uint32_t kind, set_size, bound, fetch;
    VkPipeline *pipes;
    DgcIndirectExecutionSet exec_set;
    DgcIndirectCommandsLayout cmd_layout;
    Buffer sequences, preprocess;
    VkShaderStageFlags stages;
    VkPipelineBindPoint bind_point;
    VkPipelineLayout pipeline_layout;
    int inherited_ib;
} LayoutRun;

typedef struct {
    Gpu *g;
    Case *c;
    LayoutRun *layouts;
    Buffer *regions, *records;
    VkDescriptorSet sets[3];
    VkQueryPool queries;
    uint32_t execute; /* the execute record_execute records */
    Buffer *null_view;
} Run;

static int region_index(const Case *c, uint64_t va, uint64_t size) {
    int r = find_region(c, va, size ? size : 1);
    if (r < 0) die("internal: 0x%" PRIx64 " left the regions after the check", va);
    return r;
}

/* the records zeroed before a run's first execute */
static void record_fill(VkCommandBuffer cb, void *ctx) {
    Run *r = ctx;
    vkCmdFillBuffer(cb, r->records->buffer, 0, VK_WHOLE_SIZE, 0);
}

/* one execute: its own submission (tools/gpu_check.py cuts the executes so that none runs longer than a bound) */
static void record_execute(VkCommandBuffer cb, void *ctx) {
    Run *r = ctx;
    Case *c = r->c;
    uint32_t e = r->execute;
    vkCmdResetQueryPool(cb, r->queries, 3 * e, 3);
    /* what the submissions before this one wrote (the records, the preprocess buffer this one reuses) is visible */
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                  DGC_ACCESS_COMMAND_PREPROCESS_WRITE,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                  DGC_ACCESS_COMMAND_PREPROCESS_READ | DGC_ACCESS_COMMAND_PREPROCESS_WRITE};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &before, 0,
                         NULL, 0, NULL);
    {
        const CaseExecute *E = &c->execs[e];
        const CaseLayout *L = &c->layouts[E->layout];
        LayoutRun *lr = &r->layouts[E->layout];
        /* the state the execute starts from (set again each time: an execute leaves the state its tokens touch
         * undefined) */
        vkCmdBindPipeline(cb, lr->bind_point, lr->pipes[0]);
        vkCmdBindDescriptorSets(cb, lr->bind_point, lr->pipeline_layout, 0, 1, &r->sets[lr->kind], 0, NULL);
        uint32_t pc[PC_BLOCK_BYTES / 4] = {0};
        memcpy(pc, c->pcs + L->pc_offset, L->pc_size);
        pc[SEQUENCE_BASE_DWORD] = E->record_base;
        vkCmdPushConstants(cb, lr->pipeline_layout, lr->stages, 0, PC_BLOCK_BYTES, pc);
        if (lr->inherited_ib) { /* bound with the view's size: past it an index reads 0, as in D3D12 */
            const CaseView *w = &c->views[c->h[H_VBS]];
            uint64_t loc = u64_of(w->loc_lo, w->loc_hi);
            VkIndexType type = w->stride_or_format == c->h[H_R16] ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;
            if (loc == 0) { /* a null view: an empty range */
                r->g->bind_index_buffer2(cb, r->null_view->buffer, 0, 0, type);
            } else {
                int ri = region_index(c, loc, w->size);
                r->g->bind_index_buffer2(cb, r->regions[ri].buffer, region_pad(&c->regions[ri]) + loc - c->regions[ri].base,
                                         w->size - w->size % (type == VK_INDEX_TYPE_UINT16 ? 2 : 4), type);
            }
        }
        for (uint32_t v = 0; v < c->h[H_VBS]; v++) {
            const CaseView *w = &c->views[v];
            if (L->kind != KIND_VERTEX || layout_has_token(c, E->layout, DGC_TOKEN_VERTEX_BUFFER, w->slot, NULL)) continue;
            uint64_t loc = u64_of(w->loc_lo, w->loc_hi);
            VkDeviceSize off = 0, size = 0, stride = w->stride_or_format;
            const VkBuffer *buffer = &r->null_view->buffer; /* a null view: an empty range */
            if (loc != 0) {
                int ri = region_index(c, loc, w->size);
                off = region_pad(&c->regions[ri]) + loc - c->regions[ri].base;
                size = w->size;
                buffer = &r->regions[ri].buffer;
            }
            vkCmdBindVertexBuffers2(cb, w->slot, 1, buffer, &off, &size, &stride);
        }
        DgcPipelineInfo pinfo = {DGC_STYPE_PIPELINE_INFO, NULL, lr->pipes[0]};
        DgcGeneratedCommandsInfo info = {DGC_STYPE_GENERATED_COMMANDS_INFO,
                                         lr->exec_set ? NULL : &pinfo,
                                         lr->stages,
                                         lr->exec_set,
                                         lr->cmd_layout,
                                         lr->sequences.address + (VkDeviceSize)E->first * L->stride,
                                         (VkDeviceSize)E->count * L->stride,
                                         lr->preprocess.address,
                                         lr->preprocess.size,
                                         E->count,
                                         0,
                                         0};
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->queries, 3 * e);
        r->g->preprocess(cb, &info, cb);
        VkMemoryBarrier pre = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, DGC_ACCESS_COMMAND_PREPROCESS_WRITE,
                               VK_ACCESS_INDIRECT_COMMAND_READ_BIT | DGC_ACCESS_COMMAND_PREPROCESS_READ};
        vkCmdPipelineBarrier(cb, DGC_STAGE_COMMAND_PREPROCESS, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &pre, 0, NULL,
                             0, NULL);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, r->queries, 3 * e + 1);
        VkRenderingInfo ri = {VK_STRUCTURE_TYPE_RENDERING_INFO, NULL, 0, {{0, 0}, {1, 1}}, 1, 0, 0, NULL, NULL, NULL};
        if (L->kind != KIND_COMPUTE) vkCmdBeginRendering(cb, &ri);
        r->g->execute(cb, VK_TRUE, &info);
        if (L->kind != KIND_COMPUTE) vkCmdEndRendering(cb);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, 3 * e + 2);
        /* the next execute of this layout preprocesses into the same buffer: after this one has read it */
        VkMemoryBarrier reuse = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                 VK_ACCESS_SHADER_WRITE_BIT | DGC_ACCESS_COMMAND_PREPROCESS_WRITE,
                                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                     DGC_ACCESS_COMMAND_PREPROCESS_READ | DGC_ACCESS_COMMAND_PREPROCESS_WRITE};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &reuse, 0,
                             NULL, 0, NULL);
    }
}

/* The device limits a case needs, checked before anything is created: a case past one exits 2 naming it. */
static void check_limits(const Gpu *g, const Case *c) {
    const DgcProperties *p = &g->dgc_props;
    const VkPhysicalDeviceLimits *l = &g->props.limits;
    if (l->maxPushConstantsSize < PC_BLOCK_BYTES)
        die("limit maxPushConstantsSize %u < the shaders' push-constant block of %u bytes", l->maxPushConstantsSize,
            PC_BLOCK_BYTES);
    uint64_t record_bytes = (uint64_t)c->h[H_RECORDS] * c->h[H_RECORD_DWORDS] * 4;
    if (record_bytes > l->maxStorageBufferRange)
        die("limit maxStorageBufferRange %u < the case's %" PRIu64 " bytes of records", l->maxStorageBufferRange,
            record_bytes);
    for (uint32_t e = 0; e < c->h[H_EXECUTES]; e++)
        if (c->execs[e].count > p->maxIndirectSequenceCount)
            die("limit maxIndirectSequenceCount %u < execute %u's %u sequences (lower with max_sequences)",
                p->maxIndirectSequenceCount, e, c->execs[e].count);
    for (uint32_t li = 0; li < c->h[H_LAYOUTS]; li++) {
        const CaseLayout *L = &c->layouts[li];
        VkShaderStageFlags stage = L->kind == KIND_COMPUTE ? VK_SHADER_STAGE_COMPUTE_BIT
                                   : L->kind == KIND_MESH  ? VK_SHADER_STAGE_MESH_BIT_EXT
                                                           : VK_SHADER_STAGE_VERTEX_BIT;
        if (!(p->supportedIndirectCommandsShaderStages & stage))
            die("limit supportedIndirectCommandsShaderStages 0x%x lacks layout %u's stage 0x%x",
                p->supportedIndirectCommandsShaderStages, li, stage);
        if (L->set_size && !(p->supportedIndirectCommandsShaderStagesPipelineBinding & stage))
            die("limit supportedIndirectCommandsShaderStagesPipelineBinding 0x%x lacks layout %u's stage 0x%x",
                p->supportedIndirectCommandsShaderStagesPipelineBinding, li, stage);
        if (L->set_size > p->maxIndirectPipelineCount)
            die("limit maxIndirectPipelineCount %u < layout %u's %u pipelines", p->maxIndirectPipelineCount, li,
                L->set_size);
        if (L->token_count > p->maxIndirectCommandsTokenCount)
            die("limit maxIndirectCommandsTokenCount %u < layout %u's %u tokens", p->maxIndirectCommandsTokenCount, li,
                L->token_count);
        if (L->stride > p->maxIndirectCommandsIndirectStride)
            die("limit maxIndirectCommandsIndirectStride %u < layout %u's stride %u",
                p->maxIndirectCommandsIndirectStride, li, L->stride);
        uint32_t bound = bound_slots(c, li);
        for (uint32_t s = 0; s < MAX_VERTEX_BINDINGS; s++)
            if (bound >> s & 1 && s >= l->maxVertexInputBindings)
                die("limit maxVertexInputBindings %u <= layout %u's vertex buffer slot %u", l->maxVertexInputBindings,
                    li, s);
        for (uint32_t t = 0; t < L->token_count; t++) {
            const CaseToken *tk = &c->tokens[L->token_first + t];
            if (tk->offset > p->maxIndirectCommandsTokenOffset)
                die("limit maxIndirectCommandsTokenOffset %u < layout %u token %u's offset %u",
                    p->maxIndirectCommandsTokenOffset, li, t, tk->offset);
            if ((uint64_t)tk->offset + tk->size > L->stride)
                die("case: layout %u token %u (offset %u, %u bytes) past the stride %u", li, t, tk->offset, tk->size,
                    L->stride);
            if (tk->type == DGC_TOKEN_INDEX_BUFFER && !(p->supportedIndirectCommandsInputModes & tk->index_mode))
                die("limit supportedIndirectCommandsInputModes 0x%x lacks layout %u token %u's index input mode 0x%x",
                    p->supportedIndirectCommandsInputModes, li, t, tk->index_mode);
            if (tk->type == DGC_TOKEN_VERTEX_BUFFER)
                for (uint32_t s = 0; s < L->count; s++) {
                    uint32_t stride;
                    memcpy(&stride, layout_sequences(c, li) + (size_t)s * L->stride + tk->offset + c->h[H_VBV_STRIDE], 4);
                    if (stride > l->maxVertexInputBindingStride)
                        die("limit maxVertexInputBindingStride %u < layout %u sequence %u's stride %u",
                            l->maxVertexInputBindingStride, li, s, stride);
                }
            if (tk->type == DGC_TOKEN_DISPATCH || tk->type == DGC_TOKEN_DRAW_MESH_TASKS)
                for (uint32_t s = 0; s < L->count; s++) {
                    uint32_t groups[3];
                    memcpy(groups, layout_sequences(c, li) + (size_t)s * L->stride + tk->offset, sizeof groups);
                    const uint32_t *cap = tk->type == DGC_TOKEN_DISPATCH ? l->maxComputeWorkGroupCount
                                                                         : g->mesh_props.maxMeshWorkGroupCount;
                    for (int k = 0; k < 3; k++)
                        if (groups[k] > cap[k])
                            die("limit %s[%d] %u < layout %u sequence %u's %u groups",
                                tk->type == DGC_TOKEN_DISPATCH ? "maxComputeWorkGroupCount" : "maxMeshWorkGroupCount",
                                k, cap[k], li, s, groups[k]);
                    if (tk->type == DGC_TOKEN_DRAW_MESH_TASKS &&
                        (uint64_t)groups[0] * groups[1] * groups[2] > g->mesh_props.maxMeshWorkGroupTotalCount)
                        die("limit maxMeshWorkGroupTotalCount %u < layout %u sequence %u's %" PRIu64 " groups",
                            g->mesh_props.maxMeshWorkGroupTotalCount, li, s,
                            (uint64_t)groups[0] * groups[1] * groups[2]);
                }
        }
    }
    for (uint32_t v = 0; v < c->h[H_VBS]; v++)
        if (c->views[v].stride_or_format > l->maxVertexInputBindingStride)
            die("limit maxVertexInputBindingStride %u < the inherited vertex buffer %u's stride %u",
                l->maxVertexInputBindingStride, c->views[v].slot, c->views[v].stride_or_format);
}

/* the DGC tokens' BufferLocation rewritten to the device address of the uploaded region holding the view */
/* a null view (BufferLocation 0) is bound as an empty range of this buffer: every read through it is past the range,
 * which returns 0 under robustBufferAccess2, as D3D12's reads through a null view do (D3D11.3 8.20) */
#define NULL_VIEW_BUFFER_BYTES 256u

static uint64_t relocate(Case *c, const Buffer *regions, const Buffer *null_view) {
    uint64_t relocated = 0;
    for (uint32_t li = 0; li < c->h[H_LAYOUTS]; li++) {
        const CaseLayout *L = &c->layouts[li];
        for (uint32_t t = 0; t < L->token_count; t++) {
            const CaseToken *tk = &c->tokens[L->token_first + t];
            if (tk->type != DGC_TOKEN_VERTEX_BUFFER && tk->type != DGC_TOKEN_INDEX_BUFFER) continue;
            uint32_t size_at = tk->type == DGC_TOKEN_VERTEX_BUFFER ? c->h[H_VBV_SIZE] : c->h[H_IBV_SIZE];
            if (size_at < 8 || size_at + 4 > tk->size) die("case: SizeInBytes offset %u outside a %u-byte view token",
                                                           size_at, tk->size);
            for (uint32_t s = 0; s < L->count; s++) {
                uint8_t *p = layout_sequences(c, li) + (size_t)s * L->stride + tk->offset;
                uint64_t loc;
                uint32_t size;
                memcpy(&loc, p, 8); /* BufferLocation: offset 0 of both views */
                memcpy(&size, p + size_at, 4);
                if (loc == 0) {
                    uint32_t empty = 0, r32 = c->h[H_R32];
                    memcpy(p, &null_view->address, 8);
                    memcpy(p + size_at, &empty, 4);
                    if (tk->type == DGC_TOKEN_INDEX_BUFFER) memcpy(p + c->h[H_IBV_FORMAT], &r32, 4); /* never read */
                    relocated++;
                    continue;
                }
                int ri = region_index(c, loc, size);
                uint64_t addr = regions[ri].address + region_pad(&c->regions[ri]) + (loc - c->regions[ri].base);
                memcpy(p, &addr, 8);
                relocated++;
            }
        }
    }
    return relocated;
}

static void run_case(const char *case_path, const char *records_path, const char *summary_path, const char *spv,
                     int repeat) {
    Case c = read_case(case_path);
    uint64_t views = check_addresses(&c);
    int mesh = 0;
    for (uint32_t li = 0; li < c.h[H_LAYOUTS]; li++) mesh |= c.layouts[li].kind == KIND_MESH;
    Gpu g;
    gpu_instance(&g);
    if (mesh && !g.has_mesh) die("the case has mesh layouts; the device has no %s meshShader",
                                 VK_EXT_MESH_SHADER_EXTENSION_NAME);
    check_limits(&g, &c);
    gpu_device(&g, mesh, (int)c.h[H_ROBUST]);
    double t0 = now_s();
    uint32_t record_dwords = c.h[H_RECORD_DWORDS], nl = c.h[H_LAYOUTS], ne = c.h[H_EXECUTES];
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g.queue_family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(g.device, &cpi, NULL, &pool));
    Buffer staging = make_buffer(&g, STAGING, USAGE_TRANSFER_SRC, HOST, 0);

    /* the regions, then the sequences (relocated) */
    Buffer *regions = xcalloc(c.h[H_REGIONS], sizeof *regions);
    for (uint32_t r = 0; r < c.h[H_REGIONS]; r++) {
        VkDeviceSize pad = region_pad(&c.regions[r]);
        regions[r] = make_buffer(&g, pad + c.regions[r].size, USAGE_VERTEX | USAGE_INDEX | USAGE_TRANSFER_DST, DEVICE, 0);
        upload(&g, pool, &staging, c.regions[r].bytes, c.regions[r].size, &regions[r], pad);
    }
    Buffer null_view = make_buffer(&g, NULL_VIEW_BUFFER_BYTES, USAGE_VERTEX | USAGE_INDEX | USAGE_TRANSFER_DST, DEVICE,
                                   0);
    uint64_t relocated = relocate(&c, regions, &null_view);
    VkDeviceSize rec_bytes = (VkDeviceSize)record_dwords * 4 * (c.h[H_RECORDS] ? c.h[H_RECORDS] : 1);
    Buffer records = make_buffer(&g, rec_bytes, USAGE_STORAGE | USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer readback = make_buffer(&g, rec_bytes, USAGE_TRANSFER_DST, HOST, 0);

    /* descriptor sets: the records buffer, one set per stage kind */
    VkShaderStageFlags kind_stage[3] = {VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_COMPUTE_BIT,
                                        VK_SHADER_STAGE_MESH_BIT_EXT};
    VkPipelineLayout playouts[3];
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 3, 1, &ps};
    VkDescriptorPool dpool;
    CHECK(vkCreateDescriptorPool(g.device, &dpci, NULL, &dpool));
    Run run = {&g, &c, NULL, regions, &records, {0}, VK_NULL_HANDLE, 0, &null_view};
    for (int k = 0; k < 3; k++) {
        int used = 0; /* a stage's set and layout only where a layout runs on it (mesh needs the feature) */
        for (uint32_t li = 0; li < nl; li++) used |= c.layouts[li].kind == (uint32_t)k;
        if (!used) continue;
        VkDescriptorSetLayoutBinding dslb = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, kind_stage[k], NULL};
        VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 1, &dslb};
        VkDescriptorSetLayout dsl;
        CHECK(vkCreateDescriptorSetLayout(g.device, &dslci, NULL, &dsl));
        VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, dpool, 1, &dsl};
        CHECK(vkAllocateDescriptorSets(g.device, &dsai, &run.sets[k]));
        VkDescriptorBufferInfo dbi = {records.buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, run.sets[k], 0, 0, 1,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &dbi, NULL};
        vkUpdateDescriptorSets(g.device, 1, &w, 0, NULL);
        VkPushConstantRange pcr = {kind_stage[k], 0, PC_BLOCK_BYTES};
        VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pcr};
        CHECK(vkCreatePipelineLayout(g.device, &plci, NULL, &playouts[k]));
    }

    LayoutRun *lrs = xcalloc(nl, sizeof *lrs);
    run.layouts = lrs;
    VkDeviceSize preprocess_bytes = 0;
    for (uint32_t li = 0; li < nl; li++) {
        const CaseLayout *L = &c.layouts[li];
        LayoutRun *lr = &lrs[li];
        lr->kind = L->kind;
        lr->stages = kind_stage[L->kind];
        lr->bind_point = L->kind == KIND_COMPUTE ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS;
        lr->pipeline_layout = playouts[L->kind];
        lr->bound = bound_slots(&c, li);
        lr->fetch = c.h[H_FETCH_MASK] & lr->bound;
        lr->inherited_ib = binds_inherited_ib(&c, li);
        VkDeviceSize seq_bytes = (VkDeviceSize)L->count * L->stride;
        lr->sequences = make_buffer(&g, seq_bytes, USAGE_INDIRECT | USAGE_TRANSFER_DST, DEVICE, 0);
        upload(&g, pool, &staging, layout_sequences(&c, li), seq_bytes, &lr->sequences, 0);

        /* pipelines: one per program; spec constants 0 program, 1 PC_DWORDS, 2 SEQ_DWORD, 3 RECORD_DWORDS */
        char name[64];
        if (L->kind == KIND_VERTEX) snprintf(name, sizeof name, "record.vert.%08x.spv", lr->fetch);
        else snprintf(name, sizeof name, "%s", L->kind == KIND_COMPUTE ? "record.comp.spv" : "record.mesh.spv");
        VkShaderModule module = load_shader(&g, spv, name);
        uint32_t nprog = L->set_size ? L->set_size : 1;
        lr->pipes = xcalloc(nprog, sizeof *lr->pipes);
        VkVertexInputBindingDescription vbind[MAX_VERTEX_BINDINGS];
        VkVertexInputAttributeDescription vattr[MAX_VERTEX_BINDINGS];
        uint32_t nbind = 0, nattr = 0;
        for (uint32_t s = 0; s < MAX_VERTEX_BINDINGS; s++) {
            if (!(lr->bound >> s & 1)) continue;
            vbind[nbind++] = (VkVertexInputBindingDescription){s, ATTRIBUTE_BYTES, VK_VERTEX_INPUT_RATE_VERTEX};
            if (lr->fetch >> s & 1) vattr[nattr++] = (VkVertexInputAttributeDescription){s, s, VK_FORMAT_R32_UINT, 0};
        }
        if (nattr > g.props.limits.maxVertexInputAttributes)
            die("limit maxVertexInputAttributes %u < layout %u's %u fetched slots", g.props.limits.maxVertexInputAttributes,
                li, nattr);
        for (uint32_t p = 0; p < nprog; p++) {
            uint32_t spec[4] = {L->set_size ? c.set[L->set_first + p] : 0, L->pc_size / 4, L->seq_dword, record_dwords};
            VkSpecializationMapEntry me[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
            VkSpecializationInfo si = {4, me, sizeof spec, spec};
            VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                                  kind_stage[L->kind], module, "main", &si};
            Maint5PipelineCreateFlags2 f2 = {MAINT5_STYPE_PIPELINE_CREATE_FLAGS_2, NULL,
                                             DGC_PIPELINE_CREATE_2_INDIRECT_BINDABLE};
            if (L->kind == KIND_COMPUTE) {
                VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, &f2, 0, st,
                                                    lr->pipeline_layout, VK_NULL_HANDLE, -1};
                CHECK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &cpci, NULL, &lr->pipes[p]));
                continue;
            }
            VkPipelineRenderingCreateInfo prci = {VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, NULL, 0, 0, NULL,
                                                  VK_FORMAT_UNDEFINED, VK_FORMAT_UNDEFINED};
            f2.pNext = &prci;
            VkPipelineVertexInputStateCreateInfo vi = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                                       NULL, 0, nbind, vbind, nattr, vattr};
            VkPipelineInputAssemblyStateCreateInfo ia = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                         NULL, 0, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, VK_FALSE};
            VkPipelineRasterizationStateCreateInfo rs = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
            rs.rasterizerDiscardEnable = VK_TRUE;
            rs.lineWidth = 1.0f;
            VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE};
            VkPipelineDynamicStateCreateInfo ds = {VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, NULL, 0,
                                                   nbind ? 1u : 0u, dyn};
            int vertex = L->kind == KIND_VERTEX;
            VkGraphicsPipelineCreateInfo gpci = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &f2, 0, 1, &st,
                                                 vertex ? &vi : NULL, vertex ? &ia : NULL, NULL, NULL, &rs, NULL, NULL,
                                                 NULL, &ds, lr->pipeline_layout, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, -1};
            CHECK(vkCreateGraphicsPipelines(g.device, VK_NULL_HANDLE, 1, &gpci, NULL, &lr->pipes[p]));
        }

        /* the indirect-commands layout, from the case's tokens */
        DgcLayoutToken *tokens = xcalloc(L->token_count, sizeof *tokens);
        int uses_set = 0;
        for (uint32_t t = 0; t < L->token_count; t++) {
            const CaseToken *tk = &c.tokens[L->token_first + t];
            void *data = NULL;
            switch (tk->type) {
            case DGC_TOKEN_EXECUTION_SET: {
                DgcExecutionSetToken *d = xcalloc(1, sizeof *d);
                d->type = DGC_EXECUTION_SET_PIPELINES;
                d->shaderStages = lr->stages;
                data = d;
                uses_set = 1;
                break;
            }
            case DGC_TOKEN_PUSH_CONSTANT:
            case DGC_TOKEN_SEQUENCE_INDEX: {
                DgcPushConstantToken *d = xcalloc(1, sizeof *d);
                d->updateRange = (VkPushConstantRange){lr->stages, tk->push_offset, tk->push_size};
                data = d;
                break;
            }
            case DGC_TOKEN_VERTEX_BUFFER: {
                DgcVertexBufferToken *d = xcalloc(1, sizeof *d);
                d->vertexBindingUnit = tk->vertex_binding_unit;
                data = d;
                break;
            }
            case DGC_TOKEN_INDEX_BUFFER: {
                DgcIndexBufferToken *d = xcalloc(1, sizeof *d);
                d->mode = tk->index_mode;
                data = d;
                break;
            }
            default:
                break;
            }
            tokens[t] = (DgcLayoutToken){DGC_STYPE_LAYOUT_TOKEN, NULL, tk->type, data, tk->offset};
        }
        if (uses_set && !L->set_size) die("case: layout %u has an EXECUTION_SET token and no pipelines", li);
        DgcLayoutCreateInfo lci = {DGC_STYPE_LAYOUT_CREATE_INFO, NULL, DGC_LAYOUT_USAGE_EXPLICIT_PREPROCESS,
                                   lr->stages, L->stride, lr->pipeline_layout, L->token_count, tokens};
        CHECK(g.create_layout(g.device, &lci, NULL, &lr->cmd_layout));
        if (uses_set) {
            DgcExecutionSetPipelineInfo epi = {DGC_STYPE_EXECUTION_SET_PIPELINE_INFO, NULL, lr->pipes[0], nprog};
            DgcExecutionSetCreateInfo eci = {DGC_STYPE_EXECUTION_SET_CREATE_INFO, NULL, DGC_EXECUTION_SET_PIPELINES,
                                             &epi};
            CHECK(g.create_set(g.device, &eci, NULL, &lr->exec_set));
            if (nprog > 1) {
                DgcWriteExecutionSetPipeline *wr = xcalloc(nprog - 1, sizeof *wr);
                for (uint32_t p = 1; p < nprog; p++)
                    wr[p - 1] = (DgcWriteExecutionSetPipeline){DGC_STYPE_WRITE_EXECUTION_SET_PIPELINE, NULL, p,
                                                              lr->pipes[p]};
                g.update_set(g.device, lr->exec_set, nprog - 1, wr);
            }
        }
        /* the preprocess buffer: sized for the layout's largest execute, reused by each of them */
        uint32_t max_sequences = 1;
        for (uint32_t e = 0; e < ne; e++)
            if (c.execs[e].layout == li && c.execs[e].count > max_sequences) max_sequences = c.execs[e].count;
        DgcPipelineInfo pinfo = {DGC_STYPE_PIPELINE_INFO, NULL, lr->pipes[0]};
        DgcMemoryRequirementsInfo mri = {DGC_STYPE_MEMORY_REQUIREMENTS_INFO, lr->exec_set ? NULL : &pinfo,
                                         lr->exec_set, lr->cmd_layout, max_sequences, 0};
        VkMemoryRequirements2 req = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, NULL};
        g.get_reqs(g.device, &mri, &req);
        lr->preprocess = make_buffer(&g, req.memoryRequirements.size, DGC_BUFFER_USAGE_2_PREPROCESS_BUFFER, DEVICE,
                                     req.memoryRequirements.memoryTypeBits);
        preprocess_bytes += lr->preprocess.size;
    }
    VkQueryPoolCreateInfo qpci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP,
                                  3 * (ne ? ne : 1), 0};
    CHECK(vkCreateQueryPool(g.device, &qpci, NULL, &run.queries));
    double setup_s = now_s() - t0;

    if (repeat < 1) repeat = 1;
    double *pre_ms = xcalloc(repeat, sizeof(double)), *exe_ms = xcalloc(repeat, sizeof(double));
    double *tot = xcalloc(repeat, sizeof(double)), *wall_ms = xcalloc(repeat, sizeof(double));
    double *longest = xcalloc(repeat, sizeof(double)), *longest_wall = xcalloc(repeat, sizeof(double));
    uint64_t *ts = xcalloc(3 * (ne ? ne : 1), sizeof(uint64_t));
    for (int i = 0; i < repeat; i++) {
        double w0 = now_s();
        one_shot(&g, pool, record_fill, &run);
        for (uint32_t e = 0; e < ne; e++) { /* one submission per execute, each waited for */
            double s0 = now_s();
            run.execute = e;
            one_shot(&g, pool, record_execute, &run);
            double s_ms = (now_s() - s0) * 1e3;
            if (s_ms > longest_wall[i]) longest_wall[i] = s_ms;
        }
        wall_ms[i] = (now_s() - w0) * 1e3;
        if (ne) CHECK(vkGetQueryPoolResults(g.device, run.queries, 0, 3 * ne, 3 * ne * sizeof(uint64_t), ts, 8,
                                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        for (uint32_t e = 0; e < ne; e++) {
            double p = (ts[3 * e + 1] - ts[3 * e]) * g.timestamp_ns * 1e-6, x = (ts[3 * e + 2] - ts[3 * e + 1]) *
                                                                               g.timestamp_ns * 1e-6;
            pre_ms[i] += p;
            exe_ms[i] += x;
            if (p + x > longest[i]) longest[i] = p + x;
        }
        tot[i] = pre_ms[i] + exe_ms[i];
    }
    Copy back = {records.buffer, readback.buffer, rec_bytes, 0};
    one_shot(&g, pool, record_copy, &back);
    FILE *f = fopen(records_path, "wb");
    if (!f) die("cannot write %s", records_path);
    if (fwrite(readback.mapped, 1, rec_bytes, f) != rec_bytes) die("short write %s", records_path);
    fclose(f);

    qsort(pre_ms, repeat, sizeof(double), cmp_double);
    qsort(exe_ms, repeat, sizeof(double), cmp_double);
    qsort(tot, repeat, sizeof(double), cmp_double);
    qsort(wall_ms, repeat, sizeof(double), cmp_double);
    double longest_max = 0, longest_wall_max = 0; /* the longest submission of any run */
    for (int i = 0; i < repeat; i++) {
        if (longest[i] > longest_max) longest_max = longest[i];
        if (longest_wall[i] > longest_wall_max) longest_wall_max = longest_wall[i];
    }
    uint32_t max_exec = 0;
    for (uint32_t e = 0; e < ne; e++)
        if (c.execs[e].count > max_exec) max_exec = c.execs[e].count;
    f = fopen(summary_path, "w");
    if (!f) die("cannot write %s", summary_path);
    fprintf(f,
            "{\"case\": \"%s\", \"device\": \"%s\", \"driver\": %u, \"sequences\": %u, \"layouts\": %u, "
            "\"executes\": %u, \"largest_execute\": %u, \"programs\": %u, \"regions\": %u, \"record_dwords\": %u, "
            "\"views_checked\": %" PRIu64 ", \"relocated_tokens\": %" PRIu64 ", \"fetch_mask\": %u, "
            "\"maxIndirectSequenceCount\": %u, \"preprocess_bytes\": %" PRIu64 ", \"repeat\": %d, "
            "\"setup_s\": %.4f, \"preprocess_ms_min\": %.4f, \"preprocess_ms_median\": %.4f, "
            "\"execute_ms_min\": %.4f, \"execute_ms_median\": %.4f, \"total_ms_min\": %.4f, "
            "\"total_ms_median\": %.4f, \"submit_wall_ms_min\": %.4f, \"submissions\": %u, "
            "\"longest_submission_gpu_ms\": %.4f, \"longest_submission_wall_ms\": %.4f}\n",
            base_name(case_path), g.props.deviceName, g.props.driverVersion, c.h[H_RECORDS], nl, ne, max_exec,
            c.h[H_PROGRAMS], c.h[H_REGIONS], record_dwords, views, relocated, c.h[H_FETCH_MASK],
            g.dgc_props.maxIndirectSequenceCount, (uint64_t)preprocess_bytes, repeat, setup_s, pre_ms[0],
            pre_ms[repeat / 2], exe_ms[0], exe_ms[repeat / 2], tot[0], tot[repeat / 2], wall_ms[0], ne, longest_max,
            longest_wall_max);
    fclose(f);
    printf("ok %s: %u sequences in %u executes of %u layouts, preprocess %.3f ms, execute %.3f ms (min of %d)\n",
           case_path, c.h[H_RECORDS], ne, nl, pre_ms[0], exe_ms[0], repeat);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* the GPU walker                                                                                                */

typedef struct {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSet set;
    Buffer *out, *scratch;
    VkQueryPool queries;
    uint32_t groups;
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
    if (w->groups) vkCmdDispatch(cb, w->groups, 1, 1);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, w->queries, 1);
}

/* the walker plan's header: d3d12wl/vulkan/walker.py (PLAN_FIELDS) */
enum { P_MAGIC, P_VERSION, P_COUNT, P_STRIDE, P_SIZE, P_OUT_STRIDE = 17, P_SEQUENCES = 18, P_KIND = 19 };
#define WALK_GROUP 64 /* walk.comp's local_size_x */
#define WALK_MAX_GROUPS 65535u /* ExecuteIndirect: grid-stride over the commands */

static void run_walk(const char *plan_path, const char *case_path, uint32_t layout, const char *out_case,
                     const char *summary_path, const char *spv, int repeat) {
    size_t plan_n;
    uint8_t *plan = read_file(plan_path, &plan_n);
    Case c = read_case(case_path);
    const uint32_t *h = (const uint32_t *)plan;
    if (plan_n < 128 || h[P_MAGIC] != 0x314B4C57u || h[P_VERSION] != 2) die("%s: not a d3d12wl walker plan (version 2)",
                                                                          plan_path);
    if (layout >= c.h[H_LAYOUTS]) die("layout %u of a case of %u layouts", layout, c.h[H_LAYOUTS]);
    const CaseLayout *L = &c.layouts[layout];
    uint32_t kind = h[P_KIND], count = h[P_SEQUENCES], out_stride = h[P_OUT_STRIDE];
    if (out_stride != L->stride || count != L->count) die("plan and case layout %u disagree: stride %u/%u, count %u/%u",
                                                          layout, out_stride, L->stride, count, L->count);
    Gpu g;
    gpu_instance(&g);
    gpu_device(&g, 0, 0);
    uint32_t groups = kind == 0 ? h[P_COUNT] : (uint32_t)((h[P_COUNT] + (uint64_t)WALK_GROUP - 1) / WALK_GROUP);
    if (kind == 1 && groups > WALK_MAX_GROUPS) groups = WALK_MAX_GROUPS;
    if (kind > 1) die("%s: unknown walk kind %u", plan_path, kind);
    if (groups > g.props.limits.maxComputeWorkGroupCount[0])
        die("limit maxComputeWorkGroupCount[0] %u < the walker's %u workgroups", g.props.limits.maxComputeWorkGroupCount[0],
            groups);
    VkDeviceSize seq_bytes = (VkDeviceSize)L->stride * L->count;
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                   VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g.queue_family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(g.device, &cpi, NULL, &pool));
    Buffer staging = make_buffer(&g, STAGING, USAGE_TRANSFER_SRC, HOST, 0);
    Buffer planb = make_buffer(&g, plan_n, USAGE_STORAGE | USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer out = make_buffer(&g, seq_bytes, USAGE_STORAGE | USAGE_TRANSFER_SRC | USAGE_TRANSFER_DST, DEVICE, 0);
    uint32_t scratch_words = (kind == 0 ? h[P_COUNT] : 0) + 2;
    Buffer scratch = make_buffer(&g, 4 * (VkDeviceSize)scratch_words, USAGE_STORAGE | USAGE_TRANSFER_SRC |
                                 USAGE_TRANSFER_DST, DEVICE, 0);
    Buffer back = make_buffer(&g, seq_bytes, USAGE_TRANSFER_DST, HOST, 0);
    Buffer back_scratch = make_buffer(&g, scratch.size, USAGE_TRANSFER_DST, HOST, 0);
    upload(&g, pool, &staging, plan, plan_n, &planb, 0);

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
    VkPipelineLayout playout;
    CHECK(vkCreatePipelineLayout(g.device, &plci, NULL, &playout));
    VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                          VK_SHADER_STAGE_COMPUTE_BIT, load_shader(&g, spv, "walk.comp.spv"), "main",
                                          NULL};
    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0, st, playout,
                                        VK_NULL_HANDLE, -1};
    VkPipeline pipeline;
    CHECK(vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline));
    VkQueryPoolCreateInfo qpci = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0, VK_QUERY_TYPE_TIMESTAMP, 2, 0};
    VkQueryPool queries;
    CHECK(vkCreateQueryPool(g.device, &qpci, NULL, &queries));

    Walk w = {pipeline, playout, set, &out, &scratch, queries, groups};
    if (repeat < 1) repeat = 1;
    double *ms = xcalloc(repeat, sizeof(double));
    for (int i = 0; i < repeat; i++) {
        one_shot(&g, pool, record_walk, &w);
        uint64_t ts[2];
        CHECK(vkGetQueryPoolResults(g.device, queries, 0, 2, sizeof ts, ts, 8,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        ms[i] = (ts[1] - ts[0]) * g.timestamp_ns * 1e-6;
    }
    qsort(ms, repeat, sizeof(double), cmp_double);
    Copy down = {out.buffer, back.buffer, seq_bytes, 0}, down2 = {scratch.buffer, back_scratch.buffer, scratch.size, 0};
    if (seq_bytes) one_shot(&g, pool, record_copy, &down);
    one_shot(&g, pool, record_copy, &down2);
    const uint32_t *sc = back_scratch.mapped;
    uint8_t *cpu = layout_sequences(&c, layout);
    uint32_t mismatched = 0, first_bad = UINT32_MAX;
    for (uint32_t s = 0; s < L->count; s++)
        if (memcmp((uint8_t *)back.mapped + (size_t)s * L->stride, cpu + (size_t)s * L->stride, L->stride)) {
            if (first_bad == UINT32_MAX) first_bad = s;
            mismatched++;
        }
    /* the walked case: the same file with this layout's sequences the GPU's */
    if (seq_bytes) memcpy(cpu, back.mapped, seq_bytes);
    FILE *f = fopen(out_case, "wb");
    if (!f) die("cannot write %s", out_case);
    if (fwrite(c.file, 1, c.size, f) != c.size) die("short write %s", out_case);
    fclose(f);
    uint32_t gpu_total = kind == 0 ? sc[1 + h[P_COUNT]] : sc[1];
    f = fopen(summary_path, "w");
    if (!f) die("cannot write %s", summary_path);
    fprintf(f,
            "{\"walk\": \"%s\", \"layout\": %u, \"kind\": \"%s\", \"records\": %u, \"sequences\": %u, "
            "\"gpu_total_sequences\": %u, \"error_bits\": %u, \"mismatched_sequences\": %u, \"first_mismatch\": %d, "
            "\"repeat\": %d, \"walk_ms_min\": %.4f, \"walk_ms_median\": %.4f}\n",
            base_name(plan_path), layout, kind == 0 ? "DispatchList" : "ExecuteIndirect", h[P_COUNT], L->count,
            gpu_total, sc[0], mismatched, first_bad == UINT32_MAX ? -1 : (int)first_bad, repeat, ms[0], ms[repeat / 2]);
    fclose(f);
    printf("walk %s: %u sequences, %u mismatched, error bits %u, %.3f ms (min of %d)\n", plan_path, L->count,
           mismatched, sc[0], ms[0], repeat);
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--probe")) {
        probe();
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--check")) {
        Case c = read_case(argv[2]);
        uint64_t views = check_addresses(&c);
        printf("{\"case\": \"%s\", \"layouts\": %u, \"executes\": %u, \"regions\": %u, \"records\": %u, "
               "\"views_checked\": %" PRIu64 "}\n", base_name(argv[2]), c.h[H_LAYOUTS], c.h[H_EXECUTES],
               c.h[H_REGIONS], c.h[H_RECORDS], views);
        return 0;
    }
    if (argc >= 8 && !strcmp(argv[1], "--walk")) {
        run_walk(argv[2], argv[3], (uint32_t)atoi(argv[4]), argv[5], argv[6], argv[7], argc > 8 ? atoi(argv[8]) : 1);
        return 0;
    }
    if (argc < 5)
        die("usage: %s --probe | --check CASE.bin | CASE.bin RECORDS.bin SUMMARY.json SPV_DIR [REPEAT] | --walk PLAN.bin "
            "CASE.bin LAYOUT WALKED_CASE.bin SUMMARY.json SPV_DIR [REPEAT]", argv[0]);
    run_case(argv[1], argv[2], argv[3], argv[4], argc > 5 ? atoi(argv[5]) : 1);
    return 0;
}
