/* space_parse: reads the table a space file returned into struct space.
 *
 * Strict, in the manner of Redis's named-table arguments: every table has an allow-list of
 * keys (an unknown key is an error naming it), required keys are checked, and each message
 * starts with the file:line of the user's code — the ct.space call for top-level keys, the
 * ct.param/ct.rule/ct.input call for those, a function's definition for what it returns. */
#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "space_int.h"
#include "store/record.h"

typedef struct where {
  const char *file;
  int line;
} where;

__attribute__((format(printf, 3, 4))) static int perr(cterr *err, where w, const char *fmt, ...) {
  char msg[CTERR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (w.line > 0) return cterr_set(err, "%s:%d: %s", w.file, w.line, msg);
  return cterr_set(err, "%s: %s", w.file, msg);
}

/* "string \"abc\"", "number 1.5", "empty table", "boolean" — what a value was, for messages */
static const char *got(lua_State *L, int idx, char *buf, size_t n) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER: /* not lua_tostring: that would turn the slot itself into a string */
    if (lua_isinteger(L, idx)) snprintf(buf, n, "number %lld", (long long)lua_tointeger(L, idx));
    else snprintf(buf, n, "number %.17g", lua_tonumber(L, idx));
    return buf;
  case LUA_TSTRING: snprintf(buf, n, "string \"%.40s\"", lua_tostring(L, idx)); return buf;
  case LUA_TTABLE:
    lua_pushnil(L);
    if (!lua_next(L, idx < 0 ? idx - 1 : idx)) return "empty table";
    lua_pop(L, 2);
    return "table";
  default: return luaL_typename(L, idx);
  }
}
#define GOT(idx) got(L, (idx), gbuf, sizeof gbuf)

static int is_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

static const char *tag_of(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return NULL;
  lua_getfield(L, idx, "__ct");
  const char *t = lua_tostring(L, -1);
  lua_pop(L, 1); /* the string stays alive: it is an interned constant of the prelude */
  return t;
}

/* where a tagged table (ct.param etc.) was built */
static where tagged_where(space *s, lua_State *L, int idx) {
  where w = {s->file, s->line};
  idx = lua_absindex(L, idx);
  lua_getfield(L, idx, "file");
  if (lua_type(L, -1) == LUA_TSTRING) w.file = space_intern_file(s, lua_tostring(L, -1));
  lua_getfield(L, idx, "line");
  if (lua_isinteger(L, -1)) w.line = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return w;
}

static where func_where(space *s, lua_State *L, int idx, where dflt) {
  lua_Debug ar;
  lua_pushvalue(L, idx);
  if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0) {
    dflt.file = space_intern_file(s, ar.short_src);
    dflt.line = ar.linedefined;
  }
  return dflt;
}

/* Allow-list of keys of a named table; the message names the first stranger. */
static int check_keys(lua_State *L, int idx, const char *const *allowed, const char *what, where w, cterr *err) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      char k[64];
      if (lua_isinteger(L, -1)) snprintf(k, sizeof k, "%lld", (long long)lua_tointeger(L, -1));
      else snprintf(k, sizeof k, "%s", luaL_typename(L, -1));
      lua_pop(L, 1);
      return perr(err, w, "unexpected entry [%s] in %s (expected named fields)", k, what);
    }
    const char *k = lua_tostring(L, -1);
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++) ok = !strcmp(k, allowed[i]);
    if (!ok) {
      dbuf b;
      dbuf_init(&b);
      for (int i = 0; allowed[i]; i++) dbuf_printf(&b, "%s%s", i ? ", " : "", allowed[i]);
      perr(err, w, "unknown field '%s' in %s (expected one of: %s)", k, what, b.data);
      dbuf_free(&b);
      lua_pop(L, 1);
      return -1;
    }
  }
  return 0;
}

/* Length of a proper sequence 1..n with no other keys, or -1. */
static int seq_len(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) return -1;
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
      lua_pop(L, 1);
      return -1;
    }
    count++;
  }
  return count == n ? (int)n : -1;
}

static int get_string(lua_State *L, int t, const char *key, char **out, int required, const char *what, where w,
                      cterr *err) {
  char gbuf[96];
  int ty = lua_getfield(L, t, key);
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return required ? perr(err, w, "%s is missing required key '%s'", what, key) : 0;
  }
  if (ty != LUA_TSTRING || !lua_rawlen(L, -1)) {
    perr(err, w, "%s.%s must be a non-empty string (got %s)", what, key, GOT(-1));
    lua_pop(L, 1);
    return -1;
  }
  *out = xstrdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  return 0;
}

