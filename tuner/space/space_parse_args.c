/* space_parse_args: reads `args` of a space file (ct.input, ct.output, ct.inout, ct.scalar,
 * bare sizes; ct.tensormap in space_tmaps.c) into struct space, with file:line messages (space_read.h). */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

/* An output's check options: atol, rtol (numbers >= 0), reduce ("sum", "max", "min"), mismatches
 * (an integer >= 0: elements allowed to differ), check = false. */
static int check_opts(lua_State *L, int o, sp_arg *a, const char *owhat, where w, cterr *err) {
  char gbuf[96];
  const char *names[2] = {"atol", "rtol"};
  double *dst[2] = {&a->atol, &a->rtol};
  const char *given = NULL; /* the first check option the table holds, for messages */
  for (int k = 0; k < 2; k++) {
    int ty = lua_getfield(L, o, names[k]);
    if (ty == LUA_TTABLE) { /* per element type, for a buffer typed by the configuration */
      if (space_types_bounds(L, lua_gettop(L), a, k, owhat, w, err) < 0) return -1;
      given = given ? given : names[k];
      lua_pop(L, 1);
      continue;
    }
    if (ty != LUA_TNIL && (ty != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0)))
      return sp_perr(err, w, "%s: %s must be a number >= 0, or a table of them by element type (got %s)", owhat,
                     names[k], GOT(-1));
    if (ty != LUA_TNIL) *dst[k] = lua_tonumber(L, -1), given = given ? given : names[k];
    lua_pop(L, 1);
  }
  char *red = NULL;
  if (sp_get_string(L, o, "reduce", &red, 0, owhat, w, err) < 0) return -1;
  if (red) {
    a->reduce = -1;
    for (int r = RED_SUM; r <= RED_MIN; r++)
      if (!strcmp(red, argreduce_name(r))) a->reduce = r;
    if (a->reduce < 0) sp_perr(err, w, "%s: reduce must be \"sum\", \"max\" or \"min\" (got \"%s\")", owhat, red);
    free(red);
    if (a->reduce < 0) return -1;
    given = given ? given : "reduce";
  }
  if (sp_get_count(L, o, "mismatches", &a->mismatches, owhat, w, err) < 0) return -1;
  if (a->mismatches >= 0) given = given ? given : "mismatches";
  int ty = lua_getfield(L, o, "check");
  if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
    return sp_perr(err, w, "%s: check must be false or left out (got %s)", owhat, GOT(-1));
  a->nocheck = ty == LUA_TBOOLEAN && !lua_toboolean(L, -1);
  lua_pop(L, 1);
  if ((given || a->nocheck) && a->kind == ARG_INPUT)
    return sp_perr(err, w, "%s: %s is an output's check option (an input is never compared)", owhat,
                   given ? given : "check");
  if (a->nocheck && given)
    return sp_perr(err, w, "%s: check = false with %s (an output left uncompared takes no check options)", owhat,
                   given);
  if (a->reduce && a->mismatches >= 0)
    return sp_perr(err, w,
                   "%s: mismatches = %lld with reduce = \"%s\" (mismatches counts the elements an element-wise check "
                   "lets differ; a reduce check compares one value)",
                   owhat, (long long)a->mismatches, argreduce_name(a->reduce));
  return 0;
}

/* An input's or inout's data (values, file: space_data.c) in place of the seeded fill: with
 * neither fill, lo nor hi, which would describe the fill it replaces. */
static int data_opts(space *s, lua_State *L, int o, sp_arg *a, const char *what, const char *owhat, where w,
                     cterr *err) {
  int given = 0;
  if (sp_data_opts(s, L, o, &a->values, &a->path, &given, what, owhat, w, err) < 0) return -1;
  if (!given) return 0;
  const char *src = a->path ? "file" : "values";
  if (given > 1) return sp_perr(err, w, "%s: give one of values and file", owhat);
  if (a->kind == ARG_OUTPUT)
    return sp_perr(err, w, "%s: %s is an input's or inout's data (an output is poisoned before each check, not filled)",
                   owhat, src);
  static const char *const fill_keys[] = {"fill", "lo", "hi"};
  for (int k = 0; k < 3; k++) {
    int ty = lua_getfield(L, o, fill_keys[k]);
    lua_pop(L, 1);
    if (ty != LUA_TNIL)
      return sp_perr(err, w, "%s: %s with %s (the data comes from %s; %s is the seeded fill's)", owhat, fill_keys[k],
                     src, src, fill_keys[k]);
  }
  a->data = 1, a->fill = FILL_DATA;
  return 0;
}

