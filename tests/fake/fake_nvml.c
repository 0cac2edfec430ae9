/* A fake libnvidia-ml.so.1 for tests/test_gpu_fakedriver.c: a board drawing 300 W whose
 * total-energy counter (mJ) advances in steps of 20 ms of wall time, like the real counter's
 * coarse updates; nothing else (the worker treats missing NVML functions as unknown). */
#include <stddef.h>
#include <time.h>

typedef struct nvml_opaque *nvmlDevice_t;
static int dummy;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *h) {
  (void)uuid;
  *h = (nvmlDevice_t)&dummy;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *mj) {
  (void)h;
  double steps = (double)(long long)(now() / 0.02);
  *mj = (unsigned long long)(steps * 0.02 * 300000.0); /* 300 W = 300000 mJ/s */
  return 0;
}