/* ---- params ---- */

static int add_param(space *s, lua_State *L, const char *name, int vidx, where w, cterr *err) {
  char gbuf[96];
  vidx = lua_absindex(L, vidx);
  if (!is_ident(name)) return perr(err, w, "parameter name '%s' is not a C identifier (it becomes -D%s=...)", name, name);
  int n = seq_len(L, vidx);
  if (n <= 0) return perr(err, w, "params.%s must be a non-empty list of integers (got %s)", name, GOT(vidx));
  if (n > CS_MAX_VALUES) return perr(err, w, "params.%s has %d values (at most %d)", name, n, CS_MAX_VALUES);
  int64_t *v = xmalloc((size_t)n * sizeof *v);
  char **str = xcalloc((size_t)n, sizeof *str);
  int rc = -1;
  for (int i = 0; i < n; i++) {
    int ty = lua_rawgeti(L, vidx, i + 1), isint = 0;
    if (ty == LUA_TBOOLEAN) v[i] = lua_toboolean(L, -1), isint = 1;
    else if (ty == LUA_TNUMBER) v[i] = lua_tointegerx(L, -1, &isint);
    if (!isint) {
      perr(err, w, "params.%s must be a non-empty list of integers (got %s at position %d)", name, GOT(-1), i + 1);
      lua_pop(L, 1);
      goto done;
    }
    lua_pop(L, 1);
    for (int j = 0; j < i; j++)
      if (v[j] == v[i]) {
        perr(err, w, "params.%s lists the value %lld twice (positions %d and %d)", name, (long long)v[i], j + 1, i + 1);
        goto done;
      }
    str[i] = xasprintf("%lld", (long long)v[i]);
  }
  cterr e;
  int p = configset_add_param(s->cs, name, n, (const char *const *)str, NULL, &e);
  if (p < 0) {
    perr(err, w, "%s", e.msg);
    goto done;
  }
  s->pval[p] = v, v = NULL;
  rc = 0;
done:
  for (int i = 0; i < n; i++) free(str[i]);
  free(str), free(v);
  return rc;
}

/* ct.param's third argument: { runtime = true } (the parameter reaches the kernel through an
 * argument value, not as -D: see space.h). The parameter just added is the last one. */
static int param_opts(space *s, lua_State *L, int pidx, const char *name, where w, cterr *err) {
  char gbuf[96];
  if (lua_getfield(L, pidx, "opts") == LUA_TNIL) return lua_pop(L, 1), 0;
  int o = lua_gettop(L);
  char what[96];
  snprintf(what, sizeof what, "ct.param(\"%s\") options", name);
  if (lua_type(L, o) != LUA_TTABLE) return perr(err, w, "%s must be a table such as {runtime = true} (got %s)", what, GOT(o));
  static const char *const keys[] = {"runtime", NULL};
  if (check_keys(L, o, keys, what, w, err) < 0) return -1;
  int ty = lua_getfield(L, o, "runtime");
  if (ty != LUA_TNIL && ty != LUA_TBOOLEAN) return perr(err, w, "%s: runtime must be true or false (got %s)", what, GOT(-1));
  if (lua_toboolean(L, -1)) {
    s->runtime[configset_nparams(s->cs) - 1] = 1;
    s->nruntime++;
  }
  lua_pop(L, 2);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int parse_params(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "params") == LUA_TNIL) return perr(err, w, "space is missing required key 'params'");
  int ps = lua_gettop(L);
  int n = seq_len(L, ps);
  if (lua_type(L, ps) != LUA_TTABLE || n == 0)
    return perr(err, w, "params must be a non-empty list of ct.param(name, {values...}) or a map "
                "{NAME = {values...}} (got %s)", GOT(ps));
  if (n > 0) { /* list form: order as written */
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, ps, i);
      const char *tag = tag_of(L, -1);
      if (!tag || strcmp(tag, "param"))
        return perr(err, w, "params[%d] must be ct.param(name, {values...}) (got %s)", i, GOT(-1));
      where pw = tagged_where(s, L, -1);
      lua_getfield(L, -1, "name");
      if (lua_type(L, -1) != LUA_TSTRING) return perr(err, pw, "ct.param: the name must be a string (got %s)", GOT(-1));
      const char *name = lua_tostring(L, -1);
      lua_getfield(L, -2, "values");
      if (add_param(s, L, name, -1, pw, err) < 0) return -1;
      if (param_opts(s, L, lua_gettop(L) - 2, name, pw, err) < 0) return -1;
      lua_pop(L, 3);
    }
  } else { /* map form: sorted by name so the order does not depend on hashing */
    int count = 0;
    char **names = NULL;
    lua_pushnil(L);
    while (lua_next(L, ps)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING) {
        for (int i = 0; i < count; i++) free(names[i]);
        free(names);
        return perr(err, w, "params mixes a list and a map (use either ct.param(...) entries or NAME = {values})");
      }
      names = xrealloc(names, (size_t)(count + 1) * sizeof *names);
      names[count++] = xstrdup(lua_tostring(L, -1));
    }
    qsort(names, (size_t)count, sizeof *names, cmp_str);
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++) {
      lua_getfield(L, ps, names[i]);
      rc = add_param(s, L, names[i], -1, w, err);
      lua_pop(L, 1);
    }
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
    if (rc < 0) return -1;
  }
  lua_settop(L, ps - 1);
  return 0;
}

