/* reference_driver.c - a driver library that implements driver-reported messages (seed 003, v0.3) and passes every
 * check of `d3d12wl messages check --driver`.  The C twin of d3d12wl.messages.reference_driver, written as a
 * template a driver team can read against the spec:
 *
 *   - advertises D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES at version _0;
 *   - reports exactly one initialization message from inside EnableExtendedFeature;
 *   - caches the most recent CommandListStateIndex per command list and stamps it on messages about that list's
 *     work; ExecuteCommandLists snapshots the recorded work, so the GPU runs (and attributes) what was submitted
 *     even when the list is Reset before it runs;
 *   - reports recording-time findings at once, GPU-timeline findings from the next flush, never under its lock;
 *     tolerates empty flushes; reports nothing once the device is destroyed.
 *
 * Build: d3d12wl.messages.c_driver.build_driver(source, out) (gcc -shared -fPIC against the compiled headers).
 * tests/data/driver_corpus.c wraps this file's entry points into the suite's corpus of correct-but-unusual drivers
 * and drivers with one planted bug each (docs/messages.md, "The corpus").
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "d3d12wl_driver.h"

/* How the driver takes the callbacks out of the table it is handed: the compiled headers' struct by default.  A
 * driver built against a real table (with the members the spec elides) reads its own struct instead, and the
 * harness is told the offsets (--callback-offset; tests/data/real_layout_driver.c). */
#ifndef D3D12WL_COPY_CALLBACKS
#define D3D12WL_COPY_CALLBACKS(dst, src) (*(dst) = *(src))
#endif

#define EXPORT __attribute__((visibility("default")))
#define INIT_VENDOR_MESSAGE_ID 0x1u
#define NO_INDEX ((uint32_t)D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126)

typedef struct Message {
    uint64_t id;
    int32_t severity, category;
    char *text;
    uint32_t index;
} Message;

typedef struct Messages {
    Message *items;
    size_t n, cap;
} Messages;

typedef struct Device {
    D3D12DDI_HRTDEVICE hRT;
    D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 cb;
    int enabled;
    pthread_mutex_t lock; /* the driver's own lock: never held while reporting */
    Messages pending;     /* GPU-timeline findings captured, reported by the next flush */
} Device;

typedef struct List {
    Device *dev;
    D3D12DDI_HANDLE_AND_TYPE rt; /* the runtime's handle: names the list through pfnQueryObjectIdentityCb */
    uint32_t index; /* the most recent CommandListStateIndex */
    Messages recording; /* GPU probes recorded, each with the index of its own call */
} List;

typedef struct Snapshot {
    Messages work;
    struct Snapshot *next;
} Snapshot;

typedef struct Queue {
    Device *dev;
    D3D12DDI_HANDLE_AND_TYPE rt; /* the runtime's handle: names the queue through pfnQueryObjectIdentityCb */
    Snapshot *head, *tail; /* submitted, not yet run by the GPU, oldest first */
} Queue;

static int push(Messages *v, Message m) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 8;
        Message *items = realloc(v->items, cap * sizeof *items);
        if (!items) return 0;
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = m;
    return 1;
}

static Message copy_message(const Message *m) {
    Message c = *m;
    c.text = strdup(m->text ? m->text : ""); /* NULL when out of memory: push_copy drops such a copy */
    return c;
}

/* Push a copy of *m (its own text): 0, and nothing held, when strdup or the growth of v fails. */
static int push_copy(Messages *v, const Message *m) {
    Message c = copy_message(m);
    if (!c.text) return 0;
    if (!push(v, c)) {
        free(c.text);
        return 0;
    }
    return 1;
}

static void clear(Messages *v) {
    for (size_t i = 0; i < v->n; i++) free(v->items[i].text);
    free(v->items);
    v->items = NULL;
    v->n = v->cap = 0;
}

static int32_t report(Device *dev, const Message *m) {
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 msg;
    memset(&msg, 0, sizeof msg);
    msg.VendorMessageId = m->id;
    msg.Severity = (D3D12DDI_MESSAGE_SEVERITY_0126)m->severity;
    msg.Category = (D3D12DDI_MESSAGE_CATEGORY_0126)m->category;
    msg.pDescription = m->text;
    msg.CommandListStateIndex = m->index;
    return dev->cb.pfnReportMessageCb(dev->hRT, &msg);
}

