/* The GPU worker without a GPU: a fake libcuda.so.1 (tests/fake/fake_libcuda.c, built next to
 * the tests) is put first on LD_LIBRARY_PATH of the worker processes, and the whole path runs —
 * device info and copy bandwidth, setup with seeded inputs, poisoned outputs, comparison with
 * the reference, faults, hangs, launch limits, tolerance, in/out restore, and the timing loop
 * (flushed single launches and batches) whose figures the fake's clock makes predictable. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "gpu/gpu.h"
#include "gpu/gpu_wire.h"
#include "gpu/gpu_worker_int.h"

static int64_t N;

static void set_problem(gpu_problem *p, int64_t n, argkind out_kind, double tol) {
  memset(p, 0, sizeof *p);
  N = n;
  p->nargs = 3;
  p->args[0] = (argspec){.kind = out_kind, .type = EL_F32, .name = "out", .count = n};
  p->args[1] = (argspec){.kind = ARG_INPUT, .type = EL_F32, .name = "in", .count = n, .lo = -1, .hi = 1};
  p->args[2] = (argspec){.kind = ARG_SCALAR, .type = EL_I32, .name = "n", .ival = n};
  p->seed = 7;
  p->tolerance = tol;
  p->ref_cubin = "fake";
  p->ref_cubin_len = 5;
  p->ref_kernel = out_kind == ARG_INOUT ? "accumulate" : "copy_ok";
  p->ref_geom = (launch_geom){{(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0};
  p->bytes = 8.0 * (double)n;
  p->flops = NAN;
}

/* A job of the fake cubin: kernel over N floats in blocks of 256, 10 s, no best yet, at least 10
 * samples and at most max_samples, until the relative standard error is target_rse. */
static gpu_job fake_job(const char *kernel, int max_samples, double target_rse) {
  gpu_job j = {.cubin = "fake",
               .cubin_len = 5,
               .kernel = kernel,
               .timeout_s = 10,
               .best_ms = NAN,
               .min_samples = 10,
               .max_samples = max_samples,
               .target_rse = target_rse};
  j.geom = (launch_geom){{(unsigned)((N + 255) / 256), 1, 1}, {256, 1, 1}, 0};
  return j;
}

static rec_status run(gpu *g, const char *kernel, unsigned block, double timeout, int max_samples, double target_rse,
                      double best_ms, record *r) {
  gpu_job j = fake_job(kernel, max_samples, target_rse);
  j.timeout_s = timeout, j.best_ms = best_ms;
  j.geom = (launch_geom){{(unsigned)((N + block - 1) / block), 1, 1}, {block, 1, 1}, 0};
  record_free(r);
  cterr err;
  REQUIRE(gpu_measure(g, &j, r, &err) == 0 || !fprintf(stderr, "gpu_measure(%s): %s\n", kernel, err.msg));
  if (r->status != ST_OK) fprintf(stderr, "  %s: %s: %s\n", kernel, rec_status_name(r->status), r->message);
  return r->status;
}
#define RUN(kernel, block) run(g, kernel, block, 10, 1000, 0.005, NAN, &r)

/* Symbols (a __constant__ filled from data, a seeded fill, a buffer; one too small), C++ kernels
 * by lowered name (a template's instance: copy_tpl<K> scales by K), the atol/rtol check, the
 * mismatches an output may have, the check of a reduction (partial sums against a total), a
 * reference run from each job's module (again only when its key changes), and timing only. */