/* ---- constraints ---- */

static int parse_rule(space *s, lua_State *L, int idx, int i, cterr *err) {
  char gbuf[96];
  const char *tag = tag_of(L, idx);
  where w = {s->file, s->line};
  if (!tag || strcmp(tag, "rule"))
    return perr(err, w, "constraints[%d] must be ct.rule({names...}, function(p) ... end [, description]) (got %s)", i,
                lua_type(L, idx) == LUA_TFUNCTION ? "a bare function: name the parameters it reads with ct.rule"
                                                  : GOT(idx));
  w = tagged_where(s, L, idx);
  sp_rule *r = &s->rules[s->nrules];
  memset(r, 0, sizeof *r);
  r->file = w.file, r->line = w.line, r->last = -1;
  lua_getfield(L, idx, "desc");
  if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
    return perr(err, w, "ct.rule: the description must be a string (got %s)", GOT(-1));
  r->desc = lua_isnil(L, -1) ? xasprintf("#%d", i) : xstrdup(lua_tostring(L, -1));
  s->nrules++; /* from here space_free releases it */
  lua_pop(L, 1);
  lua_getfield(L, idx, "params");
  int pn = lua_gettop(L);
  if (lua_type(L, pn) == LUA_TSTRING) { /* one name */
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, pn);
    lua_rawseti(L, -2, 1);
    lua_replace(L, pn);
  }
  int n = seq_len(L, pn);
  if (n <= 0)
    return perr(err, w, "constraint '%s' must name the parameters it reads: a non-empty list of names (got %s)", r->desc,
                GOT(pn));
  lua_createtable(L, 0, n); /* the table the function receives: only the named parameters */
  for (int j = 1; j <= n; j++) {
    lua_rawgeti(L, pn, j);
    const char *nm = lua_tostring(L, -1);
    int p = lua_type(L, -1) == LUA_TSTRING ? configset_param_index(s->cs, nm) : -1;
    if (p < 0) {
      dbuf b;
      dbuf_init(&b);
      for (int q = 0; q < configset_nparams(s->cs); q++)
        dbuf_printf(&b, "%s%s", q ? ", " : "", configset_param(s->cs, q)->name);
      perr(err, w, "constraint '%s' names unknown parameter %s%s%s (parameters: %s)", r->desc,
           nm ? "'" : "", nm ? nm : GOT(-1), nm ? "'" : "", b.data);
      dbuf_free(&b);
      return -1;
    }
    lua_pop(L, 1);
    for (int q = 0; q < r->nnames; q++)
      if (r->idx[q] == p) return perr(err, w, "constraint '%s' names parameter '%s' twice", r->desc, nm);
    r->idx[r->nnames++] = p;
    if (p > r->last) r->last = p;
  }
  r->tab_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "fn") != LUA_TFUNCTION)
    return perr(err, w, "constraint '%s': the second argument of ct.rule must be a function(p) returning true or "
                "false (got %s)", r->desc, GOT(-1));
  r->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

static int parse_constraints(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "constraints") == LUA_TNIL) return lua_pop(L, 1), 0;
  int c = lua_gettop(L);
  int n = seq_len(L, c);
  if (n < 0) return perr(err, w, "constraints must be a list of ct.rule(...) (got %s)", GOT(c));
  s->rules = xcalloc((size_t)n + 1, sizeof *s->rules);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, c, i);
    if (parse_rule(s, L, lua_gettop(L), i, err) < 0) return -1;
    lua_settop(L, c);
  }
  lua_pop(L, 1);
  return 0;
}

