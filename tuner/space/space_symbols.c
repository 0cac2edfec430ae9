/* space_symbols: `symbols = { ct.symbol(name, type, count, opts) }`, the __constant__ and
 * __device__ variables the GPU worker fills in every module it loads (Kernel Tuner's cmem_args,
 * for __device__ variables too), per problem. Sources, one per symbol:
 *
 *   opts.fill / lo / hi   the seeded fill of buffers (the default: "random"), done by the worker;
 *   opts.values           a Lua list of numbers (nested lists are flattened: {{x, y}, ...} for a
 *                         float2 array), or function(n) returning one per problem;
 *   opts.file             a .npy file (its dtype converted to the symbol's type) or raw bytes of
 *                         the type, found as a template is;
 *   opts.from             the name of a buffer argument: the symbol gets its initial contents
 *                         (Kernel Tuner passes the same array as an argument and as cmem_args).
 *
 * The name is the variable's C++ name; a namespace's variable (ns::v) is looked up by its
 * Itanium-mangled name (_ZN2ns1vE). The data is made here, at load, so that a wrong count or a
 * file that does not parse is a file:line error before anything runs. */
#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

#define SYM_MAX_BYTES ((int64_t)64 << 20) /* __constant__ is 64 KiB; __device__ arrays may be larger */

/* "ns::a::v" -> "_ZN2ns1a1vE"; a plain identifier stays as it is. -1 if it is neither. */
static int mangle(const char *name, char *out, size_t n) {
  const char *p = name;
  dbuf b;
  dbuf_init(&b);
  int parts = 0;
  while (*p) {
    size_t len = 0;
    while (isalnum((unsigned char)p[len]) || p[len] == '_') len++;
    if (!len || isdigit((unsigned char)p[0])) break;
    dbuf_printf(&b, "%zu%.*s", len, (int)len, p);
    parts++;
    p += len;
    if (!*p) break;
    if (strncmp(p, "::", 2) || !p[2]) {
      parts = -1;
      break;
    }
    p += 2;
  }
  int ok = parts > 0 && !*p;
  if (ok && parts == 1) snprintf(out, n, "%s", name);
  else if (ok) snprintf(out, n, "_ZN%sE", b.data);
  dbuf_free(&b);
  return ok && strlen(out) < n - 1 ? 0 : -1;
}

