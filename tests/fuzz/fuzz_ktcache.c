/* fuzz_ktcache: replay_load on Kernel Tuner cache files (JSON, maybe gzip), and the replay
 * built from one: every accessor over every configuration. */
#include <math.h>

#include "fuzz_util.h"
#include "search/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setenv("CUTUNE_MAX_INPUT_MB", "4", 1);
  replay *r = NULL;
  cterr e;
  if (replay_load(fuzz_file(data, size, ".json"), NULL, &r, &e) == 0) {
    const configset *cs = replay_configs(r);
    for (size_t i = 0; i < replay_count(r); i++) {
      double v = replay_value(r, i);
      if (!(v > 0)) abort(); /* failed is INFINITY; nothing at or below zero survives loading */
      (void)replay_status(r, i), (void)replay_reps(r, i), (void)replay_nreps(r, i);
      if (i < configset_count(cs)) free(configset_row_key(cs, configset_row(cs, i)));
    }
    (void)replay_warnings(r);
    replay_free(r);
  }
  return 0;
}
