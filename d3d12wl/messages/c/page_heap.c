/* page_heap.c - the page heap the conformance suite lends a driver library under test (d3d12wl.messages.page_heap).
 *
 * "pDescription being NUL-terminated is a driver contract, caught in driver bring-up and HLK" (seed 003, Message
 * validation): a string whose terminator is missing shows only where the bytes after it are unreadable.  The page
 * heap makes them so for the driver's own heap blocks, as a full page heap does for a Windows process: while it is
 * on, every block the driver allocates ends where a PROT_NONE page begins, and the bytes between the block's end and
 * that page (its 16-byte alignment) hold D3D12WL_PAGE_HEAP_FILL, never 0.  A string copied into a block of exactly its
 * length, without the NUL, runs into the guard page.
 *
 * d3d12wl.messages.page_heap points the driver library's GOT entries for the C allocator at the functions below.
 * While the page heap is off they are the C library's (malloc, free, ...), so a library can stay patched for good;
 * free / realloc / malloc_usable_size take any block, the page heap's or the C library's.  Compiled into
 * d3d12wl._native (the text between the cdef markers is its cffi declaration).
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* cdef-begin */
int d3d12wl_page_heap_enable(int on);
size_t d3d12wl_page_heap_blocks(void);
int d3d12wl_page_heap_patch(uintptr_t slot, uintptr_t value, int prot_after);
void *d3d12wl_ph_malloc(size_t size);
void *d3d12wl_ph_calloc(size_t count, size_t size);
void *d3d12wl_ph_realloc(void *ptr, size_t size);
void *d3d12wl_ph_reallocarray(void *ptr, size_t count, size_t size);
void d3d12wl_ph_free(void *ptr);
char *d3d12wl_ph_strdup(const char *s);
char *d3d12wl_ph_strndup(const char *s, size_t n);
int d3d12wl_ph_posix_memalign(void **out, size_t align, size_t size);
void *d3d12wl_ph_aligned_alloc(size_t align, size_t size);
void *d3d12wl_ph_memalign(size_t align, size_t size);
size_t d3d12wl_ph_malloc_usable_size(void *ptr);
/* cdef-end */

#define D3D12WL_PAGE_HEAP_FILL 0xD0 /* the bytes between a block's end and its guard page */

typedef struct PageBlock {
    uintptr_t user; /* 0: an empty slot; 1: a removed one */
    size_t size;
    void *base;
    size_t length;
} PageBlock;

static pthread_mutex_t ph_lock = PTHREAD_MUTEX_INITIALIZER;
static int ph_on;
static PageBlock *ph_table; /* open addressing on the user pointer; the C library's heap holds the table */
static size_t ph_capacity, ph_used, ph_live;

static size_t ph_hash(uintptr_t user, size_t capacity) {
    return (size_t)((user >> 4) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
}

/* The slot of user (found), or of the first free one (with ph_lock held). */
static PageBlock *ph_slot(uintptr_t user, int for_insert) {
    size_t i = ph_hash(user, ph_capacity);
    PageBlock *free_slot = NULL;
    for (size_t probes = 0; probes < ph_capacity; probes++, i = (i + 1) & (ph_capacity - 1)) {
        PageBlock *b = &ph_table[i];
        if (b->user == user) return b;
        if (b->user == 1 && !free_slot) free_slot = b;
        if (b->user == 0) return for_insert ? (free_slot ? free_slot : b) : NULL;
    }
    return for_insert ? free_slot : NULL;
}

static int ph_grow(void) {
    size_t capacity = ph_capacity ? 2 * ph_capacity : 1024;
    PageBlock *old = ph_table, *table = calloc(capacity, sizeof *table);
    size_t old_capacity = ph_capacity;
    if (!table) return 0;
    ph_table = table;
    ph_capacity = capacity;
    ph_used = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].user > 1) {
            *ph_slot(old[i].user, 1) = old[i];
            ph_used++;
        }
    free(old);
    return 1;
}

/* The block record of ptr, copied out (0: not a page-heap block). */
static int ph_find(const void *ptr, PageBlock *out) {
    PageBlock *b;
    int found = 0;
    pthread_mutex_lock(&ph_lock);
    if (ph_capacity && (b = ph_slot((uintptr_t)ptr, 0)) != NULL) {
        *out = *b;
        found = 1;
    }
    pthread_mutex_unlock(&ph_lock);
    return found;
}

/* A block of size bytes at alignment align (a power of two, at most a page) ending at a guard page; NULL when it
 * cannot be made (the caller falls back on the C library). */
