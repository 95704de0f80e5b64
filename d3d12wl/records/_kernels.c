/* Record kernels of d3d12wl._native: interleave column arrays into fixed-stride records and back.
 *
 * Compiled into the same cffi API-mode extension as the D3D12 headers (d3d12wl/abi/_ffi_builder.py appends this
 * file to the extension's C source; the text between the cdef markers is also given to ffi.cdef).  It is not
 * header text: the ABI checks never see it, and it declares nothing of D3D12.
 *
 * d3d12wl_scatter_columns writes n records of `stride` bytes: block by block (a few KiB of output, so each block
 * stays in L1 while every column writes into it), each column copies or converts its values into its field,
 * columns without a source zero their bytes (padding), and the checks then read the block's fields.  One pass
 * over the output; no temporaries.  It returns -1, or the first failing record and (in *failed_item) what failed:
 * a column index (value outside the field's range) or ncols + a check index.  A failure stops the kernel: later
 * blocks are not written.
 *
 * d3d12wl_gather_columns is the reader's counterpart: each field of n strided records into its own array.
 *
 * d3d12wl_field_runs reads the 8-byte fields of runs of strided records (run k: counts[k] records at
 * bases[k] + j * stride, j < counts[k]; each record's fields at offsets[0 .. nfields - 1]) out of one mapped region
 * (`mem`, at VA `mem_base`), record by record and field by field in each, into row columns: the field's VA, its
 * offset in the region (rel; rel32 too unless NULL), its value, first_owner + the run (owner, NULL: not written) and
 * first_index + j (index), and (target, NULL: not written) what the value falls in: field f looks its value up in
 * its table, the tables[2f + 1] ranges from triplet tables[2f] of `ranges` (each start, last, code; ascending and
 * disjoint), giving the range's code and value - start (target_offset), or -1 and 0 outside them.  The interval
 * the field's last value fell in (a range, or the gap between two) is tried first (a run's values mostly fall in
 * one region, or in none), then a binary search.
 * It checks every run first (its fields inside the `mem_size` mapped bytes, its count not negative, the rows
 * within `capacity`) and returns the first run that fails, before writing anything, or -1.  The caller has checked
 * every table inside `ranges` (packers.field_runs).
 *
 * d3d12wl_format_rows writes n rows of text from columns (d3d12wl.output.textrows): each row follows one template, a run
 * of ops (literal bytes, an unsigned or signed decimal, a hexadecimal, a name from a dictionary, a cell padded to a
 * width; each op may write a literal lead first), whose values are element r of 8-byte columns, or fields of
 * records: the little-endian integer of `size` bytes at `offset` of record columns[column][r] of source `source`
 * (sign-extended where `sign`); a value whose mask byte is nonzero is written as the op's absent text.  The ops
 * name their columns, masks and sources by index into the call's `columns`, `masks` and `sources`, so one compiled
 * set of ops is read, never written, by calls on several threads at once (each with its own columns and output).
 * It returns the bytes written, or -1 - r when row r would not fit in `capacity` or names a record past its
 * source's `count` (nothing of row r is then counted; the caller has checked every field inside its source's
 * stride, textrows.RowFormatter.prepare).  Short copies move whole blocks of D3D12WL_SHORT bytes: the pool and
 * `capacity` must leave that many bytes of room past what they hold.
 *
 * Values are little-endian (the host and the Windows x64 ABI the records follow); packers.py asserts the host.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cdef-begin */
#define D3D12WL_COLUMN_SRC_SIGNED 1
#define D3D12WL_COLUMN_CONVERT 2
#define D3D12WL_COLUMN_CHECK_RANGE 4

#define D3D12WL_CHECK_ALIGN 1
#define D3D12WL_CHECK_ZERO 2

struct d3d12wl_column {
    const uint8_t *src;   /* value of record 0 (NULL: the field is zeroed) */
    int64_t src_stride;   /* bytes from one record's value to the next (0: one value for every record) */
    int64_t elem_stride;  /* bytes between the elements of one record's value (a subarray field) */
    uint64_t offset;      /* field offset in the output record */
    uint32_t count;       /* elements per record (1 for a scalar field) */
    uint32_t src_size;    /* bytes of one input element */
    uint32_t dst_size;    /* bytes of one field element (== src_size unless D3D12WL_COLUMN_CONVERT) */
    uint32_t flags;       /* D3D12WL_COLUMN_*: CONVERT integers (1, 2, 4 or 8 bytes) between sizes/signedness */
    int64_t min;          /* CHECK_RANGE: the field's C type range (signed inputs compare with min and max, */
    uint64_t max;         /* unsigned inputs with max) */
};

struct d3d12wl_check {
    uint64_t offset;      /* checked field in the output record */
    uint32_t size;        /* its bytes: 1, 2, 4 or 8 (D3D12WL_CHECK_ZERO: any size) */
    uint32_t kind;        /* D3D12WL_CHECK_ALIGN: value % align == 0; D3D12WL_CHECK_ZERO: value == 0 */
    uint64_t align;       /* a power of two */
    uint64_t when_offset; /* checked only in records whose `when` field is nonzero ... */
    uint32_t when_size;   /* ... 1, 2, 4 or 8 bytes; 0: every record */
    uint32_t reserved;
};

struct d3d12wl_gather {
    uint8_t *dst;         /* record 0's value in the output array */
    int64_t dst_stride;   /* bytes from one record's value to the next */
    uint64_t offset;      /* field offset in the input record */
    uint64_t size;        /* bytes per record */
};

int64_t d3d12wl_scatter_columns(uint8_t *out, size_t stride, size_t n, const struct d3d12wl_column *cols,
                                size_t ncols, const struct d3d12wl_check *checks, size_t nchecks,
                                size_t *failed_item);
void d3d12wl_gather_columns(const uint8_t *src, int64_t stride, size_t n, const struct d3d12wl_gather *cols,
                            size_t ncols);
int d3d12wl_kernels_simd(void);
int64_t d3d12wl_field_runs(const uint8_t *mem, uint64_t mem_size, uint64_t mem_base, const uint64_t *bases,
                           const int64_t *counts, size_t nruns, uint64_t stride, const uint64_t *offsets,
                           size_t nfields, int64_t first_owner, int64_t first_index, const uint64_t *ranges,
                           const int64_t *tables, size_t capacity, uint64_t *va, uint64_t *rel, uint32_t *rel32,
                           uint64_t *value, int64_t *owner, int64_t *index, int32_t *target,
                           uint64_t *target_offset);

#define D3D12WL_OP_LITERAL 0
#define D3D12WL_OP_UDEC 1
#define D3D12WL_OP_SDEC 2
#define D3D12WL_OP_HEX 3
#define D3D12WL_OP_DICT 4
#define D3D12WL_OP_MARK 5
#define D3D12WL_OP_PAD_LEFT 6
#define D3D12WL_OP_PAD_RIGHT 7

