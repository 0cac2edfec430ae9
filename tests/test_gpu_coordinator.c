/* The coordinator's handling of workers that misbehave, without a GPU: this program is also a
 * fake worker (`__gpu-worker` with CUTUNE_FAKE_WORKER set) that speaks the protocol and, by
 * kernel name, answers ok, hangs, crashes, or reports a dead context. Checks that each comes
 * back with the right status, that the worker is replaced and the problem replayed, and that
 * the next job measures normally. A worker whose start fails (CUTUNE_FAKE_START_ERROR) tells
 * the coordinator whether for want of a device by its ERROR's code, whatever the text says. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gpu/gpu.h"
#include "gpu/gpu_wire.h"

/* CUTUNE_FAKE_START_ERROR=CODE:TEXT: an ERROR with that code and text in place of the start's
 * frame CUTUNE_FAKE_START_AT names (IDENT, the default, or HELLO), as a worker's start that
 * failed; the `--count` worker sends it in place of the count. */
static int fake_start_error(const char *at) {
  const char *e = getenv("CUTUNE_FAKE_START_ERROR"), *where = getenv("CUTUNE_FAKE_START_AT");
  if (!e || strcmp(where ? where : "IDENT", at)) return 0;
  cterr start, err;
  cterr_set_code(&start, atoi(e), "%s", strchr(e, ':') ? strchr(e, ':') + 1 : e);
  wire_write_error(1, &start, &err);
  return 1;
}

static int fake_worker(void) {
  cterr err;
  if (fake_start_error("IDENT")) return 1;
  gpu_device_info info;
  memset(&info, 0, sizeof info);
  snprintf(info.name, sizeof info.name, "Fake GPU");
  snprintf(info.arch, sizeof info.arch, "sm_90");
  wire_ident id;
  memset(&id, 0, sizeof id);
  id.info = info;
  id.info.copy_gbps = NAN;
  if (!getenv("CUTUNE_FAKE_NO_IDENT") && wire_write(1, MSG_IDENT, &id, sizeof id, NULL, 0, NULL, 0, &err)) return 1;
  info.copy_gbps = getenv("CUTUNE_FAKE_RESTARTED") ? NAN : 1000.0;
  if (fake_start_error("HELLO")) return 1;
  if (wire_write(1, MSG_HELLO, &info, sizeof info, NULL, 0, NULL, 0, &err)) return 1;
  dbuf p;
  dbuf_init(&p);
  int setups = 0;
  for (;;) {
    uint32_t type;
    if (wire_read(0, &type, &p, &err) || type == MSG_QUIT) break;
    if (type == MSG_SETUP) {
      wire_setup s;
      memcpy(&s, p.data, sizeof s);
      const char *k = p.data + sizeof s;
      if (s.kernel_len == 5 && !memcmp(k, "crash", 5)) {
        fputs("fake worker: reference crashed\n", stderr);
        abort();
      }
      setups++;
      wire_write(1, MSG_SETUP_OK, NULL, 0, NULL, 0, NULL, 0, &err);
    } else if (type == MSG_MEASURE) {
      wire_job j;
      memcpy(&j, p.data, sizeof j);
      char k[64];
      snprintf(k, sizeof k, "%.*s", (int)j.kernel_len, p.data + sizeof j);
      wire_result r;
      wire_result_init(&r);
      if (!strcmp(k, "hang")) {
        for (;;) pause();
      } else if (!strcmp(k, "crash")) {
        fputs("fake worker: about to crash\n", stderr);
        abort(); /* SIGABRT: sanitizers catch SIGSEGV themselves and exit instead */
      } else if (!strcmp(k, "fatal")) {
        r.status = ST_RUNTIME_FAULT;
        r.fatal = 1;
        snprintf(r.message, sizeof r.message, "the kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS");
      } else {
        r.status = setups == 1 ? ST_OK : ST_INVALID;
        snprintf(r.message, sizeof r.message, "setups=%d", setups);
        r.t_median = r.t_min = r.t_mean = 1.0;
        r.samples = 10;
      }
      wire_write(1, MSG_RESULT, &r, sizeof r, NULL, 0, NULL, 0, &err);
      if (r.fatal) return 3;
    }
  }
  dbuf_free(&p);
  return 0;
}