static int parse_arg(space *s, lua_State *L, int idx, int i, cterr *err) {
  char gbuf[96], what[48];
  sp_arg *a = &s->args[s->nargs];
  memset(a, 0, sizeof *a);
  a->mismatches = -1; /* the space's check.mismatches */
  where w = {s->file, s->line};
  const char *tag = sp_tag_of(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) { /* "N": an int scalar */
    a->kind = ARG_SCALAR, a->type = EL_I32;
    snprintf(a->name, sizeof a->name, "arg%d", i);
    snprintf(what, sizeof what, "args[%d]", i);
    if (sp_read_value(s, L, idx, &a->size, 1, 1, what, w, err) < 0) return -1;
    s->nargs++;
    return 0;
  }
  if (!tag || strcmp(tag, "arg"))
    return sp_perr(err, w, "args[%d] must be ct.input/ct.output/ct.inout/ct.scalar(type, size) (got %s)", i, GOT(idx));
  w = sp_tagged_where(s, L, idx);
  lua_getfield(L, idx, "kind");
  const char *kind = lua_tostring(L, -1);
  if (!kind) kind = "scalar";
  if (!strcmp(kind, "tensormap")) return lua_pop(L, 1), space_parse_tmap(s, L, idx, i, err);
  a->kind = !strcmp(kind, "input")    ? ARG_INPUT
            : !strcmp(kind, "output") ? ARG_OUTPUT
            : !strcmp(kind, "inout")  ? ARG_INOUT
                                      : ARG_SCALAR;
  snprintf(what, sizeof what, "args[%d] (ct.%s)", i, kind);
  lua_pop(L, 1);
  int is_buf = a->kind != ARG_SCALAR;
  lua_getfield(L, idx, "type");
  if (lua_type(L, -1) == LUA_TFUNCTION && is_buf) { /* the configuration's: space_types.c */
    a->type_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    a->type = EL_F32; /* until space_types_eval: its fill's range is a floating type's */
  } else if (lua_type(L, -1) != LUA_TSTRING || elemtype_parse(lua_tostring(L, -1), &a->type) < 0)
    return sp_perr(err, w,
                   "%s: unknown element type %s (expected float, double, int, int64, uint, uint8, half or bfloat16%s)",
                   what, GOT(-1), is_buf ? ", or a function(p) giving one per configuration" : "");
  else lua_pop(L, 1);
  int isf = elemtype_is_float(a->type);
  a->lo = isf ? -1 : 0, a->hi = isf ? 1 : 1000, a->fill = FILL_RANDOM;
  if (a->type_ref) a->lo = a->hi = 0; /* unset: each type's default range (the worker's fill) */
  static const char *const names[] = {"out", "in", "inout", "arg"};
  snprintf(a->name, sizeof a->name, "%s%d",
           names[a->kind == ARG_OUTPUT  ? 0
                 : a->kind == ARG_INPUT ? 1
                 : a->kind == ARG_INOUT ? 2
                                        : 3],
           i);
  a->file = w.file, a->line = w.line;
  /* a buffer whose data gives its count: ct.input(type, {values = ...}) puts the options where the
   * count goes, ct.input(type, nil, {...}) leaves the count out */
  int sty = lua_getfield(L, idx, "size"), oty = lua_getfield(L, idx, "opts");
  if (is_buf && sty == LUA_TTABLE && oty == LUA_TNIL)
    lua_pop(L, 1), lua_pushvalue(L, -1), sty = LUA_TNIL, oty = LUA_TTABLE;
  int o = lua_gettop(L), sz = o - 1;
  int data = 0;
  if (is_buf && oty != LUA_TNIL && lua_type(L, o) == LUA_TTABLE) {
    lua_getfield(L, o, "values"), lua_getfield(L, o, "file");
    data = !lua_isnil(L, -1) || !lua_isnil(L, -2);
    lua_pop(L, 2);
  }
  if (sty == LUA_TNIL && !data)
    return sp_perr(err, w, "%s: missing %s", what,
                   is_buf ? "the element count (a number, \"N*M\" or function(n)), or values or a file that give it"
                          : "the value (a number, \"N\" or function(n))");
  char vwhat[80];
  snprintf(vwhat, sizeof vwhat, "%s %s", what, is_buf ? "element count" : "value");
  if (sty != LUA_TNIL && sp_read_value(s, L, sz, &a->size, 1, 1, vwhat, w, err) < 0) return -1;
  s->nargs++;
  if (lua_isnil(L, o)) return lua_settop(L, idx), 0;
  if (lua_type(L, o) != LUA_TTABLE) return sp_perr(err, w, "%s: options must be a table (got %s)", what, GOT(o));
  static const char *const buf_keys[] = {"fill",   "lo",         "hi",    "name",   "atol", "rtol",
                                         "reduce", "mismatches", "check", "values", "file", NULL};
  static const char *const scalar_keys[] = {"name", NULL};
  char owhat[64];
  snprintf(owhat, sizeof owhat, "ct.%s options",
           is_buf ? (a->kind == ARG_INPUT    ? "input"
                     : a->kind == ARG_OUTPUT ? "output"
                                             : "inout")
                  : "scalar");
  if (sp_check_keys(L, o, is_buf ? buf_keys : scalar_keys, owhat, w, err) < 0) return -1;
  char *str = NULL;
  if (sp_get_string(L, o, "name", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    if (strlen(str) >= ARG_NAME_MAX) {
      free(str);
      return sp_perr(err, w, "%s: name is longer than %d characters", owhat, ARG_NAME_MAX - 1);
    }
    snprintf(a->name, sizeof a->name, "%s", str);
    free(str), str = NULL;
  }
  if (!is_buf) return lua_settop(L, idx), 0;
  if (sp_get_string(L, o, "fill", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    if (!strcmp(str, "random")) a->fill = FILL_RANDOM;
    else if (!strcmp(str, "zero")) a->fill = FILL_ZERO;
    else if (!strcmp(str, "iota")) a->fill = FILL_IOTA;
    else {
      sp_perr(err, w, "%s: fill must be \"random\", \"zero\" or \"iota\" (got \"%s\")", owhat, str);
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
    else if (ty != LUA_TNIL) return sp_perr(err, w, "%s: %s must be a number (got %s)", owhat, lh[k], GOT(-1));
    lua_pop(L, 1);
  }
  if (!(a->lo <= a->hi)) return sp_perr(err, w, "%s: lo (%g) must not exceed hi (%g)", owhat, a->lo, a->hi);
  if (check_opts(L, o, a, owhat, w, err) < 0) return -1;
  if (data_opts(s, L, o, a, what, owhat, w, err) < 0) return -1;
  if (a->type_ref && a->data)
    return sp_perr(err, w,
                   "%s: a buffer typed by the configuration takes the seeded fill (its draws rounded to each type), "
                   "not values or a file",
                   owhat);
  if (a->tbounds && !a->type_ref)
    return sp_perr(err, w, "%s: atol or rtol by element type, but the buffer's type is fixed (%s): give a number",
                   owhat, elemtype_name(a->type));
  lua_settop(L, idx);
  return 0;
}

int sp_parse_args(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "args") == LUA_TNIL) return sp_perr(err, w, "space is missing required key 'args'");
  int a = lua_gettop(L);
  int n = sp_seq_len(L, a);
  if (n <= 0)
    return sp_perr(err, w, "args must be a non-empty list of ct.input/ct.output/ct.inout/ct.scalar (got %s)", GOT(a));
  if (n > MAX_ARGS) return sp_perr(err, w, "args has %d entries (at most %d)", n, MAX_ARGS);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, a, i);
    if (parse_arg(s, L, lua_gettop(L), i, err) < 0) return -1;
    lua_settop(L, a);
  }
  lua_pop(L, 1);
  return 0;
}
