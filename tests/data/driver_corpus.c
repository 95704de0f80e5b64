/* driver_corpus.c - the conformance suite's corpus of C drivers, built from this one source: the C reference driver
 * (d3d12wl/messages/c/reference_driver.c) as it is, or changed by one define, -DVARIANT_<NAME>=1.  Each variant is
 * either a correct driver that is unusual but legal, or the reference with one planted bug.  tests/messages_corpus.py
 * lists them with the verdict `d3d12wl messages check` must give; tests/test_messages_corpus.py pins it and
 * tools/messages_corpus.py runs each variant many times.
 *
 * How: every entry point of the reference is renamed reference_<name> by the #defines below, and the entry point of
 * the same name further down wraps it; the feature's two DDIs are wrapped through the table EnableExtendedFeature
 * fills, and every report goes through an interposer put in the callback table the device copied.  All the
 * variants' code is compiled in every build (each is selected by a constant condition), so every build checks it.
 *
 * Correct variants (the suite must pass them, every run):
 *   QUIET                    honours no probe: reports the initialization message only
 *   NEVER_ATTRIBUTES         0xFFFFFFFF on every finding ("cannot attribute")
 *   FLOODS                   32 uncorrelated INFO messages per flush, 4 correlated ones per GPU-work call
 *   DEDUPES                  an identical message (every field) is reported once per device
 *   OWN_THREAD               a reporting thread of its own delivers GPU findings as they are captured
 *   ENRICHES_IDENTITY        prefixes GPU findings with the queue's identity (pfnQueryObjectIdentityCb)
 *   REPORTS_AT_RECORDING     an INFO at recording time for every GPU-work call
 *   DELIVERS_AT_COMPLETION   GPU findings reported when the GPU runs the work, before any flush
 *   VENDOR_TAG               "[ACME] " before every description but the initialization message's
 *   DEFERS_RECORDING_FINDINGS recording-time findings held for the next flush
 *   FUTURE_VERSION           advertises version 2 of the feature (enabled at _0, the version negotiated)
 *   MULTILINE                a second line in every description ('\n' is preserved)
 *   REPORTS_ON_RESET         an uncorrelated INFO at every command list Reset ("or command allocator reset")
 *   LONG_DESCRIPTIONS        descriptions of 100,000 bytes (the harness keeps 64 KiB of each)
 *   FLOODS_FROM_THREADS      each finding reported three times, and 100 INFO messages from 4 threads of its own in
 *                            every flush once the device has had a finding (the flush joins them before it returns)
 *   OWN_THREAD_DRAINS        a reporting thread of its own delivers each finding as it is captured; a flush reports
 *                            what the thread has not taken and waits for the delivery the thread has under way
 * Planted bugs (each must fail the check tests/messages_corpus.py names):
 *   INIT_INFO_SEVERITY, NO_INIT, REPORTS_WHEN_NOT_ENABLED, NOT_ADVERTISED_REPORTS, NULL_DESCRIPTION, MADE_UP_INDEX,
 *   READ_RECORDING_AT_GPU_TIME, TAGGED_ATTRIBUTION_BUG, LATE_DISPATCH_INFO, CRASH_ON_EMPTY_FLUSH, FRESH_VENDOR_IDS,
 *   REPORTS_UNDER_DEVICE_LOCK, RECORD_REPORT_UNDER_DEVICE_LOCK, FLUSH_WAITS_FOR_GPU, HOLDS_ONE_FLUSH,
 *   REPORTS_ON_LIST_DESTROY, REPORTS_AFTER_DESTROY, VERSION_NONE, REFUSES_ENABLE, DROPS_ALL_BUT_FIRST,
 *   DEVICE_WIDE_INDEX_CACHE, REPORTS_UNDER_LIST_LOCK, UNTERMINATED_DESCRIPTION, DUPLICATES_LIST_IDENTITY,
 *   DESCRIPTION_WITHOUT_NUL, FLUSH_REPORTS_ON_HELPER_THREAD
 * (each is described where its code is).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define D3D12WLDriver_GetSupportedExtendedFeatures reference_GetSupportedExtendedFeatures
#define D3D12WLDriver_CreateDevice reference_CreateDevice
#define D3D12WLDriver_EnableExtendedFeature reference_EnableExtendedFeature
#define D3D12WLDriver_DestroyDevice reference_DestroyDevice
#define D3D12WLDriver_CreateCommandQueue reference_CreateCommandQueue
#define D3D12WLDriver_DestroyCommandQueue reference_DestroyCommandQueue
#define D3D12WLDriver_CreateCommandList reference_CreateCommandList
#define D3D12WLDriver_CommandListWork reference_CommandListWork
#define D3D12WLDriver_ResetCommandList reference_ResetCommandList
#define D3D12WLDriver_DestroyCommandList reference_DestroyCommandList
#define D3D12WLDriver_ExecuteCommandLists reference_ExecuteCommandLists
#define D3D12WLDriver_GpuExecute reference_GpuExecute
#include "reference_driver.c"
#undef D3D12WLDriver_GetSupportedExtendedFeatures
#undef D3D12WLDriver_CreateDevice
#undef D3D12WLDriver_EnableExtendedFeature
#undef D3D12WLDriver_DestroyDevice
#undef D3D12WLDriver_CreateCommandQueue
#undef D3D12WLDriver_DestroyCommandQueue
#undef D3D12WLDriver_CreateCommandList
#undef D3D12WLDriver_CommandListWork
#undef D3D12WLDriver_ResetCommandList
#undef D3D12WLDriver_DestroyCommandList
#undef D3D12WLDriver_ExecuteCommandLists
#undef D3D12WLDriver_GpuExecute

#ifdef VARIANT_TAGGED_ATTRIBUTION_BUG /* the attribution bug in a driver that prefixes a vendor tag */
#define VARIANT_VENDOR_TAG 1
#define VARIANT_READ_RECORDING_AT_GPU_TIME 1
#endif
#ifdef VARIANT_NOT_ADVERTISED_REPORTS /* no feature listed, and it reports anyway */
#define VARIANT_REPORTS_WHEN_NOT_ENABLED 1
#endif

