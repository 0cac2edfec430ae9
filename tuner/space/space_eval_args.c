/* space_eval_args: the values of a space's arguments (see space_int.h): per problem, evaluated
 * once at load (a buffer's element count, a scalar's value), and per configuration for those
 * that read the configuration's parameters (runtime parameters: their values reach the kernel
 * only through such scalars; a buffer whose count reads them is allocated at the largest). */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space_int.h"

/* ---- runtime parameters: values of scalar arguments per configuration ---- */

/* __index of the tables a per-configuration value reads runtime parameters from. Upvalues:
 * 1 the runtime values (name -> integer), 2 a table that records the names read (or nil),
 * 3 the fallback for other names (the sandbox, for a size expression's globals) or nil (the
 * p of a function(n, p), where any other name is a mistake worth a message). */
static int rt_index(lua_State *L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
    if (!lua_isnil(L, lua_upvalueindex(2))) {
      lua_pushvalue(L, 2);
      lua_pushboolean(L, 1);
      lua_rawset(L, lua_upvalueindex(2));
    }
    return 1;
  }
  lua_pop(L, 1);
  if (lua_isnil(L, lua_upvalueindex(3))) {
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
    return luaL_error(L, "p.%s: not a parameter of the space", k);
  }
  lua_pushvalue(L, 2);
  lua_gettable(L, lua_upvalueindex(3));
  return 1;
}

/* Push the parameter values of configuration cfg (cfg == SIZE_MAX: each parameter's first value,
 * the probe of space_eval_problems) as a table name -> integer: an argument value may read any
 * parameter, and one that reads any is evaluated per configuration. */
static void push_rt_values(space *s, size_t cfg) {
  const uint16_t *row = cfg == SIZE_MAX ? NULL : configset_row(s->cs, cfg);
  int np = configset_nparams(s->cs);
  lua_createtable(s->L, 0, np);
  for (int p = 0; p < np; p++) {
    space_push_param(s, p, row ? row[p] : 0);
    lua_setfield(s->L, -2, configset_param(s->cs, p)->name);
  }
}

/* Push what a per-configuration value of kind kind is called with, given the runtime values
 * and the names-read table (or nil) on the stack top (both popped): a size expression gets one
 * table, the problem's sizes over the runtime values over the sandbox; a function gets (n, p).
 * Returns how many values were pushed. */
static int push_rt_env(space *s, int prob, sv_kind kind) {
  lua_State *L = s->L;
  int vals = lua_gettop(L) - 1, seen = vals + 1;
  if (kind == SV_EXPR) {
    space_push_problem(s, prob);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, vals), lua_pushvalue(L, seen);
    lua_getfield(L, LUA_REGISTRYINDEX, "cutune.sandbox");
    lua_pushcclosure(L, rt_index, 3);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_replace(L, vals);
    lua_settop(L, vals);
    return 1;
  }
  lua_createtable(L, 0, 0); /* p: empty, every read goes through rt_index */
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, vals), lua_pushvalue(L, seen), lua_pushnil(L);
  lua_pushcclosure(L, rt_index, 3);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  space_push_problem(s, prob);
  lua_replace(L, vals); /* n where the values were (the closure keeps them) */
  lua_replace(L, seen); /* p where the names-read table was */
  return 2;
}

/* ---- per-problem values, evaluated once at load ---- */

/* A scalar's value r: within its type's range, integral where the type is. */
static int scalar_value(const sp_arg *a, const sp_vres *r, const char *what, const char *ctx, argspec *o, cterr *err) {
  double lo = 0, hi = 0;
  switch (a->type) {
  case EL_I32: lo = -2147483648.0, hi = 2147483647.0; break;
  case EL_U32: hi = 4294967295.0; break;
  case EL_U8: hi = 255; break;
  case EL_I64: lo = -9.3e18, hi = 9.3e18; break;
  default: lo = -INFINITY, hi = INFINITY; break;
  }
  int isf = elemtype_is_float(a->type);
  if ((!isf && !r->isint[0]) || r->d[0] < lo || r->d[0] > hi)
    return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s%s is %.17g: not a valid %s", a->size.file, a->size.line, what,
                          ctx, r->d[0], elemtype_name(a->type));
  o->ival = r->isint[0] ? r->i[0] : (int64_t)r->d[0];
  o->fval = r->d[0];
  return 0;
}

