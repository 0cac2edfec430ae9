/* test_space: loading the fixture spaces of tests/spaces/ and checking what the loader gives
 * (configurations, geometry, arguments, bytes, flops, reference) against values computed
 * here in C from the same rules — counts by brute force over the raw product. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "space/space.h"

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t pv(const space *s, size_t cfg, const char *name) {
  const configset *cs = space_configs(s);
  int p = configset_param_index(cs, name);
  REQUIRE(p >= 0);
  return (int64_t)configset_param(cs, p)->num[configset_row(cs, cfg)[p]];
}

static int64_t problem_var(const space *s, int prob, const char *name) {
  for (int j = 0; j < space_problem_nvars(s, prob); j++) {
    int64_t v;
    if (!strcmp(space_problem_var(s, prob, j, &v), name)) return v;
  }
  REQUIRE(0);
  return 0;
}

/* the rules of good.lua, in C */
static int good_valid(int64_t tile, int64_t rows, int64_t vec, int64_t pad, int64_t unroll) {
  return tile % rows == 0 && tile / vec >= 4 && (pad == 0 || vec == 1 || unroll == 1);
}

static void test_good(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/good.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  CHECK(!strcmp(space_name(s), "good"));
  CHECK(!strcmp(space_kernel(s), "tiny"));
  CHECK(!strcmp(space_template_path(s), "tests/spaces/tiny.cu"));
  CHECK(!strcmp(space_ref_kernel(s), "tiny_ref"));
  CHECK(!strcmp(space_ref_template_path(s), space_template_path(s)));
  const configset *cs = space_configs(s);
  REQUIRE(configset_nparams(cs) == 5);
  const char *order[] = {"TILE", "ROWS", "VEC", "PAD", "UNROLL"};
  for (int p = 0; p < 5; p++) CHECK(!strcmp(configset_param(cs, p)->name, order[p]));
  /* ct.pow2(8, 64), ct.range(1, 8), booleans as 0/1 */
  CHECK(configset_param(cs, 0)->nvalues == 4 && !strcmp(configset_param(cs, 0)->str[3], "64"));
  CHECK(configset_param(cs, 1)->nvalues == 8 && configset_param(cs, 1)->num[7] == 8);
  CHECK(configset_param(cs, 4)->nvalues == 2 && !strcmp(configset_param(cs, 4)->str[1], "1"));

  /* brute force over the raw product */
  static const int64_t tiles[] = {8, 16, 32, 64}, vecs[] = {1, 2, 4};
  size_t expect = 0;
  for (int a = 0; a < 4; a++)
    for (int r = 1; r <= 8; r++)
      for (int v = 0; v < 3; v++)
        for (int pad = 0; pad < 3; pad++)
          for (int u = 0; u < 2; u++) expect += good_valid(tiles[a], r, vecs[v], pad, u);
  CHECK_MSG(configset_count(cs) == expect, "count %zu, brute force %zu", configset_count(cs), expect);
  CHECK(expect > 0 && expect < 4 * 8 * 3 * 3 * 2);

  REQUIRE(space_nproblems(s) == 2);
  CHECK(!strcmp(space_problem_key(s, 0), "M=300,N=1000"));
  CHECK(!strcmp(space_problem_key(s, 1), "M=4096,N=4096"));
  for (int prob = 0; prob < 2; prob++) {
    int64_t N = problem_var(s, prob, "N"), M = problem_var(s, prob, "M");
    for (size_t c = 0; c < configset_count(cs); c++) {
      int64_t tile = pv(s, c, "TILE"), rows = pv(s, c, "ROWS"), vec = pv(s, c, "VEC"), pad = pv(s, c, "PAD");
      CHECK(good_valid(tile, rows, vec, pad, pv(s, c, "UNROLL")));
      launch_geom g;
      rc = space_geometry(s, c, prob, &g, &e);
      CHECK_MSG(rc == 0, "%s", e.msg);
      CHECK(g.block[0] == (unsigned)(tile / vec) && g.block[1] == (unsigned)rows && g.block[2] == 1);
      CHECK(g.grid[0] == (unsigned)cdiv(M, tile) && g.grid[1] == (unsigned)cdiv(N, tile) && g.grid[2] == 1);
      CHECK(g.dyn_smem == (unsigned)(tile * (tile + pad) * 4));
    }
    argspec a[MAX_ARGS];
    int n = -1;
    REQUIRE(space_args(s, prob, a, &n, &e) == 0);
    REQUIRE(n == 6);
    CHECK(a[0].kind == ARG_OUTPUT && a[0].type == EL_F32 && a[0].count == N * M && a[0].fill == FILL_RANDOM);
    CHECK(a[0].lo == -1 && a[0].hi == 1);
    CHECK(a[1].kind == ARG_INPUT && a[1].type == EL_F64 && a[1].count == N + 1 && a[1].fill == FILL_IOTA);
    CHECK(!strcmp(a[1].name, "src"));
    CHECK(a[2].kind == ARG_INOUT && a[2].type == EL_U8 && a[2].count == 7 && a[2].fill == FILL_ZERO);
    CHECK(a[2].lo == 0 && a[2].hi == 1000);
    CHECK(a[3].kind == ARG_SCALAR && a[3].type == EL_I32 && a[3].ival == N);
    CHECK(a[4].kind == ARG_SCALAR && a[4].type == EL_F32 && a[4].fval == (double)(N > M ? N : M) / 2);
    CHECK(a[5].kind == ARG_SCALAR && a[5].type == EL_I64 && a[5].ival == N * M * 1000);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++) CHECK(strcmp(a[i].name, a[j].name)); /* names tell arguments apart */
    CHECK(space_bytes(s, prob, &e) == 2.0 * 4 * N * M);
    CHECK(space_flops(s, prob, &e) == (double)N * M);
    launch_geom rg;
    REQUIRE(space_ref_geometry(s, prob, &rg, &e) == 0);
    CHECK(rg.block[0] == 32 && rg.block[1] == 8 && rg.block[2] == 1);
    CHECK(rg.grid[0] == (unsigned)cdiv(M, 32) && rg.grid[1] == (unsigned)cdiv(N, 8) && rg.dyn_smem == 0);
  }
  CHECK(space_tolerance(s) == 1e-5);
  CHECK(space_timeout(s) == 5);
  CHECK(space_nobjectives(s) == 4 && !strcmp(space_objective(s, 0), "time") &&
        !strcmp(space_objective(s, 1), "energy"));
  CHECK(!strcmp(space_objective(s, 2), "regs") && !space_objective_max(s, 2) && space_objective_max(s, 3));
  CHECK(space_noptions(s) == 2 && !strcmp(space_option(s, 1), "--use_fast_math"));
  CHECK(space_option(s, 2) == NULL);
  /* out-of-range questions are errors, not crashes */
  launch_geom g;
  CHECK(space_geometry(s, configset_count(cs), 0, &g, &e) == -1);
  CHECK(space_geometry(s, 0, 2, &g, &e) == -1);
  space_free(s);
}

