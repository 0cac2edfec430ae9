/* test_compile: compile_now through NVRTC (no GPU needed), resource parsing, error
 * messages, cache keys and the on-disk cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compile/compile.h"

static const char *SRC_PLAIN =
    "extern \"C\" __global__ void scale(float *a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i] = a[i] * 2.0f + 1.0f;\n"
    "}\n";

/* TILE*TILE floats of static shared memory: 32*32*4 = 4096 bytes by default. */
static const char *SRC_SMEM =
    "#ifndef TILE\n#define TILE 32\n#endif\n"
    "extern \"C\" __global__ void tile(float *out, const float *in) {\n"
    "  __shared__ float t[TILE][TILE];\n"
    "  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];\n"
    "  __syncthreads();\n"
    "  out[threadIdx.y * TILE + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n"
    "}\n";

/* The error sits on line 3. */
static const char *SRC_SYNTAX =
    "extern \"C\" __global__ void broken(float *a) {\n"
    "  int i = threadIdx.x;\n"
    "  a[i] = undefined_thing + ;\n"
    "}\n";

static compile_job job_of(const char *path, const char *src, const char *kernel, const char *arch) {
  compile_job j;
  memset(&j, 0, sizeof j);
  j.src_path = path, j.src = src, j.kernel = kernel, j.arch = arch;
  return j;
}

static void test_plain(const char *arch) {
  compile_job j = job_of("templates/scale.cu", SRC_PLAIN, "scale", arch);
  compile_result r;
  cterr err;
  double t0 = now_seconds();
  REQUIRE(compile_now(&j, &r, &err) == 0);
  fprintf(stderr, "%s: small kernel compiled in %.1f ms (NVRTC says %.1f ms)\n", arch, (now_seconds() - t0) * 1e3,
          r.compile_ms);
  CHECK_MSG(r.ok, "message: %s", r.message ? r.message : "(none)");
  CHECK(r.cubin.len > 64);
  CHECK(r.cubin.len >= 4 && !memcmp(r.cubin.data,
                                    "\x7f"
                                    "ELF",
                                    4));
  CHECK(r.res.regs > 0 && r.res.regs <= 255);
  CHECK(r.res.smem_static == 0);
  CHECK(r.res.spill_stores == 0 && r.res.spill_loads == 0);
  CHECK(r.res.local_bytes == 0);
  CHECK(r.compile_ms > 0);
  CHECK(!r.cached);
  char key[65];
  compile_job_key(&j, key);
  CHECK(!strcmp(key, r.key));
  char want[64];
  snprintf(want, sizeof want, "for '%s'", arch);
  CHECK_STR_CONTAINS(r.log.data, want);
  compile_result_free(&r);
}

static void test_smem(void) {
  const char *opts64[] = {"-DTILE=16"};
  compile_job j = job_of("templates/tile.cu", SRC_SMEM, "tile", "sm_90");
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK_MSG(r.ok, "message: %s", r.message ? r.message : "(none)");
  CHECK(r.res.smem_static == 32 * 32 * 4);
  compile_result_free(&r);
  j.nopts = 1, j.opts[0] = opts64[0];
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(r.ok);
  CHECK(r.res.smem_static == 16 * 16 * 4); /* the -D option reached the source */
  compile_result_free(&r);
}

static void test_syntax_error(void) {
  compile_job j = job_of("templates/broken.cu", SRC_SYNTAX, "broken", "sm_80");
  j.nopts = 2, j.opts[0] = "-DTILE=64", j.opts[1] = "-DPAD=1";
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(!r.ok);
  CHECK(r.cubin.len == 0);
  CHECK_STR_CONTAINS(r.message, "templates/broken.cu(3): error");
  CHECK_STR_CONTAINS(r.message, "[compiled with -DTILE=64 -DPAD=1 for sm_80]");
  CHECK(strstr(r.message, "errors detected") == NULL && strstr(r.message, "error detected") == NULL);
  CHECK_STR_CONTAINS(r.log.data, "undefined_thing"); /* the whole log is kept */
  compile_result_free(&r);
}