#ifndef VARIANT_QUIET
#define VARIANT_QUIET 0
#endif
#ifndef VARIANT_NEVER_ATTRIBUTES
#define VARIANT_NEVER_ATTRIBUTES 0
#endif
#ifndef VARIANT_FLOODS
#define VARIANT_FLOODS 0
#endif
#ifndef VARIANT_DEDUPES
#define VARIANT_DEDUPES 0
#endif
#ifndef VARIANT_OWN_THREAD
#define VARIANT_OWN_THREAD 0
#endif
#ifndef VARIANT_ENRICHES_IDENTITY
#define VARIANT_ENRICHES_IDENTITY 0
#endif
#ifndef VARIANT_REPORTS_AT_RECORDING
#define VARIANT_REPORTS_AT_RECORDING 0
#endif
#ifndef VARIANT_DELIVERS_AT_COMPLETION
#define VARIANT_DELIVERS_AT_COMPLETION 0
#endif
#ifndef VARIANT_VENDOR_TAG
#define VARIANT_VENDOR_TAG 0
#endif
#ifndef VARIANT_DEFERS_RECORDING_FINDINGS
#define VARIANT_DEFERS_RECORDING_FINDINGS 0
#endif
#ifndef VARIANT_FUTURE_VERSION
#define VARIANT_FUTURE_VERSION 0
#endif
#ifndef VARIANT_MULTILINE
#define VARIANT_MULTILINE 0
#endif
#ifndef VARIANT_REPORTS_ON_RESET
#define VARIANT_REPORTS_ON_RESET 0
#endif
#ifndef VARIANT_LONG_DESCRIPTIONS
#define VARIANT_LONG_DESCRIPTIONS 0
#endif
#ifndef VARIANT_INIT_INFO_SEVERITY
#define VARIANT_INIT_INFO_SEVERITY 0
#endif
#ifndef VARIANT_NO_INIT
#define VARIANT_NO_INIT 0
#endif
#ifndef VARIANT_REPORTS_WHEN_NOT_ENABLED
#define VARIANT_REPORTS_WHEN_NOT_ENABLED 0
#endif
#ifndef VARIANT_NOT_ADVERTISED_REPORTS
#define VARIANT_NOT_ADVERTISED_REPORTS 0
#endif
#ifndef VARIANT_NULL_DESCRIPTION
#define VARIANT_NULL_DESCRIPTION 0
#endif
#ifndef VARIANT_MADE_UP_INDEX
#define VARIANT_MADE_UP_INDEX 0
#endif
#ifndef VARIANT_READ_RECORDING_AT_GPU_TIME
#define VARIANT_READ_RECORDING_AT_GPU_TIME 0
#endif
#ifndef VARIANT_LATE_DISPATCH_INFO
#define VARIANT_LATE_DISPATCH_INFO 0
#endif
#ifndef VARIANT_CRASH_ON_EMPTY_FLUSH
#define VARIANT_CRASH_ON_EMPTY_FLUSH 0
#endif
#ifndef VARIANT_FRESH_VENDOR_IDS
#define VARIANT_FRESH_VENDOR_IDS 0
#endif
#ifndef VARIANT_REPORTS_UNDER_DEVICE_LOCK
#define VARIANT_REPORTS_UNDER_DEVICE_LOCK 0
#endif
#ifndef VARIANT_RECORD_REPORT_UNDER_DEVICE_LOCK
#define VARIANT_RECORD_REPORT_UNDER_DEVICE_LOCK 0
#endif
#ifndef VARIANT_FLUSH_WAITS_FOR_GPU
#define VARIANT_FLUSH_WAITS_FOR_GPU 0
#endif
#ifndef VARIANT_HOLDS_ONE_FLUSH
#define VARIANT_HOLDS_ONE_FLUSH 0
#endif
#ifndef VARIANT_REPORTS_ON_LIST_DESTROY
#define VARIANT_REPORTS_ON_LIST_DESTROY 0
#endif
#ifndef VARIANT_REPORTS_AFTER_DESTROY
#define VARIANT_REPORTS_AFTER_DESTROY 0
#endif
#ifndef VARIANT_VERSION_NONE
#define VARIANT_VERSION_NONE 0
#endif
#ifndef VARIANT_REFUSES_ENABLE
#define VARIANT_REFUSES_ENABLE 0
#endif
#ifndef VARIANT_DROPS_ALL_BUT_FIRST
#define VARIANT_DROPS_ALL_BUT_FIRST 0
#endif
#ifndef VARIANT_DEVICE_WIDE_INDEX_CACHE
#define VARIANT_DEVICE_WIDE_INDEX_CACHE 0
#endif
#ifndef VARIANT_REPORTS_UNDER_LIST_LOCK
#define VARIANT_REPORTS_UNDER_LIST_LOCK 0
#endif
#ifndef VARIANT_UNTERMINATED_DESCRIPTION
#define VARIANT_UNTERMINATED_DESCRIPTION 0
#endif
#ifndef VARIANT_DUPLICATES_LIST_IDENTITY
#define VARIANT_DUPLICATES_LIST_IDENTITY 0
#endif
#ifndef VARIANT_FLOODS_FROM_THREADS
#define VARIANT_FLOODS_FROM_THREADS 0
#endif
#ifndef VARIANT_OWN_THREAD_DRAINS
#define VARIANT_OWN_THREAD_DRAINS 0
#endif
#ifndef VARIANT_DESCRIPTION_WITHOUT_NUL
#define VARIANT_DESCRIPTION_WITHOUT_NUL 0
#endif
#ifndef VARIANT_FLUSH_REPORTS_ON_HELPER_THREAD
#define VARIANT_FLUSH_REPORTS_ON_HELPER_THREAD 0
#endif

/* counting submissions the GPU has not run yet */
#define COUNTS_IN_FLIGHT VARIANT_FLUSH_WAITS_FOR_GPU
/* knowing, for an index, the list it was issued to */
#define MAPS_INDICES (VARIANT_REPORTS_UNDER_LIST_LOCK || VARIANT_DUPLICATES_LIST_IDENTITY)

/* ---- per-device and per-list state of the variants ------------------------------------------------------------ */

