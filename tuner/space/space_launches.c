/* space_launches: `launches = { ct.launch {...}, ... }`, several kernels per configuration — a
 * sequence of launches, each with its kernel, geometry and arguments (named from `args`, which
 * then is the pool of buffers and scalars they share), timed together as one configuration (a
 * reduction's two passes). A launch may give `defines`: macro values of its own program (the
 * configuration's -D's with these replaced or added: the second pass of sum_floats with
 * num_blocks = 1); launches with the same defines share one program, those without any use the
 * configuration's own. The first launch is the configuration's kernel: its name, geometry and
 * resources are the records' (and it takes no defines). `init = { ct.launch {...}, ... }`: the
 * same launches run once per problem, untimed, after the buffers are filled and before the
 * reference (a random generator's state set up by a kernel): their geometry is a function of the
 * problem (n) only, and they are one program, the template with -DCUTUNE_INIT=1 and their defines
 * (the same for all). Also the argument lists by name that launches, init and the reference share. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

int space_parse_arg_list(space *s, lua_State *L, int idx, int *out, int *n, const char *what, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  idx = lua_absindex(L, idx);
  int len = sp_seq_len(L, idx);
  if (len <= 0 || len > MAX_ARGS)
    return sp_perr(err, w, "%s must be a list of 1 to %d argument names (or positions in args) (got %s)", what,
                   MAX_ARGS, GOT(idx));
  for (int i = 1; i <= len; i++) {
    int ty = lua_rawgeti(L, idx, i), k = -1, isint = 0;
    if (ty == LUA_TSTRING) {
      for (int a = 0; a < s->nargs && k < 0; a++)
        if (!strcmp(s->args[a].name, lua_tostring(L, -1))) k = a;
    } else if (ty == LUA_TNUMBER) {
      lua_Integer v = lua_tointegerx(L, -1, &isint);
      if (isint && v >= 1 && v <= s->nargs) k = (int)v - 1;
    }
    if (k < 0) {
      dbuf b;
      dbuf_init(&b);
      for (int a = 0; a < s->nargs; a++) dbuf_printf(&b, "%s%s", a ? ", " : "", s->args[a].name);
      sp_perr(err, w,
              "%s[%d]: %s is not an argument of args (its names: %s; give a buffer a name with {name = "
              "\"...\"})",
              what, i, GOT(-1), b.data);
      dbuf_free(&b);
      return -1;
    }
    out[i - 1] = k;
    lua_pop(L, 1);
  }
  *n = len;
  return 0;
}

/* defines = { NAME = integer or string }: sorted by name into l->dname/dvalue */
static int parse_defines(space *s, lua_State *L, int idx, sp_launch *l, const char *what, where w, cterr *err) {
  char gbuf[96];
  if (lua_type(L, idx) != LUA_TTABLE)
    return sp_perr(err, w, "%s.defines must be a table {NAME = value} (got %s)", what, GOT(idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!sp_is_ident(k)) return sp_perr(err, w, "%s.defines: names must be identifiers (got %s)", what, GOT(-2));
    int p = configset_param_index(s->cs, k);
    if (p >= 0 && s->runtime[p])
      return sp_perr(err, w, "%s.defines.%s: a runtime parameter is an argument value, not a macro", what, k);
    int ty = lua_type(L, -1), isint = 0;
    lua_Integer iv = ty == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
    if (!(isint || ty == LUA_TSTRING))
      return sp_perr(err, w, "%s.defines.%s must be an integer or a string (got %s)", what, k, GOT(-1));
    l->dname = xrealloc(l->dname, (size_t)(l->ndefines + 1) * sizeof(char *));
    l->dvalue = xrealloc(l->dvalue, (size_t)(l->ndefines + 1) * sizeof(char *));
    l->dname[l->ndefines] = xstrdup(k);
    l->dvalue[l->ndefines++] = isint ? xasprintf("%lld", (long long)iv) : xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  for (int i = 1; i < l->ndefines; i++)
    for (int j = i; j > 0 && strcmp(l->dname[j - 1], l->dname[j]) > 0; j--) {
      char *x = l->dname[j];
      l->dname[j] = l->dname[j - 1];
      l->dname[j - 1] = x;
      x = l->dvalue[j];
      l->dvalue[j] = l->dvalue[j - 1];
      l->dvalue[j - 1] = x;
    }
  return 0;
}

static int same_defines(const sp_launch *a, const sp_launch *b) {
  if (a->ndefines != b->ndefines) return 0;
  for (int i = 0; i < a->ndefines; i++)
    if (strcmp(a->dname[i], b->dname[i]) || strcmp(a->dvalue[i], b->dvalue[i])) return 0;
  return 1;
}

static void copy_value(sp_value *dst, const sp_value *src) {
  *dst = *src;
  dst->text = src->text ? xstrdup(src->text) : NULL; /* the registry reference is shared: lua_close frees it */
}

/* One ct.launch {...} (or a bare table) at li, the list's item `what`, into l: its kernel, arguments
 * (names of args), geometry (functions of (p, n), or of (n) for an init launch) and defines. The
 * stack is left as it was. *has_defines: whether it gave defines at all. */
static int parse_launch(space *s, lua_State *L, int li, sp_launch *l, const char *what, where w, int *has_defines,
                        cterr *err) {
  char gbuf[96];
  int top = lua_gettop(L);
  const char *tag = sp_tag_of(L, li);
  if (lua_type(L, li) != LUA_TTABLE || (tag && strcmp(tag, "launch")))
    return sp_perr(err, w, "%s must be ct.launch { kernel = ..., args = ..., block = ..., grid = ... } (got %s)", what,
                   GOT(li));
  where lw = tag ? sp_tagged_where(s, L, li) : w;
  if (tag) { /* ct.launch { ... }: the table is its spec */
    lua_getfield(L, li, "spec");
    li = lua_gettop(L);
  }
  memset(l, 0, sizeof *l);
  l->file = lw.file, l->line = lw.line;
  static const char *const keys[] = {"kernel", "args", "block", "grid", "shared", "defines", NULL};
  if (sp_check_keys(L, li, keys, what, lw, err) < 0) return -1;
  if (sp_get_string(L, li, "kernel", &l->kernel, 1, what, lw, err) < 0) return -1;
  if (!sp_is_cxx_name(l->kernel))
    return sp_perr(err, lw, "%s.kernel '%s' is not a kernel's C++ name (\"k\", \"ns::k\", \"k<TILE>\")", what,
                   l->kernel);
  char awhat[48];
  snprintf(awhat, sizeof awhat, "%s.args", what);
  if (lua_getfield(L, li, "args") == LUA_TNIL) return sp_perr(err, lw, "%s is missing required key 'args'", what);
  if (space_parse_arg_list(s, L, -1, l->arg, &l->nargs, awhat, err) < 0) return -1;
  lua_pop(L, 1);
  if (sp_get_value(s, L, li, "block", &l->geom.block, 1, 3, 0, what, lw, err) < 0 ||
      sp_get_value(s, L, li, "grid", &l->geom.grid, 1, 3, 0, what, lw, err) < 0 ||
      sp_get_value(s, L, li, "shared", &l->geom.shared, 0, 1, 0, what, lw, err) < 0)
    return -1;
  *has_defines = lua_getfield(L, li, "defines") != LUA_TNIL;
  if (*has_defines && parse_defines(s, L, lua_gettop(L), l, what, lw, err) < 0) return -1;
  lua_settop(L, top);
  return 0;
}

/* The list at key of the space table t: 1 to MAX_LAUNCHES launches into out (*n of them, each
 * counted as soon as it is read: space_launches_free releases what an error leaves). */
static int parse_launch_list(space *s, lua_State *L, int t, const char *key, sp_launch *out, int *n, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, key) == LUA_TNIL) return lua_pop(L, 1), 0;
  int c = lua_gettop(L);
  int len = sp_seq_len(L, c);
  if (len <= 0 || len > MAX_LAUNCHES)
    return sp_perr(err, w,
                   "%s must be a list of 1 to %d ct.launch { kernel = ..., args = ..., block = ..., "
                   "grid = ... } (got %s)",
                   key, MAX_LAUNCHES, GOT(c));
  for (int i = 1; i <= len; i++) {
    lua_rawgeti(L, c, i);
    char what[32];
    snprintf(what, sizeof what, "%s[%d]", key, i);
    sp_launch *l = &out[(*n)++];
    int has_defines = 0;
    if (parse_launch(s, L, lua_gettop(L), l, what, w, &has_defines, err) < 0) return -1;
    if (out == s->launches && i == 1 && has_defines)
      return sp_perr(err, (where){l->file, l->line},
                     "launches[1] is the configuration's own kernel: it takes no defines");
    if (out == s->init && i > 1 && !same_defines(&out[0], l))
      return sp_perr(err, (where){l->file, l->line},
                     "%s.defines differ from init[1]'s: the init launches are one program, so give them all the "
                     "same defines",
                     what);
    lua_settop(L, c);
  }
  lua_pop(L, 1);
  return 0;
}

