/* The C reference driver built against a "real" callback table: the members the spec elides ("// ... existing
 * fields ...") are present, so pfnReportMessageCb and pfnQueryObjectIdentityCb sit at offsets 64 and 72 of an
 * 88-byte table, not where the compiled headers put them.  Run with
 * --callback-offset pfnReportMessageCb=64 --callback-offset pfnQueryObjectIdentityCb=72 --callback-table-size 88. */
#include <stdint.h>
#include "d3d12wl_driver.h"

typedef struct REAL_CORELAYER_DEVICECALLBACKS_0126 {
    PFND3D12DDI_SETERROR_CB pfnSetErrorCb;
    PFND3D12DDI_SETCOMMANDLISTERROR_CB pfnSetCommandListErrorCb;
    void *pfnExistingCallbacks[6];
    PFND3D12DDI_REPORTMESSAGE_CB_0126 pfnReportMessageCb;
    PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126 pfnQueryObjectIdentityCb;
    void *pfnLaterCallback;
} REAL_CORELAYER_DEVICECALLBACKS_0126;

_Static_assert(offsetof(REAL_CORELAYER_DEVICECALLBACKS_0126, pfnReportMessageCb) == 64, "real layout");
_Static_assert(sizeof(REAL_CORELAYER_DEVICECALLBACKS_0126) == 88, "real layout");

#define D3D12WL_COPY_CALLBACKS(dst, src)                                                                     \
    do {                                                                                                     \
        const REAL_CORELAYER_DEVICECALLBACKS_0126 *real = (const REAL_CORELAYER_DEVICECALLBACKS_0126 *)(src); \
        (dst)->pfnSetErrorCb = real->pfnSetErrorCb;                                                          \
        (dst)->pfnSetCommandListErrorCb = real->pfnSetCommandListErrorCb;                                    \
        (dst)->pfnReportMessageCb = real->pfnReportMessageCb;                                                \
        (dst)->pfnQueryObjectIdentityCb = real->pfnQueryObjectIdentityCb;                                    \
    } while (0)

#include "reference_driver.c"
