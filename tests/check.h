/* check: tiny assertion macros for test programs.
 * CHECK records a failure and goes on; REQUIRE stops the test. Both print file:line: expr.
 * A test's main() ends with `return check_report();`. SKIP_TEST() exits 77 (CTest: skipped). */
#ifndef CUTUNE_CHECK_H
#define CUTUNE_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(expr)                                                                                                    \
  do {                                                                                                                 \
    check_count++;                                                                                                     \
    if (!(expr)) {                                                                                                     \
      check_failures++;                                                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr);                                         \
    }                                                                                                                  \
  } while (0)

#define CHECK_MSG(expr, ...)                                                                                           \
  do {                                                                                                                 \
    check_count++;                                                                                                     \
    if (!(expr)) {                                                                                                     \
      check_failures++;                                                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #expr);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
    }                                                                                                                  \
  } while (0)

#define REQUIRE(expr)                                                                                                  \
  do {                                                                                                                 \
    check_count++;                                                                                                     \
    if (!(expr)) {                                                                                                     \
      fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #expr);                                       \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                                                \
  CHECK_MSG((hay) && strstr((hay), (needle)), "expected to find \"%s\" in \"%s\"", (needle), (hay) ? (hay) : "(null)")

#define SKIP_TEST(why)                                                                                                 \
  do {                                                                                                                 \
    fprintf(stderr, "skipped: %s\n", why);                                                                             \
    exit(77);                                                                                                          \
  } while (0)

static inline int check_report(void) {
  fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
  return check_failures ? 1 : 0;
}
#endif