int space_parse_launches(space *s, lua_State *L, int t, cterr *err) {
  if (parse_launch_list(s, L, t, "init", s->init, &s->ninit, err) < 0 ||
      parse_launch_list(s, L, t, "launches", s->launches, &s->nlaunches, err) < 0)
    return -1;
  if (!s->nlaunches) return 0;
  s->nprograms = 1;
  for (int i = 1; i < s->nlaunches; i++) {
    sp_launch *l = &s->launches[i];
    if (!l->ndefines) continue;
    l->program = -1;
    for (int k = 1; k < i && l->program < 0; k++)
      if (s->launches[k].ndefines && same_defines(&s->launches[k], l)) l->program = s->launches[k].program;
    if (l->program < 0) l->program = s->nprograms++;
  }
  /* the configuration's kernel and geometry are the first launch's */
  s->kernel = xstrdup(s->launches[0].kernel);
  copy_value(&s->geom.block, &s->launches[0].geom.block);
  copy_value(&s->geom.grid, &s->launches[0].geom.grid);
  copy_value(&s->geom.shared, &s->launches[0].geom.shared);
  return 0;
}

static void launch_free(sp_launch *l) {
  free(l->kernel);
  for (int k = 0; k < l->ndefines; k++) free(l->dname[k]), free(l->dvalue[k]);
  free(l->dname), free(l->dvalue);
  free(l->geom.block.text), free(l->geom.grid.text), free(l->geom.shared.text);
}