static void test_missing_kernel(void) {
  compile_job j = job_of("templates/scale.cu", SRC_PLAIN, "no_such_kernel", "sm_90");
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(!r.ok);
  CHECK_STR_CONTAINS(r.message, "kernel 'no_such_kernel' not found");
  CHECK_STR_CONTAINS(r.message, "scale"); /* names what the program does hold */
  compile_result_free(&r);
}

/* ptxas refuses 64 KB of static shared memory, and NVRTC's log shows no error line. */
static void test_static_smem_limit(void) {
  const char *src =
      "extern \"C\" __global__ void big(float *a) {\n"
      "  __shared__ float s[16384];\n"
      "  s[threadIdx.x] = a[0];\n  __syncthreads();\n  a[1] = s[5];\n}\n";
  compile_job j = job_of("templates/big.cu", src, "big", "sm_90");
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(!r.ok);
  CHECK_STR_CONTAINS(r.message, "65536 bytes of static shared memory");
  CHECK_STR_CONTAINS(r.message, "for sm_90]");
  compile_result_free(&r);
}

static void test_bad_option_and_arch(void) {
  compile_job j = job_of("templates/scale.cu", SRC_PLAIN, "scale", "sm_90");
  j.nopts = 1, j.opts[0] = "--no-such-flag";
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(!r.ok);
  CHECK_STR_CONTAINS(r.message, "--no-such-flag");
  compile_result_free(&r);

  j = job_of("templates/scale.cu", SRC_PLAIN, "scale", "sm_13");
  err.msg[0] = 0;
  CHECK(compile_now(&j, &r, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "sm_13");
  CHECK_STR_CONTAINS(err.msg, "sm_90"); /* lists what is supported */
  compile_result_free(&r);
  CHECK(compile_arch_supported("sm_90"));
  CHECK(compile_arch_supported("sm_80"));
  CHECK(compile_arch_supported("sm_90a"));
  CHECK(!compile_arch_supported("sm_13"));
  CHECK(!compile_arch_supported("compute_90"));
  CHECK(!compile_arch_supported("sm_"));
}

static void test_missing_header(void) {
  compile_job j = job_of("templates/inc.cu", "#include <no_such_header.h>\n", "k", "sm_90");
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK(!r.ok);
  CHECK_STR_CONTAINS(r.message, "templates/inc.cu(1): catastrophic error");
  CHECK_STR_CONTAINS(r.message, "no_such_header.h");
  CHECK(strstr(r.message, "detected in the compilation") == NULL);
  compile_result_free(&r);
}

static void test_toolkit_header(void) {
  const char *src =
      "#include <cuda_fp16.h>\n"
      "extern \"C\" __global__ void h(__half *a) { a[threadIdx.x] = __float2half(1.0f); }\n";
  compile_job j = job_of("templates/half.cu", src, "h", "sm_90");
  compile_result r;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0);
  CHECK_MSG(r.ok, "message: %s", r.message ? r.message : "(none)");
  compile_result_free(&r);
}

static void test_version(void) {
  const char *v = compile_nvrtc_version();
  int major = 0, minor = -1;
  CHECK(sscanf(v, "%d.%d", &major, &minor) == 2 && major >= 11 && minor >= 0);
  CHECK_STR_CONTAINS(compile_supported_archs(), "sm_90");
}

static void test_keys(void) {
  compile_job a = job_of("t.cu", SRC_SMEM, "tile", "sm_90");
  a.nopts = 2, a.opts[0] = "-DTILE=16", a.opts[1] = "-DPAD=1";
  char base[65], k[65];
  compile_job_key(&a, base);
  CHECK(strlen(base) == 64);
  compile_job_key(&a, k);
  CHECK(!strcmp(base, k)); /* deterministic */
  compile_job b = a;
  b.opts[1] = "-DPAD=2";
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.opts[0] = "-DTILE=32";
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.nopts = 1;
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.opts[0] = "-DTILE=16 -DPAD=1", b.nopts = 1; /* same bytes, other split */
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.arch = "sm_80";
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.kernel = "tile2";
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
  b = a, b.src = SRC_PLAIN;
  compile_job_key(&b, k);
  CHECK(strcmp(base, k));
}