struct d3d12wl_op {
    uint32_t kind;        /* D3D12WL_OP_* */
    uint32_t width;       /* HEX: at least this many digits (zero-padded); PAD_*: the cell's width in bytes */
    int64_t column;       /* UDEC, SDEC, HEX, DICT: the value's column, an index into `columns` (element r of
                           * columns[column]: row r's value) */
    int64_t mask;         /* an index into `masks` (a column of masks: a nonzero byte is absent), or -1 */
    uint64_t lead;        /* every op: the offset in pool of bytes written first, present value or not ... */
    uint64_t lead_length; /* ... (LITERAL: its bytes) */
    uint64_t text;        /* value ops: the absent text's offset in pool */
    uint64_t length;
    uint64_t prefix;      /* value ops: the offset in pool of bytes written before a present value ("0x") */
    uint64_t prefix_length;
    uint64_t add;         /* value ops: added (mod 2**64) to the value before it is written */
    uint64_t dict;        /* DICT: its first entry in dict (an entry is offset, length of a name in pool) */
    uint64_t dict_count;  /* DICT: its entries; a code outside 0 .. dict_count - 1 is written as absent */
    int64_t source;       /* value ops: -1 (the value is element r of its column), or an index into `sources`: the
                           * value is a field of record columns[column][r] of that source ... */
    uint64_t offset;      /* ... at this offset of the record ... */
    uint32_t size;        /* ... of 1, 2, 4 or 8 bytes ... */
    uint32_t sign;        /* ... sign-extended to 8 bytes when nonzero */
};

struct d3d12wl_source {
    const uint8_t *base;  /* record 0 */
    uint64_t stride;      /* bytes from one record to the next */
    uint64_t count;       /* records */
};

int64_t d3d12wl_format_rows(uint8_t *out, size_t capacity, size_t n, const struct d3d12wl_op *ops,
                            const int64_t *template_ops, const int32_t *row_template, const uint8_t *pool,
                            const uint64_t *dict, const uint64_t *const *columns, const uint8_t *const *masks,
                            const struct d3d12wl_source *sources);
/* cdef-end */

/* D3D12WL_SIMD: the SSE2 paths (every x86-64 host) on top of the portable column loops.  Building with
 * -DD3D12WL_NO_SIMD leaves only the portable loops, as on a host without SSE2; the tests build that variant too
 * and hold it to the same bytes (d3d12wl_kernels_simd() tells which variant a build is).  SSE2 is known from
 * GCC/clang's __SSE2__ or from MSVC's own macros, which never define __SSE2__: _M_X64 / _M_AMD64 (x64 always
 * has SSE2) and _M_IX86_FP >= 2 (32-bit x86 built with /arch:SSE2 or above). */
#if (defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)) && \
    !defined(D3D12WL_NO_SIMD)
#define D3D12WL_SIMD 1
#include <emmintrin.h>
#else
#define D3D12WL_SIMD 0
#endif

int d3d12wl_kernels_simd(void)
{
    return D3D12WL_SIMD;
}

/* output bytes per block: the block stays in L1 while every column and check visits it */
#define D3D12WL_BLOCK_BYTES 8192

