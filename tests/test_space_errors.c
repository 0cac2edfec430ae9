/* test_space_errors: every fixture in tests/spaces/bad/ must be rejected with the message it
 * announces. A fixture's first line is
 *   -- expect: SUBSTRING            space_load fails and its message contains SUBSTRING
 *   -- expect-geometry: SUBSTRING   space_load succeeds; space_geometry fails on some
 *                                   (configuration, problem) with a message containing it, in
 *                                   the space's own code (code CTERR_SPACE: a space_error record)
 *   -- expect-limit: SUBSTRING      the same, over a limit of CUDA (any other code: invalid)
 *   -- expect-edit: SUBSTRING       space_load succeeds; its template_edit, a generator
 *                                   (function(text, p)), fails for some configuration
 * A line carrying the marker `--@` is the line the message must name: the message must then
 * contain "FILE:LINE:". Without a marker the message must at least name "FILE:". */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "space/space.h"

#define BAD_DIR "tests/spaces/bad"

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void check_fixture(const char *path) {
  dbuf src;
  cterr e;
  dbuf_init(&src);
  REQUIRE(file_read(path, &src, &e) == 0);
  int geometry = 0, limit = 0;
  char expect[512] = "";
  const char *p = src.data;
  if (!strncmp(p, "-- expect: ", 11)) p += 11;
  else if (!strncmp(p, "-- expect-geometry: ", 20)) p += 20, geometry = 1;
  else if (!strncmp(p, "-- expect-edit: ", 16)) p += 16, geometry = 2;
  else if (!strncmp(p, "-- expect-limit: ", 17)) p += 17, geometry = limit = 1;
  else {
    CHECK_MSG(0,
              "%s: first line must be '-- expect: ...', '-- expect-geometry: ...', '-- expect-limit: ...' or '-- "
              "expect-edit: ...'",
              path);
    dbuf_free(&src);
    return;
  }
  size_t n = strcspn(p, "\n");
  snprintf(expect, sizeof expect, "%.*s", (int)n, p);
  int mark = 0, line = 1;
  for (const char *q = src.data; *q; q++) {
    if (*q == '\n') line++;
    else if (!strncmp(q, "--@", 3) && !mark) mark = line;
  }
  char where[600];
  if (mark) snprintf(where, sizeof where, "%s:%d:", path, mark);
  else snprintf(where, sizeof where, "%s:", path);

  space *s = NULL;
  memset(e.msg, 0, sizeof e.msg);
  int rc = space_load(path, &s, &e);
  if (!geometry) {
    CHECK_MSG(rc == -1 && s == NULL, "%s: space_load should fail", path);
  } else if (geometry == 2) {
    CHECK_MSG(rc == 0, "%s: space_load should succeed, got: %s", path, e.msg);
    CHECK_MSG(s && space_edit_per_config(s), "%s: template_edit should be a generator (function(text, p))", path);
    int failed = 0;
    for (size_t c = 0; s && c < configset_count(space_configs(s)) && !failed; c++) {
      char *out = NULL;
      failed = space_edit_program(s, "text", c, 0, NULL, NULL, &out, &e) < 0;
      free(out);
    }
    CHECK_MSG(failed, "%s: template_edit should fail for some configuration", path);
    space_free(s);
  } else {
    CHECK_MSG(rc == 0, "%s: space_load should succeed, got: %s", path, e.msg);
    int failed = 0;
    for (int prob = 0; s && prob < space_nproblems(s) && !failed; prob++)
      for (size_t c = 0; c < configset_count(space_configs(s)) && !failed; c++) {
        launch_geom g;
        failed = space_geometry(s, c, prob, &g, &e) < 0;
      }
    CHECK_MSG(failed, "%s: space_geometry should fail for some configuration", path);
    CHECK_MSG(!failed || (e.code == CTERR_SPACE) == !limit, "%s: code %d: %s", path, e.code,
              limit ? "a limit is no error of the space's code" : "an error of the space's code wants CTERR_SPACE");
    space_free(s);
  }
  /* the message starts with the place, then says what was expected */
  CHECK_MSG(strncmp(e.msg, where, strlen(where)) == 0, "%s: expected the message to start with \"%s\", got \"%s\"",
            path, where, e.msg);
  CHECK_STR_CONTAINS(e.msg, expect);
  fprintf(stderr, "ok %s\n   %s\n", path_basename(path), e.msg);
  dbuf_free(&src);
}

int main(void) {
  /* small limits, so that the fixtures that loop, grow or enumerate without end stop soon */
  setenv("CUTUNE_LUA_INSTRUCTIONS", "1e7", 1);
  setenv("CUTUNE_LUA_MEMORY", "64", 1);
  setenv("CUTUNE_MAX_CONFIGS", "100000", 1);
  DIR *d = opendir(BAD_DIR);
  REQUIRE(d != NULL);
  char **names = NULL;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len > 4 && !strcmp(de->d_name + len - 4, ".lua")) {
      names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
      names[n++] = xasprintf("%s/%s", BAD_DIR, de->d_name);
    }
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_name);
  CHECK(n >= 40); /* the corpus: a missing directory must not pass as "no failures" */
  for (int i = 0; i < n; i++) {
    check_fixture(names[i]);
    free(names[i]);
  }
  free(names);

  /* a space that runs os.execute must not have run it */
  CHECK(!file_exists("cutune_pwned_marker"));
  CHECK(!file_exists("cutune_pwned_time.csv") && !file_exists("cutune_pwned_trace.json"));
  /* a missing space file */
  space *s;
  cterr e;
  CHECK(space_load(BAD_DIR "/no_such_space.lua", &s, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "no_such_space.lua");
  return check_report();
}
