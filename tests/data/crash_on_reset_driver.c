/* The C reference driver, except that ResetCommandList crashes the process (SIGSEGV): with each check in its own
 * process, the checks whose workload resets a list fail naming the signal and the others still pass. */
#include <signal.h>

#define D3D12WLDriver_ResetCommandList reference_ResetCommandList_replaced
#include "reference_driver.c"
#undef D3D12WLDriver_ResetCommandList

EXPORT void D3D12WLDriver_ResetCommandList(D3D12DDI_HCOMMANDLIST hCommandList) {
    (void)hCommandList;
    raise(SIGSEGV);
}
