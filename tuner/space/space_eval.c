/* space_eval: what calls back into a space's Lua functions — constraints during enumeration,
 * launch geometry per configuration, bytes and flops, the cuBLAS baseline's shape; the
 * arguments' sizes and values are space_eval_args.c's.
 *
 * Enumeration is the hot path (a million raw combinations must take well under a second):
 * each rule is checked at the depth of its deepest parameter, its function and argument table
 * sit on the Lua stack for the whole walk, and a check costs one protected call plus one
 * rawset per parameter the rule reads — no allocation. Each rule's table holds only the
 * parameters it names, so a rule that reads one it did not name sees nil and fails loudly
 * instead of reading a stale value. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space_int.h"

/* ---- enumeration ---- */

typedef struct enum_ctx {
  space *s;
  lua_State *L;
  int fn_base, tab_base, name_base; /* stack slots: rule k's function and table, parameter p's name */
  int *order;                       /* rule indices sorted by the depth at which they are checked */
  int start[CS_MAX_PARAMS + 1];     /* rules checked at depth d: order[start[d] .. start[d+1]) */
} enum_ctx;

static char *rule_binding(space *s, const sp_rule *r, const uint16_t *row) {
  dbuf b;
  dbuf_init(&b);
  for (int j = 0; j < r->nnames; j++) {
    int p = r->idx[j];
    dbuf_printf(&b, "%s%s=%s", j ? "," : "", configset_param(s->cs, p)->name, configset_param(s->cs, p)->str[row[p]]);
  }
  return dbuf_steal(&b);
}

static int check_rules(void *ctx, int depth, const uint16_t *row, cterr *err) {
  enum_ctx *c = ctx;
  lua_State *L = c->L;
  space *s = c->s;
  for (int k = c->start[depth]; k < c->start[depth + 1]; k++) {
    const sp_rule *r = &s->rules[c->order[k]];
    lua_pushvalue(L, c->fn_base + k);
    lua_pushvalue(L, c->tab_base + k);
    for (int j = 0; j < r->nnames; j++) {
      int p = r->idx[j];
      lua_pushvalue(L, c->name_base + p);
      space_push_param(s, p, row[p]);
      lua_rawset(L, -3);
    }
    int prc = lua_pcall(L, 1, 1, 1);
    if (prc != LUA_OK) {
      char *with = rule_binding(s, r, row);
      const char *m = prc == LUA_ERRMEM && space_limits_oom(s) ? space_limits_oom(s) : lua_tostring(L, -1);
      cterr_set(err, "%s:%d: constraint '%s' failed with %s: %s", r->file, r->line, r->desc, with, m ? m : "?");
      free(with);
      lua_pop(L, 1);
      return -1;
    }
    if (lua_type(L, -1) != LUA_TBOOLEAN) {
      char *with = rule_binding(s, r, row);
      cterr_set(err, "%s:%d: constraint '%s' returned %s with %s (expected true or false)", r->file, r->line, r->desc,
                luaL_typename(L, -1), with);
      free(with);
      lua_pop(L, 1);
      return -1;
    }
    int ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!ok) return 0;
  }
  return 1;
}

int space_eval_enumerate(space *s, cterr *err) {
  lua_State *L = s->L;
  int np = configset_nparams(s->cs), top = lua_gettop(L);
  enum_ctx c = {.s = s, .L = L};
  if (!lua_checkstack(L, 2 * s->nrules + np + 16))
    return cterr_set(err, "%s: too many constraints for the Lua stack", s->path);
  c.order = xmalloc(((size_t)s->nrules + 1) * sizeof(int));
  int k = 0;
  for (int d = 0; d < np; d++) {
    c.start[d] = k;
    for (int i = 0; i < s->nrules; i++)
      if (s->rules[i].last == d) c.order[k++] = i;
  }
  c.start[np] = k;
  c.fn_base = lua_gettop(L) + 1;
  for (k = 0; k < s->nrules; k++) lua_rawgeti(L, LUA_REGISTRYINDEX, s->rules[c.order[k]].fn_ref);
  c.tab_base = lua_gettop(L) + 1;
  for (k = 0; k < s->nrules; k++) lua_rawgeti(L, LUA_REGISTRYINDEX, s->rules[c.order[k]].tab_ref);
  c.name_base = lua_gettop(L) + 1;
  for (int p = 0; p < np; p++) lua_pushstring(L, configset_param(s->cs, p)->name);
  int rc = configset_enumerate(s->cs, s->nrules ? check_rules : NULL, &c, err);
  lua_settop(L, top);
  free(c.order);
  if (rc < 0 && strncmp(err->msg, s->file, strlen(s->file))) /* the configset's own (the cap): place it */
    return cterr_wrap(err, "%s:%d", s->file, s->line > 0 ? s->line : 1);
  if (rc == 0 && configset_count(s->cs) == 0)
    return cterr_set(err, "%s:%d: the constraints reject every configuration (%.0f raw combinations)", s->file,
                     s->line > 0 ? s->line : 1, configset_raw_size(s->cs));
  return rc;
}