static inline uint64_t d3d12wl_load_u(const uint8_t *p, uint32_t size)
{
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline int64_t d3d12wl_load_i(const uint8_t *p, uint32_t size)
{
    switch (size) {
    case 1: return (int8_t)*p;
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void d3d12wl_store(uint8_t *p, uint64_t v, uint32_t size)
{
    switch (size) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* A raw copy of `size` bytes per record; the constant sizes become single loads and stores. */
#define D3D12WL_COPY_LOOP(SIZE)                                                                                    \
    for (size_t r = r0; r < r1; r++)                                                                               \
        memcpy(d + r * stride, s + (int64_t)r * ss, (SIZE));

#define D3D12WL_ZERO_LOOP(SIZE)                                                                                    \
    for (size_t r = r0; r < r1; r++)                                                                               \
        memset(d + r * stride, 0, (SIZE));

/* Writes records [r0, r1) of one column; returns the first record whose value is out of range, or SIZE_MAX. */
static size_t d3d12wl_scatter_one(uint8_t *out, size_t stride, size_t r0, size_t r1, const struct d3d12wl_column *c)
{
    uint8_t *d = out + c->offset;
    const uint8_t *s = c->src;
    const int64_t ss = c->src_stride;
    if (s == NULL) {
        const size_t size = (size_t)c->count * c->dst_size;
        switch (size) {
        case 1: D3D12WL_ZERO_LOOP(1) break;
        case 2: D3D12WL_ZERO_LOOP(2) break;
        case 4: D3D12WL_ZERO_LOOP(4) break;
        case 8: D3D12WL_ZERO_LOOP(8) break;
        case 16: D3D12WL_ZERO_LOOP(16) break;
        default: D3D12WL_ZERO_LOOP(size) break;
        }
        return SIZE_MAX;
    }
    if (!(c->flags & (D3D12WL_COLUMN_CONVERT | D3D12WL_COLUMN_CHECK_RANGE))) {
        if (c->count == 1 || c->elem_stride == (int64_t)c->src_size) {
            const size_t size = (size_t)c->count * c->src_size;
            switch (size) {
            case 1: D3D12WL_COPY_LOOP(1) break;
            case 2: D3D12WL_COPY_LOOP(2) break;
            case 4: D3D12WL_COPY_LOOP(4) break;
            case 8: D3D12WL_COPY_LOOP(8) break;
            case 16: D3D12WL_COPY_LOOP(16) break;
            case 32: D3D12WL_COPY_LOOP(32) break;
            default: D3D12WL_COPY_LOOP(size) break;
            }
            return SIZE_MAX;
        }
        for (size_t r = r0; r < r1; r++) {
            const uint8_t *sp = s + (int64_t)r * ss;
            uint8_t *dp = d + r * stride;
            for (uint32_t e = 0; e < c->count; e++)
                memcpy(dp + (size_t)e * c->src_size, sp + (int64_t)e * c->elem_stride, c->src_size);
        }
        return SIZE_MAX;
    }
    /* integers converted between sizes / signedness, optionally range-checked */
    const int is_signed = (c->flags & D3D12WL_COLUMN_SRC_SIGNED) != 0;
    const int check = (c->flags & D3D12WL_COLUMN_CHECK_RANGE) != 0;
    const int64_t lo = c->min;
    const uint64_t hi = c->max;
    size_t bad = SIZE_MAX;
    for (size_t r = r0; r < r1; r++) {
        const uint8_t *sp = s + (int64_t)r * ss;
        uint8_t *dp = d + r * stride;
        for (uint32_t e = 0; e < c->count; e++) {
            const uint8_t *ep = sp + (int64_t)e * c->elem_stride;
            uint64_t v;
            int ok = 1;
            if (is_signed) {
                const int64_t iv = d3d12wl_load_i(ep, c->src_size);
                ok = iv >= lo && (iv < 0 || (uint64_t)iv <= hi);
                v = (uint64_t)iv;
            } else {
                v = d3d12wl_load_u(ep, c->src_size);
                ok = v <= hi;
            }
            if (check && !ok && bad == SIZE_MAX)
                bad = r;
            d3d12wl_store(dp + (size_t)e * c->dst_size, v, c->dst_size);
        }
        if (bad != SIZE_MAX)
            return bad;
    }
    return SIZE_MAX;
}

/* The first record of [r0, r1) that fails the check, or SIZE_MAX. */
static size_t d3d12wl_check_one(const uint8_t *out, size_t stride, size_t r0, size_t r1, const struct d3d12wl_check *k)
{
    const uint8_t *p = out + k->offset;
    const uint8_t *w = out + k->when_offset;
    if (k->kind == D3D12WL_CHECK_ZERO && k->size != 1 && k->size != 2 && k->size != 4 && k->size != 8) {
        for (size_t r = r0; r < r1; r++) {
            if (k->when_size && !d3d12wl_load_u(w + r * stride, k->when_size))
                continue;
            for (uint32_t b = 0; b < k->size; b++)
                if (p[r * stride + b])
                    return r;
        }
        return SIZE_MAX;
    }
    const uint64_t mask = k->kind == D3D12WL_CHECK_ALIGN ? k->align - 1 : UINT64_MAX;
    /* one OR over the field first (the `when` condition can only excuse records): most blocks pass */
    uint64_t any = 0;
    switch (k->size) {
    case 4: for (size_t r = r0; r < r1; r++) any |= d3d12wl_load_u(p + r * stride, 4); break;
    case 8: for (size_t r = r0; r < r1; r++) any |= d3d12wl_load_u(p + r * stride, 8); break;
    default: for (size_t r = r0; r < r1; r++) any |= d3d12wl_load_u(p + r * stride, k->size); break;
    }
    if (!(any & mask))
        return SIZE_MAX;
    for (size_t r = r0; r < r1; r++) {
        if (k->when_size && !d3d12wl_load_u(w + r * stride, k->when_size))
            continue;
        if (d3d12wl_load_u(p + r * stride, k->size) & mask)
            return r;
    }
    return SIZE_MAX;
}

#if D3D12WL_SIMD
/* Whether the check can pass on the OR of every value of its field over a block: the OR of the 8-byte word that
 * holds the field tells (a field inside one word only). */
static int d3d12wl_check_passes(const struct d3d12wl_check *k, const uint64_t *word_or)
{
    const uint64_t start = k->offset % 8;
    if (start + k->size > 8 || (k->size != 1 && k->size != 2 && k->size != 4 && k->size != 8))
        return 0;
    const uint64_t field = k->size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * k->size)) - 1;
    const uint64_t mask = k->kind == D3D12WL_CHECK_ALIGN ? k->align - 1 : UINT64_MAX;
    return ((word_or[k->offset / 8] >> (8 * start)) & field & mask) == 0;
}

/* --- the lane path: records of 8-byte words, each built from whole 4-byte lanes, two records at a time ----- */

#define D3D12WL_MAX_WORDS 512 /* 4096-byte records (D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE) */

enum { D3D12WL_W_ZERO, D3D12WL_W_64C, D3D12WL_W_64S, D3D12WL_W_PAIRC, D3D12WL_W_LANES };

struct d3d12wl_lane {
    const uint8_t *src; /* NULL: zero */
    int64_t ss;
};

struct d3d12wl_word {
    int kind;
    struct d3d12wl_lane lo, hi;
};

/* Each column's lanes, when every column is a raw copy (or zero) of whole 4-byte lanes with each record's value
 * contiguous, and together they cover every lane of the record; 0 otherwise (the column path then runs). */
static int d3d12wl_plan_words(size_t stride, const struct d3d12wl_column *cols, size_t ncols,
                              struct d3d12wl_word *words)
{
    if (stride % 8 || stride / 8 > D3D12WL_MAX_WORDS)
        return 0;
    struct d3d12wl_lane lanes[2 * D3D12WL_MAX_WORDS];
    unsigned char seen[2 * D3D12WL_MAX_WORDS];
    const size_t nlanes = stride / 4;
    memset(seen, 0, nlanes);
    for (size_t i = 0; i < ncols; i++) {
        const struct d3d12wl_column *c = &cols[i];
        const size_t size = (size_t)c->count * c->dst_size;
        if (c->offset % 4 || size % 4 || c->offset + size > stride)
            return 0;
        if (c->src != NULL && ((c->flags & (D3D12WL_COLUMN_CONVERT | D3D12WL_COLUMN_CHECK_RANGE)) ||
                               (c->count != 1 && c->elem_stride != (int64_t)c->src_size)))
            return 0;
        for (size_t b = 0; b < size; b += 4) {
            const size_t l = (c->offset + b) / 4;
            if (seen[l])
                return 0;
            seen[l] = 1;
            lanes[l].src = c->src ? c->src + b : NULL;
            lanes[l].ss = c->src_stride;
        }
    }
    for (size_t l = 0; l < nlanes; l++)
        if (!seen[l])
            return 0;
    for (size_t w = 0; w < stride / 8; w++) {
        struct d3d12wl_word *x = &words[w];
        x->lo = lanes[2 * w];
        x->hi = lanes[2 * w + 1];
        if (!x->lo.src && !x->hi.src)
            x->kind = D3D12WL_W_ZERO;
        else if (x->lo.src && x->hi.src == x->lo.src + 4 && x->hi.ss == x->lo.ss)
            x->kind = x->lo.ss == 8 ? D3D12WL_W_64C : D3D12WL_W_64S;
        else if (x->lo.src && x->hi.src && x->lo.ss == 4 && x->hi.ss == 4)
            x->kind = D3D12WL_W_PAIRC;
        else
            x->kind = D3D12WL_W_LANES;
    }
    return 1;
}

static inline uint32_t d3d12wl_lane_at(const struct d3d12wl_lane *l, size_t r)
{
    uint32_t v = 0;
    if (l->src)
        memcpy(&v, l->src + (int64_t)r * l->ss, 4);
    return v;
}

/* [word(r), word(r + 1)] */
#define D3D12WL_WORD_ZERO(x, r) _mm_setzero_si128()
#define D3D12WL_WORD_64C(x, r) _mm_loadu_si128((const __m128i *)((x)->lo.src + (r) * 8))
#define D3D12WL_WORD_64S(x, r)                                                                                     \
    _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)((x)->lo.src + (int64_t)(r) * (x)->lo.ss)),               \
                       _mm_loadl_epi64((const __m128i *)((x)->lo.src + (int64_t)((r) + 1) * (x)->lo.ss)))
#define D3D12WL_WORD_PAIRC(x, r)                                                                                   \
    _mm_unpacklo_epi32(_mm_loadl_epi64((const __m128i *)((x)->lo.src + (r) * 4)),                                 \
                       _mm_loadl_epi64((const __m128i *)((x)->hi.src + (r) * 4)))