static int parse_symbol(space *s, lua_State *L, int idx, int i, cterr *err) {
  char gbuf[96], what[SYM_NAME_MAX + 32];
  where w = {s->file, s->line};
  const char *tag = sp_tag_of(L, idx);
  if (!tag || strcmp(tag, "symbol"))
    return sp_perr(err, w, "symbols[%d] must be ct.symbol(name, type, count [, opts]) (got %s)", i, GOT(idx));
  w = sp_tagged_where(s, L, idx);
  sp_symbol *y = &s->syms[s->nsyms];
  memset(y, 0, sizeof *y);
  y->file = w.file, y->line = w.line, y->arg = -1, y->fill = FILL_RANDOM;
  if (lua_getfield(L, idx, "name") != LUA_TSTRING || !lua_rawlen(L, -1) || lua_rawlen(L, -1) >= SYM_NAME_MAX)
    return sp_perr(err, w, "ct.symbol: the name must be a C++ variable name of at most %d characters (got %s)",
                   SYM_NAME_MAX - 1, GOT(-1));
  snprintf(y->shown, sizeof y->shown, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  snprintf(what, sizeof what, "ct.symbol(\"%s\")", y->shown);
  char low[SYM_NAME_MAX];
  if (mangle(y->shown, low, sizeof low) < 0)
    return sp_perr(err, w, "%s: the name must be a variable's name, with namespaces as ns::name", what);
  memcpy(y->name, low, sizeof low);
  for (int k = 0; k < s->nsyms; k++)
    if (!strcmp(s->syms[k].name, y->name)) return sp_perr(err, w, "%s: symbol declared twice", what);
  lua_getfield(L, idx, "type");
  if (lua_type(L, -1) != LUA_TSTRING || elemtype_parse(lua_tostring(L, -1), &y->type) < 0)
    return sp_perr(err, w,
                   "%s: unknown element type %s (expected float, double, int, int64, uint, uint8, half or bfloat16)",
                   what, GOT(-1));
  lua_pop(L, 1);
  s->nsyms++; /* from here space_symbols_free releases it */
  char cwhat[SYM_NAME_MAX + 48];
  snprintf(cwhat, sizeof cwhat, "%s count", what);
  if (lua_getfield(L, idx, "count") != LUA_TNIL && sp_read_value(s, L, -1, &y->count, 1, 1, cwhat, w, err) < 0)
    return -1;
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "opts") == LUA_TNIL) {
    lua_pop(L, 1);
    if (y->count.kind == SV_NONE)
      return sp_perr(err, w, "%s: give a count, or values, a file or a buffer to copy", what);
    return 0;
  }
  int o = lua_gettop(L);
  if (lua_type(L, o) != LUA_TTABLE) return sp_perr(err, w, "%s: options must be a table (got %s)", what, GOT(o));
  static const char *const keys[] = {"fill", "lo", "hi", "values", "file", "from", NULL};
  char owhat[SYM_NAME_MAX + 40];
  snprintf(owhat, sizeof owhat, "%s options", what);
  if (sp_check_keys(L, o, keys, owhat, w, err) < 0) return -1;
  int nsrc = 0;
  char *str = NULL;
  if (sp_data_opts(s, L, o, &y->values, &y->path, &nsrc, what, owhat, w, err) < 0) return -1;
  if (nsrc) y->src = SYMSRC_DATA;
  if (sp_get_string(L, o, "from", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    nsrc++, y->src = SYMSRC_ARG;
    for (int k = 0; k < s->nargs && y->arg < 0; k++)
      if (!strcmp(s->args[k].name, str) && s->args[k].kind != ARG_SCALAR && s->args[k].kind != ARG_OUTPUT) y->arg = k;
    if (y->arg < 0) {
      sp_perr(err, w,
              "%s: from = \"%s\" names no input or inout buffer of args (give the buffer a name with "
              "{name = \"%s\"})",
              owhat, str, str);
      free(str);
      return -1;
    }
    free(str), str = NULL;
    if (s->args[y->arg].type != y->type)
      return sp_perr(err, w, "%s: the buffer '%s' holds %s, the symbol %s", owhat, s->args[y->arg].name,
                     elemtype_name(s->args[y->arg].type), elemtype_name(y->type));
  }
  if (nsrc > 1) return sp_perr(err, w, "%s: give one of values, file and from", owhat);
  if (sp_get_string(L, o, "fill", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    int bad = nsrc > 0;
    if (!strcmp(str, "random")) y->fill = FILL_RANDOM;
    else if (!strcmp(str, "zero")) y->fill = FILL_ZERO;
    else if (!strcmp(str, "iota")) y->fill = FILL_IOTA;
    else bad = 2;
    free(str);
    if (bad == 2) return sp_perr(err, w, "%s: fill must be \"random\", \"zero\" or \"iota\"", owhat);
    if (bad)
      return sp_perr(err, w, "%s: fill is for a generated symbol; this one has values, a file or a buffer", owhat);
  }
  int isf = elemtype_is_float(y->type);
  y->lo = isf ? -1 : 0, y->hi = isf ? 1 : 1000;
  const char *lh[2] = {"lo", "hi"};
  double *dst[2] = {&y->lo, &y->hi};
  for (int k = 0; k < 2; k++) {
    int ty = lua_getfield(L, o, lh[k]);
    if (ty == LUA_TNUMBER) *dst[k] = lua_tonumber(L, -1);
    else if (ty != LUA_TNIL) return sp_perr(err, w, "%s: %s must be a number (got %s)", owhat, lh[k], GOT(-1));
    lua_pop(L, 1);
  }
  if (y->src == SYMSRC_FILL && y->count.kind == SV_NONE)
    return sp_perr(err, w, "%s: a generated symbol needs a count", what);
  lua_pop(L, 1);
  return 0;
}

int space_parse_symbols(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "symbols") == LUA_TNIL) return lua_pop(L, 1), 0;
  int c = lua_gettop(L);
  int n = sp_seq_len(L, c);
  if (n < 0) return sp_perr(err, w, "symbols must be a list of ct.symbol(name, type, count [, opts]) (got %s)", GOT(c));
  if (n > MAX_SYMBOLS) return sp_perr(err, w, "symbols has %d entries (at most %d)", n, MAX_SYMBOLS);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, c, i);
    if (parse_symbol(s, L, lua_gettop(L), i, err) < 0) return -1;
    lua_settop(L, c);
  }
  lua_pop(L, 1);
  return 0;
}

/* ---- data (space_data.c makes it) ---- */