static void test_map(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/map.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  const configset *cs = space_configs(s);
  /* map-form params come sorted by name */
  REQUIRE(configset_nparams(cs) == 3);
  CHECK(!strcmp(configset_param(cs, 0)->name, "A") && !strcmp(configset_param(cs, 1)->name, "M") &&
        !strcmp(configset_param(cs, 2)->name, "TILE"));
  CHECK(configset_count(cs) == 6);
  /* defaults */
  CHECK(!strcmp(space_name(s), "map"));
  CHECK(space_ref_kernel(s) == NULL && space_ref_template_path(s) == NULL);
  launch_geom g;
  CHECK(space_ref_geometry(s, 0, &g, &e) == -1);
  CHECK(space_tolerance(s) == 0 && space_timeout(s) == 10);
  CHECK(space_nobjectives(s) == 1 && !strcmp(space_objective(s, 0), "time"));
  CHECK(space_noptions(s) == 0);
  CHECK(isnan(space_bytes(s, 0, &e)) && isnan(space_flops(s, 0, &e)));
  CHECK(space_nproblems(s) == 1 && !strcmp(space_problem_key(s, 0), "N=64"));
  REQUIRE(space_geometry(s, 5, 0, &g, &e) == 0);
  CHECK(g.block[0] == 128 && g.block[1] == 1 && g.grid[0] == 1 && g.dyn_smem == 0);
  space_free(s);
}

