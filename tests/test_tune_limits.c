/* test_tune_limits: the budget, time limit and strategy `cutune run` chooses per problem from the
 * space's size and the options (tuner/engine/tune.h: a space too large to exhaust gets a budgeted
 * search by default; --time alone searches; explicit options win). */
#include <string.h>

#include "check.h"
#include "search/strategy.h"
#include "engine/compile_only.h"
#include "engine/tune.h"

int main(void) {
  long b;
  double t;
  const char *s, *note;
  run_opts o = {0};

  /* small space, no options: all of it, in a seeded random order (racing's reference settles
   * early; --strategy exhaustive walks the enumeration's order) */
  tune_limits(2438, &o, &b, &t, &s, &note);
  CHECK(b == 2438 && t == 0 && !strcmp(s, "random"));
  CHECK_STR_CONTAINS(note, "whole space, in a seeded random order");
  o.strategy = "exhaustive";
  tune_limits(2438, &o, &b, &t, &s, &note);
  CHECK(b == 2438 && t == 0 && !strcmp(s, "exhaustive"));
  o.strategy = NULL;

  /* large space, no options: the default budget and time, the default search */
  tune_limits(74748, &o, &b, &t, &s, &note);
  CHECK(b == TUNE_DEFAULT_BUDGET && t == TUNE_DEFAULT_TIME && !strcmp(s, strategy_default_name(74748, b)));
  CHECK(strcmp(s, "exhaustive") != 0);
  CHECK_STR_CONTAINS(note, "--budget 1000 --time 90");

  /* --time alone on a large space: no budget cap, but a search, not index order */
  o.time_limit = 60;
  tune_limits(74748, &o, &b, &t, &s, &note);
  CHECK(b == 74748 && t == 60 && !strcmp(s, strategy_default_name(74748, TUNE_DEFAULT_BUDGET)));

  /* --time alone on a small space: the whole space in random order until the time is up (the
   * enumeration's first corner is a poor sample where the time does not suffice) */
  tune_limits(480, &o, &b, &t, &s, &note);
  CHECK(b == 480 && t == 60 && !strcmp(s, "random"));
  /* ... and --strategy exhaustive keeps the enumeration's order */
  o.strategy = "exhaustive";
  tune_limits(480, &o, &b, &t, &s, &note);
  CHECK(b == 480 && t == 60 && !strcmp(s, "exhaustive"));
  o.strategy = NULL;

  /* --budget larger than the space: all of it, in random order */
  o.time_limit = 0, o.budget = 100000;
  tune_limits(74748, &o, &b, &t, &s, &note);
  CHECK(b == 100000 && t == 0 && !strcmp(s, "random"));

  /* --strategy exhaustive without limits on a large space: no default budget */
  o.budget = 0, o.strategy = "exhaustive";
  tune_limits(74748, &o, &b, &t, &s, &note);
  CHECK(b == 74748 && t == 0 && !strcmp(s, "exhaustive"));

  /* --strategy ga, no limits, large space: the default budget applies, the strategy is kept */
  o.strategy = "ga";
  tune_limits(74748, &o, &b, &t, &s, &note);
  CHECK(b == TUNE_DEFAULT_BUDGET && t == TUNE_DEFAULT_TIME && !strcmp(s, "ga"));
  /* without a GPU (engine/compile_only.h): a small space whole, a large one a default sample that
   * the output states, --sample/--budget as the sample size, --sample all every one, --time a
   * limit over a cover-first order */
  {
    char cnote[400];
    const char *c_note = cnote;
    int ordered;
    run_opts c = {0};
    CHECK(compile_only_count(2438, &c, cnote, sizeof cnote, &ordered) == 2438 && ordered && !cnote[0]);
    CHECK(compile_only_count(74748, &c, cnote, sizeof cnote, &ordered) == TUNE_DEFAULT_BUDGET && !ordered);
    CHECK_STR_CONTAINS(c_note, "74748 configurations are too many to compile by default: a sample of 1000");
    CHECK_STR_CONTAINS(c_note, "--sample all");
    c.budget = 100;
    CHECK(compile_only_count(74748, &c, cnote, sizeof cnote, &ordered) == 100 && !ordered);
    CHECK_STR_CONTAINS(c_note, "--budget 100 without a GPU: a sample of 100");
    c.budget = 0, c.sample = 50;
    CHECK(compile_only_count(2438, &c, cnote, sizeof cnote, &ordered) == 50 && !ordered);
    CHECK_STR_CONTAINS(c_note, "--sample 50");
    c.sample = RUN_SAMPLE_ALL;
    CHECK(compile_only_count(74748, &c, cnote, sizeof cnote, &ordered) == 74748 && ordered && !cnote[0]);
    c.sample = 0, c.time_limit = 30;
    CHECK(compile_only_count(74748, &c, cnote, sizeof cnote, &ordered) == 74748 && !ordered);
    CHECK_STR_CONTAINS(c_note, "--time 30 without a GPU: compiling for at most 30 s");
  }
  return check_report();
}
