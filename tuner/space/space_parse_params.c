/* space_parse_params: reads `params` (ct.param or a map) and `constraints` (ct.rule) of a
 * space file into struct space, with file:line messages (space_read.h); `problems` is
 * space_problems.c's. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

/* A string value of a parameter: what -DNAME=value passes (a type name "float", "double", "half2",
 * "uint32_t"), which also stands in configuration keys (NAME=value,...), records, and the header's
 * macros, C strings and cutune-config lines (words split at spaces): no ',' '=' ';' quotes,
 * backslashes, spaces or control characters, at most 64 bytes. NULL if fine, else what is wrong. */
static const char *bad_string_value(const char *v) {
  size_t n = strlen(v);
  if (!n) return "it is empty";
  if (n > 64) return "it is longer than 64 bytes";
  for (const char *c = v; *c; c++)
    if (strchr(",=;\"'\\` ", *c) || (unsigned char)*c < 0x20 || *c == 0x7f)
      return "it holds a character that cannot stand in a configuration's key, a -D or a C string (, = ; quotes, "
             "backslash, space, control characters)";
  return NULL;
}

/* params.NAME: a non-empty list of integers (booleans as 0/1), or of strings (a type name: the
 * parameter's -D then names a type; Lua functions see the string); not both. */
static int add_param(space *s, lua_State *L, const char *name, int vidx, where w, cterr *err) {
  char gbuf[96];
  vidx = lua_absindex(L, vidx);
  if (!sp_is_ident(name))
    return sp_perr(err, w, "parameter name '%s' is not a C identifier (it becomes -D%s=...)", name, name);
  int n = sp_seq_len(L, vidx);
  if (n <= 0)
    return sp_perr(err, w, "params.%s must be a non-empty list of integers or of strings (got %s)", name, GOT(vidx));
  if (n > CS_MAX_VALUES) return sp_perr(err, w, "params.%s has %d values (at most %d)", name, n, CS_MAX_VALUES);
  int64_t *v = xmalloc((size_t)n * sizeof *v);
  char **str = xcalloc((size_t)n, sizeof *str);
  int rc = -1, strings = lua_rawgeti(L, vidx, 1) == LUA_TSTRING;
  lua_pop(L, 1);
  for (int i = 0; i < n; i++) {
    int ty = lua_rawgeti(L, vidx, i + 1), isint = 0;
    if (strings && ty == LUA_TSTRING) {
      const char *why = bad_string_value(lua_tostring(L, -1));
      if (why) {
        sp_perr(err, w, "params.%s: the value \"%s\" at position %d cannot be a parameter's value: %s", name,
                lua_tostring(L, -1), i + 1, why);
        lua_pop(L, 1);
        goto done;
      }
      str[i] = xstrdup(lua_tostring(L, -1));
      v[i] = i, isint = 1;
    } else if (!strings && ty == LUA_TBOOLEAN) v[i] = lua_toboolean(L, -1), isint = 1;
    else if (!strings && ty == LUA_TNUMBER) v[i] = lua_tointegerx(L, -1, &isint);
    if (!isint) {
      sp_perr(err, w, "params.%s must be a non-empty list of %s (got %s at position %d)", name,
              strings ? "strings, as its first value is" : "integers", GOT(-1), i + 1);
      lua_pop(L, 1);
      goto done;
    }
    lua_pop(L, 1);
    for (int j = 0; j < i; j++)
      if (strings ? !strcmp(str[j], str[i]) : v[j] == v[i]) {
        if (strings)
          sp_perr(err, w, "params.%s lists the value \"%s\" twice (positions %d and %d)", name, str[i], j + 1, i + 1);
        else
          sp_perr(err, w, "params.%s lists the value %lld twice (positions %d and %d)", name, (long long)v[i], j + 1,
                  i + 1);
        goto done;
      }
    if (!strings) str[i] = xasprintf("%lld", (long long)v[i]);
  }
  cterr e;
  int p = configset_add_param(s->cs, name, n, (const char *const *)str, NULL, &e);
  if (p < 0) {
    sp_perr(err, w, "%s", e.msg);
    goto done;
  }
  s->pval[p] = v, v = NULL;
  s->pstr[p] = strings;
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
  if (lua_type(L, o) != LUA_TTABLE)
    return sp_perr(err, w, "%s must be a table such as {runtime = true} (got %s)", what, GOT(o));
  static const char *const keys[] = {"runtime", NULL};
  if (sp_check_keys(L, o, keys, what, w, err) < 0) return -1;
  int ty = lua_getfield(L, o, "runtime");
  if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
    return sp_perr(err, w, "%s: runtime must be true or false (got %s)", what, GOT(-1));
  if (lua_toboolean(L, -1) && s->pstr[configset_nparams(s->cs) - 1])
    return sp_perr(err, w, "%s: a runtime parameter is a scalar argument's value: its values must be integers", what);
  if (lua_toboolean(L, -1)) {
    s->runtime[configset_nparams(s->cs) - 1] = 1;
    s->nruntime++;
  }
  lua_pop(L, 2);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int sp_parse_params(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "params") == LUA_TNIL) return sp_perr(err, w, "space is missing required key 'params'");
  int ps = lua_gettop(L);
  int n = sp_seq_len(L, ps);
  if (lua_type(L, ps) != LUA_TTABLE || n == 0)
    return sp_perr(err, w,
                   "params must be a non-empty list of ct.param(name, {values...}) or a map "
                   "{NAME = {values...}} (got %s)",
                   GOT(ps));
  if (n > 0) { /* list form: order as written */
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, ps, i);
      const char *tag = sp_tag_of(L, -1);
      if (!tag || strcmp(tag, "param"))
        return sp_perr(err, w, "params[%d] must be ct.param(name, {values...}) (got %s)", i, GOT(-1));
      where pw = sp_tagged_where(s, L, -1);
      lua_getfield(L, -1, "name");
      if (lua_type(L, -1) != LUA_TSTRING)
        return sp_perr(err, pw, "ct.param: the name must be a string (got %s)", GOT(-1));
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
        return sp_perr(err, w, "params mixes a list and a map (use either ct.param(...) entries or NAME = {values})");
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
  const char *tag = sp_tag_of(L, idx);
  where w = {s->file, s->line};
  if (!tag || strcmp(tag, "rule"))
    return sp_perr(
        err, w, "constraints[%d] must be ct.rule({names...}, function(p) ... end [, description]) (got %s)", i,
        lua_type(L, idx) == LUA_TFUNCTION ? "a bare function: name the parameters it reads with ct.rule" : GOT(idx));
  w = sp_tagged_where(s, L, idx);
  sp_rule *r = &s->rules[s->nrules];
  memset(r, 0, sizeof *r);
  r->file = w.file, r->line = w.line, r->last = -1;
  lua_getfield(L, idx, "desc");
  if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
    return sp_perr(err, w, "ct.rule: the description must be a string (got %s)", GOT(-1));
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
  int n = sp_seq_len(L, pn);
  if (n <= 0)
    return sp_perr(err, w, "constraint '%s' must name the parameters it reads: a non-empty list of names (got %s)",
                   r->desc, GOT(pn));
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
      sp_perr(err, w, "constraint '%s' names unknown parameter %s%s%s (parameters: %s)", r->desc, nm ? "'" : "",
              nm ? nm : GOT(-1), nm ? "'" : "", b.data);
      dbuf_free(&b);
      return -1;
    }
    lua_pop(L, 1);
    for (int q = 0; q < r->nnames; q++)
      if (r->idx[q] == p) return sp_perr(err, w, "constraint '%s' names parameter '%s' twice", r->desc, nm);
    r->idx[r->nnames++] = p;
    if (p > r->last) r->last = p;
  }
  r->tab_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "fn") != LUA_TFUNCTION)
    return sp_perr(err, w,
                   "constraint '%s': the second argument of ct.rule must be a function(p) returning true or "
                   "false (got %s)",
                   r->desc, GOT(-1));
  r->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

int sp_parse_constraints(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "constraints") == LUA_TNIL) return lua_pop(L, 1), 0;
  int c = lua_gettop(L);
  int n = sp_seq_len(L, c);
  if (n < 0) return sp_perr(err, w, "constraints must be a list of ct.rule(...) (got %s)", GOT(c));
  s->rules = xcalloc((size_t)n + 1, sizeof *s->rules);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, c, i);
    if (parse_rule(s, L, lua_gettop(L), i, err) < 0) return -1;
    lua_settop(L, c);
  }
  lua_pop(L, 1);
  return 0;
}
