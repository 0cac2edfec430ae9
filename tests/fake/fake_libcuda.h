/* fake_libcuda: what fake_launch.c (cuLaunchKernel) takes from fake_libcuda.c (see there): the
 * simulated device's state, which launches, copies, events and syncs share. */
#ifndef CUTUNE_FAKE_LIBCUDA_H
#define CUTUNE_FAKE_LIBCUDA_H

/* hidden: the library exports only the driver's (and cuBLAS's) entry points */
#pragma GCC visibility push(hidden)
extern double clk;                    /* simulated device time, ms: what events read */
extern int dirty;                     /* inputs or outputs changed since the last emulated test kernel */
extern int sticky;                    /* the context is dead (copy_fault): every later call fails */
extern int spin;                      /* a kernel hangs (copy_spin): every sync waits forever */
extern unsigned char c_add[64 << 10]; /* every module's __constant__ / __device__ table (cuModuleGetGlobal) */
double rnd(void);                     /* seeded, uniform in [0, 1): the timing noise */
#pragma GCC visibility pop

#endif
