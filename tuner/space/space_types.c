/* space_types: buffers whose element type is the configuration's — Kernel Tuner's
 * TunablePrecision, where a string parameter names a type (`-Dfloat_type=half`) and the arrays
 * follow it: ct.input(function(p) return p.float_type end, "n"). The function is called for every
 * valid configuration when the space loads (a bad answer fails the load with its line, as `arch`
 * does) and for the reference, with reference.defines as its p (a reference compiled once runs in
 * one type). A problem's argspec then holds the reference's type (the setup fills the buffer and
 * runs the reference in it) and the widest element size any of them gives (argspec.typed: what the
 * worker allocates per element); each configuration's type, with its check's bounds in that type
 * (an output's atol/rtol may be a table by type), reaches the worker in its job
 * (space_config_types), which fills inputs in it and compares outputs in double. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

int space_types_bounds(lua_State *L, int idx, sp_arg *a, int k, const char *owhat, where w, cterr *err) {
  char gbuf[96];
  static const char *const names[2] = {"atol", "rtol"};
  for (int t = 0; t < EL_COUNT; t++) a->tbound[k][t] = NAN;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    elemtype t;
    if (lua_type(L, -2) != LUA_TSTRING || elemtype_parse(lua_tostring(L, -2), &t) < 0)
      return sp_perr(err, w, "%s: %s by element type: %s is not an element type (float, double, half, ...)", owhat,
                     names[k], GOT(-2));
    if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0))
      return sp_perr(err, w, "%s: %s.%s must be a number >= 0 (got %s)", owhat, names[k], lua_tostring(L, -2), GOT(-1));
    a->tbound[k][t] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  a->tbounds |= 1 << k;
  return 0;
}

/* The type function of a on the table at the stack top (popped): its answer into *t, else err
 * with ctx ("for float_type=half", "for the reference"). */
static int call_type(space *s, const sp_arg *a, int i, const char *ctx, elemtype *t, cterr *err) {
  lua_State *L = s->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, a->type_ref);
  lua_insert(L, -2);
  cterr e;
  if (space_pcall(s, 1, 1, &e) < 0)
    return cterr_set(err, "%s:%d: the element type of args[%d] '%s' %s failed: %s", a->file, a->line, i + 1, a->name,
                     ctx, e.msg);
  int ok = lua_type(L, -1) == LUA_TSTRING && elemtype_parse(lua_tostring(L, -1), t) == 0;
  char got[96];
  snprintf(got, sizeof got, "%s%s%s", lua_type(L, -1) == LUA_TSTRING ? "\"" : "",
           lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1),
           lua_type(L, -1) == LUA_TSTRING ? "\"" : "");
  lua_pop(L, 1);
  if (!ok)
    return cterr_set(err,
                     "%s:%d: the element type of args[%d] '%s' %s is %s (expected float, double, int, int64, uint, "
                     "uint8, half or bfloat16)",
                     a->file, a->line, i + 1, a->name, ctx, got);
  return 0;
}

/* reference.defines as the p of a type function: NAME -> its integer, or its text */
static void push_ref_defines(space *s) {
  lua_State *L = s->L;
  lua_createtable(L, 0, s->nref_defines);
  for (int d = 0; d < s->nref_defines; d++) {
    const char *def = s->ref_defines[d] + 2, *eq = strchr(def, '='); /* "-DNAME=VALUE" */
    if (!eq) continue;
    lua_pushlstring(L, def, (size_t)(eq - def));
    char *end;
    long long v = strtoll(eq + 1, &end, 10);
    if (eq[1] && !*end) lua_pushinteger(L, v);
    else lua_pushstring(L, eq + 1);
    lua_rawset(L, -3);
  }
}