#define MAX_LIST_INDICES 256

typedef struct ListExtra {
    List *list;
    Device *dev;
    pthread_mutex_t lock; /* REPORTS_UNDER_LIST_LOCK: the list's own lock */
    uint32_t indices[MAX_LIST_INDICES]; /* the indices issued to it */
    size_t n_indices;
    uint32_t submitted_index; /* its last call's index when it was last submitted */
    Messages dispatches;      /* LATE_DISPATCH_INFO: its Dispatch calls recorded */
    struct ListExtra *next;
} ListExtra;

typedef struct Extra {
    Device *dev;
    D3D12DDI_HRTDEVICE hrt;
    PFND3D12DDI_REPORTMESSAGE_CB_0126 report; /* the runtime's */
    PFND3D12DDI_FLUSH_DRIVER_REPORTED_MESSAGES_0126 flush; /* the reference's */
    PFND3D12DDI_SET_COMMAND_LIST_STATE_INDEX_0126 set_index;
    pthread_mutex_t lock;
    pthread_cond_t cond;  /* COUNTS_IN_FLIGHT: the GPU ran a submission (with lock) */
    pthread_cond_t work;  /* OWN_THREAD(_DRAINS): a finding was captured (with the reference's device lock) */
    pthread_cond_t delivered; /* OWN_THREAD_DRAINS: the thread's delivery ended (with the device lock) */
    int delivering;       /* OWN_THREAD_DRAINS: the thread is reporting a finding it took (with the device lock) */
    int had_findings;     /* FLOODS_FROM_THREADS: a flush had something to report (with the device lock) */
    int in_flight;        /* COUNTS_IN_FLIGHT */
    D3D12DDI_HANDLE_AND_TYPE last_queue; /* ENRICHES_IDENTITY: the queue that last ran work */
    uint32_t last_index;  /* DEVICE_WIDE_INDEX_CACHE */
    uint64_t next_id;     /* FRESH_VENDOR_IDS */
    Messages seen;        /* DEDUPES */
    Messages later;       /* LATE_DISPATCH_INFO: captured, for the late reporter */
    Messages held;        /* HOLDS_ONE_FLUSH (with the reference's device lock) */
    unsigned generation;  /* OWN_THREAD: flushes so far */
    int stop;             /* OWN_THREAD */
    pthread_t thread;
    int has_thread;
    pthread_t late[64];   /* LATE_DISPATCH_INFO: reporters to join at DestroyDevice */
    int n_late;
    struct Extra *next;
} Extra;

static pthread_mutex_t extras_lock = PTHREAD_MUTEX_INITIALIZER;
static Extra *extras;
static ListExtra *list_extras;

static Extra *extra_of(Device *dev) {
    Extra *x;
    pthread_mutex_lock(&extras_lock);
    for (x = extras; x && x->dev != dev; x = x->next) {
    }
    pthread_mutex_unlock(&extras_lock);
    return x;
}

static Extra *extra_of_hrt(D3D12DDI_HRTDEVICE hrt) {
    Extra *x;
    pthread_mutex_lock(&extras_lock);
    for (x = extras; x && x->hrt.handle != hrt.handle; x = x->next) {
    }
    pthread_mutex_unlock(&extras_lock);
    return x;
}

static ListExtra *list_extra(List *list) {
    ListExtra *l;
    pthread_mutex_lock(&extras_lock);
    for (l = list_extras; l && l->list != list; l = l->next) {
    }
    if (!l && (l = calloc(1, sizeof *l)) != NULL) {
        l->list = list;
        l->dev = list->dev;
        l->submitted_index = NO_INDEX;
        pthread_mutex_init(&l->lock, NULL);
        l->next = list_extras;
        list_extras = l;
    }
    pthread_mutex_unlock(&extras_lock);
    return l;
}

/* MAPS_INDICES: the list of this device an index was issued to (NULL: none) */
static ListExtra *list_of_index(Device *dev, uint32_t index) {
    ListExtra *found = NULL;
    pthread_mutex_lock(&extras_lock);
    for (ListExtra *l = list_extras; l && !found; l = l->next)
        for (size_t i = 0; l->dev == dev && l->list && i < l->n_indices; i++)
            if (l->indices[i] == index) found = l;
    pthread_mutex_unlock(&extras_lock);
    return found;
}

static void forget_list(List *list) {
    pthread_mutex_lock(&extras_lock);
    for (ListExtra *l = list_extras; l; l = l->next)
        if (l->list == list) l->list = NULL; /* kept (a flush may still look it up), no longer matched */
    pthread_mutex_unlock(&extras_lock);
}

static int32_t send(Device *dev, uint64_t id, int32_t severity, int32_t category, const char *text, uint32_t index) {
    Message m;
    m.id = id;
    m.severity = severity;
    m.category = category;
    m.text = (char *)text;
    m.index = index;
    return report(dev, &m);
}

