/* The C reference driver with the attribution bug of issue 19 planted (the corpus's READ_RECORDING_AT_GPU_TIME):
 * when the GPU runs a submission it reads each command list's recording as it is *now*, so a resubmission that runs
 * after a Reset reports the new recording's calls.  `d3d12wl messages check --driver` must fail exactly
 * attribution_across_reset on it. */
#define VARIANT_READ_RECORDING_AT_GPU_TIME 1
#include "driver_corpus.c"