/* ---- calling values ---- */

void space_push_problem(space *s, int prob) {
  const sp_problem *p = &s->probs[prob];
  lua_createtable(s->L, 0, p->nvars);
  for (int j = 0; j < p->nvars; j++) {
    lua_pushinteger(s->L, p->vals[j]);
    lua_setfield(s->L, -2, p->names[j]);
  }
}

void space_push_param(space *s, int p, int v) {
  if (s->pstr[p]) lua_pushstring(s->L, configset_param(s->cs, p)->str[v]);
  else lua_pushinteger(s->L, s->pval[p][v]);
}

void space_push_config(space *s, size_t cfg) {
  const uint16_t *row = configset_row(s->cs, cfg);
  int np = configset_nparams(s->cs);
  lua_createtable(s->L, 0, np);
  for (int p = 0; p < np; p++) {
    space_push_param(s, p, row[p]);
    lua_setfield(s->L, -2, configset_param(s->cs, p)->name);
  }
}

int space_eval_value(space *s, const sp_value *v, int nargs, sp_vres *out, const char *what, const char *ctx,
                     cterr *err) {
  lua_State *L = s->L;
  int base = lua_gettop(L) - nargs;
  memset(out, 0, sizeof *out);
  if (v->kind == SV_CONST) {
    lua_settop(L, base);
    out->n = v->ncon;
    for (int i = 0; i < v->ncon; i++) {
      out->d[i] = v->con[i];
      out->isint[i] = v->con[i] == floor(v->con[i]) && fabs(v->con[i]) < 9.007199254740992e15;
      out->i[i] = out->isint[i] ? (int64_t)v->con[i] : 0;
    }
    return 0;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, v->ref);
  if (v->kind == SV_EXPR) {
    /* globals of the expression: the problem's sizes, then the sandbox (math.max etc.) */
    lua_pushvalue(L, base + nargs);
    if (lua_getmetatable(L, -1)) lua_pop(L, 1); /* a per-configuration value's (push_rt_env) */
    else {
      lua_createtable(L, 0, 1);
      lua_getfield(L, LUA_REGISTRYINDEX, "cutune.sandbox");
      lua_setfield(L, -2, "__index");
      lua_setmetatable(L, -2);
    }
    lua_setupvalue(L, -2, 1);
    lua_replace(L, base + 1);
    lua_settop(L, base + 1);
    nargs = 0;
  } else lua_insert(L, base + 1);
  cterr e;
  if (space_pcall(s, nargs, LUA_MULTRET, &e) < 0) {
    if (v->kind == SV_EXPR)
      return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s \"%s\" failed%s: %s", v->file, v->line, what, v->text, ctx,
                            e.msg);
    return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s failed%s: %s", v->file, v->line, what, ctx, e.msg);
  }
  int n = lua_gettop(L) - base;
  if (n == 1 && lua_type(L, -1) == LUA_TTABLE) { /* a list {x, y} is accepted as well */
    int len = (int)lua_rawlen(L, -1);
    if (len >= 1 && len <= 3) {
      int t = lua_gettop(L);
      for (int i = 1; i <= len; i++) lua_rawgeti(L, t, i);
      lua_remove(L, t);
      n = len;
    }
  }
  if (n < 1 || n > 3) {
    lua_settop(L, base);
    return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s returned %d values%s (expected %s)", v->file, v->line, what, n,
                          ctx, n ? "at most 3" : "a number");
  }
  for (int i = 0; i < n; i++) {
    int idx = base + 1 + i;
    if (lua_type(L, idx) != LUA_TNUMBER) {
      const char *tn = luaL_typename(L, idx);
      lua_settop(L, base);
      return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s returned a %s%s (expected a number)", v->file, v->line, what,
                            tn, ctx);
    }
    out->d[i] = lua_tonumber(L, idx);
    out->i[i] = lua_tointegerx(L, idx, &out->isint[i]);
  }
  out->n = n;
  lua_settop(L, base);
  return 0;
}