/* An argument's size or value from the nargs values on the stack top (popped): exactly one. */
static int eval_one(space *s, const sp_arg *a, int nargs, sp_vres *r, const char *what, const char *ctx, cterr *err) {
  int rc = space_eval_value(s, &a->size, nargs, r, what, ctx, err);
  if (rc == 0 && r->n != 1)
    rc = cterr_set_code(err, CTERR_SPACE, "%s:%d: %s%s gave %d values (expected one)", a->size.file, a->size.line, what,
                        ctx, r->n);
  return rc;
}

int space_eval_arg(space *s, int prob, int i, cterr *err) {
  sp_arg *a = &s->args[i];
  argspec *o = &s->probs[prob].args[i];
  char *ctx = xasprintf(" on problem %s", s->probs[prob].key), what[80];
  snprintf(what, sizeof what, "%s (args[%d] '%s')", a->kind == ARG_SCALAR ? "value" : "element count", i + 1, a->name);
  memset(o, 0, sizeof *o);
  o->kind = a->kind, o->type = a->type, o->fill = a->fill, o->lo = a->lo, o->hi = a->hi;
  o->atol = a->atol > 0 || a->rtol > 0 ? a->atol : s->atol;
  o->rtol = a->atol > 0 || a->rtol > 0 ? a->rtol : s->rtol;
  o->reduce = a->reduce, o->nocheck = a->nocheck;
  o->mismatches = a->mismatches >= 0 ? a->mismatches : a->reduce ? 0 : s->mismatches;
  snprintf(o->name, sizeof o->name, "%s", a->name);
  if (a->kind == ARG_TENSORMAP) return free(ctx), 0; /* per configuration: space_config_tmaps */
  if (a->size.kind == SV_NONE) return free(ctx), 0;  /* the count its data gives: space_eval_arg_data */
  /* a scalar of a space with runtime parameters: evaluated with their first values, and the
   * names it reads recorded, which makes it a per-configuration value (space_config_args) */
  int probe = a->size.kind == SV_EXPR || a->size.kind == SV_FUNC; /* scalars and buffer counts */
  int nargs = 1, seen = 0;
  if (probe) {
    push_rt_values(s, SIZE_MAX);
    lua_createtable(s->L, 0, 2);
    lua_pushvalue(s->L, -1);
    seen = luaL_ref(s->L, LUA_REGISTRYINDEX);
    nargs = push_rt_env(s, prob, a->size.kind);
  } else space_push_problem(s, prob);
  sp_vres r;
  int rc = eval_one(s, a, nargs, &r, what, ctx, err);
  if (rc == 0 && a->kind != ARG_SCALAR) {
    int64_t bytes = r.isint[0] && r.i[0] > 0 && r.i[0] < ((int64_t)1 << 40) ? r.i[0] * elemtype_size(a->type) : 0;
    if (bytes <= 0 || bytes > ((int64_t)1 << 40))
      rc = cterr_set(err, "%s:%d: %s%s is %.17g: expected a positive integer number of elements (under 1 TiB)",
                     a->size.file, a->size.line, what, ctx, r.d[0]);
    o->count = r.i[0];
  } else if (rc == 0) {
    rc = scalar_value(a, &r, what, ctx, o, err);
  }
  if (probe) {
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, seen);
    luaL_unref(s->L, LUA_REGISTRYINDEX, seen);
    int np = configset_nparams(s->cs);
    for (int p = 0; p < np; p++) {
      if (lua_getfield(s->L, -1, configset_param(s->cs, p)->name) != LUA_TNIL) {
        a->per_config = 1;
        a->reads |= 1ull << p;
        if (s->runtime[p]) s->rt_read[p] = 1;
      }
      lua_pop(s->L, 1);
    }
    lua_pop(s->L, 1);
  }
  free(ctx);
  return rc;
}

