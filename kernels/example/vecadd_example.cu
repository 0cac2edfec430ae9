// vecadd_example: uses the tuned vector add (kernels/cutune_vecadd.h) like an application
// would, checks c = a + b bit for bit against the host's float32 sum (and that the 64 floats
// after c stay untouched) and, with --time, times it the way cutune does and compares with a
// reference time (the header's record where n is the measured one, or one given per size).
//
//   vecadd_example [--time] [--within X] [N[=REF_MS]]...
//
// Default sizes: the vecadd space's problems (2^28, 2^24, 2^20, 2^24 + 3) and ragged small ones
// (1, 3, 5, 1000003). Exit 0 when every check passes (and, with --within, every time is within X
// of its reference), 1 when not, 77 when there is no CUDA device.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cutune_vecadd.h"
#include "example_common.h"

struct size_ref {
  long long n;
  double ref_ms;
};

static const int GUARD = 64;  // floats after c that the kernel must not write

int main(int argc, char **argv) {
  bool timing = false;
  double within = -1;
  std::vector<size_ref> sizes;
  for (int i = 1; i < argc; i++) {
    if (!example_option(argc, argv, &i, &timing, &within)) {
      size_ref z = {0, -1};
      if (sscanf(argv[i], "%lld=%lf", &z.n, &z.ref_ms) < 1 || z.n <= 0) {
        fprintf(stderr, "usage: vecadd_example [--time] [--within X] [N[=REF_MS]]...\n");
        return 2;
      }
      sizes.push_back(z);
    }
  }
  if (sizes.empty())
    sizes = {{1LL << 28, -1}, {1LL << 24, -1}, {1LL << 20, -1}, {(1LL << 24) + 3, -1},
             {1, -1},         {3, -1},         {5, -1},         {1000003, -1}};
  if (int rc = example_device()) return rc;
  int bad = 0;
  for (const size_ref &z : sizes) {
    const long long n = z.n;
    float *a, *b, *c;
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaMalloc(&c, (n + GUARD) * sizeof(float)));
    fill_uniform(a, n, 11), fill_uniform(b, n, 12);
    CK(cudaMemset(c, 0xff, (n + GUARD) * sizeof(float)));  // NaNs: an element not written differs
    CK(cutune_vecadd(c, a, b, n, 0));
    CK(cudaGetLastError());
    std::vector<float> ha(n), hb(n), hc(n + GUARD);
    CK(cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), c, (n + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));
    long long wrong = 0, guard = 0;
    for (long long i = 0; i < n; i++) {
      volatile float s = ha[i] + hb[i];  // one float32 rounding, as the kernel's
      const float v = s;
      wrong += memcmp(&hc[i], &v, sizeof v) != 0;
    }
    for (int i = 0; i < GUARD; i++) {
      unsigned u;
      memcpy(&u, &hc[n + i], sizeof u);
      guard += u != 0xffffffffu;
    }
    int config;
    char params[256];
    double rec_ms;
    long long mn;
    const char *src;
    CK(cutune_vecadd_describe(n, &config, params, sizeof params, &rec_ms, &mn, &src));
    for (char *p = params; *p; p++)
      if (*p == ' ') *p = ',';
    printf("size %lld: config %d %s (entry measured at %lld: %s)\n", n, config, params, mn, src);
    char why[768];
    CK(cutune_vecadd_why(n, why, sizeof why));
    printf("size %lld: why: %s\n", n, why);
    printf("size %lld: output %s\n", n, wrong || guard ? "WRONG" : "equals a + b bit for bit");
    if (wrong) printf("size %lld: %lld of %lld elements differ\n", n, wrong, n), bad = 1;
    if (guard) printf("size %lld: %lld of the %d floats after c overwritten\n", n, guard, GUARD), bad = 1;
    if (timing) {
      const double ms = time_launch([&] { return cutune_vecadd(c, a, b, n, 0); }, 12 * (size_t)n);
      const double ref = z.ref_ms > 0 ? z.ref_ms : (mn == n ? rec_ms : -1);
      char label[64], rate[64];
      snprintf(label, sizeof label, "%lld", n);
      snprintf(rate, sizeof rate, "%.0f GB/s", 12.0 * n / (ms * 1e-3) / 1e9);
      bad |= example_report(label, ms, rate, ref, within);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
  }
  printf("%s\n", bad ? "FAILED" : "all sizes passed");
  return bad;
}