static void test_symbols_checks_templates(gpu *g) {
  cterr err;
  record r;
  record_init(&r);
  gpu_problem p;
  /* c_add from data: copy_const adds c_add[i % 16] to in[i]; its reference is copy_ok, so it
   * passes only where every c_add[k] is 0 */
  set_problem(&p, 4096, ARG_OUTPUT, 0);
  static float zeros[16], ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  p.nsyms = 1;
  p.syms[0] = (symspec){
      .name = "c_add", .shown = "c_add", .type = EL_F32, .src = SYMSRC_DATA, .count = 16, .data_len = sizeof zeros};
  p.symdata[0] = zeros;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_const", 256) == ST_OK);
  p.symdata[0] = ones; /* the worker fills the module from the new problem's data */
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_const", 256) == ST_WRONG_RESULT);
  CHECK_STR_CONTAINS(r.message, "expected");
  p.syms[0].src = SYMSRC_FILL, p.syms[0].fill = FILL_ZERO, p.syms[0].data_len = 0;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_const", 256) == ST_OK);
  p.syms[0] = (symspec){.name = "c_small", .shown = "c_small", .type = EL_F32, .src = SYMSRC_FILL, .count = 16};
  CHECK(gpu_setup(g, &p, &err) != 0); /* the reference's module is filled too: the setup says so */
  CHECK_STR_CONTAINS(err.msg, "symbol 'c_small' holds 16 bytes in the module, the space fills 64");
  p.syms[0] = (symspec){.name = "nope", .shown = "nope", .type = EL_F32, .src = SYMSRC_FILL, .count = 4};
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_ok", 256) == ST_LAUNCH_ERROR);
  CHECK_STR_CONTAINS(r.message, "symbol 'nope' is not in the module");
  /* from a buffer: c_add gets the input's first 16 values, copy_const then adds them, and the
   * check fails (in[i] + in[i % 16] is not in[i]) */
  p.syms[0] = (symspec){.name = "c_add", .shown = "c_add", .type = EL_F32, .src = SYMSRC_ARG, .arg = 1, .count = 16};
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_const", 256) == ST_WRONG_RESULT);
  p.nsyms = 0;

  /* C++ templates by lowered name: ns::copy_tpl<1> is a copy, <2> doubles */
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("_ZN2ns8copy_tplILi1EEEvPfPKfi", 256) == ST_OK);
  CHECK(RUN("_ZN2ns8copy_tplILi2EEEvPfPKfi", 256) == ST_WRONG_RESULT);
  /* atol/rtol: 2x against x within atol 0 rtol 1.01 passes (|2x - x| <= 1.01 |x|), rtol 0.5 fails */
  p.args[0].atol = 0, p.args[0].rtol = 1.01;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("_Z8copy_tplILi2EEvPfPKfi", 256) == ST_OK);
  p.args[0].rtol = 0.5;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("_Z8copy_tplILi2EEvPfPKfi", 256) == ST_WRONG_RESULT);
  CHECK_STR_CONTAINS(r.message, "atol 0, rtol 0.5");
  p.args[0].rtol = 0;

  /* mismatches: copy_wrong is off by one at element 12345 alone; one mismatch allowed passes, and
   * the record says so; none allowed fails; a copy within its allowance says nothing */
  set_problem(&p, 16384, ARG_OUTPUT, 0);
  p.args[0].mismatches = 1;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_wrong", 256) == ST_OK);
  CHECK_STR_CONTAINS(r.message, "output 'out': 1 of 16384 elements differ from the reference, within mismatches = 1");
  CHECK(RUN("copy_ok", 256) == ST_OK && r.message && !r.message[0]);
  p.args[0].mismatches = 0;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_wrong", 256) == ST_WRONG_RESULT);
  CHECK_STR_CONTAINS(r.message,
                     "1 of 16384 elements differ from the reference (exact comparison); first at index 12345");

  /* a reduction's check: partial sums (one per block, the rest zero) against the reference's
   * total in element 0: equal sums within rtol, whatever the grid */
  set_problem(&p, 4096, ARG_OUTPUT, 0);
  p.args[0].count = 64, p.args[0].fill = FILL_ZERO, p.args[0].reduce = RED_SUM, p.args[0].rtol = 1e-5;
  p.ref_kernel = "total_sum", p.ref_geom = (launch_geom){{1, 1, 1}, {256, 1, 1}, 0};
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  for (unsigned blocks = 8; blocks <= 64; blocks *= 2) {
    gpu_job j = fake_job("partial_sum", 50, 0.05);
    j.geom = (launch_geom){{blocks, 1, 1}, {256, 1, 1}, 0};
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK, "partial sums over %u blocks: %s %s", blocks, rec_status_name(r.status), r.message);
  }
  {
    /* 64 copied inputs do not sum to the total */
    gpu_job j = fake_job("copy_ok", 50, 0.05);
    j.geom = (launch_geom){{1, 1, 1}, {64, 1, 1}, 0};
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK(r.status == ST_WRONG_RESULT);
    CHECK_STR_CONTAINS(r.message, "output 'out': its sum is");
  }

  /* a reference in each job's module: copy_tpl<2> checked against copy_tpl<2> passes */
  set_problem(&p, 4096, ARG_OUTPUT, 0);
  p.ref_per_config = 1, p.ref_cubin = NULL, p.ref_kernel = NULL;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  {
    gpu_job j = fake_job("_Z8copy_tplILi2EEvPfPKfi", 50, 0.05);
    j.ref_key = 7;
    snprintf(j.ref_kernel, sizeof j.ref_kernel, "_Z8copy_tplILi2EEvPfPKfi");
    j.geom = j.ref_geom = (launch_geom){{16, 1, 1}, {256, 1, 1}, 0};
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK(r.status == ST_OK);
    /* the same key: the reference is not run again (a different kernel under key 7 keeps the
     * outputs of copy_tpl<2>, so copy_ok now fails); a new key runs it */
    snprintf(j.ref_kernel, sizeof j.ref_kernel, "copy_ok");
    j.kernel = "copy_ok";
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK(r.status == ST_WRONG_RESULT);
    j.ref_key = 8;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK(r.status == ST_OK);
  }
  /* timing only: no reference, nothing compared */
  set_problem(&p, 4096, ARG_OUTPUT, 0);
  p.unchecked = 1, p.ref_cubin = NULL, p.ref_kernel = NULL;
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK(RUN("copy_wrong", 256) == ST_OK && isfinite(r.t_median));
  record_free(&r);
}

