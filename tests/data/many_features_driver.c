/* The C reference driver advertising 80 extended features, driver-reported messages the 70th: a runtime that asks
 * for at most 64 entries and does not ask again with the count returned loses the feature (and skips every check). */
#define D3D12WLDriver_GetSupportedExtendedFeatures D3D12WLDriver_GetSupportedExtendedFeatures_one
#include "reference_driver.c"
#undef D3D12WLDriver_GetSupportedExtendedFeatures

EXPORT uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures,
                                                           uint32_t *pVersions) {
    (void)D3D12WLDriver_GetSupportedExtendedFeatures_one;
    for (uint32_t i = 0; i < 80 && i < Capacity; ++i) {
        pFeatures[i] = (D3D12DDI_FEATURE_0020)(i == 69 ? D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES : 1000 + i);
        pVersions[i] = i == 69 ? D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0 : 1;
    }
    return 80;
}
