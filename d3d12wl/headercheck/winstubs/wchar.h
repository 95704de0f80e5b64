/* d3d12wl stub for the Windows-target header check: declarations only. */
#pragma once
#include <stddef.h>