#define D3D12WL_WORD_LANES(x, r)                                                                                   \
    _mm_set_epi32((int)d3d12wl_lane_at(&(x)->hi, (r) + 1), (int)d3d12wl_lane_at(&(x)->lo, (r) + 1),              \
                  (int)d3d12wl_lane_at(&(x)->hi, (r)), (int)d3d12wl_lane_at(&(x)->lo, (r)))

#define D3D12WL_WORD_LOOP(KIND)                                                                                    \
    for (size_t r = r0; r + 1 < r1; r += 2) {                                                                      \
        const __m128i v = D3D12WL_WORD_##KIND(x, r);                                                               \
        _mm_storel_epi64((__m128i *)(d + r * stride), v);                                                          \
        _mm_storeh_pd((double *)(d + (r + 1) * stride), _mm_castsi128_pd(v));                                      \
        acc = _mm_or_si128(acc, v);                                                                                \
    }

/* Words a = 2i and b = 2i + 1 of records r and r + 1 from two loaders, stored as one 16-byte [a, b] per record
 * (half the stores of the word loop, which the stores rather than the loads bound). */
#define D3D12WL_PAIR_LOOP(KA, KB)                                                                                  \
    for (size_t r = r0; r + 1 < r1; r += 2) {                                                                      \
        const __m128i va = D3D12WL_WORD_##KA(xa, r), vb = D3D12WL_WORD_##KB(xb, r);                                \
        _mm_storeu_si128((__m128i *)(d + r * stride), _mm_unpacklo_epi64(va, vb));                                 \
        _mm_storeu_si128((__m128i *)(d + (r + 1) * stride), _mm_unpackhi_epi64(va, vb));                           \
        acc_a = _mm_or_si128(acc_a, va);                                                                           \
        acc_b = _mm_or_si128(acc_b, vb);                                                                           \
    }

/* The pair loop for the loader of word a (KA) and each loader of word b. */
#define D3D12WL_PAIR_CASES(KA)                                                                                     \
    switch (xb->kind) {                                                                                            \
    case D3D12WL_W_ZERO: D3D12WL_PAIR_LOOP(KA, ZERO) break;                                                        \
    case D3D12WL_W_64C: D3D12WL_PAIR_LOOP(KA, 64C) break;                                                          \
    case D3D12WL_W_PAIRC: D3D12WL_PAIR_LOOP(KA, PAIRC) break;                                                      \
    default: return 0;                                                                                             \
    }

/* Words 2i and 2i + 1 of records [r0, r1) (an even count) with 16-byte stores, when both words are zero or
 * contiguous columns (the loaders of nearly every record: a UINT64 column, two UINT columns, padding);
 * word_or[2i], word_or[2i + 1] |= every record's words.  0 (nothing written): the word loop must run instead. */
static int d3d12wl_scatter_pair(uint8_t *out, size_t stride, size_t r0, size_t r1, const struct d3d12wl_word *xa,
                                uint64_t *word_or)
{
    const struct d3d12wl_word *xb = xa + 1;
    uint8_t *d = out;
    __m128i acc_a = _mm_setzero_si128(), acc_b = _mm_setzero_si128();
    switch (xa->kind) {
    case D3D12WL_W_ZERO: D3D12WL_PAIR_CASES(ZERO) break;
    case D3D12WL_W_64C: D3D12WL_PAIR_CASES(64C) break;
    case D3D12WL_W_PAIRC: D3D12WL_PAIR_CASES(PAIRC) break;
    default: return 0;
    }
    uint64_t lanes[4];
    _mm_storeu_si128((__m128i *)lanes, acc_a);
    _mm_storeu_si128((__m128i *)(lanes + 2), acc_b);
    word_or[0] = lanes[0] | lanes[1];
    word_or[1] = lanes[2] | lanes[3];
    return 1;
}

/* Records [r0, r1) (an even count): words two at a time where the pair loop takes them, else word by word;
 * word_or[w] |= every record's word w. */
static void d3d12wl_scatter_words(uint8_t *out, size_t stride, size_t r0, size_t r1, const struct d3d12wl_word *words,
                                  uint64_t *word_or)
{
    for (size_t w = 0; w < stride / 8; w++) {
        const struct d3d12wl_word *x = &words[w];
        if (w + 1 < stride / 8 && d3d12wl_scatter_pair(out + 8 * w, stride, r0, r1, x, word_or + w)) {
            w++;
            continue;
        }
        uint8_t *d = out + 8 * w;
        __m128i acc = _mm_setzero_si128();
        switch (x->kind) {
        case D3D12WL_W_ZERO: D3D12WL_WORD_LOOP(ZERO) break;
        case D3D12WL_W_64C: D3D12WL_WORD_LOOP(64C) break;
        case D3D12WL_W_64S: D3D12WL_WORD_LOOP(64S) break;
        case D3D12WL_W_PAIRC: D3D12WL_WORD_LOOP(PAIRC) break;
        default: D3D12WL_WORD_LOOP(LANES) break;
        }
        uint64_t lanes[2];
        _mm_storeu_si128((__m128i *)lanes, acc);
        word_or[w] = lanes[0] | lanes[1];
    }
}
#endif

static int64_t d3d12wl_fail(size_t first, size_t item, size_t *failed_item)
{
    *failed_item = item;
    return (int64_t)first;
}

int64_t d3d12wl_scatter_columns(uint8_t *out, size_t stride, size_t n, const struct d3d12wl_column *cols,
                                size_t ncols, const struct d3d12wl_check *checks, size_t nchecks,
                                size_t *failed_item)
{
    size_t block = stride ? D3D12WL_BLOCK_BYTES / stride : n;
    block += block & 1; /* even: the lane path writes records in pairs */
    if (block == 0)
        block = 2;
#if D3D12WL_SIMD
    struct d3d12wl_word words[D3D12WL_MAX_WORDS];
    uint64_t word_or[D3D12WL_MAX_WORDS];
    const int lanes = n >= 2 && d3d12wl_plan_words(stride, cols, ncols, words);
#endif
    for (size_t r0 = 0; r0 < n; r0 += block) {
        const size_t r1 = n - r0 < block ? n : r0 + block;
        size_t first = SIZE_MAX, item = 0;
#if D3D12WL_SIMD
        if (lanes) {
            const size_t even = r0 + ((r1 - r0) & ~(size_t)1);
            d3d12wl_scatter_words(out, stride, r0, even, words, word_or);
            for (size_t i = 0; i < ncols && even < r1; i++) /* the odd last record */
                d3d12wl_scatter_one(out, stride, even, r1, &cols[i]);
            for (size_t j = 0; j < nchecks; j++) {
                size_t bad = even < r1 ? d3d12wl_check_one(out, stride, even, r1, &checks[j]) : SIZE_MAX;
                if (even > r0 && !d3d12wl_check_passes(&checks[j], word_or)) {
                    const size_t b = d3d12wl_check_one(out, stride, r0, even, &checks[j]);
                    if (b < bad)
                        bad = b;
                }
                if (bad < first) {
                    first = bad;
                    item = ncols + j;
                }
            }
            if (first != SIZE_MAX)
                return d3d12wl_fail(first, item, failed_item);
            continue;
        }
#endif
        for (size_t i = 0; i < ncols; i++) {
            const size_t bad = d3d12wl_scatter_one(out, stride, r0, r1, &cols[i]);
            if (bad < first) {
                first = bad;
                item = i;
            }
        }
        for (size_t j = 0; j < nchecks; j++) {
            const size_t bad = d3d12wl_check_one(out, stride, r0, first < r1 ? first + 1 : r1, &checks[j]);
            if (bad < first) {
                first = bad;
                item = ncols + j;
            }
        }
        if (first != SIZE_MAX)
            return d3d12wl_fail(first, item, failed_item);
    }
    return -1;
}