/* The probe as a message with the index of its call; its text is the probe's (not copied). */
static Message from_probe(const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *p, uint32_t index) {
    Message m;
    m.id = p->VendorMessageId;
    m.severity = (int32_t)p->Severity;
    m.category = (int32_t)p->Category;
    m.text = (char *)(p->pDescription ? p->pDescription : "");
    m.index = index;
    return m;
}

/* ---- the feature's DDI table ------------------------------------------------------------------------------ */

static void flush_driver_reported_messages(D3D12DDI_HDEVICE hDevice) {
    Device *dev = hDevice.pDrvPrivate;
    Messages pending;
    pthread_mutex_lock(&dev->lock);
    pending = dev->pending;
    memset(&dev->pending, 0, sizeof dev->pending);
    pthread_mutex_unlock(&dev->lock);
    /* "report everything you currently hold", outside the driver lock; an empty flush reports nothing */
    for (size_t i = 0; i < pending.n; i++) report(dev, &pending.items[i]);
    clear(&pending);
}

static void set_command_list_state_index(D3D12DDI_HCOMMANDLIST hCommandList, uint32_t CommandListStateIndex) {
    List *list = hCommandList.pDrvPrivate;
    pthread_mutex_lock(&list->dev->lock);
    list->index = CommandListStateIndex;
    pthread_mutex_unlock(&list->dev->lock);
}

/* ---- adapter and device ----------------------------------------------------------------------------------- */

EXPORT uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures,
                                                           uint32_t *pVersions) {
    if (Capacity >= 1) {
        pFeatures[0] = D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES;
        pVersions[0] = D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0;
    }
    return 1;
}

EXPORT int32_t D3D12WLDriver_CreateDevice(D3D12DDI_HRTDEVICE hRTDevice,
                                          const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *pCallbacks,
                                          D3D12DDI_HDEVICE *phDevice) {
    Device *dev = calloc(1, sizeof *dev);
    if (!dev || !pCallbacks || !phDevice) {
        free(dev);
        return (int32_t)E_INVALIDARG;
    }
    dev->hRT = hRTDevice;
    D3D12WL_COPY_CALLBACKS(&dev->cb, pCallbacks);
    pthread_mutex_init(&dev->lock, NULL);
    phDevice->pDrvPrivate = dev;
    return S_OK;
}

EXPORT int32_t D3D12WLDriver_EnableExtendedFeature(D3D12DDI_HDEVICE hDevice, D3D12DDI_FEATURE_0020 Feature,
                                                   uint32_t Version,
                                                   D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *pTable) {
    Device *dev = hDevice.pDrvPrivate;
    Message init;
    if (Feature != D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES ||
        Version != D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 || !pTable) /* only _0 is implemented */
        return (int32_t)E_INVALIDARG;
    pTable->pfnFlushDriverReportedMessages = flush_driver_reported_messages;
    pTable->pfnSetCommandListStateIndex = set_command_list_state_index;
    pthread_mutex_lock(&dev->lock);
    dev->enabled = 1;
    pthread_mutex_unlock(&dev->lock);
    /* exactly one message, before EnableExtendedFeature returns: MESSAGE, INITIALIZATION, no correlation */
    init.id = INIT_VENDOR_MESSAGE_ID;
    init.severity = D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE;
    init.category = D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION;
    init.text = "D3D12 Driver Reported Messages Enabled";
    init.index = NO_INDEX;
    report(dev, &init);
    return S_OK;
}

EXPORT void D3D12WLDriver_DestroyDevice(D3D12DDI_HDEVICE hDevice) {
    Device *dev = hDevice.pDrvPrivate;
    pthread_mutex_lock(&dev->lock);
    dev->enabled = 0;
    clear(&dev->pending);
    pthread_mutex_unlock(&dev->lock);
    pthread_mutex_destroy(&dev->lock);
    free(dev);
}

/* ---- queues and command lists ----------------------------------------------------------------------------- */

EXPORT void *D3D12WLDriver_CreateCommandQueue(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandQueue) {
    Queue *queue = calloc(1, sizeof *queue);
    if (queue) {
        queue->dev = hDevice.pDrvPrivate;
        queue->rt = hRTCommandQueue;
    }
    return queue;
}