static void test_cache(const char *dir) {
  compile_job j = job_of("templates/tile.cu", SRC_SMEM, "tile", "sm_90");
  compile_result r, g;
  cterr err;
  REQUIRE(compile_now(&j, &r, &err) == 0 && r.ok);
  CHECK(compile_cache_get(dir, r.key, &g) == 0); /* empty cache: miss */
  compile_result_free(&g);
  CHECK_MSG(compile_cache_put(dir, r.key, &r, &err) == 0, "%s", err.msg);
  REQUIRE(compile_cache_get(dir, r.key, &g) == 1);
  CHECK(g.ok && g.cached);
  CHECK(g.cubin.len == r.cubin.len && !memcmp(g.cubin.data, r.cubin.data, r.cubin.len));
  CHECK(g.res.regs == r.res.regs && g.res.smem_static == r.res.smem_static);
  CHECK(g.res.spill_loads == r.res.spill_loads && g.res.local_bytes == r.res.local_bytes);
  CHECK(g.compile_ms == r.compile_ms);
  CHECK(!strcmp(g.log.data, r.log.data));
  CHECK(!strcmp(g.key, r.key));
  compile_result_free(&g);

  /* a compile error is cached with its message */
  compile_result e;
  compile_job bad = job_of("templates/broken.cu", SRC_SYNTAX, "broken", "sm_90");
  REQUIRE(compile_now(&bad, &e, &err) == 0 && !e.ok);
  CHECK(compile_cache_put(dir, e.key, &e, &err) == 0);
  REQUIRE(compile_cache_get(dir, e.key, &g) == 1);
  CHECK(!g.ok && g.message && !strcmp(g.message, e.message));
  compile_result_free(&g);
  compile_result_free(&e);

  /* corrupt meta: a miss, not a crash */
  char *meta = xasprintf("%s/%.2s/%s.meta", dir, r.key, r.key);
  char *cubin = xasprintf("%s/%.2s/%s.cubin", dir, r.key, r.key);
  CHECK(file_exists(meta) && file_exists(cubin));
  REQUIRE(file_write_atomic(meta, "{\"format\": \"cutune-comp", 23, &err) == 0);
  CHECK(compile_cache_get(dir, r.key, &g) == 0);
  compile_result_free(&g);
  /* rewritten, then a truncated cubin: also a miss */
  CHECK(compile_cache_put(dir, r.key, &r, &err) == 0);
  CHECK(compile_cache_get(dir, r.key, &g) == 1);
  compile_result_free(&g);
  /* resources only: a hit without the image */
  CHECK(compile_cache_get_resources(dir, r.key, &g) == 1);
  CHECK(g.ok && g.cubin.len == 0 && g.res.regs == r.res.regs);
  compile_result_free(&g);
  REQUIRE(file_write_atomic(cubin, r.cubin.data, r.cubin.len / 2, &err) == 0);
  CHECK(compile_cache_get(dir, r.key, &g) == 0);
  compile_result_free(&g);
  CHECK(compile_cache_get_resources(dir, r.key, &g) == 0); /* the size tells it too */
  compile_result_free(&g);
  /* the same size, one word changed: the checksum tells */
  char *flipped = xmalloc(r.cubin.len);
  memcpy(flipped, r.cubin.data, r.cubin.len);
  flipped[r.cubin.len / 2] ^= 0x40;
  REQUIRE(file_write_atomic(cubin, flipped, r.cubin.len, &err) == 0);
  CHECK(compile_cache_get(dir, r.key, &g) == 0);
  compile_result_free(&g);
  free(flipped);
  /* missing meta (a crash between the two writes): a miss */
  CHECK(compile_cache_put(dir, r.key, &r, &err) == 0);
  unlink(meta);
  CHECK(compile_cache_get(dir, r.key, &g) == 0);
  compile_result_free(&g);
  CHECK(compile_cache_put(dir, "not-a-key", &r, &err) == -1);
  free(meta);
  free(cubin);
  compile_result_free(&r);
}

int main(void) {
  const char *tmp = getenv("CUTUNE_TMP");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/test_compile_cache.%ld", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
  test_version();
  test_plain("sm_90");
  test_plain("sm_80");
  test_smem();
  test_syntax_error();
  test_missing_kernel();
  test_bad_option_and_arch();
  test_static_smem_limit();
  test_toolkit_header();
  test_missing_header();
  test_keys();
  test_cache(dir);
  char *cmd = xasprintf("rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(cmd);
  return check_report();
}