/* Every valid configuration's type of argument i, and the reference's. */
static int eval_arg_types(space *s, int i, cterr *err) {
  sp_arg *a = &s->args[i];
  size_t n = configset_count(s->cs);
  a->ctype = xmalloc(n ? n : 1);
  a->tused = 0;
  for (size_t c = 0; c < n; c++) {
    elemtype t;
    char *key = configset_row_key(s->cs, configset_row(s->cs, c));
    char *ctx = xasprintf("for %s", key);
    free(key);
    space_push_config(s, c);
    int rc = call_type(s, a, i, ctx, &t, err);
    free(ctx);
    if (rc < 0) return -1;
    a->ctype[c] = (unsigned char)t;
    a->tused |= 1u << t;
  }
  a->rtype = n ? (elemtype)a->ctype[0] : EL_F32;
  if (s->ref_kernel && !s->unchecked) {
    push_ref_defines(s);
    if (call_type(s, a, i, "for the reference (its p: reference.defines, which must give what the function reads)",
                  &a->rtype, err) < 0)
      return -1;
  }
  for (int k = 0; k < 2; k++) /* a bound by type: one for every type a configuration gives */
    for (int t = 0; (a->tbounds >> k & 1) && t < EL_COUNT; t++)
      if ((a->tused >> t & 1) && isnan(a->tbound[k][t]))
        return cterr_set(err, "%s:%d: ct.output options: %s gives no bound for %s, a type of args[%d] '%s'", a->file,
                         a->line, k ? "rtol" : "atol", elemtype_name((elemtype)t), i + 1, a->name);
  return 0;
}

int space_types_eval(space *s, cterr *err) {
  for (int i = 0; i < s->nargs; i++) {
    sp_arg *a = &s->args[i];
    if (!a->type_ref) continue;
    if (s->ref_per_config)
      return cterr_set(err,
                       "%s:%d: args[%d] '%s' is typed by the configuration: its reference must run in one type, "
                       "compiled once (reference.defines), not from each configuration's program (reference.params)",
                       a->file, a->line, i + 1, a->name);
    for (int k = 0; k < s->ninit; k++)
      for (int j = 0; j < s->init[k].nargs; j++)
        if (s->init[k].arg[j] == i)
          return cterr_set(err,
                           "%s:%d: init[%d] names args[%d] '%s', which is typed by the configuration: the init runs "
                           "once, in one type",
                           s->init[k].file, s->init[k].line, k + 1, i + 1, a->name);
    for (int k = 0; k < s->nsyms; k++)
      if (s->syms[k].src == SYMSRC_ARG && s->syms[k].arg == i)
        return cterr_set(err,
                         "%s:%d: ct.symbol(\"%s\") is filled from args[%d] '%s', whose type is the configuration's",
                         s->syms[k].file, s->syms[k].line, s->syms[k].shown, i + 1, a->name);
    if (eval_arg_types(s, i, err) < 0) return -1;
    int widest = elemtype_size(a->rtype);
    for (int t = 0; t < EL_COUNT; t++)
      if ((a->tused >> t & 1) && elemtype_size((elemtype)t) > widest) widest = elemtype_size((elemtype)t);
    for (int prob = 0; prob < s->nproblems; prob++) {
      argspec *o = &s->probs[prob].args[i];
      o->type = a->rtype;
      o->typed = widest;
    }
  }
  return 0;
}

void space_types_free(space *s) {
  for (int i = 0; i < s->nargs; i++) free(s->args[i].ctype), s->args[i].ctype = NULL;
}

int space_config_types(const space *s, size_t cfg, int prob, argtype *out) {
  int n = 0;
  if (prob < 0 || prob >= s->nproblems || cfg >= configset_count(s->cs)) return 0;
  for (int i = 0; i < s->nargs && n < MAX_ARGTYPES; i++) {
    const sp_arg *a = &s->args[i];
    if (!a->type_ref || !a->ctype) continue;
    const argspec *o = &s->probs[prob].args[i];
    elemtype t = (elemtype)a->ctype[cfg];
    out[n++] = (argtype){.index = i,
                         .type = t,
                         .atol = a->tbounds & 1 ? a->tbound[0][t] : o->atol,
                         .rtol = a->tbounds & 2 ? a->tbound[1][t] : o->rtol};
  }
  return n;
}

int space_types_describe(const space *s, int i, dbuf *b) {
  if (i < 0 || i >= s->nargs || !s->args[i].type_ref) return 0;
  const sp_arg *a = &s->args[i];
  dbuf_printf(b, "typed reference %s", elemtype_name(a->rtype));
  for (int t = 0; t < EL_COUNT; t++)
    if (a->tused >> t & 1)
      dbuf_printf(b, " %s atol %.17g rtol %.17g", elemtype_name((elemtype)t), a->tbounds & 1 ? a->tbound[0][t] : NAN,
                  a->tbounds & 2 ? a->tbound[1][t] : NAN);
  return 1;
}