/* ---- problems ---- */

static int parse_problem(space *s, lua_State *L, int idx, const char *what, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE || seq_len(L, idx) == 0)
    return perr(err, w, "%s must be a non-empty table of sizes {N = 8192, ...} (got %s)", what, GOT(idx));
  sp_problem *p = &s->probs[s->nproblems++];
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!is_ident(k)) {
      lua_pushvalue(L, -2);
      perr(err, w, "%s: size names must be identifiers (got %s)", what, GOT(-1));
      return -1;
    }
    int isint;
    lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : (isint = 0);
    if (!isint) return perr(err, w, "%s.%s must be an integer (got %s)", what, k, GOT(-1));
    p->names = xrealloc(p->names, (size_t)(p->nvars + 1) * sizeof(char *));
    p->vals = xrealloc(p->vals, (size_t)(p->nvars + 1) * sizeof(int64_t));
    p->names[p->nvars] = xstrdup(k), p->vals[p->nvars] = v, p->nvars++;
    lua_pop(L, 1);
  }
  for (int i = 1; i < p->nvars; i++) /* insertion sort by name, values alongside */
    for (int j = i; j > 0 && strcmp(p->names[j - 1], p->names[j]) > 0; j--) {
      char *tn = p->names[j]; p->names[j] = p->names[j - 1]; p->names[j - 1] = tn;
      int64_t tv = p->vals[j]; p->vals[j] = p->vals[j - 1]; p->vals[j - 1] = tv;
    }
  dbuf b;
  dbuf_init(&b);
  for (int i = 0; i < p->nvars; i++) dbuf_printf(&b, "%s%s=%lld", i ? "," : "", p->names[i], (long long)p->vals[i]);
  p->key = dbuf_steal(&b);
  for (int i = 0; i < s->nproblems - 1; i++)
    if (!strcmp(s->probs[i].key, p->key)) return perr(err, w, "%s repeats the problem %s", what, p->key);
  return 0;
}

static int parse_problems(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  int has_list = lua_getfield(L, t, "problems") != LUA_TNIL;
  int has_one = lua_getfield(L, t, "problem") != LUA_TNIL;
  if (has_list && has_one) return perr(err, w, "give either 'problems' (a list) or 'problem' (one), not both");
  if (!has_list && !has_one) return perr(err, w, "space is missing required key 'problems' (or 'problem')");
  int pi = lua_gettop(L) - (has_list ? 1 : 0);
  int n = seq_len(L, pi);
  if (has_list && n <= 0)
    return perr(err, w, "problems must be a non-empty list of tables {N = 8192, ...} (got %s)", GOT(pi));
  if (has_one && n > 0) { /* problem = { {N=..}, {N=..} } — a list after all */
    lua_rawgeti(L, pi, 1);
    if (lua_type(L, -1) != LUA_TTABLE) n = 0;
    lua_pop(L, 1);
  }
  if (n <= 0) {
    s->probs = xcalloc(1, sizeof *s->probs);
    if (parse_problem(s, L, pi, "problem", err) < 0) return -1;
  } else {
    s->probs = xcalloc((size_t)n, sizeof *s->probs);
    for (int i = 1; i <= n; i++) {
      char what[32];
      snprintf(what, sizeof what, "problems[%d]", i);
      lua_rawgeti(L, pi, i);
      if (parse_problem(s, L, -1, what, err) < 0) return -1;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 2);
  return 0;
}

/* ---- values: constants, functions, size expressions ---- */

/* A value given as a function, a number, a list of up to maxcon numbers (maxcon > 1), or
 * (expr) a string compiled once as a Lua expression over the problem's sizes. */
static int read_value(space *s, lua_State *L, int idx, sp_value *v, int maxcon, int expr, const char *what, where w,
                      cterr *err) {
  char gbuf[96];
  idx = lua_absindex(L, idx);
  v->file = w.file, v->line = w.line;
  int ty = lua_type(L, idx);
  if (ty == LUA_TFUNCTION) {
    where fw = func_where(s, L, idx, w);
    v->file = fw.file, v->line = fw.line;
    lua_pushvalue(L, idx);
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    v->kind = SV_FUNC;
    return 0;
  }
  if (ty == LUA_TNUMBER) {
    v->kind = SV_CONST, v->ncon = 1, v->con[0] = lua_tonumber(L, idx);
    return 0;
  }
  if (ty == LUA_TTABLE && maxcon > 1) {
    int n = seq_len(L, idx);
    if (n < 1 || n > maxcon) return perr(err, w, "%s must be a list of 1 to %d numbers or a function (got %s)", what, maxcon, GOT(idx));
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, idx, i + 1) != LUA_TNUMBER) return perr(err, w, "%s[%d] must be a number (got %s)", what, i + 1, GOT(-1));
      v->con[i] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    v->kind = SV_CONST, v->ncon = n;
    return 0;
  }
  if (ty == LUA_TSTRING && expr) {
    const char *text = lua_tostring(L, idx);
    char *src = xasprintf("return (%s)", text);
    int rc = luaL_loadbufferx(L, src, strlen(src), "=expression", "t");
    free(src);
    if (rc != LUA_OK) {
      perr(err, w, "%s: the size expression \"%s\" does not compile: %s", what, text, lua_tostring(L, -1));
      lua_pop(L, 1);
      return -1;
    }
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    v->kind = SV_EXPR, v->text = xstrdup(text);
    return 0;
  }
  return perr(err, w, "%s must be %s (got %s)", what,
              maxcon > 1 ? "a function or a list of numbers" : expr ? "a number, a size expression string or a function"
                                                                     : "a number or a function",
              GOT(idx));
}