static void *ph_alloc(size_t size, size_t align) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), user_size, data, length;
    char *base, *user;
    PageBlock *slot;
    if (align < 16) align = 16;
    if (align > page || size > ((size_t)1 << 40)) return NULL;
    user_size = ((size ? size : 1) + align - 1) & ~(align - 1);
    data = (user_size + page - 1) & ~(page - 1);
    length = data + page;
    base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base + data, page, PROT_NONE) != 0) {
        munmap(base, length);
        return NULL;
    }
    user = base + data - user_size;
    memset(user + size, D3D12WL_PAGE_HEAP_FILL, user_size - size);
    pthread_mutex_lock(&ph_lock);
    if ((ph_used + 1) * 2 > ph_capacity && !ph_grow()) slot = NULL;
    else slot = ph_slot((uintptr_t)user, 1);
    if (slot) {
        if (slot->user == 0) ph_used++;
        slot->user = (uintptr_t)user;
        slot->size = size;
        slot->base = base;
        slot->length = length;
        ph_live++;
    }
    pthread_mutex_unlock(&ph_lock);
    if (!slot) {
        munmap(base, length);
        return NULL;
    }
    return user;
}

/* Release ptr if it is a page-heap block (1), else 0. */
static int ph_release(void *ptr) {
    PageBlock *b, found;
    int ours = 0;
    pthread_mutex_lock(&ph_lock);
    if (ph_capacity && (b = ph_slot((uintptr_t)ptr, 0)) != NULL) {
        found = *b;
        b->user = 1;
        ph_live--;
        ours = 1;
    }
    pthread_mutex_unlock(&ph_lock);
    if (ours) munmap(found.base, found.length);
    return ours;
}

static int ph_enabled(void) {
    return __atomic_load_n(&ph_on, __ATOMIC_ACQUIRE);
}

int d3d12wl_page_heap_enable(int on) {
    return __atomic_exchange_n(&ph_on, on ? 1 : 0, __ATOMIC_ACQ_REL);
}

size_t d3d12wl_page_heap_blocks(void) {
    size_t n;
    pthread_mutex_lock(&ph_lock);
    n = ph_live;
    pthread_mutex_unlock(&ph_lock);
    return n;
}

/* Write value into the pointer-sized slot (a GOT entry), making its page writable for the write and giving it
 * prot_after then.  0, or the errno of mprotect. */
int d3d12wl_page_heap_patch(uintptr_t slot, uintptr_t value, int prot_after) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *start = (void *)(slot & ~(uintptr_t)(page - 1));
    size_t span = ((slot + sizeof(uintptr_t) - (uintptr_t)start) + page - 1) & ~(page - 1);
    if (mprotect(start, span, PROT_READ | PROT_WRITE) != 0) return errno;
    __atomic_store_n((uintptr_t *)slot, value, __ATOMIC_RELEASE);
    return mprotect(start, span, prot_after) != 0 ? errno : 0;
}

void *d3d12wl_ph_malloc(size_t size) {
    void *p = ph_enabled() ? ph_alloc(size, 16) : NULL;
    return p ? p : malloc(size);
}

void *d3d12wl_ph_calloc(size_t count, size_t size) {
    void *p = NULL;
    if (size && count > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (ph_enabled()) p = ph_alloc(count * size, 16); /* fresh pages are zero */
    return p ? p : calloc(count, size);
}

void d3d12wl_ph_free(void *ptr) {
    if (ptr && !ph_release(ptr)) free(ptr);
}

size_t d3d12wl_ph_malloc_usable_size(void *ptr) {
    PageBlock b;
    if (!ptr) return 0;
    return ph_find(ptr, &b) ? b.size : malloc_usable_size(ptr);
}

void *d3d12wl_ph_realloc(void *ptr, size_t size) {
    PageBlock b;
    void *p;
    size_t old;
    if (!ptr) return d3d12wl_ph_malloc(size);
    if (!ph_find(ptr, &b)) {
        if (!ph_enabled() || !(p = ph_alloc(size, 16))) return realloc(ptr, size);
        old = malloc_usable_size(ptr);
        memcpy(p, ptr, old < size ? old : size);
        free(ptr);
        return p;
    }
    if (size == 0) {
        ph_release(ptr);
        return NULL;
    }
    p = d3d12wl_ph_malloc(size);
    if (!p) return NULL;
    memcpy(p, ptr, b.size < size ? b.size : size);
    ph_release(ptr);
    return p;
}

void *d3d12wl_ph_reallocarray(void *ptr, size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    return d3d12wl_ph_realloc(ptr, count * size);
}

char *d3d12wl_ph_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = d3d12wl_ph_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

char *d3d12wl_ph_strndup(const char *s, size_t n) {
    size_t len = strnlen(s, n);
    char *p = d3d12wl_ph_malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

int d3d12wl_ph_posix_memalign(void **out, size_t align, size_t size) {
    void *p;
    if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
    p = ph_enabled() ? ph_alloc(size, align) : NULL;
    if (!p) return posix_memalign(out, align, size);
    *out = p;
    return 0;
}

void *d3d12wl_ph_aligned_alloc(size_t align, size_t size) {
    void *p = ph_enabled() && align && !(align & (align - 1)) ? ph_alloc(size, align) : NULL;
    return p ? p : aligned_alloc(align, size);
}

void *d3d12wl_ph_memalign(size_t align, size_t size) {
    void *p = ph_enabled() && align && !(align & (align - 1)) ? ph_alloc(size, align) : NULL;
    return p ? p : memalign(align, size);
}