/* After space_eval_problems: a runtime parameter that no argument value reads would reach the
 * kernel nowhere (it is not a -D): its configurations would differ in name only. Nor may it
 * share a name with a problem size, which a size expression would read instead. */
int space_eval_runtime_check(space *s, cterr *err) {
  int np = configset_nparams(s->cs);
  for (int p = 0; p < np; p++) {
    if (!s->runtime[p]) continue;
    const char *name = configset_param(s->cs, p)->name;
    for (int prob = 0; prob < s->nproblems; prob++)
      for (int j = 0; j < s->probs[prob].nvars; j++)
        if (!strcmp(s->probs[prob].names[j], name))
          return cterr_set(err,
                           "%s:%d: runtime parameter '%s' has the name of a size of problem %s: rename one of them",
                           s->file, s->line > 0 ? s->line : 1, name, s->probs[prob].key);
    if (!s->rt_read[p])
      return cterr_set(err,
                       "%s:%d: runtime parameter '%s' reaches no kernel argument: it is not passed as -D%s, so "
                       "the kernel sees it only through a scalar whose value reads it, e.g. ct.scalar(\"int\", \"%s\") "
                       "or ct.scalar(\"int\", function(n, p) return p.%s end)",
                       s->file, s->line > 0 ? s->line : 1, name, name, name, name);
  }
  return 0;
}

/* The value of per-configuration argument i (a scalar's into *o, a buffer's count into *count). */
static int config_value(space *s, size_t cfg, int prob, int i, const char *ctx, argspec *o, int64_t *count,
                        cterr *err) {
  const sp_arg *a = &s->args[i];
  char what[80];
  snprintf(what, sizeof what, "%s (args[%d] '%s')", a->kind == ARG_SCALAR ? "value" : "element count", i + 1, a->name);
  push_rt_values(s, cfg);
  lua_pushnil(s->L);
  int nargs = push_rt_env(s, prob, a->size.kind);
  sp_vres r;
  int rc = eval_one(s, a, nargs, &r, what, ctx, err);
  if (rc == 0 && a->kind == ARG_SCALAR) return scalar_value(a, &r, what, ctx, o, err);
  if (rc == 0 && !(r.isint[0] && r.i[0] > 0 && r.i[0] * elemtype_size(a->type) <= ((int64_t)1 << 40)))
    rc = cterr_set_code(err, CTERR_SPACE,
                        "%s:%d: %s%s is %.17g: expected a positive integer number of elements (under 1 TiB)",
                        a->size.file, a->size.line, what, ctx, r.d[0]);
  if (rc == 0) *count = r.i[0];
  return rc;
}

int space_config_args(space *s, size_t cfg, int prob, argval *out, int *n, cterr *err) {
  *n = 0;
  int any = 0;
  for (int i = 0; i < s->nargs; i++) any |= s->args[i].per_config;
  if (!any) return 0;
  if (cfg >= configset_count(s->cs) || prob < 0 || prob >= s->nproblems)
    return cterr_set(err, "%s: no configuration %zu on problem %d", s->path, cfg, prob);
  space_limits_enter(s);
  char *key = NULL, *ctx = NULL;
  int rc = 0;
  for (int i = 0; i < s->nargs && rc == 0; i++) {
    const sp_arg *a = &s->args[i];
    if (!a->per_config) continue;
    if (*n >= MAX_ARGVALS) {
      rc = cterr_set_code(err, CTERR_SPACE, "%s:%d: more than %d argument values or counts read parameters",
                          a->size.file, a->size.line, MAX_ARGVALS);
      break;
    }
    if (!ctx) {
      key = configset_row_key(s->cs, configset_row(s->cs, cfg));
      ctx = xasprintf(" for %s on problem %s", key, s->probs[prob].key);
    }
    int64_t count;
    argspec o = {0}; /* config_value fills it for a scalar only: a buffer's argval gets fval 0 */
    rc = config_value(s, cfg, prob, i, ctx, &o, &count, err);
    if (rc == 0) out[(*n)++] = (argval){.index = i, .ival = a->kind == ARG_SCALAR ? o.ival : count, .fval = o.fval};
  }
  free(key), free(ctx);
  return rc;
}

