// transpose_example: uses the tuned transpose (kernels/cutune_transpose.h) like an application
// would, checks its output against a CPU transpose and, with --time, times it the way cutune
// does and compares with a reference time (the header's record, or one given per size).
//
//   transpose_example [--time] [--within X] [ROWSxCOLS[=REF_MS]]...
//
// Default sizes: the transpose space's problems (8192x8192, 4096x4096, 1000x3002). Exit 0 when
// every output is right (and, with --within, every time is within X of its reference), 1 when
// not, 77 when there is no CUDA device.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cutune_transpose.h"
#include "example_common.h"

struct size_ref {
  int rows, cols;
  double ref_ms;
};

int main(int argc, char **argv) {
  bool timing = false;
  double within = -1;
  std::vector<size_ref> sizes;
  for (int i = 1; i < argc; i++) {
    if (!example_option(argc, argv, &i, &timing, &within)) {
      size_ref z = {0, 0, -1};
      if (sscanf(argv[i], "%dx%d=%lf", &z.rows, &z.cols, &z.ref_ms) < 2 || z.rows <= 0 || z.cols <= 0) {
        fprintf(stderr, "usage: transpose_example [--time] [--within X] [ROWSxCOLS[=REF_MS]]...\n");
        return 2;
      }
      sizes.push_back(z);
    }
  }
  if (sizes.empty()) sizes = {{8192, 8192, -1}, {4096, 4096, -1}, {1000, 3002, -1}};
  if (int rc = example_device()) return rc;
  int bad = 0;
  for (const size_ref &z : sizes) {
    size_t count = (size_t)z.rows * z.cols;
    std::vector<float> h(count), t(count);
    for (size_t i = 0; i < count; i++) h[i] = (float)((i * 2654435761u) % 100003) / 7.0f;
    float *in, *out;
    CK(cudaMalloc(&in, count * sizeof(float)));
    CK(cudaMalloc(&out, count * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(out, 0xff, count * sizeof(float)));
    CK(cutune_transpose(out, in, z.rows, z.cols, 0));
    CK(cudaGetLastError());
    CK(cudaMemcpy(t.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int r = 0; r < z.rows; r++)
      for (int c = 0; c < z.cols; c++) wrong += memcmp(&t[(size_t)c * z.rows + r], &h[(size_t)r * z.cols + c], 4) != 0;
    int config;
    char params[256];
    double rec_ms;
    long long mr, mc;
    const char *src;
    CK(cutune_transpose_describe(z.rows, z.cols, &config, params, sizeof params, &rec_ms, &mr, &mc, &src));
    for (char *c = params; *c; c++) if (*c == ' ') *c = ',';
    printf("size %dx%d: config %d %s (entry measured at %lldx%lld: %s)\n", z.rows, z.cols, config, params, mr, mc, src);
    char why[768];
    CK(cutune_transpose_why(z.rows, z.cols, why, sizeof why));
    printf("size %dx%d: why: %s\n", z.rows, z.cols, why);
    printf("size %dx%d: output %s\n", z.rows, z.cols, wrong ? "WRONG" : "equals the reference");
    if (wrong) printf("size %dx%d: %zu of %zu elements differ\n", z.rows, z.cols, wrong, count), bad = 1;
    if (timing) {
      double ms = time_launch([&] { return cutune_transpose(out, in, z.rows, z.cols, 0); }, 2 * count * sizeof(float));
      double ref = z.ref_ms > 0 ? z.ref_ms : (mr == z.rows && mc == z.cols ? rec_ms : -1);
      char label[64], rate[64];
      snprintf(label, sizeof label, "%dx%d", z.rows, z.cols);
      snprintf(rate, sizeof rate, "%.0f GB/s", 2.0 * count * sizeof(float) / (ms * 1e-3) / 1e9);
      bad |= example_report(label, ms, rate, ref, within);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
  printf("%s\n", bad ? "FAILED" : "all sizes passed");
  return bad;
}