/* ---- geometry ---- */

#define MAX_DYN_SMEM (227 * 1024) /* the largest opt-in shared memory per block (sm_90) */

/* dst: 3 entries for block and grid (which 0, 1), 1 for shared (which 2: &dyn_smem). An integer
 * out of CUDA's range is a limit (CTERR_OTHER: the record is invalid); a number that is no
 * integer, or a count other than shared's one, is the space's own mistake (CTERR_SPACE). */
static int check_geom(const sp_value *v, const sp_vres *r, int which, const char *ctx, unsigned *dst, cterr *err) {
  static const char *const names[] = {"block", "grid", "shared"};
  char vals[96];
  int len = 0;
  for (int i = 0; i < r->n; i++)
    len += snprintf(vals + len, sizeof vals - (size_t)len, "%s%.17g", i ? ", " : "", r->d[i]);
  if (which == 2) {
    if (r->n != 1 || !r->isint[0] || r->i[0] < 0 || r->i[0] > MAX_DYN_SMEM)
      return cterr_set_code(err, r->n != 1 || !r->isint[0] ? CTERR_SPACE : CTERR_OTHER,
                            "%s:%d: shared%s is (%s): expected one integer in 0..%d (bytes of dynamic shared memory)",
                            v->file, v->line, ctx, vals, MAX_DYN_SMEM);
    dst[0] = (unsigned)r->i[0];
    return 0;
  }
  static const int64_t lim[2][3] = {{1024, 1024, 64}, {2147483647, 65535, 65535}};
  int64_t prod = 1;
  for (int i = 0; i < 3; i++) {
    int notint = i < r->n && !r->isint[i];
    int64_t x = i < r->n ? (r->isint[i] ? r->i[i] : 0) : 1;
    if (x < 1 || x > lim[which][i])
      return cterr_set_code(err, notint ? CTERR_SPACE : CTERR_OTHER,
                            "%s:%d: %s%s is (%s): each dimension must be an integer in 1..%lld (%c is %.17g)", v->file,
                            v->line, names[which], ctx, vals, (long long)lim[which][i], "xyz"[i],
                            i < r -> n ? r -> d[i] : 1.0);
    dst[i] = (unsigned)x;
    prod *= x;
  }
  if (which == 0 && prod > 1024)
    return cterr_set(err, "%s:%d: block%s is (%s): %lld threads, at most 1024 per block", v->file, v->line, ctx, vals,
                     (long long)prod);
  return 0;
}

/* args on the stack top: (p, n) for a configuration, (n) for the reference */
static int eval_geom(space *s, const sp_geom *g, int nargs, const char *ctx, launch_geom *out, cterr *err) {
  lua_State *L = s->L;
  int base = lua_gettop(L) - nargs;
  const sp_value *vals[3] = {&g->block, &g->grid, &g->shared};
  unsigned *dst[3] = {out->block, out->grid, &out->dyn_smem};
  static const char *const names[] = {"block", "grid", "shared"};
  out->dyn_smem = 0;
  for (int w = 0; w < 3; w++) {
    if (vals[w]->kind == SV_NONE) continue;
    for (int i = 0; i < nargs; i++) lua_pushvalue(L, base + 1 + i);
    sp_vres r;
    if (space_eval_value(s, vals[w], nargs, &r, names[w], ctx, err) < 0 ||
        check_geom(vals[w], &r, w, ctx, dst[w], err) < 0) {
      lua_settop(L, base);
      return -1;
    }
  }
  lua_settop(L, base);
  return 0;
}

int space_eval_config_geom(space *s, const sp_geom *g, size_t cfg, int prob, const char *what, launch_geom *out,
                           cterr *err) {
  if (cfg >= configset_count(s->cs) || prob < 0 || prob >= s->nproblems)
    return cterr_set(err, "%s: no configuration %zu on problem %d", s->path, cfg, prob);
  space_limits_enter(s);
  char *key = configset_row_key(s->cs, configset_row(s->cs, cfg));
  char *ctx = xasprintf("%s%s for %s on problem %s", what ? " of " : "", what ? what : "", key, s->probs[prob].key);
  free(key);
  space_push_config(s, cfg);
  space_push_problem(s, prob);
  int rc = eval_geom(s, g, 2, ctx, out, err);
  free(ctx);
  return rc;
}

