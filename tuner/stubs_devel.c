/* stubs_devel: weak stand-ins for units still being written, so the tree links while they
 * are brought up in parallel. A real definition anywhere replaces each. Removed once every
 * unit exists. */
#include <stdio.h>

#include "compile.h"
#include "gpu.h"

__attribute__((weak)) int gpu_worker_main(int argc, char **argv) { fputs("gpu worker not built\n", stderr); return 2; }
