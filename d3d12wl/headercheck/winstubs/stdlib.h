/* d3d12wl stub for the Windows-target header check: declarations only. */
#pragma once
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
void *malloc(size_t n);
void free(void *p);
void abort(void);
#ifdef __cplusplus
}
#endif
