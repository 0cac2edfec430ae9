/* Several GPUs without a GPU: the fake libcuda.so.1 (tests/fake) presents an H200 and an A100
 * (CUTUNE_FAKE_DEVICES). Checks that each worker reports its own device, that gpu_wait_any
 * hands back whichever device is ready while another hangs, that the hung one comes back as a
 * timeout once its deadline passes and measures again after its restart, and that --devices
 * lists parse (exec_parse_devices). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/exec.h"
#include "gpu/gpu.h"

#define N (1 << 16)

static gpu_job job_for(const char *kernel, double timeout) {
  gpu_job j = {.cubin = "fake",
               .cubin_len = 5,
               .kernel = kernel,
               .timeout_s = timeout,
               .best_ms = NAN,
               .min_samples = 10,
               .max_samples = 50,
               .target_rse = 0.005};
  j.geom = (launch_geom){{N / 256, 1, 1}, {256, 1, 1}, 0};
  return j;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "__gpu-worker")) return gpu_worker_main(argc - 1, argv + 1);
  char *self = self_exe_path();
  REQUIRE(self);
  char *dir = path_dirname(self), *fake = path_join(dir, "../fakecuda"), *lib = path_join(fake, "libcuda.so.1");
  if (!file_exists(lib)) SKIP_TEST("the fake libcuda.so.1 was not built");
  setenv("LD_LIBRARY_PATH", fake, 1); /* read by the workers' dynamic loader */
  setenv("CUTUNE_FAKE_DEVICES", "NVIDIA H200,NVIDIA A100-SXM4-80GB", 1);

  cterr err;
  CHECK(gpu_count(self, &err) == 2);
  gpu *g[2];
  for (int i = 0; i < 2; i++) REQUIRE(gpu_start(&g[i], self, i, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(!strcmp(gpu_info(g[0])->name, "NVIDIA H200") && !strcmp(gpu_info(g[0])->arch, "sm_90"));
  CHECK(!strcmp(gpu_info(g[1])->name, "NVIDIA A100-SXM4-80GB") && !strcmp(gpu_info(g[1])->arch, "sm_80"));
  CHECK(gpu_info(g[1])->sms == 108);
  CHECK(strcmp(gpu_info(g[0])->uuid, gpu_info(g[1])->uuid) != 0);

  gpu_problem p = {0};
  p.nargs = 3;
  p.args[0] = (argspec){.kind = ARG_OUTPUT, .type = EL_F32, .name = "out", .count = N};
  p.args[1] = (argspec){.kind = ARG_INPUT, .type = EL_F32, .name = "in", .count = N, .lo = -1, .hi = 1};
  p.args[2] = (argspec){.kind = ARG_SCALAR, .type = EL_I32, .name = "n", .ival = N};
  p.seed = 7;
  p.ref_cubin = "fake";
  p.ref_cubin_len = 5;
  p.ref_kernel = "copy_ok";
  p.ref_geom = (launch_geom){{N / 256, 1, 1}, {256, 1, 1}, 0};
  p.bytes = 8.0 * N;
  p.flops = NAN;
  for (int i = 0; i < 2; i++) REQUIRE(gpu_setup(g[i], &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));

  CHECK(gpu_wait_any(g, 2, 0) == -1); /* nothing pending */
  gpu_job hang = job_for("copy_spin", 0.5), okj = job_for("copy_ok", 10);
  REQUIRE(gpu_submit(g[1], &hang, &err) == 0);
  REQUIRE(gpu_submit(g[0], &okj, &err) == 0);
  CHECK(gpu_pending(g[0]) && gpu_pending(g[1]));
  record r;
  record_init(&r);
  int first = gpu_wait_any(g, 2, -1);
  CHECK_MSG(first == 0, "the device with a result comes first, got %d", first);
  REQUIRE(gpu_collect(g[0], &r, &err) == 0);
  CHECK(r.status == ST_OK && !strcmp(r.device_name, "NVIDIA H200"));
  record_free(&r);
  record_init(&r);
  int second = gpu_wait_any(g, 2, -1); /* returns once the hung job's deadline has passed */
  CHECK_MSG(second == 1, "then the hung device, got %d", second);
  REQUIRE(gpu_collect(g[1], &r, &err) == 0);
  CHECK_MSG(r.status == ST_TIMEOUT, "status %s: %s", rec_status_name(r.status), r.message);
  CHECK(!gpu_pending(g[1]) && gpu_wait_any(g, 2, 0) == -1);
  record_free(&r);
  record_init(&r);
  REQUIRE(gpu_measure(g[1], &okj, &r, &err) == 0); /* the restarted worker has the problem again */
  CHECK(r.status == ST_OK && !strcmp(r.device_name, "NVIDIA A100-SXM4-80GB") && !strcmp(r.arch, "sm_80"));
  record_free(&r);
  for (int i = 0; i < 2; i++) gpu_stop(g[i]);

  int ord[8], n;
  CHECK(exec_parse_devices("all", 3, ord, 8, &n, &err) == 0 && n == 3 && ord[0] == 0 && ord[2] == 2);
  CHECK(exec_parse_devices("2,0", 3, ord, 8, &n, &err) == 0 && n == 2 && ord[0] == 2 && ord[1] == 0);
  CHECK(exec_parse_devices("0,3", 3, ord, 8, &n, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "device 3 does not exist (this machine has 3)");
  CHECK(exec_parse_devices("1,1", 3, ord, 8, &n, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "named twice");
  CHECK(exec_parse_devices("0,", 3, ord, 8, &n, &err) == 0 && n == 1);
  CHECK(exec_parse_devices("a", 3, ord, 8, &n, &err) == -1);
  CHECK(exec_parse_devices("all", 0, ord, 8, &n, &err) == -1);
  free(lib), free(fake), free(dir), free(self);
  return check_report();
}