int space_geometry(space *s, size_t cfg, int prob, launch_geom *out, cterr *err) {
  return space_eval_config_geom(s, &s->geom, cfg, prob, NULL, out, err);
}

int space_geometry_at(space *s, size_t cfg, int nv, const char *const *names, const int64_t *vals, launch_geom *out,
                      cterr *err) {
  if (cfg >= configset_count(s->cs)) return cterr_set(err, "%s: no configuration %zu", s->path, cfg);
  space_limits_enter(s);
  char *key = configset_row_key(s->cs, configset_row(s->cs, cfg));
  dbuf at = {0};
  for (int j = 0; j < nv; j++) dbuf_printf(&at, "%s%s=%lld", j ? "," : "", names[j], (long long)vals[j]);
  char *ctx = xasprintf(" for %s at %s", key, at.data ? at.data : "");
  free(key), dbuf_free(&at);
  space_push_config(s, cfg);
  lua_createtable(s->L, 0, nv);
  for (int j = 0; j < nv; j++) {
    lua_pushinteger(s->L, vals[j]);
    lua_setfield(s->L, -2, names[j]);
  }
  int rc = eval_geom(s, &s->geom, 2, ctx, out, err);
  free(ctx);
  return rc;
}

/* ---- per-problem values, evaluated once at load ---- */

int space_eval_number(space *s, int prob, const sp_value *v, const char *what, double *out, cterr *err) {
  *out = NAN;
  if (v->kind == SV_NONE) return 0;
  char *ctx = xasprintf(" on problem %s", s->probs[prob].key);
  space_push_problem(s, prob);
  sp_vres r;
  int rc = space_eval_value(s, v, 1, &r, what, ctx, err);
  if (rc == 0 && (r.n != 1 || !isfinite(r.d[0]) || r.d[0] < 0))
    rc = cterr_set(err, "%s:%d: %s%s is %.17g: expected one finite number >= 0", v->file, v->line, what, ctx, r.d[0]);
  if (rc == 0) *out = r.d[0];
  free(ctx);
  return rc;
}

/* cublas_gemmex: M, N, K and the inputs' type, "bf16" or "f16" (the same for every problem). */
static int eval_gemmex(space *s, int prob, cterr *err) {
  lua_State *L = s->L;
  int64_t *o = s->probs[prob].sgemm;
  const sp_value *v = &s->gemmex;
  int base = lua_gettop(L), rc = 0;
  if (v->kind != SV_FUNC)
    return cterr_set(err, "%s:%d: cublas_gemmex must be a function(n) giving M, N, K and \"bf16\" or \"f16\"", v->file,
                     v->line);
  lua_rawgeti(L, LUA_REGISTRYINDEX, v->ref);
  space_push_problem(s, prob);
  cterr e;
  if (space_pcall(s, 1, LUA_MULTRET, &e) < 0)
    return cterr_set(err, "%s:%d: cublas_gemmex failed on problem %s: %s", v->file, v->line, s->probs[prob].key, e.msg);
  int n = lua_gettop(L) - base, ok = n == 4;
  for (int i = 0; ok && i < 3; i++) {
    int isint;
    lua_Integer x = lua_tointegerx(L, base + 1 + i, &isint);
    ok = isint && x >= 1 && x <= (1 << 20);
    o[i] = x;
  }
  elemtype t = EL_F32;
  if (ok)
    ok = lua_type(L, base + 4) == LUA_TSTRING && elemtype_parse(lua_tostring(L, base + 4), &t) == 0 &&
         (t == EL_BF16 || t == EL_F16);
  if (!ok) {
    o[0] = o[1] = o[2] = 0;
    rc = cterr_set(err,
                   "%s:%d: cublas_gemmex on problem %s must give three integers M, N, K from 1 to 1048576 and "
                   "the inputs' type \"bf16\" or \"f16\" (got %d value%s)",
                   v->file, v->line, s->probs[prob].key, n, n == 1 ? "" : "s");
  }
  s->gemm_type = t;
  lua_settop(L, base);
  return rc;
}

