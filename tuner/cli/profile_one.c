/* profile_one: one configuration on one problem in a GPU worker, for the tools of `cutune
 * explain` (see profile_one.h; the measuring is engine/measure_one.c).
 *
 *   cutune __profile-one SPACE CONFIG PROBLEM [--samples N] [--isolated N] [--device N]
 *
 * --samples N: timed samples (min = max = N; default 5), --isolated N: isolated single launches
 * (default 0). Under a sanitizer use --samples 1: each launch runs 10-100x slower there. */
#include <stdio.h>
#include <string.h>

#include "engine/measure_one.h"
#include "profile_one.h"
#include "store/record_json.h"

int profile_one_main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: cutune __profile-one SPACE CONFIG PROBLEM [--samples N] [--isolated N] [--device N]\n");
    return 2;
  }
  long samples = 5, isolated = 0, device = 0;
  cterr err = {0};
  for (int i = 4; i < argc; i += 2) { /* OPTION VALUE pairs */
    long *dst = !strcmp(argv[i], "--samples")    ? &samples
                : !strcmp(argv[i], "--isolated") ? &isolated
                : !strcmp(argv[i], "--device")   ? &device
                                                 : NULL;
    if (!dst || i + 1 >= argc || parse_long(argv[i + 1], dst, argv[i], &err) != 0) {
      fprintf(stderr, "cutune __profile-one: bad option '%s'%s%s\n", argv[i], err.msg[0] ? ": " : "", err.msg);
      return 2;
    }
  }
  measure_one_opts o = {.samples = samples < 1 ? 1 : (int)samples, .isolated = (int)isolated, .device = (int)device};
  record rec;
  if (measure_one(argv[1], argv[2], argv[3], &o, &rec, &err) != 0) {
    record_free(&rec);
    fprintf(stderr, "cutune __profile-one: %s\n", err.msg);
    return 1;
  }
  dbuf line;
  dbuf_init(&line);
  record_to_json(&rec, &line);
  printf("%s%s\n", PROFILE_ONE_TAG, line.data);
  fflush(stdout);
  dbuf_free(&line);
  record_free(&rec);
  return 0;
}
