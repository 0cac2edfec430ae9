/* space_tmaps: ct.tensormap arguments (docs/SPACE.md, "Tensor maps") — reading the declaration
 * (buffer, dims, strides, box, swizzle, optional, name, dtype) with file:line messages, and
 * evaluating it for one configuration on one problem into the tmapspec the GPU worker encodes
 * with cuTensorMapEncodeTiled. dims, strides and box are each a list whose entries are numbers,
 * size expressions or functions (p, n), or one function(p, n) giving the whole list; size
 * expressions here see the problem's sizes and the configuration's parameters. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

static const char *const field_names[3] = {"dims", "strides", "box"};

static int read_field(space *s, lua_State *L, int t, int f, sp_tmap *m, const char *what, where w, cterr *err) {
  char gbuf[96], ewhat[80];
  int ty = lua_getfield(L, t, field_names[f]);
  int top = lua_gettop(L), rc = 0;
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return f == 1 ? 0
                  : sp_perr(err, w, "%s: missing %s (a list of 1 to %d sizes, innermost first)", what, field_names[f],
                            TMAP_MAX_RANK);
  }
  if (ty == LUA_TFUNCTION) {
    m->whole[f] = 1, m->n[f] = 1;
    snprintf(ewhat, sizeof ewhat, "%s %s", what, field_names[f]);
    rc = sp_read_value(s, L, top, &m->v[f][0], 1, 0, ewhat, w, err);
  } else {
    int n = ty == LUA_TTABLE ? sp_seq_len(L, top) : -1;
    int maxn = f == 1 ? TMAP_MAX_RANK - 1 : TMAP_MAX_RANK;
    if (n < (f == 1 ? 0 : 1) || n > maxn)
      rc = sp_perr(err, w,
                   "%s: %s must be a list of %d to %d entries (numbers, size expressions or functions (p, n)) "
                   "or a function(p, n) giving one (got %s)",
                   what, field_names[f], f == 1 ? 0 : 1, maxn, GOT(top));
    for (int i = 1; rc == 0 && i <= n; i++) {
      lua_rawgeti(L, top, i);
      snprintf(ewhat, sizeof ewhat, "%s %s[%d]", what, field_names[f], i);
      rc = sp_read_value(s, L, lua_gettop(L), &m->v[f][i - 1], 1, 1, ewhat, w, err);
      lua_settop(L, top);
    }
    m->n[f] = n;
  }
  lua_settop(L, top - 1);
  return rc;
}

int space_parse_tmap(space *s, lua_State *L, int idx, int i, cterr *err) {
  char gbuf[96], what[64];
  where w = sp_tagged_where(s, L, idx);
  snprintf(what, sizeof what, "args[%d] (ct.tensormap)", i);
  if (s->ntmaps >= MAX_TMAPS) return sp_perr(err, w, "%s: more than %d tensor maps", what, MAX_TMAPS);
  sp_arg *a = &s->args[s->nargs];
  sp_tmap *m = &s->tmaps[s->ntmaps];
  memset(a, 0, sizeof *a);
  memset(m, 0, sizeof *m);
  m->arg = s->nargs, m->file = w.file, m->line = w.line;
  a->kind = ARG_TENSORMAP, a->type = EL_U8;
  snprintf(a->name, sizeof a->name, "tmap%d", i);
  lua_getfield(L, idx, "spec");
  int t = lua_gettop(L);
  if (lua_type(L, t) != LUA_TTABLE)
    return sp_perr(err, w, "%s: expected ct.tensormap { buffer = ..., dims = {...}, box = {...} } (got %s)", what,
                   GOT(t));
  static const char *const keys[] = {"buffer", "dims", "strides", "box", "swizzle", "optional", "name", "dtype", NULL};
  if (sp_check_keys(L, t, keys, what, w, err) < 0) return -1;
  char *str = NULL;
  if (sp_get_string(L, t, "buffer", &str, 1, what, w, err) < 0) return -1;
  m->buffer = -1;
  for (int k = 0; k < s->nargs; k++)
    if (!strcmp(s->args[k].name, str) && s->args[k].kind != ARG_SCALAR && s->args[k].kind != ARG_TENSORMAP)
      m->buffer = k;
  if (m->buffer < 0) {
    sp_perr(err, w,
            "%s: buffer \"%s\" is not a buffer argument listed before it (ct.input/ct.output/ct.inout with "
            "{name = \"%s\"})",
            what, str, str);
    free(str);
    return -1;
  }
  free(str), str = NULL;
  const sp_arg *buf = &s->args[m->buffer];
  if (sp_get_string(L, t, "dtype", &str, 0, what, w, err) < 0) return -1;
  if (str) {
    elemtype et;
    int bad = elemtype_parse(str, &et) < 0 || et != buf->type;
    if (bad)
      sp_perr(err, w, "%s: dtype \"%s\" is not the type of buffer '%s' (%s)", what, str, buf->name,
              elemtype_name(buf->type));
    free(str), str = NULL;
    if (bad) return -1;
  }
  if (sp_get_string(L, t, "name", &str, 0, what, w, err) < 0) return -1;
  if (str) {
    int bad = strlen(str) >= ARG_NAME_MAX;
    if (bad) sp_perr(err, w, "%s: name is longer than %d characters", what, ARG_NAME_MAX - 1);
    else snprintf(a->name, sizeof a->name, "%s", str);
    free(str);
    if (bad) return -1;
  }
  for (int f = 0; f < 3; f++)
    if (read_field(s, L, t, f, m, what, w, err) < 0) return -1;
  if (!m->whole[0] && !m->whole[2] && m->n[0] != m->n[2])
    return sp_perr(err, w, "%s: box has %d entries, dims %d (one per dimension)", what, m->n[2], m->n[0]);
  if (!m->whole[0] && !m->whole[1] && m->n[1] && m->n[1] != m->n[0] - 1)
    return sp_perr(err, w, "%s: strides has %d entries: give one per dimension after the first (%d), in bytes", what,
                   m->n[1], m->n[0] - 1);
  char swhat[80];
  snprintf(swhat, sizeof swhat, "%s swizzle", what);
  if (sp_get_value(s, L, t, "swizzle", &m->swizzle, 0, 1, 1, swhat, w, err) < 0) return -1;
  int ty = lua_getfield(L, t, "optional");
  if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
    return sp_perr(err, w, "%s: optional must be true or false (got %s)", what, GOT(-1));
  m->optional = lua_toboolean(L, -1);
  lua_settop(L, t - 1);
  s->ntmaps++, s->nargs++;
  return 0;
}

/* The environment of a size expression here: the problem's sizes and the configuration's
 * parameters (which win a clash), over the sandbox; left on the stack. */
