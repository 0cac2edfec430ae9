/* space_select: a selection of a space's problems (`--problem` of cutune run and of the replay's
 * --shapes): see space.h. Plain C over the problem keys; no Lua. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"

int space_problem_has(const space *s, int prob, const char *pairs, size_t len) {
  int all = 1, n = 0;
  for (size_t i = 0; i < len;) {
    size_t l = 0;
    while (i + l < len && pairs[i + l] != ',') l++;
    const char *eq = memchr(pairs + i, '=', l);
    if (!eq || eq == pairs + i) return -1;
    size_t nl = (size_t)(eq - (pairs + i)), vl = l - nl - 1;
    int found = 0;
    for (int j = 0; j < space_problem_nvars(s, prob) && !found; j++) {
      int64_t v;
      const char *name = space_problem_var(s, prob, j, &v);
      char num[32];
      snprintf(num, sizeof num, "%lld", (long long)v);
      found = strlen(name) == nl && !strncmp(name, pairs + i, nl) && strlen(num) == vl && !strncmp(num, eq + 1, vl);
    }
    all &= found;
    n++;
    i += l + (i + l < len);
  }
  return n ? all : -1;
}

/* One item of a --problem selection (len bytes at it) against problem prob: 1 it selects it, 0
 * not, -1 the item is malformed (err says why; prob < 0 only checks the item). */
static int sel_item(const space *s, const char *it, size_t len, int prob, cterr *err) {
  if (len == 3 && !strncmp(it, "all", 3)) return 1;
  if (memchr(it, '=', len)) { /* sizes: NAME=VALUE pairs, in any order, all or some */
    int r = prob >= 0 ? space_problem_has(s, prob, it, len) : space_problem_has(s, 0, it, len) < 0 ? -1 : 0;
    if (r < 0) goto bad;
    return r;
  }
  int hit = 0;
  for (size_t i = 0; i < len;) { /* indices and ranges: 0,3,5-9 */
    char *end;
    long a = strtol(it + i, &end, 10), b = a;
    if (end == it + i || a < 0) goto bad;
    if (*end == '-') { /* A-B, or A- to the last */
      const char *q = end + 1;
      b = strtol(q, &end, 10);
      if (end == q) b = space_nproblems(s) - 1 < a ? a : space_nproblems(s) - 1;
      else if (b < a) goto bad;
    }
    size_t used = (size_t)(end - it);
    if (used > len || (used < len && it[used] != ',')) goto bad;
    if (b >= space_nproblems(s))
      return cterr_set(err,
                       "--problem '%.*s' matches no problem of %s (it has %d: give an index from 0 to %d, a range "
                       "such as 0-%d, sizes such as \"%s\" (in any order, or some of them), or all)",
                       (int)len, it, space_path(s), space_nproblems(s), space_nproblems(s) - 1, space_nproblems(s) - 1,
                       space_problem_key(s, 0));
    hit |= prob >= a && prob <= b;
    i = used + (used < len);
  }
  return hit;
bad:
  return cterr_set(err,
                   "--problem '%.*s': expected an index (0), a range (0-9, or 5- to the last), a list of them "
                   "(0,3,5-9), a problem's sizes (\"M=8192,N=8192\", any order, or some of them: \"M=8192\") or all",
                   (int)len, it);
}

int space_select_match(const space *s, const char *sel, int prob, cterr *err) {
  if (!sel) return 1;
  int hit = 0;
  for (const char *it = sel; *it;) {
    size_t len = strcspn(it, ";");
    int r = sel_item(s, it, len, prob, err);
    if (r < 0) return -1;
    hit |= r;
    it += len + (it[len] == ';');
  }
  return hit;
}

int space_select_check(const space *s, const char *sel, int *count, cterr *err) {
  *count = 0;
  if (sel && !*sel) return cterr_set(err, "--problem: an empty selection (give an index, a range, a key or all)");
  if (space_select_match(s, sel, -1, err) < 0) return -1;
  for (const char *it = sel ? sel : ""; *it;) { /* every item selects something */
    size_t len = strcspn(it, ";");
    int any = 0;
    for (int p = 0; p < space_nproblems(s) && !any; p++) any = sel_item(s, it, len, p, err) == 1;
    if (!any)
      return cterr_set(err,
                       "--problem '%.*s' matches no problem of %s (give an index from 0 to %d, a range such as "
                       "0-%d, sizes such as \"%s\" (in any order, or some of them), or all)",
                       (int)len, it, space_path(s), space_nproblems(s) - 1, space_nproblems(s) - 1,
                       space_problem_key(s, 0));
    it += len + (it[len] == ';');
  }
  cterr e;
  for (int p = 0; p < space_nproblems(s); p++) *count += space_select_match(s, sel, p, &e) == 1;
  return 0;
}
