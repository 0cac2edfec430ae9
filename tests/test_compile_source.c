/* test_compile_source: the digest of a template covers every file it includes, found as NVRTC
 * finds them (the including file's folder, then -I folders in order), transitively; an edit of
 * any of them changes the digest and with it the compile-cache key (issue 8, item 9: a header
 * edit reused stale cubins and store records). A template that includes nothing digests as
 * the sha256 of its bytes (stores recorded before includes counted still answer). No NVRTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compile/compile.h"

static char *root;

static void put(const char *rel, const char *text) {
  char *p = path_join(root, rel), *d = path_dirname(p);
  cterr err;
  REQUIRE(mkdir_p(d, &err) == 0);
  REQUIRE(file_write_atomic(p, text, strlen(text), &err) == 0);
  free(p), free(d);
}

/* digest of root/rel with the given options; files counted into *nfiles */
static void digest(const char *rel, int nopts, const char **opts, char out[65], int *nfiles) {
  char *p = path_join(root, rel);
  compile_source cs;
  cterr err;
  int rc = compile_source_load(&cs, p, nopts, opts, &err);
  CHECK_MSG(rc == 0, "%s", err.msg);
  if (rc == 0) {
    memcpy(out, cs.digest, 65);
    if (nfiles) *nfiles = cs.nfiles;
    compile_source_free(&cs);
  }
  free(p);
}

static void key_of(const char *digest, char out[65]) {
  compile_job j;
  memset(&j, 0, sizeof j);
  j.src = "same text";
  j.src_digest = digest;
  j.kernel = "k", j.arch = "sm_90";
  compile_job_key(&j, out);
}

int main(void) {
  const char *tmp = getenv("CUTUNE_TMP") ? getenv("CUTUNE_TMP") : "/tmp";
  cterr e0;
  REQUIRE(mkdir_p(tmp, &e0) == 0);
  root = xasprintf("%s/test_compile_source.XXXXXX", tmp);
  REQUIRE(mkdtemp(root)); /* fresh each run: the test creates files that change digests */
  char a[65], b[65], c[65];
  int n = 0;

  /* nothing included: the sha256 of the template's bytes, as the store has always keyed it */
  const char *plain = "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n";
  put("plain.cu", plain);
  digest("plain.cu", 0, NULL, a, &n);
  sha256_hex(plain, strlen(plain), b, 32);
  CHECK(!strcmp(a, b) && n == 1);

  /* "x.h" next to the template, which includes "deep/y.h" relative to itself */
  put("t/kern.cu",
      "#include \"x.h\"\n  #  include <sys.h>\nextern \"C\" __global__ void k(float *a) { a[0] = X + Y; }\n");
  put("t/x.h", "#pragma once\n#include \"deep/y.h\"\n#define X 1\n");
  put("t/deep/y.h", "#define Y 2\n");
  put("inc/sys.h", "#define SYS 1\n");
  char *incdir = path_join(root, "inc"), *iopt = xasprintf("-I%s", incdir);
  const char *opts[] = {"-DFOO=1", iopt};
  digest("t/kern.cu", 2, opts, a, &n);
  CHECK_MSG(n == 4, "%d files (template, x.h, deep/y.h, sys.h)", n);
  char ka[65], kb[65];
  key_of(a, ka);

  /* editing the nested header changes the digest and the cache key */
  put("t/deep/y.h", "#define Y 3\n");
  digest("t/kern.cu", 2, opts, b, NULL);
  CHECK(strcmp(a, b) != 0);
  key_of(b, kb);
  CHECK(strcmp(ka, kb) != 0);
  /* ... and so does editing the header found through -I */
  put("inc/sys.h", "#define SYS 2\n");
  digest("t/kern.cu", 2, opts, c, NULL);
  CHECK(strcmp(b, c) != 0);
  /* an unchanged tree digests the same */
  digest("t/kern.cu", 2, opts, a, NULL);
  CHECK(!strcmp(a, c));

  /* without the -I folder, <sys.h> is found nowhere: counted as absent, digest differs; a
   * file named like it created next to the template does not count for <...> */
  const char *noinc[] = {"-DFOO=1"};
  digest("t/kern.cu", 1, noinc, b, &n);
  CHECK(strcmp(a, b) != 0 && n == 3);
  /* "x.h" is looked up next to the including file before the -I folders */
  put("inc/x.h", "#define X 100\n");
  digest("t/kern.cu", 2, opts, b, &n);
  CHECK(!strcmp(a, b) && n == 4); /* t/x.h still wins; inc/x.h is not read */
  /* a missing quoted header that appears later changes the digest */
  put("m/kern.cu", "#include \"later.h\"\n");
  digest("m/kern.cu", 0, NULL, a, &n);
  CHECK(n == 1);
  put("m/later.h", "#define L 1\n");
  digest("m/kern.cu", 0, NULL, b, &n);
  CHECK(strcmp(a, b) != 0 && n == 2);
  /* include loops end (each file is read once) */
  put("loop/a.h", "#include \"b.h\"\n");
  put("loop/b.h", "#include \"a.h\"\n");
  put("loop/k.cu", "#include \"a.h\"\n");
  digest("loop/k.cu", 0, NULL, a, &n);
  CHECK(n == 3);
  /* --include-path=DIR and -I DIR (two options) count as folders too */
  const char *opts2[] = {"--include-path", incdir};
  digest("t/kern.cu", 2, opts2, b, &n);
  CHECK(n == 4);
  char *iopt3 = xasprintf("--include-path=%s", incdir);
  const char *opts3[] = {iopt3};
  digest("t/kern.cu", 1, opts3, c, &n);
  CHECK(n == 4 && !strcmp(b, c));

  free(iopt), free(iopt3), free(incdir), free(root);
  return check_report();
}