static int get_value(space *s, lua_State *L, int t, const char *key, sp_value *v, int required, int maxcon, int expr,
                     const char *what, where w, cterr *err) {
  if (lua_getfield(L, t, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return required ? perr(err, w, "%s is missing required key '%s'", what, key) : 0;
  }
  char name[64];
  snprintf(name, sizeof name, "%s%s%s", strcmp(what, "space") ? what : "", strcmp(what, "space") ? "." : "", key);
  int rc = read_value(s, L, -1, v, maxcon, expr, name, w, err);
  lua_pop(L, 1);
  return rc;
}

/* ---- args ---- */

static int parse_arg(space *s, lua_State *L, int idx, int i, cterr *err) {
  char gbuf[96], what[48];
  sp_arg *a = &s->args[s->nargs];
  memset(a, 0, sizeof *a);
  where w = {s->file, s->line};
  const char *tag = tag_of(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) { /* "N": an int scalar */
    a->kind = ARG_SCALAR, a->type = EL_I32;
    snprintf(a->name, sizeof a->name, "arg%d", i);
    snprintf(what, sizeof what, "args[%d]", i);
    if (read_value(s, L, idx, &a->size, 1, 1, what, w, err) < 0) return -1;
    s->nargs++;
    return 0;
  }
  if (!tag || strcmp(tag, "arg"))
    return perr(err, w, "args[%d] must be ct.input/ct.output/ct.inout/ct.scalar(type, size) (got %s)", i, GOT(idx));
  w = tagged_where(s, L, idx);
  lua_getfield(L, idx, "kind");
  const char *kind = lua_tostring(L, -1);
  if (!kind) kind = "scalar";
  a->kind = !strcmp(kind, "input") ? ARG_INPUT : !strcmp(kind, "output") ? ARG_OUTPUT
          : !strcmp(kind, "inout") ? ARG_INOUT : ARG_SCALAR;
  snprintf(what, sizeof what, "args[%d] (ct.%s)", i, kind);
  lua_pop(L, 1);
  lua_getfield(L, idx, "type");
  if (lua_type(L, -1) != LUA_TSTRING || elemtype_parse(lua_tostring(L, -1), &a->type) < 0)
    return perr(err, w, "%s: unknown element type %s (expected float, double, int, int64, uint, uint8 or half)", what,
                GOT(-1));
  lua_pop(L, 1);
  int is_buf = a->kind != ARG_SCALAR;
  int isf = a->type == EL_F32 || a->type == EL_F64 || a->type == EL_F16;
  a->lo = isf ? -1 : 0, a->hi = isf ? 1 : 1000, a->fill = FILL_RANDOM;
  static const char *const names[] = {"out", "in", "inout", "arg"};
  snprintf(a->name, sizeof a->name, "%s%d", names[a->kind == ARG_OUTPUT ? 0 : a->kind == ARG_INPUT ? 1
                                                 : a->kind == ARG_INOUT ? 2 : 3], i);
  if (lua_getfield(L, idx, "size") == LUA_TNIL)
    return perr(err, w, "%s: missing %s", what, is_buf ? "the element count (a number, \"N*M\" or function(n))"
                                                        : "the value (a number, \"N\" or function(n))");
  char vwhat[80];
  snprintf(vwhat, sizeof vwhat, "%s %s", what, is_buf ? "element count" : "value");
  if (read_value(s, L, -1, &a->size, 1, 1, vwhat, w, err) < 0) return -1;
  s->nargs++;
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "opts") == LUA_TNIL) return lua_pop(L, 1), 0;
  int o = lua_gettop(L);
  if (lua_type(L, o) != LUA_TTABLE) return perr(err, w, "%s: options must be a table (got %s)", what, GOT(o));
  static const char *const buf_keys[] = {"fill", "lo", "hi", "name", NULL};
  static const char *const scalar_keys[] = {"name", NULL};
  char owhat[64];
  snprintf(owhat, sizeof owhat, "ct.%s options", is_buf ? (a->kind == ARG_INPUT ? "input" : a->kind == ARG_OUTPUT ? "output" : "inout") : "scalar");
  if (check_keys(L, o, is_buf ? buf_keys : scalar_keys, owhat, w, err) < 0) return -1;
  char *str = NULL;
  if (get_string(L, o, "name", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    if (strlen(str) >= ARG_NAME_MAX) {
      free(str);
      return perr(err, w, "%s: name is longer than %d characters", owhat, ARG_NAME_MAX - 1);
    }
    snprintf(a->name, sizeof a->name, "%s", str);
    free(str), str = NULL;
  }
  if (!is_buf) return lua_pop(L, 1), 0;
  if (get_string(L, o, "fill", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    if (!strcmp(str, "random")) a->fill = FILL_RANDOM;
    else if (!strcmp(str, "zero")) a->fill = FILL_ZERO;
    else if (!strcmp(str, "iota")) a->fill = FILL_IOTA;
    else {
      perr(err, w, "%s: fill must be \"random\", \"zero\" or \"iota\" (got \"%s\")", owhat, str);
      free(str);
      return -1;
    }
    free(str);
  }
  const char *lh[2] = {"lo", "hi"};
  double *dst[2] = {&a->lo, &a->hi};
  for (int k = 0; k < 2; k++) {
    int ty = lua_getfield(L, o, lh[k]);
    if (ty == LUA_TNUMBER) *dst[k] = lua_tonumber(L, -1);
    else if (ty != LUA_TNIL) return perr(err, w, "%s: %s must be a number (got %s)", owhat, lh[k], GOT(-1));
    lua_pop(L, 1);
  }
  if (!(a->lo <= a->hi)) return perr(err, w, "%s: lo (%g) must not exceed hi (%g)", owhat, a->lo, a->hi);
  lua_pop(L, 1);
  return 0;
}

static int parse_args(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "args") == LUA_TNIL) return perr(err, w, "space is missing required key 'args'");
  int a = lua_gettop(L);
  int n = seq_len(L, a);
  if (n <= 0) return perr(err, w, "args must be a non-empty list of ct.input/ct.output/ct.inout/ct.scalar (got %s)", GOT(a));
  if (n > MAX_ARGS) return perr(err, w, "args has %d entries (at most %d)", n, MAX_ARGS);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, a, i);
    if (parse_arg(s, L, lua_gettop(L), i, err) < 0) return -1;
    lua_settop(L, a);
  }
  lua_pop(L, 1);
  return 0;
}