/* --- gather ----------------------------------------------------------------------------------------------- */

#define D3D12WL_GATHER_LOOP(SIZE)                                                                                  \
    for (size_t r = r0; r < r1; r++)                                                                               \
        memcpy(d + (int64_t)r * ds, s + (int64_t)r * stride, (SIZE));

static void d3d12wl_gather_one(const uint8_t *src, int64_t stride, size_t r0, size_t r1,
                               const struct d3d12wl_gather *c)
{
    const int64_t ds = c->dst_stride;
    uint8_t *d = c->dst;
    const uint8_t *s = src + c->offset;
    const size_t size = c->size;
    switch (size) {
    case 1: D3D12WL_GATHER_LOOP(1) break;
    case 2: D3D12WL_GATHER_LOOP(2) break;
    case 4: D3D12WL_GATHER_LOOP(4) break;
    case 8: D3D12WL_GATHER_LOOP(8) break;
    case 16: D3D12WL_GATHER_LOOP(16) break;
    case 32: D3D12WL_GATHER_LOOP(32) break;
    default: D3D12WL_GATHER_LOOP(size) break;
    }
}

#if D3D12WL_SIMD
enum { D3D12WL_G_NONE, D3D12WL_G_64, D3D12WL_G_PAIR, D3D12WL_G_LO, D3D12WL_G_HI };

struct d3d12wl_gword {
    int kind;
    int paired;   /* the first of two adjacent words the pair loop reads as one 16-byte unit of each record */
    size_t word;  /* byte offset of the word in the record / 8 */
    uint8_t *lo;  /* the 8-byte column, or the 4-byte columns of the low and high lanes */
    uint8_t *hi;
};

/* [word(r), word(r + 1)] of the word at s */
#define D3D12WL_GWORD(r) _mm_castpd_si128(_mm_loadh_pd(                                                           \
        _mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(s + (int64_t)(r) * stride))),                          \
        (const double *)(s + (int64_t)((r) + 1) * stride)))

/* Four records' values of one word, given as v01 = [word(r), word(r + 1)] and v23 = [word(r + 2), word(r + 3)],
 * into its column(s) with 16-byte stores: an 8-byte column, or the 4-byte columns of its two lanes. */
#define D3D12WL_GEMIT_64(g, r, v01, v23)                                                                           \
    {                                                                                                              \
        _mm_storeu_si128((__m128i *)((g)->lo + (r) * 8), (v01));                                                   \
        _mm_storeu_si128((__m128i *)((g)->lo + (r) * 8 + 16), (v23));                                              \
    }
#define D3D12WL_GEMIT_PAIR(g, r, v01, v23)                                                                         \
    {                                                                                                              \
        const __m128i t01 = _mm_shuffle_epi32((v01), _MM_SHUFFLE(3, 1, 2, 0)); /* [lo0 lo1 hi0 hi1] */           \
        const __m128i t23 = _mm_shuffle_epi32((v23), _MM_SHUFFLE(3, 1, 2, 0));                                    \
        _mm_storeu_si128((__m128i *)((g)->lo + (r) * 4), _mm_unpacklo_epi64(t01, t23));                            \
        _mm_storeu_si128((__m128i *)((g)->hi + (r) * 4), _mm_unpackhi_epi64(t01, t23));                            \
    }

/* Two adjacent words a, b of records [r0, r1) (a multiple of 4): one 16-byte load per record holds both. */
#define D3D12WL_GPAIR_LOOP(KA, KB)                                                                                 \
    for (size_t r = r0; r < r1; r += 4) {                                                                          \
        const __m128i u0 = _mm_loadu_si128((const __m128i *)(s + (int64_t)r * stride));                           \
        const __m128i u1 = _mm_loadu_si128((const __m128i *)(s + (int64_t)(r + 1) * stride));                     \
        const __m128i u2 = _mm_loadu_si128((const __m128i *)(s + (int64_t)(r + 2) * stride));                     \
        const __m128i u3 = _mm_loadu_si128((const __m128i *)(s + (int64_t)(r + 3) * stride));                     \
        D3D12WL_GEMIT_##KA(ga, r, _mm_unpacklo_epi64(u0, u1), _mm_unpacklo_epi64(u2, u3))                          \
        D3D12WL_GEMIT_##KB(gb, r, _mm_unpackhi_epi64(u0, u1), _mm_unpackhi_epi64(u2, u3))                          \
    }

static void d3d12wl_gather_pair(const uint8_t *src, int64_t stride, size_t r0, size_t r1,
                                const struct d3d12wl_gword *ga)
{
    const struct d3d12wl_gword *gb = ga + 1;
    const uint8_t *s = src + 8 * ga->word;
    if (ga->kind == D3D12WL_G_64 && gb->kind == D3D12WL_G_64)
        D3D12WL_GPAIR_LOOP(64, 64)
    else if (ga->kind == D3D12WL_G_64)
        D3D12WL_GPAIR_LOOP(64, PAIR)
    else if (gb->kind == D3D12WL_G_64)
        D3D12WL_GPAIR_LOOP(PAIR, 64)
    else
        D3D12WL_GPAIR_LOOP(PAIR, PAIR)
}

/* One word of records [r0, r1) (a multiple of 4), two records per load. */
static void d3d12wl_gather_word(const uint8_t *src, int64_t stride, size_t r0, size_t r1,
                                const struct d3d12wl_gword *g)
{
    const uint8_t *s = src + 8 * g->word;
    uint8_t *lo = g->lo, *hi = g->hi;
    switch (g->kind) {
    case D3D12WL_G_64:
        for (size_t r = r0; r < r1; r += 4)
            D3D12WL_GEMIT_64(g, r, D3D12WL_GWORD(r), D3D12WL_GWORD(r + 2))
        break;
    case D3D12WL_G_PAIR:
        for (size_t r = r0; r < r1; r += 4)
            D3D12WL_GEMIT_PAIR(g, r, D3D12WL_GWORD(r), D3D12WL_GWORD(r + 2))
        break;
    case D3D12WL_G_LO:
        for (size_t r = r0; r < r1; r += 2)
            _mm_storel_epi64((__m128i *)(lo + r * 4), _mm_shuffle_epi32(D3D12WL_GWORD(r), _MM_SHUFFLE(3, 1, 2, 0)));
        break;
    case D3D12WL_G_HI:
        for (size_t r = r0; r < r1; r += 2)
            _mm_storel_epi64((__m128i *)(hi + r * 4), _mm_shuffle_epi32(D3D12WL_GWORD(r), _MM_SHUFFLE(1, 0, 3, 1)));
        break;
    default:
        break;
    }
}

