/* select_test: the selector of the fixture header (tests/ship/shipfix.golden.h) — fallback order,
 * the default rule and the nearest measured size. Built by tests/cli_ship.sh with gcc -std=c99,
 * g++ and nvcc; exits 1 on the first failed check. Expected values: tests/ship/make_fixtures.py. */
#include <stdio.h>

#include "shipfix.golden.h"

static int fails;
#define EXPECT(what, e, lvl, a, b, c)                                                                                  \
  do {                                                                                                                 \
    const cutune_shipfix_entry *x_ = (e);                                                                              \
    if (x_->level != (lvl) || x_->A != (a) || x_->B != (b) || x_->C != (c)) {                                          \
      printf("FAIL %s: level %d A=%d B=%d C=%d (wanted level %d A=%d B=%d C=%d)\n", what, x_->level, x_->A, x_->B,     \
             x_->C, lvl, a, b, c);                                                                                     \
      fails++;                                                                                                         \
    }                                                                                                                  \
  } while (0)

int main(void) {
  /* a known device: its own winners, per problem */
  EXPECT("H200 small", cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 1000), 0, 4, 2, 1);
  EXPECT("H200 large", cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 100000), 0, 1, 2, 1);
  EXPECT("A4000 (Kernel Tuner cache)", cutune_shipfix_select("NVIDIA RTX A4000", 8, 6, 10, 1000), 0, 4, 1, 0);
  /* an unknown device of a known architecture: the portable choice over its GPUs */
  EXPECT("unknown sm_90", cutune_shipfix_select("NVIDIA H20", 9, 0, 10, 1000), 1, 2, 1, 0);
  EXPECT("unknown sm_80", cutune_shipfix_select("NVIDIA A800", 8, 0, 10, 1000), 1, 4, 1, 1);
  /* an unknown architecture: the default, best worst-case share (i5, 71.4 % everywhere) */
  EXPECT("unknown sm_75", cutune_shipfix_select("Tesla T4", 7, 5, 10, 1000), 2, 2, 1, 1);
  EXPECT("no name", cutune_shipfix_select(NULL, 12, 0, 10, 1000), 2, 2, 1, 1);
  /* nearest measured size: |ln 20000/1000| = 3.0 > |ln 20000/100000| = 1.6; 5000: the other way */
  EXPECT("nearest 20000", cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 20000), 0, 1, 2, 1);
  EXPECT("nearest 5000", cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 5000), 0, 4, 2, 1);
  EXPECT("default large", cutune_shipfix_select("x", 7, 0, 10, 200000), 2, 1, 1, 1);
  /* a device level wins over the size: the H100 measured the small problem only */
  EXPECT("H100 large", cutune_shipfix_select("NVIDIA H100 80GB HBM3", 9, 0, 10, 100000), 0, 4, 2, 0);
  /* geometry from the space's block function: 32*A x B */
  {
    const cutune_shipfix_entry *e = cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 1000);
    if (e->block[0] != 128 || e->block[1] != 2 || e->block[2] != 1)
      printf("FAIL block %u %u %u\n", e->block[0], e->block[1], e->block[2]), fails++;
  }
  /* device-code macros for one target (CUTUNE_SHIPFIX_ARCH given on the command line) */
#if defined(CUTUNE_SHIPFIX_ARCH) && CUTUNE_SHIPFIX_ARCH == 80
  /* the sm_80 entry at its largest problem: the A100's winner there, i2 */
  if (CUTUNE_SHIPFIX_A != 1 || CUTUNE_SHIPFIX_B != 2 || CUTUNE_SHIPFIX_C != 0) printf("FAIL sm_80 macros\n"), fails++;
#endif
  printf("%s\n", fails ? "select_test: failed" : "select_test: all checks passed");
  return fails != 0;
}
