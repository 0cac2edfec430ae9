/* cuda_api: the CUDA Driver API and NVML, loaded at run time with dlopen so that cutune starts
 * (and its tests run) where no driver exists. Only the GPU worker uses this unit; cuda_api.c and
 * the GPU worker (gpu_worker.c, gpu_worker_measure.c, gpu_worker_int.h) are the only files that
 * include cuda.h.
 *
 * cuda_api_load returns one process-wide table of Driver API entry points. Each field is named
 * as in cuda.h, so `cu->cuMemAlloc(...)` expands through cuda.h's own macros to the versioned
 * symbol (cuMemAlloc_v2) the header's prototype describes, and that is the symbol resolved.
 *
 * NVML is optional: nvml_open returns NULL when libnvidia-ml.so.1 or the device is not found,
 * and every nvml_* reader then reports "unknown" (NAN / -1). The nvml handle is owned by the
 * caller (nvml_close). */
#ifndef CUTUNE_CUDA_API_H
#define CUTUNE_CUDA_API_H

#include <cuda.h>
#include <stdint.h>

#include "base/util.h"

/* clang-format off: an X-macro list, one entry a line */
#define CUDA_API_FUNCS(X)                                                                                              \
  X(cuInit)                                                                                                            \
  X(cuDriverGetVersion)                                                                                                \
  X(cuGetErrorName)                                                                                                    \
  X(cuGetErrorString)                                                                                                  \
  X(cuDeviceGetCount)                                                                                                  \
  X(cuDeviceGet)                                                                                                       \
  X(cuDeviceGetName)                                                                                                   \
  X(cuDeviceGetUuid)                                                                                                   \
  X(cuDeviceGetAttribute)                                                                                              \
  X(cuDeviceTotalMem)                                                                                                  \
  X(cuDeviceGetPCIBusId)                                                                                               \
  X(cuDevicePrimaryCtxRetain)                                                                                          \
  X(cuDevicePrimaryCtxSetFlags)                                                                                        \
  X(cuDevicePrimaryCtxRelease)                                                                                         \
  X(cuCtxSetCurrent)                                                                                                   \
  X(cuCtxSynchronize)                                                                                                  \
  X(cuMemAlloc)                                                                                                        \
  X(cuMemFree)                                                                                                         \
  X(cuMemAllocHost)                                                                                                    \
  X(cuMemFreeHost)                                                                                                     \
  X(cuMemcpyHtoD)                                                                                                      \
  X(cuMemcpyDtoH)                                                                                                      \
  X(cuMemcpyDtoD)                                                                                                      \
  X(cuMemcpyDtoDAsync)                                                                                                 \
  X(cuMemsetD8Async)                                                                                                   \
  X(cuMemsetD32Async)                                                                                                  \
  X(cuModuleLoadData)                                                                                                  \
  X(cuModuleUnload)                                                                                                    \
  X(cuModuleGetFunction)                                                                                               \
  X(cuModuleGetGlobal)                                                                                                 \
  X(cuFuncGetAttribute)                                                                                                \
  X(cuFuncSetAttribute)                                                                                                \
  X(cuLaunchKernel)                                                                                                    \
  X(cuStreamCreate)                                                                                                    \
  X(cuStreamDestroy)                                                                                                   \
  X(cuStreamSynchronize)                                                                                               \
  X(cuEventCreate)                                                                                                     \
  X(cuEventRecord)                                                                                                     \
  X(cuEventSynchronize)                                                                                                \
  X(cuEventElapsedTime)                                                                                                \
  X(cuEventDestroy)                                                                                                    \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)
/* clang-format on */

#define CUDA_API_FIELD(name) __typeof__(&name) name;
typedef struct cuda_api {
  CUDA_API_FUNCS(CUDA_API_FIELD)
  /* optional (NULL where the driver lacks it: before CUDA 12): ct.tensormap arguments */
  __typeof__(&cuTensorMapEncodeTiled) cuTensorMapEncodeTiled;
} cuda_api;
#undef CUDA_API_FIELD

/* The table, loaded on first use. NULL with err "no CUDA driver: libcuda.so.1 not found (...)"
 * (code CTERR_NO_DEVICE) when the library is missing, or naming the first entry point the
 * driver lacks. */
const cuda_api *cuda_api_load(cterr *err);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"; static storage,
 * valid until the next call. Works before/without a loaded table (then prints the number). */
const char *cuda_errstr(CUresult r);

/* NVML, optional. */
typedef struct nvml_dev nvml_dev;
typedef struct nvml_sample {
  double sm_mhz, mem_mhz; /* NAN if unknown */
  int64_t reasons;        /* clocks event (throttle) reasons bitmask, -1 if unknown */
  double temp_c;          /* NAN if unknown */
} nvml_sample;

/* uuid as "GPU-xxxxxxxx-...", pci_bus as "0000:19:00.0"; either may be NULL. NULL when NVML
 * or the device is not there (never an error: the measurements just lack these figures). */
nvml_dev *nvml_open(const char *uuid, const char *pci_bus);
void nvml_close(nvml_dev *d);
void nvml_read(nvml_dev *d, nvml_sample *out);
/* Total energy consumed by the board since the driver loaded, mJ; -1 if unknown. */
int64_t nvml_energy_mj(nvml_dev *d);

#endif