static int enabled(Device *dev) {
    int on;
    pthread_mutex_lock(&dev->lock);
    on = dev->enabled;
    pthread_mutex_unlock(&dev->lock);
    return on;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* "<identity>: <text>" in a new string (the identity through the two-call pfnQueryObjectIdentityCb), or NULL */
static char *with_identity(Device *dev, D3D12DDI_HANDLE_AND_TYPE object, const char *text) {
    uint64_t size = 0;
    char *identity, *out;
    if (dev->cb.pfnQueryObjectIdentityCb(dev->hRT, object, &size, NULL) != S_OK || size == 0 || size > 4096) return NULL;
    identity = malloc((size_t)size);
    if (!identity) return NULL;
    if (dev->cb.pfnQueryObjectIdentityCb(dev->hRT, object, &size, identity) != S_OK) {
        free(identity);
        return NULL;
    }
    identity[size - 1] = '\0';
    out = malloc(strlen(identity) + strlen(text) + 3);
    if (out) sprintf(out, "%s: %s", identity, text);
    free(identity);
    return out;
}

/* ---- every report passes here ---------------------------------------------------------------------------------- */

static int is_init(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *m) {
    return m->pDescription && strcmp(m->pDescription, "D3D12 Driver Reported Messages Enabled") == 0;
}

static int same(const Message *a, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *b) {
    return a->id == b->VendorMessageId && a->severity == (int32_t)b->Severity && a->category == (int32_t)b->Category &&
           a->index == b->CommandListStateIndex && b->pDescription && strcmp(a->text, b->pDescription) == 0;
}

#define FLOOD_VENDOR_ID 0x710u /* FLOODS_FROM_THREADS: the statistics its threads report */

static int32_t interposer(D3D12DDI_HRTDEVICE hrt, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pMessage) {
    Extra *x = extra_of_hrt(hrt);
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m;
    char *text = NULL;
    int32_t hr;
    if (!x || !pMessage) return x ? x->report(hrt, pMessage) : (int32_t)E_INVALIDARG;
    m = *pMessage;
    if (is_init(&m)) {
        if (VARIANT_NO_INIT) return S_OK; /* planted: the mandatory message never reported */
        if (VARIANT_INIT_INFO_SEVERITY) m.Severity = D3D12DDI_MESSAGE_SEVERITY_0126_INFO; /* planted: wrong severity */
        return x->report(hrt, &m);
    }
    if (VARIANT_NEVER_ATTRIBUTES) m.CommandListStateIndex = NO_INDEX;
    if (VARIANT_DESCRIPTION_WITHOUT_NUL && m.pDescription) { /* planted: a copy of exactly its length, no NUL */
        size_t n = strlen(m.pDescription);
        char *copy = malloc(n ? n : 1);
        if (!copy) return (int32_t)E_INVALIDARG;
        memcpy(copy, m.pDescription, n);
        text = copy;
        m.pDescription = text;
    }
    if (VARIANT_FRESH_VENDOR_IDS) { /* planted: the same logical message with a new VendorMessageId each report */
        pthread_mutex_lock(&x->lock);
        m.VendorMessageId = 0x5000 + x->next_id++;
        pthread_mutex_unlock(&x->lock);
    }
    if (VARIANT_DEDUPES && m.pDescription) {
        int seen = 0;
        pthread_mutex_lock(&x->lock);
        for (size_t i = 0; i < x->seen.n && !seen; i++) seen = same(&x->seen.items[i], &m);
        if (!seen) {
            Message c = {m.VendorMessageId, (int32_t)m.Severity, (int32_t)m.Category, (char *)m.pDescription,
                         m.CommandListStateIndex};
            push_copy(&x->seen, &c);
        }
        pthread_mutex_unlock(&x->lock);
        if (seen) return S_OK;
    }
    if ((VARIANT_ENRICHES_IDENTITY || VARIANT_DUPLICATES_LIST_IDENTITY) && m.pDescription) {
        D3D12DDI_HANDLE_AND_TYPE object;
        ListExtra *l = NULL;
        memset(&object, 0, sizeof object);
        pthread_mutex_lock(&x->lock);
        if (VARIANT_ENRICHES_IDENTITY) /* "Drivers may enrich pMessage with the API-side object identifier" */
            object = x->last_queue;
        pthread_mutex_unlock(&x->lock);
        if (VARIANT_DUPLICATES_LIST_IDENTITY && m.CommandListStateIndex != NO_INDEX &&
            (l = list_of_index(x->dev, m.CommandListStateIndex)) != NULL && l->list)
            object = l->list->rt; /* planted: repeats the command list identity the runtime's annotation adds */
        if (object.Handle && x->dev) text = with_identity(x->dev, object, m.pDescription);
        if (text) m.pDescription = text;
    }
    if ((VARIANT_VENDOR_TAG || VARIANT_MULTILINE || VARIANT_LONG_DESCRIPTIONS) && m.pDescription) {
        size_t extra = VARIANT_LONG_DESCRIPTIONS ? 100000 : 64;
        char *longer = malloc(strlen(m.pDescription) + extra + 1);
        if (!longer) return (int32_t)E_INVALIDARG;
        sprintf(longer, "%s%s%s", VARIANT_VENDOR_TAG ? "[ACME] " : "", m.pDescription,
                VARIANT_MULTILINE ? "\n    (the second line of a multi-line description)" : "");
        if (VARIANT_LONG_DESCRIPTIONS) {
            size_t at = strlen(longer);
            memset(longer + at, '.', extra - 1);
            longer[at + extra - 1] = '\0';
        }
        free(text);
        text = longer;
        m.pDescription = text;
    }
    hr = x->report(hrt, &m);
    if (VARIANT_FLOODS_FROM_THREADS && m.VendorMessageId != FLOOD_VENDOR_ID) { /* every finding three times */
        x->report(hrt, &m);
        x->report(hrt, &m);
    }
    free(text);
    return hr;
}

/* ---- OWN_THREAD: a reporting thread of the driver's own ---------------------------------------------------------
 * It delivers the oldest captured finding, outside every lock, and removes it only if no flush ran meanwhile: a
 * flush takes everything held (in delivery or not), so nothing is held past a flush; a message both deliver is
 * reported twice, the second a repeat (legal). */
static void *reporting_thread(void *arg) {
    Extra *x = arg;
    Device *dev = x->dev;
    pthread_mutex_lock(&dev->lock);
    while (!x->stop) {
        if (dev->pending.n > 0) {
            unsigned generation = x->generation;
            Message m = copy_message(&dev->pending.items[0]);
            pthread_mutex_unlock(&dev->lock);
            if (m.text) report(dev, &m);
            free(m.text);
            pthread_mutex_lock(&dev->lock);
            if (x->generation == generation && dev->pending.n > 0) {
                free(dev->pending.items[0].text);
                memmove(dev->pending.items, dev->pending.items + 1, --dev->pending.n * sizeof *dev->pending.items);
            }
            continue;
        }
        pthread_cond_wait(&x->work, &dev->lock);
    }
    pthread_mutex_unlock(&dev->lock);
    return NULL;
}

/* ---- OWN_THREAD_DRAINS: a reporting thread that takes each finding as it is captured ------------------------
 * It takes the oldest captured finding out of what the device holds and reports it outside every lock; a flush
 * reports the rest and then waits for the delivery the thread has under way, so that nothing captured before the
 * flush is delivered after it returns. */
static void *draining_thread(void *arg) {
    Extra *x = arg;
    Device *dev = x->dev;
    pthread_mutex_lock(&dev->lock);
    while (!x->stop) {
        if (dev->pending.n > 0) {
            Message m = dev->pending.items[0];
            memmove(dev->pending.items, dev->pending.items + 1, --dev->pending.n * sizeof *dev->pending.items);
            x->delivering = 1;
            pthread_mutex_unlock(&dev->lock);
            report(dev, &m);
            free(m.text);
            pthread_mutex_lock(&dev->lock);
            x->delivering = 0;
            pthread_cond_broadcast(&x->delivered);
            continue;
        }
        pthread_cond_wait(&x->work, &dev->lock);
    }
    pthread_mutex_unlock(&dev->lock);
    return NULL;
}

/* ---- FLOODS_FROM_THREADS: 4 threads of 25 INFO messages each, started and joined by a flush ------------------- */
typedef struct Flood {
    Device *dev;
    int thread;
} Flood;

static void *flood_reporter(void *arg) {
    Flood *f = arg;
    for (int i = 0; i < 25; i++) {
        char text[80];
        snprintf(text, sizeof text, "flush statistics: thread %d, message %d of 25", f->thread + 1, i + 1);
        send(f->dev, FLOOD_VENDOR_ID, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_MISCELLANEOUS,
             text, NO_INDEX);
    }
    return NULL;
}

/* ---- FLUSH_REPORTS_ON_HELPER_THREAD: a flush hands what it holds to a thread and waits for it --------------- */
typedef struct Handoff {
    Device *dev;
    Messages pending;
} Handoff;

static void report_all(Device *dev, Messages *pending, int first_only);

static void *handoff_reporter(void *arg) {
    Handoff *h = arg;
    report_all(h->dev, &h->pending, 0);
    return NULL;
}

/* ---- LATE_DISPATCH_INFO: a detached reporter ------------------------------------------------------------------
 * planted: an INFO about each Dispatch the GPU ran, correlated with its index, handed by the flush to a thread that
 * reports it 30 ms later -- after the flush for its submission (joined at DestroyDevice: no use-after-free). */
typedef struct Late {
    Device *dev;
    Messages messages;
} Late;

static void *late_reporter(void *arg) {
    Late *late = arg;
    sleep_ms(30);
    for (size_t i = 0; i < late->messages.n; i++) report(late->dev, &late->messages.items[i]);
    clear(&late->messages);
    free(late);
    return NULL;
}

/* ---- REPORTS_AFTER_DESTROY: a detached thread that outlives the device ---------------------------------------- */
typedef struct Orphan {
    PFND3D12DDI_REPORTMESSAGE_CB_0126 report;
    D3D12DDI_HRTDEVICE hrt;
} Orphan;

static void *orphan_reporter(void *arg) {
    Orphan *o = arg;
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m;
    sleep_ms(20); /* (a report sooner than the harness can see DestroyDevice return looks made during it) */
    memset(&m, 0, sizeof m);
    m.VendorMessageId = 0x600;
    m.Severity = D3D12DDI_MESSAGE_SEVERITY_0126_INFO;
    m.Category = D3D12DDI_MESSAGE_CATEGORY_0126_CLEANUP;
    m.pDescription = "device released";
    m.CommandListStateIndex = NO_INDEX;
    o->report(o->hrt, &m); /* planted: "pfnReportMessageCb is valid only between device creation and destruction" */
    free(o);
    return NULL;
}

/* ---- the feature's DDIs, wrapped ----------------------------------------------------------------------------- */

static void wait_for_gpu(Extra *x) { /* planted (FLUSH_WAITS_FOR_GPU): up to 2 s, until the GPU ran everything */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    pthread_mutex_lock(&x->lock);
    while (x->in_flight > 0)
        if (pthread_cond_timedwait(&x->cond, &x->lock, &until) != 0) break;
    pthread_mutex_unlock(&x->lock);
}

static void report_all(Device *dev, Messages *pending, int first_only) {
    for (size_t i = 0; i < pending->n && (!first_only || i == 0); i++) {
        ListExtra *l = VARIANT_REPORTS_UNDER_LIST_LOCK ? list_of_index(dev, pending->items[i].index) : NULL;
        if (l) pthread_mutex_lock(&l->lock); /* planted: reporting under the reported list's own lock */
        report(dev, &pending->items[i]);
        if (l) pthread_mutex_unlock(&l->lock);
    }
}

static void flush_variant(D3D12DDI_HDEVICE hDevice) {
    Device *dev = hDevice.pDrvPrivate;
    Extra *x = extra_of(dev);
    Messages pending;
    int floods;
    pthread_mutex_lock(&dev->lock);
    x->had_findings |= dev->pending.n > 0;
    floods = VARIANT_FLOODS_FROM_THREADS && x->had_findings;
    pthread_mutex_unlock(&dev->lock);
    if (VARIANT_CRASH_ON_EMPTY_FLUSH) { /* planted: a flush with nothing to report is not tolerated */
        size_t n;
        pthread_mutex_lock(&dev->lock);
        n = dev->pending.n;
        pthread_mutex_unlock(&dev->lock);
        if (n == 0) raise(SIGSEGV);
    }
    if (VARIANT_FLUSH_WAITS_FOR_GPU) wait_for_gpu(x);
    if (VARIANT_OWN_THREAD) {
        pthread_mutex_lock(&dev->lock);
        x->generation++;
        pthread_mutex_unlock(&dev->lock);
    }
    if (VARIANT_REPORTS_UNDER_DEVICE_LOCK) { /* planted: reports while holding the lock every DDI takes */
        pthread_mutex_lock(&dev->lock);
        pending = dev->pending;
        memset(&dev->pending, 0, sizeof dev->pending);
        report_all(dev, &pending, 0);
        pthread_mutex_unlock(&dev->lock);
        clear(&pending);
    } else if (VARIANT_HOLDS_ONE_FLUSH) { /* planted: each flush reports what the one before held, holds the rest */
        pthread_mutex_lock(&dev->lock);
        pending = x->held;
        x->held = dev->pending;
        memset(&dev->pending, 0, sizeof dev->pending);
        pthread_mutex_unlock(&dev->lock);
        report_all(dev, &pending, 0);
        clear(&pending);
    } else if (VARIANT_FLUSH_REPORTS_ON_HELPER_THREAD) { /* planted (at removal: "on the calling thread") */
        Handoff h;
        pthread_t t;
        h.dev = dev;
        pthread_mutex_lock(&dev->lock);
        h.pending = dev->pending;
        memset(&dev->pending, 0, sizeof dev->pending);
        pthread_mutex_unlock(&dev->lock);
        if (pthread_create(&t, NULL, handoff_reporter, &h) == 0) pthread_join(t, NULL);
        else report_all(dev, &h.pending, 0);
        clear(&h.pending);
    } else if (VARIANT_DROPS_ALL_BUT_FIRST || VARIANT_REPORTS_UNDER_LIST_LOCK) {
        pthread_mutex_lock(&dev->lock);
        pending = dev->pending;
        memset(&dev->pending, 0, sizeof dev->pending);
        pthread_mutex_unlock(&dev->lock);
        report_all(dev, &pending, VARIANT_DROPS_ALL_BUT_FIRST); /* planted (DROPS_ALL_BUT_FIRST): the rest lost */
        clear(&pending);
    } else {
        x->flush(hDevice);
    }
    if (VARIANT_OWN_THREAD_DRAINS) { /* the delivery the thread has under way ends before the flush returns */
        pthread_mutex_lock(&dev->lock);
        while (x->delivering) pthread_cond_wait(&x->delivered, &dev->lock);
        pthread_mutex_unlock(&dev->lock);
    }
    if (floods) {
        Flood floods[4];
        pthread_t threads[4];
        int started[4];
        for (int i = 0; i < 4; i++) {
            floods[i].dev = dev;
            floods[i].thread = i;
            started[i] = pthread_create(&threads[i], NULL, flood_reporter, &floods[i]) == 0;
        }
        for (int i = 0; i < 4; i++)
            if (started[i]) pthread_join(threads[i], NULL);
    }
    if (VARIANT_LATE_DISPATCH_INFO) {
        Late *late = calloc(1, sizeof *late);
        if (late) {
            late->dev = dev;
            pthread_mutex_lock(&x->lock);
            late->messages = x->later;
            memset(&x->later, 0, sizeof x->later);
            if (late->messages.n && x->n_late < 64 && pthread_create(&x->late[x->n_late], NULL, late_reporter, late) == 0)
                x->n_late++;
            else {
                clear(&late->messages);
                free(late);
            }
            pthread_mutex_unlock(&x->lock);
        }
    }
    if (VARIANT_FLOODS)
        for (int i = 0; i < 32; i++) {
            char text[64];
            snprintf(text, sizeof text, "statistics %d of 32: nothing to report", i + 1);
            send(dev, 0x700, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_MISCELLANEOUS, text,
                 NO_INDEX);
        }
    if (VARIANT_NULL_DESCRIPTION) /* planted: pDescription NULL */
        send(dev, 0x701, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, NULL, NO_INDEX);
    if (VARIANT_MADE_UP_INDEX) /* planted: an index the runtime never issued */
        send(dev, 0x702, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, "invented",
             0x7777777u);
    if (VARIANT_UNTERMINATED_DESCRIPTION) { /* planted: a description running into an unmapped page, no NUL */
        static char *end;
        long page = sysconf(_SC_PAGESIZE);
        if (!end) {
            char *map = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (map != MAP_FAILED && mprotect(map + page, (size_t)page, PROT_NONE) == 0) {
                memset(map + page - 32, 'x', 32);
                end = map + page - 32;
            }
        }
        if (end)
            send(dev, 0x703, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, end,
                 NO_INDEX);
    }
}

static void set_index_variant(D3D12DDI_HCOMMANDLIST hCommandList, uint32_t CommandListStateIndex) {
    List *list = hCommandList.pDrvPrivate;
    Extra *x = extra_of(list->dev);
    ListExtra *l = MAPS_INDICES ? list_extra(list) : NULL;
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_lock(&l->lock);
    x->set_index(hCommandList, CommandListStateIndex);
    if (l && l->n_indices < MAX_LIST_INDICES) {
        pthread_mutex_lock(&extras_lock);
        l->indices[l->n_indices++] = CommandListStateIndex;
        pthread_mutex_unlock(&extras_lock);
    }
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_unlock(&l->lock);
    if (VARIANT_DEVICE_WIDE_INDEX_CACHE) { /* planted: one cache for the whole device */
        pthread_mutex_lock(&list->dev->lock);
        x->last_index = CommandListStateIndex;
        pthread_mutex_unlock(&list->dev->lock);
    }
}

/* ---- adapter and device ------------------------------------------------------------------------------------- */

EXPORT uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures,
                                                           uint32_t *pVersions) {
    uint32_t count;
    if (VARIANT_NOT_ADVERTISED_REPORTS) return 0;
    count = reference_GetSupportedExtendedFeatures(Capacity, pFeatures, pVersions);
    if (Capacity >= 1 && VARIANT_FUTURE_VERSION) pVersions[0] = 2;
    if (Capacity >= 1 && VARIANT_VERSION_NONE) pVersions[0] = D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE;
    return count;
}