/* cublas_sgemm: M, N, K, three integers >= 1 (the shape of the problem's cuBLAS baseline). */
static int eval_sgemm(space *s, int prob, cterr *err) {
  int64_t *o = s->probs[prob].sgemm;
  o[0] = o[1] = o[2] = 0;
  if (s->gemmex.kind != SV_NONE) return eval_gemmex(s, prob, err);
  if (s->sgemm.kind == SV_NONE) return 0;
  char *ctx = xasprintf(" on problem %s", s->probs[prob].key);
  space_push_problem(s, prob);
  sp_vres r;
  int rc = space_eval_value(s, &s->sgemm, 1, &r, "cublas_sgemm", ctx, err);
  for (int i = 0; rc == 0 && i < 3; i++)
    if (r.n != 3 || !r.isint[i] || r.i[i] < 1 || r.i[i] > (1 << 20))
      rc = cterr_set(err, "%s:%d: cublas_sgemm%s must give three integers M, N, K from 1 to 1048576 (got %d value%s)",
                     s->sgemm.file, s->sgemm.line, ctx, r.n, r.n == 1 ? "" : "s");
  for (int i = 0; rc == 0 && i < 3; i++) o[i] = r.i[i];
  free(ctx);
  return rc;
}

int space_eval_problems(space *s, cterr *err) {
  for (int prob = 0; prob < s->nproblems; prob++) {
    if (!s->probs[prob].args) s->probs[prob].args = xcalloc((size_t)s->nargs + 1, sizeof(argspec));
    for (int i = 0; i < s->nargs; i++)
      if (space_eval_arg(s, prob, i, err) < 0) return -1;
    if (space_eval_number(s, prob, &s->bytes, "bytes", &s->probs[prob].bytes, err) < 0 ||
        space_eval_number(s, prob, &s->flops, "flops", &s->probs[prob].flops, err) < 0 || eval_sgemm(s, prob, err) < 0)
      return -1;
    if (s->ninit && !s->probs[prob].init_geom)
      s->probs[prob].init_geom = xcalloc((size_t)s->ninit, sizeof(launch_geom));
    for (int k = 0; k < s->ninit; k++) { /* init launches: functions of the problem alone */
      char *ctx = xasprintf(" of init[%d] on problem %s", k + 1, s->probs[prob].key);
      space_push_problem(s, prob);
      int rc = eval_geom(s, &s->init[k].geom, 1, ctx, &s->probs[prob].init_geom[k], err);
      free(ctx);
      if (rc < 0) return -1;
    }
    if (s->ref_kernel && !s->ref_per_config) { /* else per configuration: space_ref_config */
      char *ctx = xasprintf(" of the reference on problem %s", s->probs[prob].key);
      space_push_problem(s, prob);
      int rc = eval_geom(s, &s->ref_geom, 1, ctx, &s->probs[prob].ref_geom, err);
      free(ctx);
      if (rc < 0) return -1;
    }
  }
  return 0;
}

/* ---- a reference run from each configuration's program ---- */

int space_ref_config(space *s, size_t cfg, int prob, launch_geom *geom, uint64_t *key, cterr *err) {
  if (!s->ref_per_config) return cterr_set(err, "%s: the reference is not per configuration", s->path);
  if (cfg >= configset_count(s->cs) || prob < 0 || prob >= s->nproblems)
    return cterr_set(err, "%s: no configuration %zu on problem %d", s->path, cfg, prob);
  const uint16_t *row = configset_row(s->cs, cfg);
  /* the key: the values of the parameters the reference reads, and the problem */
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)prob;
  for (int i = 0; i < s->nref_params; i++) {
    int64_t v = s->pval[s->ref_params[i]][row[s->ref_params[i]]];
    for (int b = 0; b < 8; b++) h = (h ^ (uint8_t)(v >> (8 * b))) * 0x100000001b3ull;
  }
  *key = h ? h : 1;
  space_limits_enter(s);
  char *k = configset_row_key(s->cs, row);
  char *ctx = xasprintf(" of the reference for %s on problem %s", k, s->probs[prob].key);
  free(k);
  space_push_problem(s, prob);
  space_push_config(s, cfg);
  int rc = eval_geom(s, &s->ref_geom, 2, ctx, geom, err);
  free(ctx);
  return rc;
}