/* ---- the rest ---- */

static int parse_strings(space *s, lua_State *L, int t, const char *key, char ***out, int *n, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, key) == LUA_TNIL) return lua_pop(L, 1), 0;
  int len = seq_len(L, -1);
  if (len < 0) return perr(err, w, "%s must be a list of strings (got %s)", key, GOT(-1));
  for (int i = 1; i <= len; i++) {
    if (lua_rawgeti(L, -1, i) != LUA_TSTRING) return perr(err, w, "%s[%d] must be a string (got %s)", key, i, GOT(-1));
    *out = xrealloc(*out, (size_t)(*n + 1) * sizeof(char *));
    (*out)[(*n)++] = xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

/* objectives = { "time", "energy", {"regs", "min"}, {"gbps", "max"} }: a record field's name,
 * minimised, or a pair {name, "min"|"max"}. "time" (the median, minimised) is always first. */
static int parse_objectives(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  s->objectives = xcalloc(2, sizeof(char *));
  s->objmax = xcalloc(2, sizeof(int));
  s->objectives[s->nobjectives++] = xstrdup("time");
  if (lua_getfield(L, t, "objectives") == LUA_TNIL) return lua_pop(L, 1), 0;
  int len = seq_len(L, -1);
  if (len < 0) return perr(err, w, "objectives must be a list of field names or {name, \"min\"|\"max\"} pairs (got %s)", GOT(-1));
  for (int i = 1; i <= len; i++) {
    const char *name = NULL, *dir = "min";
    int ty = lua_rawgeti(L, -1, i);
    if (ty == LUA_TTABLE) {
      lua_rawgeti(L, -1, 1), lua_rawgeti(L, -2, 2);
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -3) != 2)
        return perr(err, w, "objectives[%d] must be a pair {name, \"min\"|\"max\"} (got a table of another shape)", i);
      name = lua_tostring(L, -2), dir = lua_tostring(L, -1);
    } else if (ty == LUA_TSTRING) {
      name = lua_tostring(L, -1);
    } else {
      return perr(err, w, "objectives[%d] must be a field name or {name, \"min\"|\"max\"} (got %s)", i, GOT(-1));
    }
    if (!record_field_known(name))
      return perr(err, w, "objectives[%d] must be \"time\", \"energy\" or a numeric record field (%s) (got \"%s\")", i,
                  record_field_names(), name);
    if (strcmp(dir, "min") && strcmp(dir, "max"))
      return perr(err, w, "objectives[%d]: direction of '%s' must be \"min\" or \"max\" (got \"%s\")", i, name, dir);
    int dup = 0;
    for (int j = 0; j < s->nobjectives; j++) dup |= !strcmp(s->objectives[j], name);
    if (!dup) {
      s->objectives = xrealloc(s->objectives, (size_t)(s->nobjectives + 1) * sizeof(char *));
      s->objmax = xrealloc(s->objmax, (size_t)(s->nobjectives + 1) * sizeof(int));
      s->objmax[s->nobjectives] = !strcmp(dir, "max");
      s->objectives[s->nobjectives++] = xstrdup(name);
    }
    lua_settop(L, lua_gettop(L) - (ty == LUA_TTABLE ? 3 : 1));
  }
  lua_pop(L, 1);
  return 0;
}