static void push_env(space *s, size_t cfg, int prob) {
  lua_State *L = s->L;
  const sp_problem *p = &s->probs[prob];
  space_push_config(s, cfg);
  for (int j = 0; j < p->nvars; j++) {
    if (lua_getfield(L, -1, p->names[j]) == LUA_TNIL) lua_pushinteger(L, p->vals[j]), lua_setfield(L, -3, p->names[j]);
    lua_pop(L, 1);
  }
  lua_createtable(L, 0, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, "cutune.sandbox");
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
}

static void push_problem_table(space *s, int prob) {
  const sp_problem *p = &s->probs[prob];
  lua_createtable(s->L, 0, p->nvars);
  for (int j = 0; j < p->nvars; j++) lua_pushinteger(s->L, p->vals[j]), lua_setfield(s->L, -2, p->names[j]);
}

/* v called (p, n) or as an expression over env (at stack index env); its results left on the
 * stack, how many returned; -1 with err. */
static int call_value(space *s, const sp_value *v, int env, size_t cfg, int prob, const char *what, const char *ctx,
                      cterr *err) {
  lua_State *L = s->L;
  int base = lua_gettop(L), nargs = 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, v->ref);
  if (v->kind == SV_EXPR) {
    lua_pushvalue(L, env);
    lua_setupvalue(L, -2, 1);
  } else {
    space_push_config(s, cfg);
    push_problem_table(s, prob);
    nargs = 2;
  }
  cterr e;
  if (space_pcall(s, nargs, LUA_MULTRET, &e) < 0)
    return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s failed%s: %s", v->file, v->line, what, ctx, e.msg);
  return lua_gettop(L) - base;
}