/* The SIMD plan of a gather: the 8-byte words of positive-stride records whose fields are contiguous 8-byte
 * columns or 4-byte columns (one or both lanes), sorted by word, adjacent 64/PAIR words paired; simd[i] marks
 * the columns it writes.  Returns how many words (0: the column loop does everything). */
static size_t d3d12wl_plan_gather(int64_t stride, size_t n, const struct d3d12wl_gather *cols, size_t ncols,
                                  struct d3d12wl_gword *gw, unsigned char *simd)
{
    size_t ngw = 0;
    if (stride <= 0 || stride % 8 || ncols > 256 || n < 4)
        return 0;
    memset(simd, 0, ncols);
    for (size_t i = 0; i < ncols; i++) {
        const struct d3d12wl_gather *c = &cols[i];
        if (ngw == 64 || c->offset % 4 || (c->size != 4 && c->size != 8) || c->dst_stride != (int64_t)c->size ||
            (c->size == 8 && c->offset % 8))
            continue;
        const size_t w = c->offset / 8;
        size_t k = 0;
        while (k < ngw && gw[k].word != w)
            k++;
        if (k == ngw) {
            gw[ngw].kind = D3D12WL_G_NONE;
            gw[ngw].paired = 0;
            gw[ngw].word = w;
            gw[ngw].lo = gw[ngw].hi = NULL;
            ngw++;
        }
        struct d3d12wl_gword *g = &gw[k];
        if (c->size == 8) {
            g->kind = D3D12WL_G_64;
            g->lo = c->dst;
        } else if (c->offset % 8 == 0) {
            g->lo = c->dst;
            g->kind = g->kind == D3D12WL_G_HI ? D3D12WL_G_PAIR : D3D12WL_G_LO;
        } else {
            g->hi = c->dst;
            g->kind = g->kind == D3D12WL_G_LO ? D3D12WL_G_PAIR : D3D12WL_G_HI;
        }
        simd[i] = 1;
    }
    for (size_t k = 1; k < ngw; k++) { /* insertion sort by word */
        const struct d3d12wl_gword g = gw[k];
        size_t j = k;
        for (; j > 0 && gw[j - 1].word > g.word; j--)
            gw[j] = gw[j - 1];
        gw[j] = g;
    }
    for (size_t k = 0; k + 1 < ngw; k++) {
        const int fast = (gw[k].kind == D3D12WL_G_64 || gw[k].kind == D3D12WL_G_PAIR) &&
                         (gw[k + 1].kind == D3D12WL_G_64 || gw[k + 1].kind == D3D12WL_G_PAIR);
        if (fast && gw[k + 1].word == gw[k].word + 1) {
            gw[k].paired = 1;
            k++;
        }
    }
    return ngw;
}
#endif

void d3d12wl_gather_columns(const uint8_t *src, int64_t stride, size_t n, const struct d3d12wl_gather *cols,
                            size_t ncols)
{
#if D3D12WL_SIMD
    /* 8-byte words of contiguous 8-byte columns or 4-byte columns go four records at a time (two adjacent such
     * words in one 16-byte load per record); every other column, and the last records of each block, through
     * the column loop */
    struct d3d12wl_gword gw[64];
#endif
    unsigned char simd[256]; /* the columns the word loops write (before the block's last 0-3 records) */
#if D3D12WL_SIMD
    const size_t ngw = d3d12wl_plan_gather(stride, n, cols, ncols, gw, simd);
#else
    const size_t ngw = 0;
#endif
    const uint64_t step = stride < 0 ? (uint64_t)(-stride) : (uint64_t)stride;
    size_t block = step && step < D3D12WL_BLOCK_BYTES ? D3D12WL_BLOCK_BYTES / step : 4;
    block = (block + 3) & ~(size_t)3; /* a multiple of 4: the word loops go four records at a time */
    for (size_t r0 = 0; r0 < n; r0 += block) {
        const size_t r1 = n - r0 < block ? n : r0 + block;
        size_t quad = r0; /* [r0, quad): the word loops */
#if D3D12WL_SIMD
        if (ngw) {
            quad = r0 + ((r1 - r0) & ~(size_t)3);
            for (size_t k = 0; k < ngw; k++) {
                if (gw[k].paired)
                    d3d12wl_gather_pair(src, stride, r0, quad, &gw[k++]);
                else
                    d3d12wl_gather_word(src, stride, r0, quad, &gw[k]);
            }
        }
#endif
        for (size_t i = 0; i < ncols; i++)
            d3d12wl_gather_one(src, stride, ngw && simd[i] ? quad : r0, r1, &cols[i]);
    }
}

/* restrict on the parameters of the kernels' inner loops (static: the exported functions keep the cdef's plain
 * pointers and pass them on), so the compiler keeps inputs in registers across the output stores */
#if defined(_MSC_VER)
#define D3D12WL_RESTRICT __restrict
#else
#define D3D12WL_RESTRICT restrict
#endif

/* fields that keep the interval their last value fell in (the rest search their table every time) */
#define D3D12WL_KEPT 16

#if defined(_MSC_VER)
#define D3D12WL_INLINE static __forceinline
#define D3D12WL_UNLIKELY(x) (x)
#else
#define D3D12WL_INLINE static inline __attribute__((always_inline))
#define D3D12WL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif

/* What a field's values in [lo, lo + span] look up to: `code` and (value - base) & mask (mask 0 outside every
 * range: offset 0). */
struct d3d12wl_interval {
    uint64_t lo, span, base, mask;
    int32_t code;
};

/* The interval of the n ranges at t (triplets start, last, code; ascending, disjoint) holding v: the range that
 * holds it, or the gap between ranges it falls in (code -1). */
static inline struct d3d12wl_interval d3d12wl_interval_of(const uint64_t *t, size_t n, uint64_t v)
{
    struct d3d12wl_interval out = {0, UINT64_MAX, 0, 0, -1};
    if (!n)
        return out;
    size_t lo = 0, len = n;
    while (len > 1) { /* the last range starting at or below v, if any */
        size_t half = len / 2;
        lo = t[3 * (lo + half)] <= v ? lo + half : lo;
        len -= half;
    }
    if (t[3 * lo] > v) { /* before every range */
        out.span = t[0] - 1;
        return out;
    }
    if (v <= t[3 * lo + 1]) {
        out.lo = out.base = t[3 * lo];
        out.span = t[3 * lo + 1] - t[3 * lo];
        out.mask = UINT64_MAX;
        out.code = (int32_t)t[3 * lo + 2];
        return out;
    }
    out.lo = t[3 * lo + 1] + 1; /* after range lo: up to the next one */
    out.span = (lo + 1 < n ? t[3 * (lo + 1)] - 1 : UINT64_MAX) - out.lo;
    return out;
}