EXPORT int32_t D3D12WLDriver_CreateDevice(D3D12DDI_HRTDEVICE hRTDevice,
                                          const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *pCallbacks,
                                          D3D12DDI_HDEVICE *phDevice) {
    int32_t hr = reference_CreateDevice(hRTDevice, pCallbacks, phDevice);
    Device *dev;
    Extra *x;
    if (hr != S_OK) return hr;
    dev = phDevice->pDrvPrivate;
    x = calloc(1, sizeof *x);
    if (!x) return (int32_t)E_INVALIDARG;
    x->dev = dev;
    x->hrt = hRTDevice;
    x->report = dev->cb.pfnReportMessageCb;
    dev->cb.pfnReportMessageCb = interposer;
    x->last_index = NO_INDEX;
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->cond, NULL);
    pthread_cond_init(&x->work, NULL);
    pthread_cond_init(&x->delivered, NULL);
    pthread_mutex_lock(&extras_lock);
    x->next = extras;
    extras = x;
    pthread_mutex_unlock(&extras_lock);
    return S_OK;
}

EXPORT int32_t D3D12WLDriver_EnableExtendedFeature(D3D12DDI_HDEVICE hDevice, D3D12DDI_FEATURE_0020 Feature,
                                                   uint32_t Version,
                                                   D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *pTable) {
    Device *dev = hDevice.pDrvPrivate;
    Extra *x = extra_of(dev);
    int32_t hr;
    if (VARIANT_REFUSES_ENABLE) return (int32_t)E_INVALIDARG; /* planted: advertised, yet refused */
    hr = reference_EnableExtendedFeature(hDevice, Feature, Version, pTable);
    if (hr != S_OK) return hr;
    x->flush = pTable->pfnFlushDriverReportedMessages;
    x->set_index = pTable->pfnSetCommandListStateIndex;
    pTable->pfnFlushDriverReportedMessages = flush_variant;
    pTable->pfnSetCommandListStateIndex = set_index_variant;
    if ((VARIANT_OWN_THREAD || VARIANT_OWN_THREAD_DRAINS) &&
        pthread_create(&x->thread, NULL, VARIANT_OWN_THREAD_DRAINS ? draining_thread : reporting_thread, x) == 0)
        x->has_thread = 1;
    return S_OK;
}