static rec_status measure(gpu *g, const char *kernel, double timeout, record *rec) {
  gpu_job job = {.cubin = "x",
                 .cubin_len = 1,
                 .kernel = kernel,
                 .timeout_s = timeout,
                 .best_ms = NAN,
                 .min_samples = 10,
                 .max_samples = 100,
                 .target_rse = 0.01};
  job.geom.grid[0] = job.geom.grid[1] = job.geom.grid[2] = 1;
  job.geom.block[0] = 128;
  job.geom.block[1] = job.geom.block[2] = 1;
  record_free(rec);
  cterr err;
  int rc = gpu_measure(g, &job, rec, &err);
  CHECK_MSG(rc == 0, "gpu_measure(%s) failed: %s", kernel, err.msg);
  return rec->status;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "__gpu-worker")) {
    if (argc > 3 && !strcmp(argv[3], "--no-copy-bw")) setenv("CUTUNE_FAKE_RESTARTED", "1", 1);
    return fake_worker();
  }
  setenv("CUTUNE_FAKE_WORKER", "1", 1);
  char *self = self_exe_path();
  REQUIRE(self);
  cterr err;
  gpu *g = NULL;
  REQUIRE(gpu_start(&g, self, 0, &err) == 0);
  CHECK(strcmp(gpu_info(g)->name, "Fake GPU") == 0);
  CHECK(gpu_info(g)->copy_gbps == 1000.0);

  record rec;
  record_init(&rec);
  gpu_problem p = {.nargs = 0, .seed = 1, .ref_cubin = "x", .ref_cubin_len = 1, .ref_kernel = "ref"};
  CHECK(gpu_measure(g, &(gpu_job){.kernel = "ok"}, &rec, &err) == -1); /* no setup yet */
  CHECK_STR_CONTAINS(err.msg, "gpu_setup first");
  REQUIRE(gpu_setup(g, &p, &err) == 0);

  CHECK(measure(g, "ok", 5, &rec) == ST_OK);
  CHECK_STR_CONTAINS(rec.device_name, "Fake GPU");
  CHECK(rec.block_threads == 128);

  CHECK(measure(g, "hang", 0.5, &rec) == ST_TIMEOUT); /* the deadline fired (no wall-clock assertion) */
  CHECK_STR_CONTAINS(rec.message, "time limit of 0.5 s");
  CHECK(measure(g, "ok", 5, &rec) == ST_OK); /* a fresh worker, given the problem again */
  CHECK_STR_CONTAINS(rec.message, "setups=1");

  CHECK(measure(g, "crash", 5, &rec) == ST_RUNTIME_FAULT);
  CHECK_STR_CONTAINS(rec.message, "signal 6");
  CHECK_STR_CONTAINS(rec.message, "fake worker: about to crash");
  CHECK(measure(g, "ok", 5, &rec) == ST_OK);

  CHECK(measure(g, "fatal", 5, &rec) == ST_RUNTIME_FAULT);
  CHECK_STR_CONTAINS(rec.message, "ILLEGAL_ADDRESS");
  CHECK(measure(g, "ok", 5, &rec) == ST_OK);
  /* the device info (and its copy bandwidth) survives restarts */
  CHECK(gpu_info(g)->copy_gbps == 1000.0);

  /* a reference that kills the worker: setup fails with the worker's words, the next works */
  gpu_problem bad = p;
  bad.ref_kernel = "crash";
  CHECK(gpu_setup(g, &bad, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "reference crashed");
  CHECK(gpu_measure(g, &(gpu_job){.kernel = "ok"}, &rec, &err) == -1);
  REQUIRE(gpu_setup(g, &p, &err) == 0);
  CHECK(measure(g, "ok", 5, &rec) == ST_OK);

  gpu_stop(g);

  /* a worker that skips its IDENT breaks the protocol: no start, and the error says so */
  setenv("CUTUNE_FAKE_NO_IDENT", "1", 1);
  g = (gpu *)&err;
  CHECK(gpu_start(&g, self, 0, &err) == -1 && g == NULL);
  CHECK_STR_CONTAINS(err.msg,
                     "GPU worker for device 0 did not start: GPU worker protocol: frame type 1 where IDENT was due");
  unsetenv("CUTUNE_FAKE_NO_IDENT");

  /* "no device" is the worker's ERROR's code, not its text: a text that reads as no device
   * with another code is another error, passed on as it is; the code with any text is no
   * device, for gpu_count too; after IDENT the device is there, whatever the code */
  char env[200];
  snprintf(env, sizeof env, "%d:no CUDA device 0 (but the fake's code says otherwise)", CTERR_OTHER);
  setenv("CUTUNE_FAKE_START_ERROR", env, 1);
  g = (gpu *)&err;
  CHECK(gpu_start(&g, self, 0, &err) == -1 && g == NULL);
  CHECK_STR_CONTAINS(err.msg, "no CUDA device 0 (but the fake's code says otherwise)");
  CHECK_MSG(!gpu_error_is_no_device(&err), "taken for no device: %s", err.msg);
  CHECK(gpu_count(self, &err) == 0);
  CHECK_MSG(!gpu_error_is_no_device(&err), "counted as no device: %s", err.msg);
  snprintf(env, sizeof env, "%d:the fake worker's driver has no card", CTERR_NO_DEVICE);
  setenv("CUTUNE_FAKE_START_ERROR", env, 1);
  g = (gpu *)&err;
  CHECK(gpu_start_all_begin(&g, self, &(int){0}, 1, &err) == -1 && g == NULL);
  CHECK_STR_CONTAINS(err.msg, "the fake worker's driver has no card");
  CHECK_MSG(gpu_error_is_no_device(&err), "not taken for no device: %s", err.msg);
  cterr_set(&err, "not counted"); /* the code must come from gpu_count */
  CHECK(gpu_count(self, &err) == 0);
  CHECK_MSG(gpu_error_is_no_device(&err), "not counted as no device: %s", err.msg);
  cterr_wrap(&err, "context");
  CHECK_MSG(gpu_error_is_no_device(&err), "no device lost in a wrap: %s", err.msg);
  cterr_set(&err, "another error in the same record");
  CHECK_MSG(!gpu_error_is_no_device(&err), "no device kept by another error: %s", err.msg);
  setenv("CUTUNE_FAKE_START_AT", "HELLO", 1);
  g = (gpu *)&err;
  CHECK(gpu_start(&g, self, 0, &err) == -1 && g == NULL);
  CHECK_STR_CONTAINS(err.msg, "GPU worker for device 0 (Fake GPU) did not start: the fake worker's driver has no card");
  CHECK_MSG(!gpu_error_is_no_device(&err), "no device after IDENT: %s", err.msg);
  unsetenv("CUTUNE_FAKE_START_AT");
  unsetenv("CUTUNE_FAKE_START_ERROR");
  record_free(&rec);
  free(self);
  return check_report();
}