/* One setup frame of the wire protocol for the problem of set_problem. */
static int send_setup_frame(int fd, const gpu_problem *p) {
  wire_setup s;
  memset(&s, 0, sizeof s);
  s.nargs = p->nargs;
  memcpy(s.args, p->args, sizeof(argspec) * (size_t)p->nargs);
  s.seed = p->seed, s.tolerance = p->tolerance, s.ref_geom = p->ref_geom, s.bytes = p->bytes, s.flops = p->flops;
  s.kernel_len = (uint32_t)strlen(p->ref_kernel), s.cubin_len = p->ref_cubin_len;
  cterr err;
  return wire_write(fd, MSG_SETUP, &s, sizeof s, p->ref_kernel, s.kernel_len, p->ref_cubin, p->ref_cubin_len, &err);
}

/* A setup that fails part-way frees the guard gaps of `explain --sanitize` (CUTUNE_GUARD_BYTES)
 * in the worker that keeps running. Spoken to over the wire directly (gpu_setup would restart
 * the worker after the failure, and a new process has nothing leaked): under the fake's memory
 * limit, room for problem B's three buffers and one gap and half a gap more (a gap that does
 * not fit is skipped; a buffer that does not fit fails the setup), B sets up after a failed
 * setup of A only if A's gap was freed. */
