/* A library that exports only one entry point of d3d12wl_conformance_ddi.h: unusable input (exit 2). */
#include <stdint.h>
#include "d3d12wl_driver.h"

__attribute__((visibility("default"))) uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(
    uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures, uint32_t *pVersions) {
    (void)Capacity;
    (void)pFeatures;
    (void)pVersions;
    return 0;
}
