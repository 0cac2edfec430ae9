/* space_problems: the problems of a space (`problems` or `problem`), read into s->probs.
 *
 * `problems` is a list whose items are tables of sizes ({M = 4096, N = 4096}), shape sets
 * (ct.product, ct.zip: tables tagged "shapes" holding a list) or generator functions (called
 * once at load, with no arguments, returning a list of tables of sizes and shape sets, or one
 * shape set); or `problems` is itself one shape set or one generator. Order is kept. A shape
 * that a set or a generator gives again is tuned once (the first occurrence stands); two plain
 * tables with the same sizes are an error, as before shape sets existed. The count is checked
 * before a list is read (a set knows its length): at most space_max_problems(), the message
 * naming the item that gives most of them; a generator's problems count as they are read.
 * Keys are checked for repeats through a hash table, so the cap's 65,536 load in linear time. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

long space_max_problems(void) {
  const char *e = getenv("CUTUNE_MAX_PROBLEMS");
  char *end = NULL;
  long v = e && *e ? strtol(e, &end, 10) : 0;
  return e && *e && !*end && v >= 1 ? v : SPACE_MAX_PROBLEMS;
}

typedef struct reader {
  space *s;
  lua_State *L;
  long cap;     /* problems at most */
  size_t alloc; /* s->probs has room for this many */
  int *slot;    /* open addressing over the keys read: problem index + 1, 0 empty */
  size_t nslots;
} reader;

static uint64_t key_hash(const char *k) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *k; k++) h = (h ^ (unsigned char)*k) * 1099511628211ULL;
  return h;
}

/* The earlier problem with key k, or -1; *at: the free slot where k goes. */
static int key_find(const reader *rd, const char *k, size_t *at) {
  size_t i = (size_t)key_hash(k) & (rd->nslots - 1);
  for (; rd->slot[i]; i = (i + 1) & (rd->nslots - 1))
    if (!strcmp(rd->s->probs[rd->slot[i] - 1].key, k)) return rd->slot[i] - 1;
  *at = i;
  return -1;
}

/* Room for one more problem (and its key at under half the slots' load). */
static void make_room(reader *rd) {
  space *s = rd->s;
  if ((size_t)s->nproblems + 1 >= rd->alloc) {
    size_t n = rd->alloc ? 2 * rd->alloc : 16;
    s->probs = xrealloc(s->probs, n * sizeof *s->probs);
    memset(s->probs + rd->alloc, 0, (n - rd->alloc) * sizeof *s->probs);
    rd->alloc = n;
  }
  if (2 * ((size_t)s->nproblems + 1) >= rd->nslots) {
    free(rd->slot);
    rd->nslots = rd->nslots ? 2 * rd->nslots : 64;
    rd->slot = xcalloc(rd->nslots, sizeof(int));
    for (int i = 0; i < s->nproblems; i++) {
      size_t at = 0;
      key_find(rd, s->probs[i].key, &at);
      rd->slot[at] = i + 1;
    }
  }
}

int space_problem_lookup(const space *s, const char *k) {
  if (!s->pslot || !k) return -1;
  for (size_t i = (size_t)key_hash(k) & (s->npslot - 1); s->pslot[i]; i = (i + 1) & (s->npslot - 1))
    if (!strcmp(s->probs[s->pslot[i] - 1].key, k)) return s->pslot[i] - 1;
  return -1;
}

/* How many problems the item at idx gives without running anything: a table of sizes 1, a set
 * its list's length, a generator (or anything else) 0. */
static long item_count(lua_State *L, int idx) {
  const char *tag = sp_tag_of(L, idx);
  if (tag && !strcmp(tag, "shapes")) {
    lua_getfield(L, idx, "list");
    long n = lua_type(L, -1) == LUA_TTABLE ? (long)lua_rawlen(L, -1) : 0;
    lua_pop(L, 1);
    return n;
  }
  return lua_type(L, idx) == LUA_TTABLE ? 1 : 0;
}

static int too_many(reader *rd, where w, const char *what, long total, const char *detail, cterr *err) {
  return sp_perr(err, w,
                 "%s: the space would have %ld problems%s, more than %ld: the cap on a space's problems (raise "
                 "it with CUTUNE_MAX_PROBLEMS=N)",
                 what, total, detail, rd->cap);
}

/* The table of sizes at idx: a problem, unless it repeats one (skipped where from_set or the
 * earlier one came from a set, else an error). what names it ("problems[3]", "ct.product's shape 7"). */