EXPORT void D3D12WLDriver_DestroyDevice(D3D12DDI_HDEVICE hDevice) {
    Device *dev = hDevice.pDrvPrivate;
    Extra *x = extra_of(dev);
    if (x->has_thread) {
        pthread_mutex_lock(&dev->lock);
        x->stop = 1;
        pthread_cond_broadcast(&x->work);
        pthread_mutex_unlock(&dev->lock);
        pthread_join(x->thread, NULL);
        x->has_thread = 0;
    }
    for (int i = 0; i < x->n_late; i++) pthread_join(x->late[i], NULL);
    x->n_late = 0;
    if (VARIANT_REPORTS_AFTER_DESTROY) {
        Orphan *o = malloc(sizeof *o);
        pthread_t t;
        if (o) {
            o->report = x->report;
            o->hrt = x->hrt;
            if (pthread_create(&t, NULL, orphan_reporter, o) == 0) pthread_detach(t);
            else free(o);
        }
    }
    pthread_mutex_lock(&extras_lock);
    x->dev = NULL; /* (kept: a late lookup finds nothing) */
    pthread_mutex_unlock(&extras_lock);
    reference_DestroyDevice(hDevice);
}

/* ---- queues and command lists ------------------------------------------------------------------------------- */

EXPORT void *D3D12WLDriver_CreateCommandQueue(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandQueue) {
    return reference_CreateCommandQueue(hDevice, hRTCommandQueue);
}