static void test_setup_failure_frees_guards(const char *self) {
  const size_t B = (size_t)4 << 20, G = (size_t)1 << 20;
  char lim[32], gb[32];
  snprintf(lim, sizeof lim, "%zu", 3 * B + G + G / 2);
  snprintf(gb, sizeof gb, "%zu", G);
  int to[2], from[2];
  REQUIRE(pipe(to) == 0 && pipe(from) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(to[0], 0), dup2(from[1], 1);
    close(to[1]), close(from[0]);
    setenv("CUTUNE_GUARD_BYTES", gb, 1);
    setenv("FAKE_CUDA_MEM_LIMIT", lim, 1);
    execl(self, self, "__gpu-worker", "0", "--no-copy-bw", (char *)NULL);
    _exit(127);
  }
  close(to[0]), close(from[1]);
  cterr err;
  uint32_t type = 0;
  dbuf reply;
  dbuf_init(&reply);
  /* the start (gpu_wire.h): IDENT, the device as the driver describes it before any context,
   * then HELLO, the same and the rest */
  CHECK(wire_read(from[0], &type, &reply, &err) == 0 && type == MSG_IDENT);
  wire_ident id;
  memset(&id, 0, sizeof id);
  CHECK_MSG(reply.len == sizeof id, "IDENT of %zu bytes (wanted %zu)", reply.len, sizeof id);
  if (reply.len == sizeof id) memcpy(&id, reply.data, sizeof id);
  CHECK(id.ordinal == 0 && !strcmp(id.info.name, "Fake H200") && !strcmp(id.info.arch, "sm_90"));
  CHECK(!strcmp(id.info.cc, "9.0") && id.info.sms == 132 && isnan(id.info.copy_gbps));
  CHECK(wire_read(from[0], &type, &reply, &err) == 0 && type == MSG_HELLO);
  gpu_device_info hello;
  memset(&hello, 0, sizeof hello);
  if (reply.len == sizeof hello) memcpy(&hello, reply.data, sizeof hello);
  CHECK(reply.len == sizeof hello && !strcmp(hello.name, id.info.name) && !strcmp(hello.uuid, id.info.uuid));
  gpu_problem p;
  set_problem(&p, 1 << 20, ARG_OUTPUT, 0); /* out: 4 MiB, its gap and its reference copy */
  p.args[1].count = 1 << 24;               /* in: 64 MiB, past the limit: setup A fails there */
  CHECK(send_setup_frame(to[1], &p) == 0);
  CHECK(wire_read(from[0], &type, &reply, &err) == 0 && type == MSG_ERROR);
  int code = -1; /* an ERROR: its code, then its text (gpu_wire.h) */
  CHECK_STR_CONTAINS(wire_error_text(&reply, &code), "allocating 67108864 bytes for argument 'in'");
  CHECK_MSG(code == CTERR_OTHER, "a failed setup's ERROR has code %d", code);
  set_problem(&p, 1 << 20, ARG_OUTPUT, 0); /* B: 3 x 4 MiB and a gap, within the limit */
  CHECK(send_setup_frame(to[1], &p) == 0);
  CHECK(wire_read(from[0], &type, &reply, &err) == 0);
  CHECK_MSG(type == MSG_SETUP_OK, "setup after a failed one: %s",
            type == MSG_ERROR ? wire_error_text(&reply, NULL) : "no reply");
  wire_write(to[1], MSG_QUIT, NULL, 0, NULL, 0, NULL, 0, &err);
  close(to[1]), close(from[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  dbuf_free(&reply);
}

/* The worker's start in two halves (gpu.h): after gpu_start_all_begin the device's identity
 * (IDENT) is known and its copy bandwidth is not, and it takes no setup; gpu_start_all_end
 * completes it. A worker whose context fails or which dies after IDENT gives an error naming
 * the device, which is no "no device" error; without a device the worker's own message comes
 * from the first half, as before (the plain run's fallback, gpu_error_is_no_device). */
static void test_start_halves(const char *self) {
  cterr err;
  gpu *g = NULL;
  int ord = 0;
  REQUIRE(gpu_start_all_begin(&g, self, &ord, 1, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  const gpu_device_info *in = gpu_info(g);
  CHECK(!strcmp(in->name, "Fake H200") && !strcmp(in->arch, "sm_90") && in->sms == 132 && isnan(in->copy_gbps));
  gpu_problem p;
  set_problem(&p, 1 << 16, ARG_OUTPUT, 0);
  CHECK(gpu_setup(g, &p, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "start is not finished");
  REQUIRE(gpu_start_all_end(&g, 1, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  CHECK_MSG(fabs(in->copy_gbps - 4300) < 1, "copy %.1f GB/s after HELLO", in->copy_gbps);
  CHECK(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  gpu_stop(g);

  setenv("FAKE_CUDA_CTX_FAIL", "error", 1);
  REQUIRE(gpu_start_all_begin(&g, self, &ord, 1, &err) == 0); /* IDENT comes before the context */
  CHECK(gpu_start_all_end(&g, 1, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "GPU worker for device 0 (Fake H200) did not start: creating a CUDA context on device 0");
  CHECK(!gpu_error_is_no_device(&err));
  gpu_stop(g);
  setenv("FAKE_CUDA_CTX_FAIL", "abort", 1);
  g = (gpu *)&err; /* gpu_start leaves NULL on failure */
  CHECK(gpu_start(&g, self, 0, &err) == -1 && g == NULL);
  CHECK_STR_CONTAINS(err.msg, "GPU worker for device 0 (Fake H200) did not start: GPU worker was killed by SIGABRT");
  CHECK_STR_CONTAINS(err.msg, "fake: context creation aborted");
  unsetenv("FAKE_CUDA_CTX_FAIL");

  setenv("CUTUNE_FAKE_DEVICES", "none", 1);
  g = (gpu *)&err;
  CHECK(gpu_start_all_begin(&g, self, &ord, 1, &err) == -1 && g == NULL);
  CHECK_MSG(gpu_error_is_no_device(&err), "no device: %s", err.msg);
  CHECK_STR_CONTAINS(err.msg, "no CUDA device 0 (this machine has 0)");
  CHECK(gpu_count(self, &err) == 0);
  CHECK_MSG(gpu_error_is_no_device(&err), "no device counted: %s", err.msg);
  unsetenv("CUTUNE_FAKE_DEVICES");
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "__gpu-worker")) return gpu_worker_main(argc - 1, argv + 1);
  /* the input fill's format (docs/SPACE.md, "The input fill"), no driver needed: element i from
   * the stream of block i / 2^20, seeded seed ^ (0x9e3779b97f4a7c15 * (index + 1)) ^
   * (0xbf58476d1ce4e5b9 * block), whichever thread filled the block */
  {
    const int64_t blk = (int64_t)1 << 20, n = 3 * blk + 5;
    argspec a = {.kind = ARG_INPUT, .type = EL_F32, .count = n};
    float *got = xmalloc((size_t)n * 4), *want = xmalloc((size_t)n * 4);
    wk_fill_host(&a, 7, 2, n, (unsigned char *)got);
    for (int64_t b = 0; b * blk < n; b++) {
      rng r;
      rng_seed(&r, 7 ^ (0x9e3779b97f4a7c15ull * 3) ^ (0xbf58476d1ce4e5b9ull * (uint64_t)b));
      for (int64_t i = b * blk; i < n && i < (b + 1) * blk; i++) want[i] = (float)(-1.0 + 2.0 * rng_uniform(&r));
    }
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += memcmp(&got[i], &want[i], 4) != 0;
    CHECK_MSG(bad == 0, "the fill of %lld floats: %lld differ from the documented streams", (long long)n,
              (long long)bad);
    free(got), free(want);
  }
  char *self = self_exe_path();
  REQUIRE(self);
  char *dir = path_dirname(self), *fake = path_join(dir, "../fakecuda"), *lib = path_join(fake, "libcuda.so.1");
  if (!file_exists(lib)) SKIP_TEST("the fake libcuda.so.1 was not built");
  setenv("LD_LIBRARY_PATH", fake, 1); /* read by the workers' dynamic loader, not this process's */

  cterr err;
  CHECK(gpu_count(self, &err) == 1);
  gpu *g;
  REQUIRE(gpu_start(&g, self, 0, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));
  const gpu_device_info *in = gpu_info(g);
  CHECK(!strcmp(in->name, "Fake H200") && !strcmp(in->arch, "sm_90") && !strcmp(in->cc, "9.0"));
  CHECK(!strcmp(in->driver, "13.0") && in->sms == 132);
  CHECK_STR_CONTAINS(in->uuid, "GPU-abababab-abab-");
  CHECK_MSG(fabs(in->copy_gbps - 4300) < 1, "copy %.1f GB/s, the fake's clock says 4300", in->copy_gbps);

  record r;
  record_init(&r);
  gpu_problem p;
  set_problem(&p, 1 << 20, ARG_OUTPUT, 0); /* 8 MB < 2 x L2: flushed single launches */
  REQUIRE(gpu_setup(g, &p, &err) == 0 || !fprintf(stderr, "%s\n", err.msg));

  CHECK(RUN("copy_ok", 256) == ST_OK);
  /* the fake's launch: 8 bytes/element at 4 TB/s plus 3 us, up to 2% slower */
  double expect = (1 << 20) * 8 / 4e12 * 1e3 + 0.003;
  CHECK_MSG(r.t_median >= expect * 0.999 && r.t_median <= expect * 1.021, "median %.6f ms, expected %.6f", r.t_median,
            expect);
  CHECK(r.t_min <= r.t_median && r.t_mean > 0 && r.t_std >= 0 && r.samples >= 10);
  CHECK(fabs(r.gbps - p.bytes / (r.t_median * 1e-3) / 1e9) < 1e-6 * r.gbps);
  CHECK(fabs(r.copy_share - r.gbps / in->copy_gbps) < 1e-9);
  CHECK(r.regs == 10 && r.occupancy == 1.0 && r.block_threads == 256);
  CHECK(!strcmp(r.device_name, "Fake H200") && !strcmp(r.arch, "sm_90"));
  CHECK(isnan(r.t_isolated)); /* not asked for */
  {
    /* the isolated per-launch time of a contender: single launches after a read flush */
    gpu_job j = fake_job("copy_ok", 20, 0.005);
    j.isolated_samples = 7;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    /* less the floor: the same event pair around the empty kernel (the fake's 0.003 ms of launch
     * overhead per kernel), so only the data movement remains */
    double data = expect - 0.003;
    CHECK_MSG(r.status == ST_OK && r.t_isolated >= data * 0.999 && r.t_isolated <= data * 1.03,
              "isolated %.6f ms, expected %.6f", r.t_isolated, data);
    CHECK_MSG(fabs(r.t_iso_floor - 0.003) < 1e-6, "floor %.6f ms, expected 0.003", r.t_iso_floor);
    j.best_ms = r.t_median / 2; /* clearly slower than the best: no isolated time */
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK(r.status == ST_OK && isnan(r.t_isolated));
  }

  {
    /* long launches (4 ms): unless the count is fixed, min_samples shrinks to ~12 ms of
     * launches, 3 at least (taken 2 per chunk: 4); fixed, all 10 */
    gpu_job j = fake_job("copy_slow", 1000, 0.5);
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && r.samples < 5, "long launches: %d samples (wanted 3-4)",
              r.samples);
    j.min_samples_fixed = 1;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 10, "fixed: %d samples (wanted >= 10)", r.samples);
    CHECK(isnan(r.t_raced));
    /* racing (docs/MEASURE.md): against a reference of half its time, the slow kernel loses
     * after the first chunk of race_samples, and the record says raced, with the bound */
    double half = r.t_median / 2;
    j.min_samples_fixed = 0, j.race_ms = half, j.race_margin = 0.05, j.race_samples = 3;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 3, "raced: %d samples (wanted 3)", r.samples);
    CHECK_MSG(fabs(r.t_raced - half * 1.05) < 1e-9, "raced above %.6f ms, expected %.6f", r.t_raced, half * 1.05);
    CHECK(record_raced(&r) && r.t_min > r.t_raced && isfinite(r.t_median) && isnan(r.t_isolated));
    CHECK(isfinite(r.m_load_ms) && isfinite(r.m_check_ms) && isfinite(r.m_timing_ms) && isfinite(r.m_isolated_ms));
    CHECK(r.m_load_ms + r.m_check_ms + r.m_timing_ms + r.m_isolated_ms <= r.measure_ms + 1e-6);
    /* racing off (no race_samples): the same reference stops nothing */
    j.race_samples = 0;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && isnan(r.t_raced), "racing off: %d samples", r.samples);
    /* a reference at its own time: within the margin, never raced, timed in full */
    j.race_ms = 2 * half, j.race_samples = 3;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && isnan(r.t_raced), "not slower: %d samples, raced %g", r.samples,
              r.t_raced);
  }

  {
    /* racing before the k-th best exists (race_ms NAN, docs/MEASURE.md): against race_early x
     * the best so far, the engine's (best_ms) or the worker's own on the problem, whichever is
     * faster; a problem just set up has neither, so its first job is timed in full */
    REQUIRE(gpu_setup(g, &p, &err) == 0);
    gpu_job j = fake_job("copy_slow", 1000, 0.5);
    j.race_ms = NAN, j.race_margin = 0.05, j.race_samples = 3, j.race_early = 3;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && isnan(r.t_raced) && !r.race_ref, "first: %d samples", r.samples);
    double slow = r.t_median;
    /* an engine's best of 1/8 its time: the bound is 3/8 of it, and the check launch (4 ms, the
     * estimate: no estimate launch) took more than twice that: raced after 2 samples */
    j.best_ms = slow / 8;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 2 && record_raced_early(&r), "far above: %d samples", r.samples);
    CHECK_MSG(fabs(r.t_raced - 3 * slow / 8) < 1e-12, "raced above %.9f, wanted %.9f", r.t_raced, 3 * slow / 8);
    CHECK(r.t_min > r.t_raced && r.race_ref && !strcmp(r.race_ref, RECORD_RACE_BEST) && isnan(r.t_isolated));
    /* 1/4 its time: a bound of 3/4, which the check launch does not exceed twice: 3 samples */
    j.best_ms = slow / 4;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 3 && record_raced_early(&r), "above: %d samples", r.samples);
    /* the worker's own best: copy_ok timed in full on the problem (3 x the slow one's time is no
     * bound for it) races the slow kernel whose job carries no best; its check launch took more
     * than 4 times that bound: raced on it alone (1 sample) */
    gpu_job o = fake_job("copy_ok", 1000, 0.005);
    o.race_ms = NAN, o.race_margin = 0.05, o.race_samples = 3, o.race_early = 3;
    record_free(&r);
    REQUIRE(gpu_measure(g, &o, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && isnan(r.t_raced) && r.samples >= 10, "copy_ok: %d samples", r.samples);
    double fast = r.t_median;
    j.best_ms = NAN;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 1 && fabs(r.t_raced - 3 * fast) < 1e-12 && r.t_min > r.t_raced &&
                  r.t_median == r.t_min && isnan(r.t_isolated),
              "the worker's best: %d samples, raced above %g (wanted %g)", r.samples, r.t_raced, 3 * fast);
    /* with the k-th best known, that is the reference (race_ref kth), the worker's best aside
     * (the check launch over 4 times it: 1 sample) */
    j.race_ms = slow / 8;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 1 && record_raced(&r) && !record_raced_early(&r) &&
                  fabs(r.t_raced - slow / 8 * 1.05) < 1e-12 && r.race_ref && !strcmp(r.race_ref, RECORD_RACE_KTH),
              "k-th: %d samples, raced above %g", r.samples, r.t_raced);
    /* race_early off: nothing raced before the k-th best */
    j.race_ms = NAN, j.race_early = 0;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && isnan(r.t_raced), "race_early off: %d samples", r.samples);
    /* a contender (within 3 % of the best) whose mean is already far tighter than --rse asks
     * (the fake's launches do not vary) gets no doubled samples: min_samples (3 for 4 ms; 4 in
     * chunks of 2), not 6 */
    j.race_samples = 0, j.best_ms = slow;
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples >= 3 && r.samples < 6 && r.t_std < 1e-3 * r.t_mean,
              "tight contender: %d samples", r.samples);
  }

  CHECK(RUN("copy_wrong", 256) == ST_WRONG_RESULT);
  CHECK_STR_CONTAINS(r.message, "1 of 1048576 elements differ");
  CHECK_STR_CONTAINS(r.message, "first at index 12345");
  CHECK(RUN("copy_partial", 256) == ST_WRONG_RESULT); /* the last element keeps its poison */
  CHECK_STR_CONTAINS(r.message, "index 1048575: got -nan (0xffffffff)");
  CHECK(RUN("copy_fault", 256) == ST_RUNTIME_FAULT);
  CHECK_STR_CONTAINS(r.message, "CUDA_ERROR_ILLEGAL_ADDRESS");
  CHECK(RUN("copy_ok", 256) == ST_OK);
  {
    /* two jobs in flight (gpu.h: GPU_DEPTH): the first faults and kills its worker; the one
     * queued behind it goes to the replacement worker and is measured there */
    gpu_job f = fake_job("copy_fault", 100, 0.005);
    gpu_job o = f;
    o.kernel = "copy_ok";
    CHECK(gpu_pending(g) == 0 && gpu_can_queue(g, &f));
    REQUIRE(gpu_submit(g, &f, &err) == 0);
    CHECK(gpu_can_queue(g, &o));
    REQUIRE(gpu_submit(g, &o, &err) == 0);
    CHECK(gpu_pending(g) == 2 && !gpu_can_queue(g, &o));
    record_free(&r);
    REQUIRE(gpu_collect(g, &r, &err) == 0);
    CHECK_MSG(r.status == ST_RUNTIME_FAULT, "first of two: %s", rec_status_name(r.status));
    record_free(&r);
    REQUIRE(gpu_collect(g, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples > 0, "queued behind a fault: %s %s", rec_status_name(r.status), r.message);
    CHECK(gpu_pending(g) == 0);
    /* ... and behind a hang: the first times out, the second has a clock of its own */
    f.kernel = "copy_spin", f.timeout_s = 0.5;
    REQUIRE(gpu_submit(g, &f, &err) == 0 && gpu_submit(g, &o, &err) == 0);
    record_free(&r);
    REQUIRE(gpu_collect(g, &r, &err) == 0);
    CHECK_MSG(r.status == ST_TIMEOUT, "first of two: %s", rec_status_name(r.status));
    record_free(&r);
    REQUIRE(gpu_collect(g, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK, "queued behind a hang: %s %s", rec_status_name(r.status), r.message);
  }
  CHECK(run(g, "copy_spin", 256, 0.5, 1000, 0.005, NAN, &r) == ST_TIMEOUT);
  CHECK(RUN("copy_ok", 256) == ST_OK);
  /* device and kernel limits are data: invalid, the limit named (not a launch error) */
  CHECK(RUN("copy_ok", 2048) == ST_INVALID);
  CHECK_STR_CONTAINS(r.message, "block (2048,1,1)");
  CHECK(RUN("copy_max64", 256) == ST_INVALID);
  CHECK_STR_CONTAINS(r.message, "limit of 64");
  CHECK(RUN("copy_max64", 64) == ST_OK);
  CHECK(RUN("no_such_kernel", 256) == ST_LAUNCH_ERROR);
  CHECK_STR_CONTAINS(r.message, "'no_such_kernel' not found");
  CHECK(RUN("scale_tiny", 256) == ST_WRONG_RESULT);

  /* sample counts: an unreachable spread target runs to max_samples; racing against a
   * reference of half its time stops it after race_samples (flushed single launches) */
  CHECK(run(g, "copy_ok", 256, 10, 600, 1e-9, NAN, &r) == ST_OK);
  CHECK(r.samples == 600 && isnan(r.t_raced));
  {
    gpu_job j = {.cubin = "fake",
                 .cubin_len = 5,
                 .kernel = "copy_ok",
                 .timeout_s = 10,
                 .best_ms = expect,
                 .min_samples = 10,
                 .max_samples = 600,
                 .target_rse = 1e-9,
                 .race_ms = expect / 2,
                 .race_margin = 0.05,
                 .race_samples = 4};
    j.geom = (launch_geom){{(unsigned)((N + 255) / 256), 1, 1}, {256, 1, 1}, 0};
    record_free(&r);
    REQUIRE(gpu_measure(g, &j, &r, &err) == 0);
    CHECK_MSG(r.status == ST_OK && r.samples == 4 && record_raced(&r), "raced: %d samples", r.samples);
  }

  set_problem(&p, 1 << 20, ARG_OUTPUT, 1e-5);
  REQUIRE(gpu_setup(g, &p, &err) == 0);
  CHECK(RUN("scale_tiny", 256) == ST_OK);
  CHECK(RUN("scale_big", 256) == ST_WRONG_RESULT);
  CHECK_STR_CONTAINS(r.message, "relative tolerance 1e-05");

  set_problem(&p, 1 << 20, ARG_INOUT, 0); /* out += in: passes twice only if out is restored */
  REQUIRE(gpu_setup(g, &p, &err) == 0);
  CHECK(RUN("accumulate", 256) == ST_OK);
  CHECK(RUN("accumulate", 256) == ST_OK);
  CHECK(RUN("copy_ok", 256) == ST_WRONG_RESULT);

  set_problem(&p, 1 << 24, ARG_OUTPUT, 0); /* 128 MB > 2 x L2: batches of launches */
  REQUIRE(gpu_setup(g, &p, &err) == 0);
  CHECK(RUN("copy_ok", 256) == ST_OK);
  expect = (1 << 24) * 8 / 4e12 * 1e3 + 0.003;
  CHECK_MSG(r.t_median >= expect * 0.999 && r.t_median <= expect * 1.021, "median %.6f ms, expected %.6f", r.t_median,
            expect);
  CHECK(r.samples >= 10);

  /* the energy pass (fake NVML: 300 W, a counter that steps every 20 ms): P x the time per
   * launch, about 300 W x the kernel's time (batches: no flushes to subtract, whose difference
   * would amplify the host's scheduling noise on this loaded machine) */
  {
    gpu_job j = fake_job("copy_ok", 200, 0.005);
    j.want_energy = 300;
    record_free(&r);
    CHECK(gpu_measure(g, &j, &r, &err) == 0 && r.status == ST_OK);
    double want_mj = 300.0 * expect; /* 300000 mW x ms x 1e-3 */
    CHECK_MSG(isfinite(r.energy_mj) && fabs(r.energy_mj - want_mj) < 0.08 * want_mj,
              "energy %.4f mJ per launch, expected %.4f", r.energy_mj, want_mj);
    CHECK(RUN("copy_ok", 256) == ST_OK && isnan(r.energy_mj)); /* no energy unless asked */
  }

  test_symbols_checks_templates(g);
  gpu_stop(g);
  test_setup_failure_frees_guards(self);
  test_start_halves(self);
  record_free(&r);
  free(lib);
  free(fake);
  free(dir);
  free(self);
  return check_report();
}