static int read_problem(reader *rd, int idx, const char *what, where w, int from_set, cterr *err) {
  space *s = rd->s;
  lua_State *L = rd->L;
  char gbuf[96];
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE || sp_seq_len(L, idx) == 0 || sp_tag_of(L, idx))
    return sp_perr(err, w, "%s must be a non-empty table of sizes {N = 8192, ...} (got %s)", what,
                   sp_tag_of(L, idx) ? sp_tag_of(L, idx) : GOT(idx));
  if (s->nproblems >= rd->cap) return too_many(rd, w, what, (long)s->nproblems + 1, " (so far)", err);
  make_room(rd);
  sp_problem *p = &s->probs[s->nproblems];
  int rc = -1;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!sp_is_ident(k)) {
      lua_pushvalue(L, -2);
      sp_perr(err, w, "%s: size names must be identifiers (got %s)", what, GOT(-1));
      lua_pop(L, 3);
      goto done;
    }
    int isint;
    lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : (isint = 0);
    if (!isint) {
      sp_perr(err, w, "%s.%s must be an integer (got %s)", what, k, GOT(-1));
      lua_pop(L, 2);
      goto done;
    }
    p->names = xrealloc(p->names, (size_t)(p->nvars + 1) * sizeof(char *));
    p->vals = xrealloc(p->vals, (size_t)(p->nvars + 1) * sizeof(int64_t));
    p->names[p->nvars] = xstrdup(k), p->vals[p->nvars] = v, p->nvars++;
    lua_pop(L, 1);
  }
  for (int i = 1; i < p->nvars; i++) /* insertion sort by name, values alongside */
    for (int j = i; j > 0 && strcmp(p->names[j - 1], p->names[j]) > 0; j--) {
      char *tn = p->names[j];
      p->names[j] = p->names[j - 1];
      p->names[j - 1] = tn;
      int64_t tv = p->vals[j];
      p->vals[j] = p->vals[j - 1];
      p->vals[j - 1] = tv;
    }
  dbuf b;
  dbuf_init(&b);
  for (int i = 0; i < p->nvars; i++) dbuf_printf(&b, "%s%s=%lld", i ? "," : "", p->names[i], (long long)p->vals[i]);
  p->key = dbuf_steal(&b);
  size_t at = 0;
  int prev = key_find(rd, p->key, &at);
  if (prev < 0) {
    rd->slot[at] = ++s->nproblems;
    p->from_set = from_set;
    return 0;
  }
  if (from_set || s->probs[prev].from_set) rc = 0; /* a set's repeat: tuned once */
  else sp_perr(err, w, "%s repeats the problem %s", what, p->key);
done:
  for (int j = 0; j < p->nvars; j++) free(p->names[j]);
  free(p->names), free(p->vals), free(p->key);
  memset(p, 0, sizeof *p);
  return rc;
}

/* The shape set at idx (tagged "shapes"): each of its tables. */
static int read_set(reader *rd, int idx, cterr *err) {
  lua_State *L = rd->L;
  idx = lua_absindex(L, idx);
  where w = sp_tagged_where(rd->s, L, idx);
  lua_getfield(L, idx, "what");
  char what[64];
  snprintf(what, sizeof what, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "shape set");
  lua_getfield(L, idx, "list");
  int list = lua_gettop(L), rc = 0;
  long n = lua_type(L, list) == LUA_TTABLE ? (long)lua_rawlen(L, list) : 0;
  if (n == 0) rc = sp_perr(err, w, "%s gives no shape (its where function rejects every combination?)", what);
  if (rc == 0 && (long)rd->s->nproblems + n > rd->cap) {
    char d[96];
    snprintf(d, sizeof d, " (%ld of them from this %s)", n, what);
    rc = too_many(rd, w, what, (long)rd->s->nproblems + n, d, err);
  }
  for (long i = 1; i <= n && rc == 0; i++) {
    char item[96];
    snprintf(item, sizeof item, "%s's shape %ld", what, i);
    lua_rawgeti(L, list, i);
    rc = read_problem(rd, -1, item, w, 1, err);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return rc;
}

static int read_item(reader *rd, int idx, const char *what, where w, int from_set, int depth, cterr *err);

/* The list at idx: counted (what sets and tables give), then each item read. */
static int read_list(reader *rd, int idx, const char *what, where w, int from_set, int depth, cterr *err) {
  lua_State *L = rd->L;
  char gbuf[96];
  idx = lua_absindex(L, idx);
  int n = sp_seq_len(L, idx);
  if (n <= 0)
    return sp_perr(err, w,
                   "%s must be a non-empty list of problems {N = 8192, ...}, shape sets (ct.product, ct.zip) "
                   "or generator functions (got %s)",
                   what, GOT(idx));
  long total = rd->s->nproblems, biggest = 0, big_at = 0;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, idx, i);
    long c = item_count(L, -1);
    lua_pop(L, 1);
    if (c > biggest) biggest = c, big_at = i;
    total += c;
  }
  if (total > rd->cap) {
    char d[96];
    snprintf(d, sizeof d, " (%ld of them from %s[%ld])", biggest, what, big_at);
    return too_many(rd, w, what, total, d, err);
  }
  for (int i = 1; i <= n; i++) {
    char item[64];
    snprintf(item, sizeof item, "%s[%d]", what, i);
    lua_rawgeti(L, idx, i);
    int rc = read_item(rd, -1, item, w, from_set, depth, err);
    lua_pop(L, 1);
    if (rc < 0) return -1;
  }
  return 0;
}