static void free_snapshot(Snapshot *s) {
    clear(&s->work);
    free(s);
}

EXPORT void D3D12WLDriver_DestroyCommandQueue(void *hCommandQueue) {
    Queue *queue = hCommandQueue;
    while (queue->head) {
        Snapshot *next = queue->head->next;
        free_snapshot(queue->head);
        queue->head = next;
    }
    free(queue);
}

EXPORT int32_t D3D12WLDriver_CreateCommandList(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandList,
                                               D3D12DDI_HCOMMANDLIST *phCommandList) {
    List *list = calloc(1, sizeof *list);
    if (!list || !phCommandList) {
        free(list);
        return (int32_t)E_INVALIDARG;
    }
    list->dev = hDevice.pDrvPrivate;
    list->rt = hRTCommandList;
    list->index = NO_INDEX;
    phCommandList->pDrvPrivate = list;
    return S_OK;
}

EXPORT void D3D12WLDriver_CommandListWork(D3D12DDI_HCOMMANDLIST hCommandList, const char *pKind,
                                          const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pRecordProbe,
                                          const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pGpuProbe) {
    List *list = hCommandList.pDrvPrivate;
    Device *dev = list->dev;
    uint32_t index;
    int enabled;
    (void)pKind;
    pthread_mutex_lock(&dev->lock);
    index = list->index; /* the index the runtime gave just before this call */
    enabled = dev->enabled;
    if (pGpuProbe) {
        Message m = from_probe(pGpuProbe, index);
        push_copy(&list->recording, &m); /* out of memory: the finding is dropped, never held half-made */
    }
    pthread_mutex_unlock(&dev->lock);
    if (pRecordProbe && enabled) { /* a recording-time finding: reported at once, outside the lock */
        Message m = from_probe(pRecordProbe, index);
        report(dev, &m);
    }
}

static void reset_list(List *list) {
    pthread_mutex_lock(&list->dev->lock);
    clear(&list->recording);
    list->index = NO_INDEX;
    pthread_mutex_unlock(&list->dev->lock);
}

EXPORT void D3D12WLDriver_ResetCommandList(D3D12DDI_HCOMMANDLIST hCommandList) {
    reset_list(hCommandList.pDrvPrivate);
}

EXPORT void D3D12WLDriver_DestroyCommandList(D3D12DDI_HCOMMANDLIST hCommandList) {
    List *list = hCommandList.pDrvPrivate;
    reset_list(list);
    free(list);
}

EXPORT void D3D12WLDriver_ExecuteCommandLists(void *hCommandQueue, uint32_t NumCommandLists,
                                              const D3D12DDI_HCOMMANDLIST *phCommandLists) {
    Queue *queue = hCommandQueue;
    Snapshot *s = calloc(1, sizeof *s);
    if (!s) return;
    pthread_mutex_lock(&queue->dev->lock);
    /* the submission owns a copy of what was recorded: a later Reset does not change what the GPU runs */
    for (uint32_t i = 0; i < NumCommandLists; i++) {
        List *list = phCommandLists[i].pDrvPrivate;
        for (size_t j = 0; j < list->recording.n; j++) push_copy(&s->work, &list->recording.items[j]);
    }
    if (queue->tail) queue->tail->next = s;
    else queue->head = s;
    queue->tail = s;
    pthread_mutex_unlock(&queue->dev->lock);
}

EXPORT void D3D12WLDriver_GpuExecute(void *hCommandQueue, uint32_t NumCommandLists,
                                     const D3D12DDI_HCOMMANDLIST *phCommandLists) {
    Queue *queue = hCommandQueue;
    Device *dev = queue->dev;
    Snapshot *s;
    pthread_mutex_lock(&dev->lock);
    s = queue->head;
    if (s) {
        queue->head = s->next;
        if (!queue->head) queue->tail = NULL;
    }
    (void)NumCommandLists;
    (void)phCommandLists;
    if (dev->enabled && s) /* the submission's own copy of what was recorded, with each call's index */
        for (size_t j = 0; j < s->work.n; j++) push_copy(&dev->pending, &s->work.items[j]);
    pthread_mutex_unlock(&dev->lock);
    if (s) free_snapshot(s);
}
