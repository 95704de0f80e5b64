/* d3d12wl_conformance_ddi.h - the entry points a driver library exports so that `d3d12wl messages check --driver
 * LIB.so` can drive it through the conformance workload (d3d12wl.messages.c_driver loads it with cffi).
 *
 * Everything the spec (seed 003, v0.3) declares comes from the compiled headers, unchanged: the callback table the
 * driver is handed (D3D12DDI_CORELAYER_DEVICECALLBACKS_0126), the table it fills when the feature is enabled
 * (D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126), the message it reports and the handles.  What the spec
 * leaves to the pre-existing DDI (adapter open, device/queue/command-list creation, recording, submission, and the
 * GPU running the work) is this file: d3d12wl's own, provisional stand-ins, one function per step of the workload.
 * A real driver maps each onto its own entry point in a thin shim (docs/messages.md, "Checking a driver library").
 *
 * Include after the compiled headers (d3d12wl.messages.c_driver.write_headers writes d3d12wl_driver.h, which
 * includes all of them in order).  Written in the C subset cffi's cdef accepts: no #include, no #ifdef.
 */

/* pfnGetSupportedExtendedFeatures: write up to Capacity (feature, highest version) pairs; return how many the
 * driver supports (Capacity 0, with NULL arrays, asks for the count only; the runtime asks again with room for
 * all when the count exceeds Capacity).  A driver with the feature lists D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES. */
uint32_t D3D12WLDriver_GetSupportedExtendedFeatures(uint32_t Capacity, D3D12DDI_FEATURE_0020 *pFeatures,
                                                    uint32_t *pVersions);

/* pfnCreateDevice: the runtime's device handle and the core-layer callbacks (the driver copies the table; the
 * callbacks stay valid until D3D12WLDriver_DestroyDevice returns).  Fills *phDevice; returns S_OK or a failure. */
int32_t D3D12WLDriver_CreateDevice(D3D12DDI_HRTDEVICE hRTDevice,
                                   const D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 *pCallbacks,
                                   D3D12DDI_HDEVICE *phDevice);

/* pfnEnableExtendedFeature: enable Feature at Version and fill its DDI table (the table of
 * D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES).  S_OK: enabled; a failure: refused (the channel stays off).
 * The mandatory initialization message is reported from inside this call. */
int32_t D3D12WLDriver_EnableExtendedFeature(D3D12DDI_HDEVICE hDevice, D3D12DDI_FEATURE_0020 Feature,
                                            uint32_t Version,
                                            D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 *pTable);

void D3D12WLDriver_DestroyDevice(D3D12DDI_HDEVICE hDevice);

/* Command queues: the driver returns its own handle (NULL: creation failed). */
void *D3D12WLDriver_CreateCommandQueue(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandQueue);
void D3D12WLDriver_DestroyCommandQueue(void *hCommandQueue);

/* Command lists: fills *phCommandList; returns S_OK or a failure. */
int32_t D3D12WLDriver_CreateCommandList(D3D12DDI_HDEVICE hDevice, D3D12DDI_HANDLE_AND_TYPE hRTCommandList,
                                        D3D12DDI_HCOMMANDLIST *phCommandList);

/* A GPU-work generating call (pKind: "Draw", "DrawIndexed", "Dispatch", "ExecuteIndirect", "DispatchList", ...),
 * made right after pfnSetCommandListStateIndex.  The conformance workload's probes: pRecordProbe (may be NULL) is a
 * finding to report while recording this call, pGpuProbe (may be NULL) one to capture when the GPU runs it.  Their
 * CommandListStateIndex is 0xFFFFFFFF: attributing them is the driver's job.  A driver that ignores the probes
 * still conforms; the checks that need a finding then say they could not decide. */
void D3D12WLDriver_CommandListWork(D3D12DDI_HCOMMANDLIST hCommandList, const char *pKind,
                                   const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pRecordProbe,
                                   const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *pGpuProbe);
void D3D12WLDriver_ResetCommandList(D3D12DDI_HCOMMANDLIST hCommandList);
void D3D12WLDriver_DestroyCommandList(D3D12DDI_HCOMMANDLIST hCommandList);

/* ExecuteCommandLists, and the model GPU: D3D12WLDriver_GpuExecute says the GPU has run the queue's oldest
 * submission not yet run (phCommandLists are its lists, in order). */
void D3D12WLDriver_ExecuteCommandLists(void *hCommandQueue, uint32_t NumCommandLists,
                                       const D3D12DDI_HCOMMANDLIST *phCommandLists);
void D3D12WLDriver_GpuExecute(void *hCommandQueue, uint32_t NumCommandLists,
                              const D3D12DDI_HCOMMANDLIST *phCommandLists);