void space_launches_free(space *s) {
  for (int i = 0; i < s->nlaunches; i++) launch_free(&s->launches[i]);
  for (int i = 0; i < s->ninit; i++) launch_free(&s->init[i]);
  s->nlaunches = s->ninit = 0;
}

/* ---- accessors (space.h) ---- */

int space_nlaunches(const space *s) { return s->nlaunches; }
int space_nprograms(const space *s) { return s->nlaunches ? s->nprograms : 1; }
const char *space_launch_kernel(const space *s, int k) {
  return k >= 0 && k < s->nlaunches ? s->launches[k].kernel : NULL;
}
int space_launch_program(const space *s, int k) { return k >= 0 && k < s->nlaunches ? s->launches[k].program : 0; }

int space_program_defines(const space *s, int prog, const char *const **names, const char *const **values) {
  for (int k = 0; k < s->nlaunches; k++)
    if (s->launches[k].program == prog && prog > 0) {
      *names = (const char *const *)s->launches[k].dname;
      *values = (const char *const *)s->launches[k].dvalue;
      return s->launches[k].ndefines;
    }
  return 0;
}

const char *space_program_kernel(const space *s, int prog) {
  for (int k = 0; k < s->nlaunches; k++)
    if (s->launches[k].program == prog) return s->launches[k].kernel;
  return NULL;
}

int space_launches(space *s, size_t cfg, int prob, launch_step *out, cterr *err) {
  for (int k = 0; k < s->nlaunches; k++) {
    const sp_launch *l = &s->launches[k];
    launch_step *o = &out[k];
    memset(o, 0, sizeof *o);
    o->program = l->program;
    o->nargs = l->nargs;
    for (int a = 0; a < l->nargs; a++) o->arg[a] = (int8_t)l->arg[a];
    char what[32];
    snprintf(what, sizeof what, "launches[%d]", k + 1);
    if (space_eval_config_geom(s, &l->geom, cfg, prob, what, &o->geom, err) < 0) return -1;
  }
  return s->nlaunches;
}

int space_ref_args(const space *s, int8_t *out) {
  for (int a = 0; a < s->ref_nargs; a++) out[a] = (int8_t)s->ref_args[a];
  return s->ref_nargs;
}

/* ---- init: launches run once per problem before the reference (space.h) ---- */

int space_ninit(const space *s) { return s->ninit; }
const char *space_init_kernel(const space *s, int k) { return k >= 0 && k < s->ninit ? s->init[k].kernel : NULL; }
int space_init_defines(const space *s, const char *const **names, const char *const **values) {
  if (!s->ninit) return 0;
  *names = (const char *const *)s->init[0].dname;
  *values = (const char *const *)s->init[0].dvalue;
  return s->init[0].ndefines;
}

int space_init_steps(const space *s, int prob, launch_step *out) {
  if (prob < 0 || prob >= s->nproblems || !s->probs[prob].init_geom) return 0;
  for (int k = 0; k < s->ninit; k++) {
    launch_step *o = &out[k];
    memset(o, 0, sizeof *o);
    o->nargs = s->init[k].nargs;
    for (int a = 0; a < o->nargs; a++) o->arg[a] = (int8_t)s->init[k].arg[a];
    o->geom = s->probs[prob].init_geom[k];
  }
  return s->ninit;
}
