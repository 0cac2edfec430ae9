/* cuda_api: dlopen'd Driver API table and optional NVML readers (see cuda_api.h). */
#include "cuda_api.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x) /* expands cuda.h's renaming macros first: "cuMemAlloc_v2" */

static cuda_api api;
static int api_state; /* 0 not tried, 1 loaded, -1 failed */
static char api_error[512];
static int api_code; /* CTERR_NO_DEVICE where there is no driver at all; CTERR_OTHER where it is too old */

const cuda_api *cuda_api_load(cterr *err) {
  if (api_state == 0) {
    api_state = -1;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *why = dlerror();
      snprintf(api_error, sizeof api_error, "no CUDA driver: libcuda.so.1 not found (%s)", why ? why : "dlopen failed");
      api_code = CTERR_NO_DEVICE;
    } else {
      int ok = 1;
#define CUDA_API_RESOLVE(name)                                                                                         \
  if (ok) {                                                                                                            \
    void *p = dlsym(h, STR(name));                                                                                     \
    if (!p) {                                                                                                          \
      snprintf(api_error, sizeof api_error,                                                                            \
               "CUDA driver too old: libcuda.so.1 lacks %s (cutune is built against CUDA %d.%d)", STR(name),           \
               CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);                                                         \
      ok = 0;                                                                                                          \
    } else {                                                                                                           \
      memcpy(&api.name, &p, sizeof p); /* object to function pointer without a cast warning */                         \
    }                                                                                                                  \
  }
      CUDA_API_FUNCS(CUDA_API_RESOLVE)
#undef CUDA_API_RESOLVE
      void *enc = dlsym(h, "cuTensorMapEncodeTiled");
      memcpy(&api.cuTensorMapEncodeTiled, &enc, sizeof enc);
      if (ok) api_state = 1;
      /* the handle stays open for the life of the process on failure too: harmless */
    }
  }
  if (api_state < 0) {
    cterr_set_code(err, api_code, "%s", api_error);
    return NULL;
  }
  return &api;
}

const char *cuda_errstr(CUresult r) {
  static char buf[256];
  const char *name = NULL, *text = NULL;
  if (api_state == 1) {
    if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
    if (api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  }
  if (name && text) snprintf(buf, sizeof buf, "%s (%s)", name, text);
  else snprintf(buf, sizeof buf, "CUDA error %d", (int)r);
  return buf;
}

/* ---- NVML: the few prototypes cutune needs, declared here (no nvml.h is installed) ---- */
typedef int nvml_ret;                    /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct nvml_opaque *nvml_handle; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static struct {
  int state; /* 0 not tried, 1 loaded, -1 unavailable */
  nvml_ret (*init)(void);
  nvml_ret (*by_uuid)(const char *, nvml_handle *);
  nvml_ret (*by_pci)(const char *, nvml_handle *);
  nvml_ret (*clock)(nvml_handle, int, unsigned *);
  nvml_ret (*reasons)(nvml_handle, unsigned long long *);
  nvml_ret (*energy)(nvml_handle, unsigned long long *);
  nvml_ret (*temp)(nvml_handle, int, unsigned *);
} nv;

struct nvml_dev {
  nvml_handle h;
};

static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }
#define NVSYM(field, name)                                                                                             \
  do {                                                                                                                 \
    void *p_ = sym(h, name);                                                                                           \
    memcpy(&nv.field, &p_, sizeof p_);                                                                                 \
  } while (0)

static int nvml_load(void) {
  if (nv.state) return nv.state;
  nv.state = -1;
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return -1;
  NVSYM(init, "nvmlInit_v2");
  NVSYM(by_uuid, "nvmlDeviceGetHandleByUUID");
  NVSYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  NVSYM(clock, "nvmlDeviceGetClockInfo");
  /* renamed in recent drivers; the old name stays as an alias */
  NVSYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!nv.reasons) NVSYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  NVSYM(energy, "nvmlDeviceGetTotalEnergyConsumption");
  NVSYM(temp, "nvmlDeviceGetTemperature");
  if (!nv.init || nv.init() != 0) return -1;
  nv.state = 1;
  return 1;
}

nvml_dev *nvml_open(const char *uuid, const char *pci_bus) {
  if (nvml_load() < 0) return NULL;
  nvml_handle h = NULL;
  if (!(uuid && nv.by_uuid && nv.by_uuid(uuid, &h) == 0)) {
    h = NULL;
    if (!(pci_bus && nv.by_pci && nv.by_pci(pci_bus, &h) == 0)) return NULL;
  }
  nvml_dev *d = xcalloc(1, sizeof *d);
  d->h = h;
  return d;
}

void nvml_close(nvml_dev *d) { free(d); } /* NVML itself stays initialised for the process */

void nvml_read(nvml_dev *d, nvml_sample *out) {
  out->sm_mhz = out->mem_mhz = out->temp_c = NAN;
  out->reasons = -1;
  if (!d) return;
  unsigned v;
  unsigned long long r;
  if (nv.clock && nv.clock(d->h, NVML_CLOCK_SM, &v) == 0) out->sm_mhz = v;
  if (nv.clock && nv.clock(d->h, NVML_CLOCK_MEM, &v) == 0) out->mem_mhz = v;
  if (nv.reasons && nv.reasons(d->h, &r) == 0) out->reasons = (int64_t)r;
  if (nv.temp && nv.temp(d->h, NVML_TEMPERATURE_GPU, &v) == 0) out->temp_c = v;
}

int64_t nvml_energy_mj(nvml_dev *d) {
  unsigned long long e;
  if (!d || !nv.energy || nv.energy(d->h, &e) != 0) return -1;
  return (int64_t)e;
}
