/* The GPU coordinator where there is no CUDA driver (this test's CPU machines): gpu_count and
 * gpu_start fail with a clear message and the code of no device (gpu_error_is_no_device)
 * instead of crashing, and the worker protocol's framing round-trips and rejects garbage.
 * Where a driver exists, the no-driver checks are skipped. */
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gpu/gpu.h"
#include "gpu/gpu_wire.h"

static void test_wire(void) {
  int fd[2];
  REQUIRE(pipe(fd) == 0);
  cterr err;
  const char a[] = "abc", b[] = "defgh";
  CHECK(wire_write(fd[1], MSG_SETUP, a, 3, b, 5, NULL, 0, &err) == 0);
  uint32_t type = 0;
  dbuf p;
  dbuf_init(&p);
  CHECK(wire_read(fd[0], &type, &p, &err) == 0);
  CHECK(type == MSG_SETUP);
  CHECK(p.len == 8 && memcmp(p.data, "abcdefgh", 8) == 0);
  /* garbage on the pipe is refused, naming what was expected */
  unsigned char junk[16] = "not a frame....";
  CHECK(write(fd[1], junk, sizeof junk) == (ssize_t)sizeof junk);
  CHECK(wire_read(fd[0], &type, &p, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "bad frame magic");
  /* end of file is an error, not a hang */
  close(fd[1]);
  CHECK(wire_read(fd[0], &type, &p, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "end of file");
  close(fd[0]);
  dbuf_free(&p);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "__gpu-worker")) return gpu_worker_main(argc - 1, argv + 1);
  test_wire();

  char *self = self_exe_path();
  REQUIRE(self);
  cterr err = {0};
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int n = gpu_count(self, &err);
  if (!h) {
    CHECK(n == 0);
    CHECK_STR_CONTAINS(err.msg, "no CUDA driver: libcuda.so.1 not found");
    CHECK(gpu_error_is_no_device(&err));
    gpu *g = (gpu *)&err; /* must be overwritten with NULL */
    cterr_set(&err, "%s", "");
    CHECK(gpu_start(&g, self, 0, &err) == -1);
    CHECK(g == NULL);
    CHECK_STR_CONTAINS(err.msg, "no CUDA driver: libcuda.so.1 not found");
    CHECK(gpu_error_is_no_device(&err)); /* the worker's code, carried by its ERROR */
  } else {
    fprintf(stderr, "a CUDA driver is present: no-driver checks skipped (%d device(s))\n", n);
    CHECK(n >= 0);
  }
  /* a worker that cannot be started at all */
  err.msg[0] = 0;
  CHECK(gpu_count("/nonexistent/cutune", &err) == 0);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/cutune");
  gpu *g = NULL;
  CHECK(gpu_start(&g, "/nonexistent/cutune", 0, &err) == -1);
  CHECK(g == NULL);
  gpu_stop(NULL); /* does nothing */
  free(self);
  return check_report();
}