static int to_int(lua_State *L, int idx, int64_t *out) {
  int isint = 0;
  *out = lua_type(L, idx) == LUA_TNUMBER ? (int64_t)lua_tointegerx(L, idx, &isint) : 0;
  return isint ? 0 : -1;
}

/* Field f of m into out (up to TMAP_MAX_RANK integers); returns how many. */
static int eval_field(space *s, const sp_tmap *m, int f, int env, size_t cfg, int prob, const char *ctx, int64_t *out,
                      cterr *err) {
  lua_State *L = s->L;
  char gbuf[96], what[64];
  int base = lua_gettop(L);
  if (m->whole[f]) {
    snprintf(what, sizeof what, "ct.tensormap %s", field_names[f]);
    int n = call_value(s, &m->v[f][0], env, cfg, prob, what, ctx, err);
    if (n < 0) return -1;
    int len = n == 1 && lua_type(L, -1) == LUA_TTABLE ? sp_seq_len(L, -1) : -1;
    if (len < 0 || len > TMAP_MAX_RANK) {
      cterr_set_code(err, CTERR_SPACE, "%s:%d: %s%s returned %s (expected a list of at most %d integers)",
                     m->v[f][0].file, m->v[f][0].line, what, ctx, n == 1 ? GOT(-1) : "several values", TMAP_MAX_RANK);
      lua_settop(L, base);
      return -1;
    }
    for (int i = 0; i < len; i++) {
      lua_rawgeti(L, base + 1, i + 1);
      int bad = to_int(L, -1, &out[i]);
      if (bad)
        cterr_set_code(err, CTERR_SPACE, "%s:%d: %s%s: entry %d is %s (expected an integer)", m->v[f][0].file,
                       m->v[f][0].line, what, ctx, i + 1, GOT(-1));
      lua_pop(L, 1);
      if (bad) return lua_settop(L, base), -1;
    }
    lua_settop(L, base);
    return len;
  }
  for (int i = 0; i < m->n[f]; i++) {
    const sp_value *v = &m->v[f][i];
    snprintf(what, sizeof what, "ct.tensormap %s[%d]", field_names[f], i + 1);
    if (v->kind == SV_CONST) {
      out[i] = (int64_t)v->con[0];
      if ((double)out[i] != v->con[0])
        return cterr_set_code(err, CTERR_SPACE, "%s:%d: %s is %.17g (expected an integer)", v->file, v->line, what,
                              v->con[0]);
      continue;
    }
    int n = call_value(s, v, env, cfg, prob, what, ctx, err);
    if (n < 0) return -1;
    int bad = n != 1 || to_int(L, -1, &out[i]);
    if (bad)
      cterr_set_code(err, CTERR_SPACE, "%s:%d: %s%s gave %s (expected one integer)", v->file, v->line, what, ctx,
                     n == 1 ? GOT(-1) : "several values");
    lua_settop(L, base);
    if (bad) return -1;
  }
  return m->n[f];
}