/* d3d12wl_field_runs with its optional outputs and the field count as parameters: inlined with constants for one
 * field (the usual record of one reference), so the loop carries no tests of what it writes and its interval
 * lives in registers. */
D3D12WL_INLINE void d3d12wl_field_runs_n(
    const uint8_t *D3D12WL_RESTRICT mem, uint64_t mem_base, const uint64_t *D3D12WL_RESTRICT bases,
    const int64_t *D3D12WL_RESTRICT counts, size_t nruns, uint64_t stride, const uint64_t *D3D12WL_RESTRICT offsets,
    size_t nfields, int64_t first_owner, int64_t first_index, const uint64_t *D3D12WL_RESTRICT ranges,
    const int64_t *D3D12WL_RESTRICT tables, uint64_t *D3D12WL_RESTRICT va, uint64_t *D3D12WL_RESTRICT rel,
    uint32_t *D3D12WL_RESTRICT rel32, uint64_t *D3D12WL_RESTRICT value, int64_t *D3D12WL_RESTRICT owner,
    int64_t *D3D12WL_RESTRICT index, int32_t *D3D12WL_RESTRICT target, uint64_t *D3D12WL_RESTRICT target_offset,
    int with_rel32, int with_owner, int with_target)
{
    /* one field's interval in a local of its own (kept in registers), more fields' in an array */
    struct d3d12wl_interval one = {0, 0, 0, 0, -1}, kept[D3D12WL_KEPT];
    if (with_target && nfields == 1)
        one = d3d12wl_interval_of(ranges + 3 * tables[0], (size_t)tables[1], 0);
    for (size_t f = 0; with_target && nfields != 1 && f < nfields && f < D3D12WL_KEPT; f++)
        kept[f] = d3d12wl_interval_of(ranges + 3 * tables[2 * f], (size_t)tables[2 * f + 1], 0);
    size_t row = 0;
    for (size_t k = 0; k < nruns; k++) {
        uint64_t at = bases[k] - mem_base;
        int64_t n = counts[k], own = first_owner + (int64_t)k;
        for (int64_t j = 0; j < n; j++, at += stride) {
            for (size_t f = 0; f < nfields; f++, row++) {
                uint64_t o = at + offsets[f];
                uint64_t v;
                memcpy(&v, mem + o, sizeof v);
                va[row] = o + mem_base;
                rel[row] = o;
                if (with_rel32)
                    rel32[row] = (uint32_t)o;
                value[row] = v;
                if (with_owner)
                    owner[row] = own;
                index[row] = first_index + j;
                if (!with_target)
                    continue;
                const uint64_t *t = ranges + 3 * tables[2 * f];
                size_t m = (size_t)tables[2 * f + 1];
                if (nfields == 1) {
                    if (D3D12WL_UNLIKELY(v - one.lo > one.span))
                        one = d3d12wl_interval_of(t, m, v);
                    target[row] = one.code;
                    target_offset[row] = (v - one.base) & one.mask;
                    continue;
                }
                struct d3d12wl_interval got;
                if (f < D3D12WL_KEPT) {
                    if (v - kept[f].lo > kept[f].span)
                        kept[f] = d3d12wl_interval_of(t, m, v);
                    got = kept[f];
                } else {
                    got = d3d12wl_interval_of(t, m, v);
                }
                target[row] = got.code;
                target_offset[row] = (v - got.base) & got.mask;
            }
        }
    }
}

#define D3D12WL_FIELD_RUNS(NFIELDS, REL32, OWNER, TARGET)                                                           \
    d3d12wl_field_runs_n(mem, mem_base, bases, counts, nruns, stride, offsets, (NFIELDS), first_owner, first_index, \
                         ranges, tables, va, rel, rel32, value, owner, index, target, target_offset, (REL32),      \
                         (OWNER), (TARGET))

int64_t d3d12wl_field_runs(const uint8_t *mem, uint64_t mem_size, uint64_t mem_base, const uint64_t *bases,
                           const int64_t *counts, size_t nruns, uint64_t stride, const uint64_t *offsets,
                           size_t nfields, int64_t first_owner, int64_t first_index, const uint64_t *ranges,
                           const int64_t *tables, size_t capacity, uint64_t *va, uint64_t *rel, uint32_t *rel32,
                           uint64_t *value, int64_t *owner, int64_t *index, int32_t *target,
                           uint64_t *target_offset)
{
    /* every run first: its records inside the mapped bytes, its count not negative, the rows within capacity */
    uint64_t reach = 0;
    for (size_t f = 0; f < nfields; f++)
        reach = offsets[f] > reach ? offsets[f] : reach;
    size_t rows = 0;
    for (size_t k = 0; k < nruns; k++) {
        int64_t n = counts[k];
        if (n < 0)
            return (int64_t)k;
        if (n == 0)
            continue;
        uint64_t at = bases[k] - mem_base;
        if (bases[k] < mem_base || reach > UINT64_MAX - 8 || at > mem_size || mem_size - at < reach + 8)
            return (int64_t)k;
        uint64_t steps = (uint64_t)(n - 1), room = mem_size - at - reach - 8;
        if (steps > UINT32_MAX || stride > UINT32_MAX ? stride && steps > room / stride : steps * stride > room)
            return (int64_t)k; /* (32-bit factors: their product fits, no division) */
        if (!nfields || (uint64_t)n > (capacity - rows) / nfields)
            return (int64_t)k;
        rows += (size_t)n * nfields;
    }
    int with = (rel32 != NULL) | (owner != NULL) << 1 | (target != NULL && target_offset != NULL) << 2;
    if (nfields != 1)
        D3D12WL_FIELD_RUNS(nfields, with & 1, with & 2, with & 4);
    else if (with == 7)
        D3D12WL_FIELD_RUNS(1, 1, 1, 1); /* one field: each set of outputs its own loop */
    else if (with == 6)
        D3D12WL_FIELD_RUNS(1, 0, 1, 1);
    else if (with == 5)
        D3D12WL_FIELD_RUNS(1, 1, 0, 1);
    else if (with == 4)
        D3D12WL_FIELD_RUNS(1, 0, 0, 1);
    else if (with == 3)
        D3D12WL_FIELD_RUNS(1, 1, 1, 0);
    else if (with == 2)
        D3D12WL_FIELD_RUNS(1, 0, 1, 0);
    else if (with == 1)
        D3D12WL_FIELD_RUNS(1, 1, 0, 0);
    else
        D3D12WL_FIELD_RUNS(1, 0, 0, 0);
    return -1;
}

/* ---- text rows from columns (d3d12wl.output.textrows) ---------------------------------------------------------------- */

static const char d3d12wl_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869"
    "707172737475767778798081828384858687888990919293949596979899";