/* fake_runtime.lua: runtime parameters R (a size expression "R") and S (function(n, p) p.S * 2)
 * are per-configuration values of args 4 and 5; U is not; space_args has the first values */
static void test_runtime(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/fake_runtime.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  const configset *cs = space_configs(s);
  REQUIRE(configset_nparams(cs) == 3 && configset_count(cs) == 12);
  CHECK(space_nruntime(s) == 2);
  CHECK(!space_param_runtime(s, 0) && space_param_runtime(s, 1) && space_param_runtime(s, 2));
  argspec a[MAX_ARGS];
  int na = 0;
  REQUIRE(space_args(s, 0, a, &na, &e) == 0 && na == 5);
  CHECK(a[3].ival == 1 && a[4].ival == 0); /* the probe: each runtime parameter's first value */
  int seen = 0;
  for (size_t c = 0; c < configset_count(cs); c++) {
    const uint16_t *row = configset_row(cs, c);
    const cs_param *pr = configset_param(cs, 1), *ps = configset_param(cs, 2);
    long r = atol(pr->str[row[1]]), sv = atol(ps->str[row[2]]);
    argval v[MAX_ARGVALS];
    int n = -1;
    rc = space_config_args(s, c, 0, v, &n, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    if (rc != 0 || n != 2) {
      CHECK_MSG(0, "configuration %zu: %d values (wanted 2)", c, n);
      continue;
    }
    CHECK(v[0].index == 3 && v[0].ival == r);
    CHECK(v[1].index == 4 && v[1].ival == 2 * sv);
    seen += r == 2 && sv == 5;
  }
  CHECK(seen == 2); /* U=1 and U=2 */
  /* out of range: an error naming the configuration, not a crash */
  argval v[MAX_ARGVALS];
  int n;
  CHECK(space_config_args(s, 99, 0, v, &n, &e) == -1);
  space_free(s);
}

/* big.lua: 10^6 raw combinations, four rules at depths 1, 3, 4 and 5 */
static void test_big(void) {
  space *s;
  cterr e;
  double t0 = now_seconds();
  int rc = space_load("tests/spaces/big.lua", &s, &e);
  double t = now_seconds() - t0;
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  const configset *cs = space_configs(s);
  CHECK(configset_raw_size(cs) == 1e6);
  size_t expect = 0;
  for (int a = 1; a <= 10; a++)
    for (int b = 1; b <= 10; b++)
      for (int c = 1; c <= 10; c++)
        for (int d = 1; d <= 10; d++)
          for (int e5 = 1; e5 <= 10; e5++)
            for (int f = 1; f <= 10; f++) expect += (a + b) % 3 != 0 && c <= d && a * e5 < 60 && ((b ^ f) & 1) == 0;
  CHECK_MSG(configset_count(cs) == expect, "count %zu, brute force %zu", configset_count(cs), expect);
  fprintf(stderr, "big.lua: %zu of 1000000 configurations, enumerated in %.3f s (load %.3f s)\n", configset_count(cs),
          space_enumerate_seconds(s), t);
  /* a configuration in the middle has the geometry its parameters say */
  size_t mid = configset_count(cs) / 2;
  launch_geom g;
  REQUIRE(space_geometry(s, mid, 0, &g, &e) == 0);
  CHECK(g.block[0] == (unsigned)(32 * pv(s, mid, "A")));
  space_free(s);
}

/* sandbox.lua asserts, in Lua, what the sandbox allows and denies */
static void test_sandbox(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/sandbox.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  const configset *cs = space_configs(s);
  REQUIRE(configset_count(cs) == 4);
  CHECK(!strcmp(configset_param(cs, 0)->str[0], "10") && !strcmp(configset_param(cs, 0)->str[3], "1"));
  argspec a[MAX_ARGS];
  int n;
  REQUIRE(space_args(s, 0, a, &n, &e) == 0);
  CHECK(n == 2 && a[1].ival == 42);
  launch_geom g;
  REQUIRE(space_geometry(s, 1, 0, &g, &e) == 0);
  CHECK(g.block[0] == 7 && g.grid[0] == 15);
  space_free(s);
}

/* check_mismatches.lua: each output's mismatches in its argspec (what the GPU worker gets): its
 * own, else the space's check.mismatches; none for a reduce check */
static void test_mismatches(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/check_mismatches.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  argspec a[MAX_ARGS];
  int n;
  REQUIRE(space_args(s, 0, a, &n, &e) == 0 && n == 6);
  CHECK(a[0].mismatches == 3);
  CHECK(a[1].mismatches == 5);
  CHECK(a[2].reduce == RED_SUM && a[2].mismatches == 0);
  CHECK(a[3].kind == ARG_INOUT && a[3].mismatches == 0);
  CHECK(a[1].atol == 1e-6); /* the space's other check options still reach every output */
  space_free(s);
}

/* shapes.lua: every form of a shape set, in order, a set's repeat tuned once; shapes_10k.lua:
 * 10,000 shapes from one ct.product with a where filter, and refused under a lower cap */
static void test_shapes(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/shapes.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  static const char *const keys[] = {"K=4096,M=4096,N=4096", "K=1024,M=256,N=256", "K=1024,M=256,N=512",
                                     "K=1024,M=512,N=256",   "K=1024,M=512,N=512", "K=100,M=100,N=100",
                                     "K=7,M=7,N=7",          "K=1,M=1,N=1",        "K=2,M=1,N=1"};
  CHECK_MSG(space_nproblems(s) == 9, "%d problems", space_nproblems(s));
  for (int p = 0; p < 9 && p < space_nproblems(s); p++)
    CHECK_MSG(!strcmp(space_problem_key(s, p), keys[p]), "problem %d is %s (wanted %s)", p, space_problem_key(s, p),
              keys[p]);
  /* every problem got its arguments and flops */
  CHECK(fabs(space_flops(s, 1, &e) - 2.0 * 256 * 256 * 1024) < 1);
  argspec a[MAX_ARGS];
  int n;
  REQUIRE(space_args(s, 6, a, &n, &e) == 0);
  CHECK(n == 3 && a[0].count == 49 && a[2].ival == 7);
  space_free(s);

  rc = space_load("tests/spaces/shapes_10k.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  CHECK_MSG(space_nproblems(s) == 10000, "%d problems", space_nproblems(s));
  /* M = 1001 .. 1100 (slow), N = 1 .. 101 (fast), without M == N + 1000: M=1001,N=1 is filtered */
  CHECK(!strcmp(space_problem_key(s, 0), "M=1001,N=2") && !strcmp(space_problem_key(s, 9999), "M=1100,N=101"));
  CHECK(problem_var(s, 100, "M") == 1002 && problem_var(s, 100, "N") == 1);
  space_free(s);
  setenv("CUTUNE_MAX_PROBLEMS", "5000", 1);
  rc = space_load("tests/spaces/shapes_10k.lua", &s, &e);
  unsetenv("CUTUNE_MAX_PROBLEMS");
  CHECK(rc == -1);
  CHECK_MSG(strstr(e.msg,
                   "shapes_10k.lua:9: ct.product: the space would have 10000 problems (10000 of them from this "
                   "ct.product), more than 5000: the cap") != NULL,
            "%s", e.msg);
}

/* the index of the configuration with these values of the first nv parameters, or -1 */
static long find_cfg(const space *s, const char *const *names, const int64_t *vals, int nv) {
  for (size_t c = 0; c < configset_count(space_configs(s)); c++) {
    int hit = 1;
    for (int i = 0; i < nv && hit; i++) hit = pv(s, c, names[i]) == vals[i];
    if (hit) return (long)c;
  }
  return -1;
}

/* arch: fake_hgemm.lua's W=1 needs sm_90a (compiled for it on a 9.0 target, not for any other),
 * W=0 anything; lua/hgemm_space.lua's mma.sync configurations sm_80 or newer; its geometry is
 * templates/hgemm.cu's (HG_THREADS, HG_SMEM: 1024 + STAGES * 2 * (BM + BN) * BK + 16 * STAGES with a
 * producer warpgroup; grid tiles * SPLITK); its baseline cublasGemmEx of bf16. */
static void test_arch(void) {
  space *s;
  cterr e;
  int rc = space_load("tests/spaces/fake_hgemm.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  char out[16], why[160];
  for (size_t c = 0; c < configset_count(space_configs(s)); c++) {
    int w = (int)pv(s, c, "W");
    CHECK(w ? !strcmp(space_config_needs(s, c), "sm_90a") : space_config_needs(s, c) == NULL);
    CHECK(space_config_arch(s, c, "sm_90", out, sizeof out, why, sizeof why) == 1 &&
          !strcmp(out, w ? "sm_90a" : "sm_90"));
    CHECK(space_config_arch(s, c, "sm_90a", out, sizeof out, why, sizeof why) == 1 && !strcmp(out, "sm_90a"));
    rc = space_config_arch(s, c, "sm_80", out, sizeof out, why, sizeof why);
    CHECK(rc == !w && !strcmp(out, "sm_80"));
    if (w) CHECK(strstr(why, "needs sm_90a (architecture-specific: compute capability 9.0 only), not sm_80") != NULL);
    CHECK(space_config_arch(s, c, "sm_100", out, sizeof out, why, sizeof why) == !w);
  }
  int64_t mnk[3];
  CHECK(space_sgemm(s, 0, mnk) == 1 && mnk[0] == 32 && mnk[1] == 24 && mnk[2] == 4096 && space_gemm_type(s) == EL_BF16);
  space_free(s);

  rc = space_load("lua/hgemm_space.lua", &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  CHECK(space_gemm_type(s) == EL_BF16 && space_tolerance(s) == 16.0 * ldexp(1.0, -24) * 16384);
  static const char *const names[] = {"WG",  "BM", "BN",    "BK",   "WM",     "WN",    "STAGES",
                                      "SWZ", "WS", "WAITG", "REGS", "GROUPM", "SPLITK"};
  static const int64_t ws[] = {1, 128, 256, 64, 64, 256, 4, 128, 1, 1, 1, 8, 4},
                       mma[] = {0, 128, 128, 32, 64, 64, 4, 64, 0, 0, 0, 1, 1};
  long c1 = find_cfg(s, names, ws, 13), c0 = find_cfg(s, names, mma, 13);
  REQUIRE(c1 >= 0 && c0 >= 0);
  CHECK(!strcmp(space_config_needs(s, (size_t)c0), "sm_80") && !strcmp(space_config_needs(s, (size_t)c1), "sm_90a"));
  CHECK(space_config_arch(s, (size_t)c0, "sm_75", out, sizeof out, why, sizeof why) == 0);
  CHECK(strstr(why, "needs sm_80 or newer, not sm_75") != NULL);
  CHECK(space_config_arch(s, (size_t)c0, "sm_86", out, sizeof out, why, sizeof why) == 1 && !strcmp(out, "sm_86"));
  launch_geom g;
  REQUIRE(space_geometry(s, (size_t)c1, 0, &g, &e) == 0);
  CHECK(g.block[0] == 384 && g.dyn_smem == 1024 + 4 * 2 * (128 + 256) * 64 + 16 * 4);
  CHECK(g.grid[0] == (4096 / 128) * (4096 / 256) * 4);
  REQUIRE(space_geometry(s, (size_t)c0, 1, &g, &e) == 0); /* 1000x1003x999 */
  CHECK(g.block[0] == 128 && g.dyn_smem == 1024 + 4 * 2 * (128 + 128) * 32 && g.grid[0] == 8 * 8);
  space_free(s);
}

int main(void) {
  test_arch();
  test_sandbox();
  test_mismatches();
  test_shapes();
  test_good();
  test_map();
  test_big();
  test_runtime();
  space_free(NULL);
  return check_report();
}