static int eval_tmap(space *s, const sp_tmap *m, size_t cfg, int prob, const char *ctx, tmapspec *o, cterr *err) {
  lua_State *L = s->L;
  int base = lua_gettop(L);
  memset(o, 0, sizeof *o);
  o->arg = m->arg, o->buffer = m->buffer, o->type = s->args[m->buffer].type, o->optional = m->optional;
  push_env(s, cfg, prob);
  int env = lua_gettop(L);
  int64_t box[TMAP_MAX_RANK] = {0}, sw = 0;
  int nd = eval_field(s, m, 0, env, cfg, prob, ctx, o->dims, err);
  int ns = nd < 0 ? -1 : eval_field(s, m, 1, env, cfg, prob, ctx, o->strides, err);
  int nb = ns < 0 ? -1 : eval_field(s, m, 2, env, cfg, prob, ctx, box, err);
  int rc = nb < 0 ? -1 : 0;
  if (rc == 0 && m->swizzle.kind == SV_CONST) sw = (int64_t)m->swizzle.con[0];
  else if (rc == 0 && m->swizzle.kind != SV_NONE) {
    int n = call_value(s, &m->swizzle, env, cfg, prob, "ct.tensormap swizzle", ctx, err);
    if (n < 0) rc = -1;
    else if (n != 1 || to_int(L, -1, &sw)) sw = -1;
  }
  lua_settop(L, base);
  if (rc < 0) return -1;
  int64_t es = elemtype_size((elemtype)o->type), bytes = es;
  const char *bad = NULL;
  /* lists of the wrong length, or a swizzle that is no integer, are the space's own mistake
   * (CTERR_SPACE); a value outside what cuTensorMapEncodeTiled takes is a limit */
  int code = CTERR_SPACE;
  if (nd < 1) bad = "dims is empty";
  else if (nb != nd) bad = "box has not one entry per dimension";
  else if (ns != 0 && ns != nd - 1) bad = "strides has not one entry per dimension after the first";
  else if (sw == -1) bad = "swizzle is not 0, 32, 64 or 128";
  else code = CTERR_OTHER;
  for (int i = 0; !bad && i < nd; i++) {
    if (o->dims[i] < 1 || o->dims[i] > ((int64_t)1 << 32)) bad = "a dimension is outside 1..2^32";
    else if (box[i] < 1 || box[i] > 256) bad = "a box size is outside 1..256";
    if (i + 1 < nd && ns == 0) o->strides[i] = bytes * o->dims[i];
    bytes = i + 1 < nd ? o->strides[i] : bytes;
    if (!bad && i + 1 < nd && (o->strides[i] < 1 || o->strides[i] >= ((int64_t)1 << 40)))
      bad = "a stride is outside 1 byte..1 TiB";
  }
  if (!bad && sw != 0 && sw != 32 && sw != 64 && sw != 128) bad = "swizzle is not 0, 32, 64 or 128";
  if (!bad && sw != 0 && box[0] * es > sw)
    bad = "the box's inner dimension is wider than the swizzle span (box[1] * element size <= swizzle)";
  if (!bad && (box[0] * es) % 16) bad = "the box's inner dimension is not a multiple of 16 bytes";
  if (bad) {
    char vals[200];
    int len = 0;
    for (int i = 0; i < nd && len < 150; i++)
      len += snprintf(vals + len, sizeof vals - (size_t)len, "%s%lld", i ? "," : "", (long long)o->dims[i]);
    len += snprintf(vals + len, sizeof vals - (size_t)len, "} box {");
    for (int i = 0; i < nb && len < 190; i++)
      len += snprintf(vals + len, sizeof vals - (size_t)len, "%s%lld", i ? "," : "", (long long)box[i]);
    return cterr_set_code(err, code, "%s:%d: ct.tensormap of '%s'%s: %s (dims {%s}, swizzle %lld)", m->file, m->line,
                          s->args[m->buffer].name, ctx, bad, vals, (long long)sw);
  }
  o->rank = nd;
  for (int i = 0; i < nd; i++) o->box[i] = (int32_t)box[i];
  o->swizzle = (int32_t)sw;
  return 0;
}

int space_config_tmaps(space *s, size_t cfg, int prob, tmapspec *out, int *n, cterr *err) {
  *n = 0;
  if (!s->ntmaps) return 0;
  if (cfg >= configset_count(s->cs) || prob < 0 || prob >= s->nproblems)
    return cterr_set(err, "%s: no configuration %zu on problem %d", s->path, cfg, prob);
  space_limits_enter(s);
  char *key = configset_row_key(s->cs, configset_row(s->cs, cfg));
  char *ctx = xasprintf(" for %s on problem %s", key, s->probs[prob].key);
  int rc = 0;
  for (int k = 0; k < s->ntmaps && rc == 0; k++) rc = eval_tmap(s, &s->tmaps[k], cfg, prob, ctx, &out[k], err);
  if (rc == 0) *n = s->ntmaps;
  free(key), free(ctx);
  return rc;
}

int space_tmaps_check(space *s, cterr *err) {
  tmapspec t[MAX_TMAPS];
  int n;
  for (int prob = 0; s->ntmaps && prob < s->nproblems; prob++)
    if (space_config_tmaps(s, 0, prob, t, &n, err) < 0) return -1;
  return 0;
}

void space_tmaps_free(space *s) {
  for (int k = 0; k < s->ntmaps; k++) {
    for (int f = 0; f < 3; f++)
      for (int i = 0; i < TMAP_MAX_RANK; i++) space_value_free(NULL, &s->tmaps[k].v[f][i]);
    space_value_free(NULL, &s->tmaps[k].swizzle);
  }
  s->ntmaps = 0;
}