EXPORT void D3D12WLDriver_DestroyCommandQueue(void *hCommandQueue) {
    reference_DestroyCommandQueue(hCommandQueue);
}

EXPORT int32_t D3D12WLDriver_CreateCommandList(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandList,
                                               D3D12DDI_HCOMMANDLIST *phCommandList) {
    int32_t hr = reference_CreateCommandList(hDevice, hRTCommandList, phCommandList);
    if (hr == S_OK && VARIANT_REPORTS_WHEN_NOT_ENABLED) /* planted: reports whether or not the feature is enabled */
        send(hDevice.pDrvPrivate, 0x400, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
             D3D12DDI_MESSAGE_CATEGORY_0126_STATE_CREATION, "command list created", NO_INDEX);
    return hr;
}

EXPORT void D3D12WLDriver_CommandListWork(D3D12DDI_HCOMMANDLIST hCommandList, const char *pKind,
                                          const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pRecordProbe,
                                          const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pGpuProbe) {
    List *list = hCommandList.pDrvPrivate;
    Device *dev = list->dev;
    Extra *x = extra_of(dev);
    ListExtra *l = VARIANT_REPORTS_UNDER_LIST_LOCK || VARIANT_LATE_DISPATCH_INFO ? list_extra(list) : NULL;
    uint32_t index;
    if (VARIANT_QUIET) pRecordProbe = pGpuProbe = NULL;
    if (VARIANT_DEVICE_WIDE_INDEX_CACHE) { /* planted: the call takes the device's last index, not its list's */
        pthread_mutex_lock(&dev->lock);
        list->index = x->last_index;
        pthread_mutex_unlock(&dev->lock);
    }
    pthread_mutex_lock(&dev->lock);
    index = list->index;
    pthread_mutex_unlock(&dev->lock);
    if (pRecordProbe && VARIANT_DEFERS_RECORDING_FINDINGS) { /* held for the next flush (its index is still live) */
        Message m = from_probe(pRecordProbe, index);
        pthread_mutex_lock(&dev->lock);
        if (dev->enabled) push_copy(&dev->pending, &m);
        pthread_mutex_unlock(&dev->lock);
        pRecordProbe = NULL;
    }
    if (pRecordProbe && VARIANT_RECORD_REPORT_UNDER_DEVICE_LOCK) { /* planted: reported under the device lock */
        Message m = from_probe(pRecordProbe, index);
        pthread_mutex_lock(&dev->lock);
        if (dev->enabled) report(dev, &m);
        pthread_mutex_unlock(&dev->lock);
        pRecordProbe = NULL;
    }
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_lock(&l->lock);
    reference_CommandListWork(hCommandList, pKind, pRecordProbe, pGpuProbe);
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_unlock(&l->lock);
    if (l && VARIANT_LATE_DISPATCH_INFO && strcmp(pKind, "Dispatch") == 0) {
        Message m = {0x800, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION,
                     "dispatch statistics", index};
        pthread_mutex_lock(&x->lock);
        push_copy(&l->dispatches, &m);
        pthread_mutex_unlock(&x->lock);
    }
    if ((VARIANT_REPORTS_AT_RECORDING || VARIANT_FLOODS) && enabled(dev))
        for (int i = 0; i < (VARIANT_FLOODS ? 4 : 1); i++) {
            char text[96];
            snprintf(text, sizeof text, "recorded a %s (%d)", pKind, i + 1);
            send(dev, 0x900, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_STATE_SETTING, text,
                 index);
        }
}

