/* fuzz_space: space_load on arbitrary space files, with small Lua limits so that a loop or a
 * growing table ends quickly. Run from the repository root: the input is written to a
 * temporary file, and the seeds name their template "tests/spaces/tiny.cu", which resolves
 * through the working directory. A loaded space answers geometry for a few configurations. */
#include "fuzz_util.h"
#include "space/space.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  setenv("CUTUNE_LUA_INSTRUCTIONS", "1e6", 1);
  setenv("CUTUNE_LUA_MEMORY", "64", 1);
  setenv("CUTUNE_LUA_SECONDS", "2", 1);
  setenv("CUTUNE_MAX_CONFIGS", "10000", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  space *s = NULL;
  cterr e;
  if (space_load(fuzz_file(data, size, ".lua"), &s, &e) == 0) {
    size_t n = configset_count(space_configs(s));
    for (int p = 0; p < space_nproblems(s); p++)
      for (size_t c = 0; c < n && c < 8; c++) {
        launch_geom g;
        space_geometry(s, c, p, &g, &e);
      }
    space_free(s);
  }
  return 0;
}