static int resolve_template(space *s, const char *rel, char **out, const char *what, cterr *err) {
  dbuf looked;
  dbuf_init(&looked);
  int rc = space_resolve(s, rel, out, &looked);
  if (rc < 0) perr(err, (where){s->file, s->line}, "%stemplate '%s' not found (looked in %s)", what, rel, looked.data);
  dbuf_free(&looked);
  cterr e;
  if (rc == 0 && input_check(*out, "template", INPUT_SOURCE_MAX, &e) < 0) {
    rc = perr(err, (where){s->file, s->line}, "%s", e.msg);
    free(*out), *out = NULL;
  }
  return rc;
}

static int parse_reference(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "reference") == LUA_TNIL) return lua_pop(L, 1), 0;
  int r = lua_gettop(L);
  if (lua_type(L, r) != LUA_TTABLE) return perr(err, w, "reference must be a table {kernel = ..., block = ..., grid = ...} (got %s)", GOT(r));
  static const char *const keys[] = {"kernel", "template", "block", "grid", "shared", NULL};
  if (check_keys(L, r, keys, "reference", w, err) < 0) return -1;
  if (get_string(L, r, "kernel", &s->ref_kernel, 1, "reference", w, err) < 0) return -1;
  if (!is_ident(s->ref_kernel)) return perr(err, w, "reference.kernel '%s' is not a C identifier", s->ref_kernel);
  char *tpl = NULL;
  if (get_string(L, r, "template", &tpl, 0, "reference", w, err) < 0) return -1;
  if (tpl) {
    int rc = resolve_template(s, tpl, &s->ref_template_path, "reference ", err);
    free(tpl);
    if (rc < 0) return -1;
  } else s->ref_template_path = xstrdup(s->template_path);
  if (get_value(s, L, r, "block", &s->ref_geom.block, 1, 3, 0, "reference", w, err) < 0) return -1;
  if (get_value(s, L, r, "grid", &s->ref_geom.grid, 1, 3, 0, "reference", w, err) < 0) return -1;
  if (get_value(s, L, r, "shared", &s->ref_geom.shared, 0, 1, 0, "reference", w, err) < 0) return -1;
  lua_pop(L, 1);
  return 0;
}