EXPORT void D3D12WLDriver_ResetCommandList(D3D12DDI_HCOMMANDLIST hCommandList) {
    List *list = hCommandList.pDrvPrivate;
    ListExtra *l = VARIANT_REPORTS_UNDER_LIST_LOCK ? list_extra(list) : NULL;
    if (VARIANT_REPORTS_ON_RESET && enabled(list->dev))
        send(list->dev, 0xA00, D3D12DDI_MESSAGE_SEVERITY_0126_INFO, D3D12DDI_MESSAGE_CATEGORY_0126_RESOURCE_MANIPULATION,
             "command list reset", NO_INDEX);
    if (l) pthread_mutex_lock(&l->lock);
    reference_ResetCommandList(hCommandList);
    if (l) pthread_mutex_unlock(&l->lock);
}

EXPORT void D3D12WLDriver_DestroyCommandList(D3D12DDI_HCOMMANDLIST hCommandList) {
    List *list = hCommandList.pDrvPrivate;
    ListExtra *l = VARIANT_REPORTS_UNDER_LIST_LOCK || VARIANT_REPORTS_ON_LIST_DESTROY ? list_extra(list) : NULL;
    if (l && VARIANT_REPORTS_ON_LIST_DESTROY && l->submitted_index != NO_INDEX && enabled(list->dev))
        /* planted: a finding about the list's submitted work, reported after the flush for that submission */
        send(list->dev, 0xB00, D3D12DDI_MESSAGE_SEVERITY_0126_WARNING, D3D12DDI_MESSAGE_CATEGORY_0126_CLEANUP,
             "command list destroyed with submitted work", l->submitted_index);
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_lock(&l->lock);
    forget_list(list);
    if (l && VARIANT_REPORTS_UNDER_LIST_LOCK) pthread_mutex_unlock(&l->lock);
    reference_DestroyCommandList(hCommandList);
}

EXPORT void D3D12WLDriver_ExecuteCommandLists(void *hCommandQueue, uint32_t NumCommandLists,
                                              const D3D12DDI_HCOMMANDLIST *phCommandLists) {
    Queue *queue = hCommandQueue;
    Extra *x = extra_of(queue->dev);
    ListExtra *locked[64];
    uint32_t n_locked = 0;
    for (uint32_t i = 0; i < NumCommandLists; i++) {
        List *list = phCommandLists[i].pDrvPrivate;
        ListExtra *l = VARIANT_REPORTS_UNDER_LIST_LOCK || VARIANT_REPORTS_ON_LIST_DESTROY ? list_extra(list) : NULL;
        if (!l) continue;
        pthread_mutex_lock(&queue->dev->lock);
        if (list->index != NO_INDEX) l->submitted_index = list->index;
        pthread_mutex_unlock(&queue->dev->lock);
        if (VARIANT_REPORTS_UNDER_LIST_LOCK && n_locked < 64) {
            pthread_mutex_lock(&l->lock);
            locked[n_locked++] = l;
        }
    }
    reference_ExecuteCommandLists(hCommandQueue, NumCommandLists, phCommandLists);
    while (n_locked) pthread_mutex_unlock(&locked[--n_locked]->lock);
    if (COUNTS_IN_FLIGHT) {
        pthread_mutex_lock(&x->lock);
        x->in_flight++;
        pthread_mutex_unlock(&x->lock);
    }
}

EXPORT void D3D12WLDriver_GpuExecute(void *hCommandQueue, uint32_t NumCommandLists,
                                     const D3D12DDI_HCOMMANDLIST *phCommandLists) {
    Queue *queue = hCommandQueue;
    Device *dev = queue->dev;
    Extra *x = extra_of(dev);
    size_t before;
    pthread_mutex_lock(&dev->lock);
    before = dev->pending.n;
    pthread_mutex_unlock(&dev->lock);
    reference_GpuExecute(hCommandQueue, NumCommandLists, phCommandLists);
    pthread_mutex_lock(&x->lock);
    x->last_queue = queue->rt;
    pthread_mutex_unlock(&x->lock);
    pthread_mutex_lock(&dev->lock);
    if (VARIANT_READ_RECORDING_AT_GPU_TIME && dev->enabled) {
        /* planted: the GPU reads each list's recording as it is now, not as it was submitted */
        while (dev->pending.n > before) free(dev->pending.items[--dev->pending.n].text);
        for (uint32_t i = 0; i < NumCommandLists; i++) {
            List *list = phCommandLists[i].pDrvPrivate;
            for (size_t j = 0; j < list->recording.n; j++) push_copy(&dev->pending, &list->recording.items[j]);
        }
    }
    pthread_mutex_unlock(&dev->lock);
    if (VARIANT_LATE_DISPATCH_INFO)
        for (uint32_t i = 0; i < NumCommandLists; i++) {
            ListExtra *l = list_extra(phCommandLists[i].pDrvPrivate);
            pthread_mutex_lock(&x->lock);
            for (size_t j = 0; l && j < l->dispatches.n; j++) push_copy(&x->later, &l->dispatches.items[j]);
            if (l) clear(&l->dispatches);
            pthread_mutex_unlock(&x->lock);
        }
    if (COUNTS_IN_FLIGHT) {
        pthread_mutex_lock(&x->lock);
        x->in_flight--;
        pthread_cond_broadcast(&x->cond);
        pthread_mutex_unlock(&x->lock);
    }
    if (VARIANT_OWN_THREAD || VARIANT_OWN_THREAD_DRAINS) {
        pthread_mutex_lock(&dev->lock);
        pthread_cond_broadcast(&x->work);
        pthread_mutex_unlock(&dev->lock);
    }
    if (VARIANT_DELIVERS_AT_COMPLETION && x->flush) { /* at once: "The driver may also call pfnReportMessageCb at
                                                         * any other time" (x->flush: the feature is enabled) */
        D3D12DDI_HDEVICE h;
        h.pDrvPrivate = dev;
        x->flush(h);
    }
}