/* Buffers whose count reads parameters are allocated at the largest count any valid
 * configuration asks for (each configuration then gets its own count: space_config_args), found
 * here once the configurations are known: one evaluation per distinct value of the parameters
 * the count reads. */
int space_eval_buffer_max(space *s, cterr *err) {
  size_t ncfg = configset_count(s->cs);
  int np = configset_nparams(s->cs);
  for (int i = 0; i < s->nargs; i++) {
    sp_arg *a = &s->args[i];
    if (!a->per_config || a->kind == ARG_SCALAR) continue;
    size_t cap = 1024, used = 0;
    uint64_t *seen = xcalloc(cap, sizeof *seen);
    int rc = 0;
    for (size_t c = 0; c < ncfg && rc == 0; c++) {
      const uint16_t *row = configset_row(s->cs, c);
      uint64_t h = 0x84222325cbf29ce4ull;
      for (int p = 0; p < np; p++)
        if (a->reads >> p & 1) h = (h ^ row[p]) * 0x100000001b3ull, h ^= h >> 29;
      h |= 1;
      size_t k = h & (cap - 1);
      while (seen[k] && seen[k] != h) k = (k + 1) & (cap - 1);
      if (seen[k]) continue;
      seen[k] = h;
      if (++used * 2 > cap) { /* grow: rehash */
        uint64_t *old = seen;
        size_t ocap = cap;
        cap *= 2;
        seen = xcalloc(cap, sizeof *seen);
        for (size_t j = 0; j < ocap; j++)
          if (old[j]) {
            size_t q = old[j] & (cap - 1);
            while (seen[q]) q = (q + 1) & (cap - 1);
            seen[q] = old[j];
          }
        free(old);
      }
      for (int prob = 0; prob < s->nproblems && rc == 0; prob++) {
        char *key = configset_row_key(s->cs, row);
        char *ctx = xasprintf(" for %s on problem %s", key, s->probs[prob].key);
        int64_t count = 0;
        argspec o;
        rc = config_value(s, c, prob, i, ctx, &o, &count, err);
        if (rc == 0 && count > s->probs[prob].args[i].count) s->probs[prob].args[i].count = count;
        free(key), free(ctx);
      }
    }
    free(seen);
    if (rc < 0) return -1;
  }
  return 0;
}

int space_param_runtime(const space *s, int p) { return p >= 0 && p < configset_nparams(s->cs) && s->runtime[p]; }
int space_nruntime(const space *s) { return s->nruntime; }

size_t space_runtime_combos(const space *s) {
  size_t n = 1;
  int np = configset_nparams(s->cs);
  for (int p = 0; p < np; p++)
    if (s->runtime[p]) n *= (size_t)configset_param(s->cs, p)->nvalues;
  return n;
}

size_t space_runtime_siblings(const space *s, size_t cfg, size_t *out, size_t max) {
  if (cfg >= configset_count(s->cs)) return 0;
  int np = configset_nparams(s->cs), rp[CS_MAX_PARAMS], nr = 0;
  uint16_t row[CS_MAX_PARAMS];
  memcpy(row, configset_row(s->cs, cfg), (size_t)np * sizeof *row);
  for (int p = 0; p < np; p++)
    if (s->runtime[p]) rp[nr++] = p, row[p] = 0;
  size_t n = 0;
  for (;;) { /* every combination of the runtime values, in enumeration order */
    long idx = configset_find(s->cs, row);
    if (idx >= 0) {
      if (n < max) out[n] = (size_t)idx;
      n++;
    }
    int k = nr - 1;
    while (k >= 0 && ++row[rp[k]] == configset_param(s->cs, rp[k])->nvalues) row[rp[k--]] = 0;
    if (k < 0) break;
  }
  return n;
}
