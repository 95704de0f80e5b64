/* hostile_driver.c - driver libraries that attack `d3d12wl messages check --driver`, one source, each hostility a
 * define (-DHOSTILE_<NAME>=1, any several at once; HOSTILE_SEED seeds the random ones).  The harness must end every
 * one of them cleanly: exit 0, 1 or 2 with a message, bounded in time and output, no traceback (tests/fuzz,
 * driver_surface.py; tools/fuzz.py --surface driver runs long campaigns).  Built on the C reference driver.
 *
 *   CONSTRUCTOR_CRASH / _EXIT / _LOOP   SIGSEGV, _exit(3) or a loop in the library's constructor (at dlopen)
 *   CONSTRUCTOR_FORK                    (before the three above) the constructor forks a child that lives on for
 *                                       a minute, writing a line to stdout and to stderr every 50 ms (its pid
 *                                       appended to the file the environment's HOSTILE_PIDFILE names, if any)
 *   CONSTRUCTOR_SPEW                    (before the three above) the constructor writes 1 GiB of 'x' to stderr,
 *                                       then 1 MiB to stdout, with no newline
 *   QUERY_CRASH / QUERY_LOOP            SIGSEGV or a loop in pfnGetSupportedExtendedFeatures
 *   QUERY_COUNT                         the feature count 0xFFFFFFFF (the entries written within Capacity)
 *   NULL_TABLE                          EnableExtendedFeature succeeds and leaves its DDI table NULL
 *   EXIT_IN_FLUSH                       _exit(7) in pfnFlushDriverReportedMessages
 *   HANG_IN_FLUSH                       a flush that never returns
 *   HUGE_MESSAGE                        a 64 MiB description (the initialization message's, and one per flush)
 *   BAD_POINTERS                        pMessage 0x8, pDescription 0x10, a wild hRTDevice, in every flush; the
 *                                       identity query with a size at 0x8 and a string buffer at 0x10
 *   RANDOM_FIELDS                       random severity, category, index and VendorMessageId, in every flush
 *   FLOOD                               100,000 reports in every flush
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define D3D12WLDriver_GetSupportedExtendedFeatures reference_GetSupportedExtendedFeatures
#define D3D12WLDriver_EnableExtendedFeature reference_EnableExtendedFeature
#define D3D12WLDriver_GpuExecute reference_GpuExecute
#include "reference_driver.c"
#undef D3D12WLDriver_GetSupportedExtendedFeatures
#undef D3D12WLDriver_EnableExtendedFeature
#undef D3D12WLDriver_GpuExecute

#ifndef HOSTILE_SEED
#define HOSTILE_SEED 1
#endif
#ifndef HOSTILE_CONSTRUCTOR_CRASH
#define HOSTILE_CONSTRUCTOR_CRASH 0
#endif
#ifndef HOSTILE_CONSTRUCTOR_EXIT
#define HOSTILE_CONSTRUCTOR_EXIT 0
#endif
#ifndef HOSTILE_CONSTRUCTOR_LOOP
#define HOSTILE_CONSTRUCTOR_LOOP 0
#endif
#ifndef HOSTILE_CONSTRUCTOR_FORK
#define HOSTILE_CONSTRUCTOR_FORK 0
#endif
#ifndef HOSTILE_CONSTRUCTOR_SPEW
#define HOSTILE_CONSTRUCTOR_SPEW 0
#endif
#ifndef HOSTILE_QUERY_CRASH
#define HOSTILE_QUERY_CRASH 0
#endif
#ifndef HOSTILE_QUERY_LOOP
#define HOSTILE_QUERY_LOOP 0
#endif
#ifndef HOSTILE_QUERY_COUNT
#define HOSTILE_QUERY_COUNT 0
#endif
#ifndef HOSTILE_NULL_TABLE
#define HOSTILE_NULL_TABLE 0
#endif
#ifndef HOSTILE_EXIT_IN_FLUSH
#define HOSTILE_EXIT_IN_FLUSH 0
#endif
#ifndef HOSTILE_HANG_IN_FLUSH
#define HOSTILE_HANG_IN_FLUSH 0
#endif
#ifndef HOSTILE_HUGE_MESSAGE
#define HOSTILE_HUGE_MESSAGE 0
#endif
#ifndef HOSTILE_BAD_POINTERS
#define HOSTILE_BAD_POINTERS 0
#endif
#ifndef HOSTILE_RANDOM_FIELDS
#define HOSTILE_RANDOM_FIELDS 0
#endif
#ifndef HOSTILE_FLOOD
#define HOSTILE_FLOOD 0
#endif

#define HUGE_BYTES (64u << 20)

__attribute__((constructor)) static void hostile_constructor(void) {
    if (HOSTILE_CONSTRUCTOR_FORK && fork() == 0) {
        const char *pidfile = getenv("HOSTILE_PIDFILE");
        if (pidfile) {
            FILE *f = fopen(pidfile, "a");
            if (f) {
                fprintf(f, "%d\n", (int)getpid());
                fclose(f);
            }
        }
        for (int i = 0; i < 1200; i++) {
            (void)!write(1, "hostile child on stdout\n", 24);
            (void)!write(2, "hostile child on stderr\n", 24);
            usleep(50000);
        }
        _exit(0);
    }
    if (HOSTILE_CONSTRUCTOR_SPEW) {
        static char block[1 << 20];
        memset(block, 'x', sizeof block);
        for (int i = 0; i < 1024; i++)
            if (write(2, block, sizeof block) < 0) break;
        (void)!write(1, block, sizeof block);
    }
    if (HOSTILE_CONSTRUCTOR_CRASH) raise(SIGSEGV);
    if (HOSTILE_CONSTRUCTOR_EXIT) _exit(3);
    while (HOSTILE_CONSTRUCTOR_LOOP) pause();
}

static const char *huge_text(void) {
    static char *huge;
    if (!huge && (huge = malloc(HUGE_BYTES)) != NULL) {
        memset(huge, 'x', HUGE_BYTES - 1);
        huge[HUGE_BYTES - 1] = '\0';
    }
    return huge;
}

static uint64_t random_word(void) {
    static uint64_t state = 0x9E3779B97F4A7C15u * (HOSTILE_SEED + 1);
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static PFND3D12DDI_FLUSH_DRIVER_REPORTED_MESSAGES_0126 reference_flush;

static void raw_report(Device *dev, D3D12DDI_HRTDEVICE hrt, uint64_t id, uint32_t severity, uint32_t category,
                       const char *text, uint32_t index) {
    D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 m;
    memset(&m, 0, sizeof m);
    m.VendorMessageId = id;
    m.Severity = (D3D12DDI_MESSAGE_SEVERITY_0126)severity;
    m.Category = (D3D12DDI_MESSAGE_CATEGORY_0126)category;
    m.pDescription = text;
    m.CommandListStateIndex = index;
    dev->cb.pfnReportMessageCb(hrt, &m);
}

static void hostile_flush(D3D12DDI_HDEVICE hDevice) {
    Device *dev = hDevice.pDrvPrivate;
    reference_flush(hDevice);
    if (HOSTILE_EXIT_IN_FLUSH) _exit(7);
    while (HOSTILE_HANG_IN_FLUSH) pause();
    if (HOSTILE_HUGE_MESSAGE && huge_text())
        raw_report(dev, dev->hRT, 0x1001, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION,
                   huge_text(), NO_INDEX);
    if (HOSTILE_BAD_POINTERS) {
        D3D12DDI_HRTDEVICE wild;
        wild.handle = (void *)(uintptr_t)0x12345678u;
        dev->cb.pfnReportMessageCb(dev->hRT, (const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *)(uintptr_t)8);
        raw_report(dev, dev->hRT, 0x1002, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION,
                   (const char *)(uintptr_t)16, NO_INDEX);
        raw_report(dev, wild, 0x1003, D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION,
                   "a wild hRTDevice", NO_INDEX);
    }
    for (int i = 0; HOSTILE_RANDOM_FIELDS && i < 8; i++)
        raw_report(dev, dev->hRT, random_word(), (uint32_t)random_word(), (uint32_t)random_word() % 16u,
                   "random fields", (uint32_t)random_word());
    for (int i = 0; HOSTILE_FLOOD && i < 100000; i++)
        raw_report(dev, dev->hRT, 0x1004, D3D12DDI_MESSAGE_SEVERITY_0126_INFO,
                   D3D12DDI_MESSAGE_CATEGORY_0126_MISCELLANEOUS, "flood", NO_INDEX);
}

EXPORT uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures,
                                                           uint32_t *pVersions) {
    uint32_t count;
    if (HOSTILE_QUERY_CRASH) raise(SIGSEGV);
    while (HOSTILE_QUERY_LOOP) pause();
    count = reference_GetSupportedExtendedFeatures(Capacity, pFeatures, pVersions);
    return HOSTILE_QUERY_COUNT ? 0xFFFFFFFFu : count;
}

EXPORT int32_t D3D12WLDriver_EnableExtendedFeature(D3D12DDI_HDEVICE hDevice, D3D12DDI_FEATURE_0020 Feature,
                                                   uint32_t Version,
                                                   D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *pTable) {
    Device *dev = hDevice.pDrvPrivate;
    int32_t hr;
    if (HOSTILE_NULL_TABLE) return S_OK;
    if (HOSTILE_HUGE_MESSAGE) { /* the initialization message 64 MiB long */
        pTable->pfnFlushDriverReportedMessages = hostile_flush;
        pTable->pfnSetCommandListStateIndex = set_command_list_state_index;
        reference_flush = flush_driver_reported_messages;
        dev->enabled = 1;
        if (huge_text())
            raw_report(dev, dev->hRT, 1, D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE,
                       D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION, huge_text(), NO_INDEX);
        return S_OK;
    }
    hr = reference_EnableExtendedFeature(hDevice, Feature, Version, pTable);
    if (hr == S_OK) {
        reference_flush = pTable->pfnFlushDriverReportedMessages;
        pTable->pfnFlushDriverReportedMessages = hostile_flush;
    }
    return hr;
}

EXPORT void D3D12WLDriver_GpuExecute(void *hCommandQueue, uint32_t NumCommandLists,
                                     const D3D12DDI_HCOMMANDLIST *phCommandLists) {
    Queue *queue = hCommandQueue;
    reference_GpuExecute(hCommandQueue, NumCommandLists, phCommandLists);
    if (HOSTILE_BAD_POINTERS) {
        uint64_t size = 4096;
        queue->dev->cb.pfnQueryObjectIdentityCb(queue->dev->hRT, queue->rt, (uint64_t *)(uintptr_t)8, NULL);
        queue->dev->cb.pfnQueryObjectIdentityCb(queue->dev->hRT, queue->rt, &size, (char *)(uintptr_t)16);
    }
}