/* One item: a shape set, a generator (depth 0 only: a generator's list holds tables and sets),
 * or a table of sizes. */
static int read_item(reader *rd, int idx, const char *what, where w, int from_set, int depth, cterr *err) {
  lua_State *L = rd->L;
  char gbuf[96];
  idx = lua_absindex(L, idx);
  const char *tag = sp_tag_of(L, idx);
  if (tag && !strcmp(tag, "shapes")) return read_set(rd, idx, err);
  if (lua_type(L, idx) != LUA_TFUNCTION) return read_problem(rd, idx, what, w, from_set, err);
  where fw = sp_func_where(rd->s, L, idx, w);
  if (depth > 0)
    return sp_perr(err, fw, "%s: a generator function returned a function (it must return problems and shape sets)",
                   what);
  lua_pushvalue(L, idx);
  if (space_pcall(rd->s, 0, 1, err) < 0) return -1;
  int r = lua_gettop(L), rc;
  const char *rtag = sp_tag_of(L, r);
  if (rtag && !strcmp(rtag, "shapes")) rc = read_set(rd, r, err);
  else if (lua_type(L, r) == LUA_TTABLE && sp_seq_len(L, r) > 0) rc = read_list(rd, r, what, fw, 1, depth + 1, err);
  else
    rc = sp_perr(err, fw,
                 "the generator function of %s returned %s (expected a non-empty list of problems {N = 8192, "
                 "...} or a shape set)",
                 what, GOT(r));
  lua_settop(L, r - 1);
  return rc;
}

int sp_parse_problems(space *s, lua_State *L, int t, cterr *err) {
  where w = {s->file, s->line};
  int has_list = lua_getfield(L, t, "problems") != LUA_TNIL;
  int has_one = lua_getfield(L, t, "problem") != LUA_TNIL;
  if (has_list && has_one) return sp_perr(err, w, "give either 'problems' (a list) or 'problem' (one), not both");
  if (!has_list && !has_one) return sp_perr(err, w, "space is missing required key 'problems' (or 'problem')");
  int pi = lua_gettop(L) - (has_list ? 1 : 0);
  reader rd = {.s = s, .L = L, .cap = space_max_problems()};
  make_room(&rd);
  int rc;
  const char *tag = sp_tag_of(L, pi);
  int listy = 0;
  if (sp_seq_len(L, pi) > 0) { /* problem = { {N=..}, {N=..} } is a list after all; problem = {N = ..} is one */
    lua_rawgeti(L, pi, 1);
    listy = lua_type(L, -1) == LUA_TTABLE || lua_type(L, -1) == LUA_TFUNCTION;
    lua_pop(L, 1);
  }
  if ((tag && !strcmp(tag, "shapes")) || lua_type(L, pi) == LUA_TFUNCTION)
    rc = read_item(&rd, pi, has_list ? "problems" : "problem", w, 0, 0, err);
  else if (has_list || listy) rc = read_list(&rd, pi, has_list ? "problems" : "problem", w, 0, 0, err);
  else rc = read_problem(&rd, pi, "problem", w, 0, err);
  s->pslot = rd.slot, s->npslot = rd.nslots; /* kept for space_problem_index */
  if (rc < 0) return -1;
  lua_settop(L, t);
  return 0;
}
