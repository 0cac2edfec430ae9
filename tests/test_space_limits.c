/* test_space_limits: the bounds on a space's Lua code beyond what tests/spaces/bad/ covers —
 * the wall-clock limit (for
 * code that spends its time where the instruction count does not see it), and everyday
 * patterns and options that must still pass. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "space/space.h"

int main(void) {
  space *s = NULL;
  cterr e = {0};

  setenv("CUTUNE_LUA_INSTRUCTIONS", "1e6", 1);
  /* the instruction count stops a plain loop */
  s = NULL;
  CHECK(space_load("tests/spaces/limits/spins.lua", &s, &e) == -1 && s == NULL);
  CHECK_STR_CONTAINS(e.msg, "tests/spaces/limits/spins.lua:2: the space's Lua code ran more than 1e+06 instructions");
  CHECK_STR_CONTAINS(e.msg, "CUTUNE_LUA_INSTRUCTIONS=N");

  /* with the count out of reach, the clock stops it */
  setenv("CUTUNE_LUA_INSTRUCTIONS", "1e15", 1);
  setenv("CUTUNE_LUA_SECONDS", "0.2", 1);
  CHECK(space_load("tests/spaces/limits/spins.lua", &s, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "tests/spaces/limits/spins.lua:2: the space's Lua code ran longer than 0.2 s");
  CHECK_STR_CONTAINS(e.msg, "CUTUNE_LUA_SECONDS=N");
  unsetenv("CUTUNE_LUA_SECONDS");
  unsetenv("CUTUNE_LUA_INSTRUCTIONS");

  /* ordinary patterns and allowed options load */
  e.msg[0] = 0;
  CHECK_MSG(space_load("tests/spaces/limits/patterns_ok.lua", &s, &e) == 0, "%s", e.msg);
  if (s) {
    CHECK(space_noptions(s) == 6);
    space_free(s);
  }
  return check_report();
}