/* bytes every source of a copy (the pool) and the output buffer have beyond their end, so a short copy may move
 * a whole D3D12WL_SHORT block (constant size: two moves, no call) */
#define D3D12WL_SHORT 16

static inline void d3d12wl_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n <= D3D12WL_SHORT)
        memcpy(dst, src, D3D12WL_SHORT);
    else
        memcpy(dst, src, n);
}

/* how many decimal digits v has */
static inline size_t d3d12wl_decimal_digits(uint64_t v)
{
    size_t n = 1;
    while (v >= 100000000u) {
        v /= 100000000u;
        n += 8;
    }
    uint32_t w = (uint32_t)v;
    return n + (w >= 10) + (w >= 100) + (w >= 1000) + (w >= 10000) + (w >= 100000) + (w >= 1000000) +
           (w >= 10000000);
}

/* the decimal digits of v at p (at most 20 bytes), written from the last; returns their count.  32-bit arithmetic
 * for the part that fits (a 64-bit division costs several times a 32-bit one) */
static inline size_t d3d12wl_udec(uint8_t *p, uint64_t v)
{
    size_t count = d3d12wl_decimal_digits(v);
    uint8_t *q = p + count;
    while (v > 0xFFFFFFFFu) {
        uint64_t d = v / 100;
        uint32_t r = (uint32_t)(v - d * 100);
        q -= 2;
        memcpy(q, d3d12wl_digit_pairs + 2 * r, 2);
        v = d;
    }
    uint32_t w = (uint32_t)v;
    while (w >= 100) {
        uint32_t d = w / 100;
        uint32_t r = w - d * 100;
        q -= 2;
        memcpy(q, d3d12wl_digit_pairs + 2 * r, 2);
        w = d;
    }
    if (w >= 10) {
        q -= 2;
        memcpy(q, d3d12wl_digit_pairs + 2 * w, 2);
    } else {
        *--q = (uint8_t)('0' + w);
    }
    return count;
}

/* the lowercase hexadecimal digits of v at p, at least `digits` of them (zero-padded, at most 16), two a step */
static inline size_t d3d12wl_hex(uint8_t *p, uint64_t v, uint32_t digits)
{
    static const char pairs[513] =
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
        "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
        "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
        "909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
        "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    size_t count = 1;
#if defined(__GNUC__) || defined(__clang__)
    if (v)
        count = (size_t)(16 - (__builtin_clzll(v) >> 2));
#else
    for (uint64_t t = v >> 4; t; t >>= 4)
        count++;
#endif
    if (digits > 16)
        digits = 16;
    if (count < digits)
        count = digits;
    uint8_t *q = p + count;
    size_t left = count;
    while (left >= 2) {
        q -= 2;
        memcpy(q, pairs + 2 * (v & 0xFF), 2);
        v >>= 8;
        left -= 2;
    }
    if (left)
        *--q = (uint8_t)pairs[2 * (v & 15) + 1];
    return count;
}

/* the little-endian integer of `size` (1, 2, 4 or 8) bytes at p, sign-extended to 8 bytes where `sign` */
static inline uint64_t d3d12wl_field(const uint8_t *p, uint32_t size, uint32_t sign)
{
    uint64_t v = 0;
    memcpy(&v, p, size);
    if (sign && size < 8 && (v >> (8 * size - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * size);
    return v;
}

int64_t d3d12wl_format_rows(uint8_t *out, size_t capacity, size_t n, const struct d3d12wl_op *ops,
                            const int64_t *template_ops, const int32_t *row_template, const uint8_t *pool,
                            const uint64_t *dict, const uint64_t *const *columns, const uint8_t *const *masks,
                            const struct d3d12wl_source *sources)
{
    uint8_t *p = out;
    uint8_t *const end = out + capacity;
    for (size_t r = 0; r < n; r++) {
        const int64_t t = row_template ? row_template[r] : 0;
        const struct d3d12wl_op *op = ops + template_ops[t];
        const struct d3d12wl_op *const last = ops + template_ops[t + 1];
        uint8_t *mark = p;
        for (; op < last; op++) {
            if (op->lead_length) {
                if ((size_t)(end - p) < op->lead_length)
                    return -1 - (int64_t)r;
                d3d12wl_copy(p, pool + op->lead, op->lead_length);
                p += op->lead_length;
            }
            const uint32_t kind = op->kind;
            if (kind == D3D12WL_OP_LITERAL)
                continue;
            if (kind == D3D12WL_OP_MARK) {
                mark = p;
                continue;
            }
            if (kind == D3D12WL_OP_PAD_LEFT || kind == D3D12WL_OP_PAD_RIGHT) {
                size_t used = (size_t)(p - mark);
                if (used < op->width) {
                    size_t pad = op->width - used;
                    if ((size_t)(end - p) < pad)
                        return -1 - (int64_t)r;
                    if (kind == D3D12WL_OP_PAD_RIGHT) {  /* the cell moves right (a few bytes: a loop) */
                        for (size_t i = used; i-- > 0;)
                            mark[pad + i] = mark[i];
                        memset(mark, ' ', pad);
                    } else {
                        memset(p, ' ', pad);
                    }
                    p += pad;
                }
                continue;
            }
            /* a value: at most 20 digits and a sign, or a dictionary name, after its prefix; or the absent text */
            uint64_t v = columns[op->column][r];
            if (op->source >= 0) {
                const struct d3d12wl_source *src = sources + op->source;
                if (v >= src->count)
                    return -1 - (int64_t)r;
                v = d3d12wl_field(src->base + v * src->stride + op->offset, op->size, op->sign);
            }
            v += op->add;
            int absent = op->mask >= 0 && masks[op->mask][r];
            if (kind == D3D12WL_OP_DICT && !absent && v >= op->dict_count)
                absent = 1;
            if (absent) {
                if ((size_t)(end - p) < op->length)
                    return -1 - (int64_t)r;
                d3d12wl_copy(p, pool + op->text, op->length);
                p += op->length;
                continue;
            }
            const size_t room = kind == D3D12WL_OP_DICT ? (size_t)dict[2 * (op->dict + v) + 1] : 21;
            if ((size_t)(end - p) < room + op->prefix_length)
                return -1 - (int64_t)r;
            if (op->prefix_length) {
                d3d12wl_copy(p, pool + op->prefix, op->prefix_length);
                p += op->prefix_length;
            }
            if (kind == D3D12WL_OP_UDEC) {
                p += d3d12wl_udec(p, v);
            } else if (kind == D3D12WL_OP_SDEC) {
                if ((int64_t)v < 0) {
                    *p++ = '-';
                    p += d3d12wl_udec(p, (uint64_t)0 - v);
                } else {
                    p += d3d12wl_udec(p, v);
                }
            } else if (kind == D3D12WL_OP_HEX) {
                p += d3d12wl_hex(p, v, op->width);
            } else {
                d3d12wl_copy(p, pool + dict[2 * (op->dict + v)], room);
                p += room;
            }
        }
    }
    return (int64_t)(p - out);
}
