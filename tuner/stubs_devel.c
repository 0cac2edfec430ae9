/* stubs_devel: weak stand-ins for units still being written, so the tree links while they
 * are brought up in parallel. A real definition anywhere replaces each. Removed once every
 * unit exists. */
#include <stdio.h>

#include "compile.h"
#include "gpu.h"

__attribute__((weak)) int compile_worker_main(void) { fputs("compile worker not built\n", stderr); return 2; }
__attribute__((weak)) const char *compile_nvrtc_version(void) { return "?"; }