/* The data of symbol k on problem prob: into the problem's symspec and symdata. */
static int eval_symbol(space *s, int prob, int k, cterr *err) {
  sp_symbol *y = &s->syms[k];
  sp_problem *pr = &s->probs[prob];
  symspec *o = &pr->syms[k];
  dbuf *data = &pr->symdata[k];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", y->name);
  snprintf(o->shown, sizeof o->shown, "%s", y->shown);
  o->type = y->type, o->src = y->src, o->arg = y->arg, o->fill = y->fill, o->lo = y->lo, o->hi = y->hi;
  int64_t n = -1;
  if (y->count.kind != SV_NONE) {
    char cwhat[SYM_NAME_MAX + 32];
    snprintf(cwhat, sizeof cwhat, "ct.symbol(\"%s\") count", y->shown);
    double c;
    if (space_eval_number(s, prob, &y->count, cwhat, &c, err) < 0) return -1;
    if (!(c >= 1 && c == floor(c) && c * elemtype_size(y->type) <= (double)SYM_MAX_BYTES))
      return cterr_set(err,
                       "%s:%d: ct.symbol(\"%s\") count on problem %s is %.17g: expected a positive integer "
                       "(at most %lld bytes)",
                       y->file, y->line, y->shown, pr->key, c, (long long)SYM_MAX_BYTES);
    n = (int64_t)c;
  }
  int64_t have = 0;
  if (y->src == SYMSRC_DATA) {
    char what[SYM_NAME_MAX + 16];
    snprintf(what, sizeof what, "ct.symbol(\"%s\")", y->shown);
    if (sp_data_make(s, prob, &y->values, y->path, y->type, SYM_MAX_BYTES, MAX_ARGS + k, what, y->file, y->line, data,
                     &have, err) < 0)
      return -1;
  } else if (y->src == SYMSRC_ARG) {
    have = pr->args[y->arg].count;
  }
  if (y->src != SYMSRC_FILL) {
    if (n >= 0 && have != n)
      return cterr_set(err, "%s:%d: ct.symbol(\"%s\") on problem %s: count is %lld but the %s holds %lld elements",
                       y->file, y->line, y->shown, pr->key, (long long)n,
                       y->src == SYMSRC_ARG ? "buffer"
                       : y->path            ? "file"
                                            : "values",
                       (long long)have);
    n = have;
  }
  if (n * elemtype_size(y->type) > SYM_MAX_BYTES)
    return cterr_set(err, "%s:%d: ct.symbol(\"%s\") on problem %s: %lld bytes, at most %lld", y->file, y->line,
                     y->shown, pr->key, (long long)(n * elemtype_size(y->type)), (long long)SYM_MAX_BYTES);
  o->count = n;
  o->data_len = y->src == SYMSRC_DATA ? data->len : 0;
  return 0;
}

int space_eval_symbols(space *s, cterr *err) {
  for (int prob = 0; prob < s->nproblems; prob++) {
    sp_problem *pr = &s->probs[prob];
    dbuf h; /* the data digest (space_data_digest) grows by each symbol given its data */
    dbuf_init(&h);
    for (int k = 0; k < s->nsyms; k++) {
      if (eval_symbol(s, prob, k, err) < 0) return dbuf_free(&h), -1;
      if (s->syms[k].src != SYMSRC_DATA) continue; /* the seeded fill, or a buffer's (in the digest already) */
      char d[33];
      sha256_hex(pr->symdata[k].data, pr->symdata[k].len, d, 16);
      dbuf_printf(&h, "symbol %s %s %lld %s\n", pr->syms[k].name, elemtype_name(pr->syms[k].type),
                  (long long)pr->syms[k].count, d);
    }
    if (h.len) {
      dbuf_printf(&h, "buffers %s\n", pr->datadigest);
      sha256_hex(h.data, h.len, pr->datadigest, 16);
    }
    dbuf_free(&h);
  }
  return 0;
}

void space_symbols_free(space *s) {
  for (int k = 0; k < s->nsyms; k++) {
    free(s->syms[k].path);
    free(s->syms[k].count.text);
    free(s->syms[k].values.text);
  }
  for (int i = 0; i < s->nproblems; i++)
    for (int k = 0; k < MAX_SYMBOLS; k++) dbuf_free(&s->probs[i].symdata[k]);
}

/* ---- accessors (space.h) ---- */

int space_nsymbols(const space *s) { return s->nsyms; }

int space_symbols(const space *s, int prob, symspec *out, const void **data) {
  if (prob < 0 || prob >= s->nproblems) return 0;
  for (int k = 0; k < s->nsyms; k++) {
    out[k] = s->probs[prob].syms[k];
    data[k] = s->probs[prob].symdata[k].data;
  }
  return s->nsyms;
}