int space_parse(space *s, cterr *err) {
  lua_State *L = s->L;
  char gbuf[96];
  int top = lua_gettop(L);
  const char *tag = tag_of(L, top);
  s->file = space_intern_file(s, s->path), s->line = s->main_line;
  where w = {s->file, s->line};
  if (tag && !strcmp(tag, "space")) { /* ct.space { ... }: we know the line of the call */
    w = (where){s->file, s->main_line}; /* `return ct.space {` is a tail call: no caller line */
    w = tagged_where(s, L, top);
    s->file = w.file, s->line = w.line;
    lua_getfield(L, top, "spec");
    if (lua_type(L, -1) != LUA_TTABLE) return perr(err, w, "ct.space expects a table (got %s)", GOT(-1));
  } else if (lua_type(L, top) != LUA_TTABLE)
    return perr(err, w, "the space file must return ct.space { ... } (got %s)", GOT(top));
  else lua_pushvalue(L, top);
  int t = lua_gettop(L);
  static const char *const keys[] = {"name", "template", "kernel", "params", "constraints", "problems", "problem",
                                     "args", "block", "grid", "shared", "reference", "check", "bytes", "flops",
                                     "cublas_sgemm", "objectives", "options", "timeout", NULL};
  if (check_keys(L, t, keys, "space", w, err) < 0) return -1;
  if (get_string(L, t, "name", &s->name, 0, "space", w, err) < 0) return -1;
  if (!s->name) {
    const char *b = path_basename(s->path);
    size_t n = strlen(b);
    s->name = n > 4 && !strcmp(b + n - 4, ".lua") ? xasprintf("%.*s", (int)(n - 4), b) : xstrdup(b);
  }
  if (get_string(L, t, "kernel", &s->kernel, 1, "space", w, err) < 0) return -1;
  if (!is_ident(s->kernel)) return perr(err, w, "kernel '%s' is not a C identifier", s->kernel);
  char *tpl = NULL;
  if (get_string(L, t, "template", &tpl, 1, "space", w, err) < 0) return -1;
  int rc = resolve_template(s, tpl, &s->template_path, "", err);
  free(tpl);
  if (rc < 0) return -1;
  if (parse_params(s, L, t, err) < 0 || parse_constraints(s, L, t, err) < 0 || parse_problems(s, L, t, err) < 0 ||
      parse_args(s, L, t, err) < 0)
    return -1;
  if (get_value(s, L, t, "block", &s->geom.block, 1, 3, 0, "space", w, err) < 0 ||
      get_value(s, L, t, "grid", &s->geom.grid, 1, 3, 0, "space", w, err) < 0 ||
      get_value(s, L, t, "shared", &s->geom.shared, 0, 1, 0, "space", w, err) < 0)
    return -1;
  if (parse_reference(s, L, t, err) < 0) return -1;
  if (lua_getfield(L, t, "check") != LUA_TNIL) {
    static const char *const ckeys[] = {"tolerance", NULL};
    if (lua_type(L, -1) != LUA_TTABLE) return perr(err, w, "check must be a table {tolerance = ...} (got %s)", GOT(-1));
    if (check_keys(L, -1, ckeys, "check", w, err) < 0) return -1;
    int ty = lua_getfield(L, -1, "tolerance");
    if (ty != LUA_TNIL && (ty != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0)))
      return perr(err, w, "check.tolerance must be a number >= 0 (0: exact) (got %s)", GOT(-1));
    if (ty != LUA_TNIL) s->tolerance = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (get_value(s, L, t, "bytes", &s->bytes, 0, 1, 1, "space", w, err) < 0 ||
      get_value(s, L, t, "flops", &s->flops, 0, 1, 1, "space", w, err) < 0 ||
      get_value(s, L, t, "cublas_sgemm", &s->sgemm, 0, 3, 1, "space", w, err) < 0)
    return -1;
  rc = parse_objectives(s, L, t, err);
  if (rc < 0 || parse_strings(s, L, t, "options", &s->options, &s->noptions, err) < 0) return -1;
  for (int i = 0; i < s->noptions; i++) {
    cterr e;
    if (space_option_check(s->options[i], &e) < 0) return perr(err, w, "options[%d]: %s", i + 1, e.msg);
  }
  int ty = lua_getfield(L, t, "timeout");
  if (ty != LUA_TNIL && (ty != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0)))
    return perr(err, w, "timeout must be a number of seconds > 0 (got %s)", GOT(-1));
  if (ty != LUA_TNIL) s->timeout = lua_tonumber(L, -1);
  lua_settop(L, top);
  return 0;
}
