/* space_parse: reads the table a space file returned into struct space.
 *
 * Strict, in the manner of Redis's named-table arguments: every table has an allow-list of
 * keys (an unknown key is an error naming it), required keys are checked, and each message
 * starts with the file:line of the user's code — the ct.space call for top-level keys, the
 * ct.param/ct.rule/ct.input call for those, a function's definition for what it returns. This
 * file: the top level, objectives, options, the reference and the check; the typed readers are
 * in space_read.c, params/constraints in space_parse_params.c, problems (and shape sets) in
 * space_problems.c, args in space_parse_args.c. */
#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "space_read.h"
#include "store/record.h"

/* options[i] = -IDIR or --include-path=DIR with DIR relative: found as a template is (the space's
 * folder, its parent, the working directory, the kernel search path: docs/SPACE.md, "Paths") and
 * replaced by the folder found, so that `-Iinclude` beside the space works from any working
 * directory; a folder found nowhere is an error (NVRTC would ignore it in silence). */
static int resolve_include(space *s, int i, where w, cterr *err) {
  const char *o = s->options[i];
  size_t pre = !strncmp(o, "--include-path=", 15) ? 15 : !strncmp(o, "-I", 2) ? 2 : 0;
  if (!pre || o[pre] == '/') return 0;
  char *found = NULL;
  dbuf looked;
  dbuf_init(&looked);
  int rc = space_resolve(s, o + pre, &found, &looked);
  if (rc == 0 && !dir_exists(found)) rc = -1;
  if (rc < 0) {
    sp_perr(err, w, "options[%d]: include folder '%s' not found (looked in %s)", i + 1, o + pre, looked.data);
    dbuf_free(&looked);
    free(found);
    return -1;
  }
  dbuf_free(&looked);
  char *opt = xasprintf("%.*s%s", (int)pre, o, found);
  free(found);
  free(s->options[i]);
  s->options[i] = opt;
  return 0;
}

static int parse_strings(space *s, lua_State *L, int t, const char *key, char ***out, int *n, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, key) == LUA_TNIL) return lua_pop(L, 1), 0;
  int len = sp_seq_len(L, -1);
  if (len < 0) return sp_perr(err, w, "%s must be a list of strings (got %s)", key, GOT(-1));
  for (int i = 1; i <= len; i++) {
    if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
      return sp_perr(err, w, "%s[%d] must be a string (got %s)", key, i, GOT(-1));
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
  int len = sp_seq_len(L, -1);
  if (len < 0)
    return sp_perr(err, w, "objectives must be a list of field names or {name, \"min\"|\"max\"} pairs (got %s)",
                   GOT(-1));
  for (int i = 1; i <= len; i++) {
    const char *name = NULL, *dir = "min";
    int ty = lua_rawgeti(L, -1, i);
    if (ty == LUA_TTABLE) {
      lua_rawgeti(L, -1, 1), lua_rawgeti(L, -2, 2);
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -3) != 2)
        return sp_perr(err, w, "objectives[%d] must be a pair {name, \"min\"|\"max\"} (got a table of another shape)",
                       i);
      name = lua_tostring(L, -2), dir = lua_tostring(L, -1);
    } else if (ty == LUA_TSTRING) {
      name = lua_tostring(L, -1);
    } else {
      return sp_perr(err, w, "objectives[%d] must be a field name or {name, \"min\"|\"max\"} (got %s)", i, GOT(-1));
    }
    if (!record_field_known(name))
      return sp_perr(err, w, "objectives[%d] must be \"time\", \"energy\" or a numeric record field (%s) (got \"%s\")",
                     i, record_field_names(), name);
    if (strcmp(dir, "min") && strcmp(dir, "max"))
      return sp_perr(err, w, "objectives[%d]: direction of '%s' must be \"min\" or \"max\" (got \"%s\")", i, name, dir);
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
  if (rc < 0)
    sp_perr(err, (where){s->file, s->line}, "%stemplate '%s' not found (looked in %s)", what, rel, looked.data);
  dbuf_free(&looked);
  cterr e;
  if (rc == 0 && input_check(*out, "template", INPUT_SOURCE_MAX, &e) < 0) {
    rc = sp_perr(err, (where){s->file, s->line}, "%s", e.msg);
    free(*out), *out = NULL;
  }
  return rc;
}

/* reference.defines = { NAME = value, ... }: -DNAME=value for the reference's program, sorted by
 * name; reference.params = { "NAME", ... }: the configuration's parameters the reference reads,
 * which makes it part of every configuration's program (see space.h). */
static int parse_ref_extras(space *s, lua_State *L, int r, where w, cterr *err) {
  char gbuf[96];
  if (lua_getfield(L, r, "defines") != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TTABLE)
      return sp_perr(err, w, "reference.defines must be a table {NAME = value} (got %s)", GOT(-1));
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      if (!sp_is_ident(k)) return sp_perr(err, w, "reference.defines: names must be identifiers (got %s)", GOT(-2));
      int ty = lua_type(L, -1), isint = 0;
      lua_Integer iv = ty == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
      if (!(isint || ty == LUA_TSTRING))
        return sp_perr(err, w, "reference.defines.%s must be an integer or a string (got %s)", k, GOT(-1));
      s->ref_defines = xrealloc(s->ref_defines, (size_t)(s->nref_defines + 1) * sizeof(char *));
      s->ref_defines[s->nref_defines++] =
          isint ? xasprintf("-D%s=%lld", k, (long long)iv) : xasprintf("-D%s=%s", k, lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    for (int i = 1; i < s->nref_defines; i++) /* sorted: the options (and cache key) do not follow hashing */
      for (int j = i; j > 0 && strcmp(s->ref_defines[j - 1], s->ref_defines[j]) > 0; j--) {
        char *x = s->ref_defines[j];
        s->ref_defines[j] = s->ref_defines[j - 1];
        s->ref_defines[j - 1] = x;
      }
  }
  lua_pop(L, 1);
  if (lua_getfield(L, r, "params") != LUA_TNIL) {
    int n = sp_seq_len(L, -1);
    if (n <= 0)
      return sp_perr(err, w, "reference.params must be a non-empty list of parameter names (got %s)", GOT(-1));
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      int p = lua_type(L, -1) == LUA_TSTRING ? configset_param_index(s->cs, lua_tostring(L, -1)) : -1;
      if (p < 0) return sp_perr(err, w, "reference.params[%d]: %s is not a parameter of the space", i, GOT(-1));
      if (s->runtime[p])
        return sp_perr(err, w,
                       "reference.params[%d]: '%s' is a runtime parameter (the reference sees "
                       "its kernel argument, not a -D)",
                       i, lua_tostring(L, -1));
      s->ref_params[s->nref_params++] = p;
      lua_pop(L, 1);
    }
    s->ref_per_config = 1;
  }
  lua_pop(L, 1);
  if (s->ref_per_config && s->nref_defines)
    return sp_perr(err, w,
                   "reference: give defines (a reference compiled once) or params (one run from each "
                   "configuration's program), not both");
  return 0;
}

static int parse_reference(space *s, lua_State *L, int t, cterr *err) {
  char gbuf[96];
  where w = {s->file, s->line};
  if (lua_getfield(L, t, "reference") == LUA_TNIL) return lua_pop(L, 1), 0;
  int r = lua_gettop(L);
  if (lua_type(L, r) != LUA_TTABLE)
    return sp_perr(err, w, "reference must be a table {kernel = ..., block = ..., grid = ...} (got %s)", GOT(r));
  static const char *const keys[] = {"kernel",  "template", "block", "grid", "shared",
                                     "defines", "params",   "args",  NULL};
  if (sp_check_keys(L, r, keys, "reference", w, err) < 0) return -1;
  if (lua_getfield(L, r, "args") != LUA_TNIL &&
      space_parse_arg_list(s, L, -1, s->ref_args, &s->ref_nargs, "reference.args", err) < 0)
    return -1;
  lua_pop(L, 1);
  if (sp_get_string(L, r, "kernel", &s->ref_kernel, 1, "reference", w, err) < 0) return -1;
  if (!sp_is_cxx_name(s->ref_kernel))
    return sp_perr(err, w, "reference.kernel '%s' is not a kernel's C++ name (\"k\", \"ns::k\", \"k<TILE>\")",
                   s->ref_kernel);
  if (parse_ref_extras(s, L, r, w, err) < 0) return -1;
  char *tpl = NULL;
  if (sp_get_string(L, r, "template", &tpl, 0, "reference", w, err) < 0) return -1;
  if (tpl && s->ref_per_config) {
    free(tpl);
    return sp_perr(err, w,
                   "reference.params: a reference run from each configuration's program is in the space's "
                   "template; leave reference.template out");
  }
  if (tpl) {
    int rc = resolve_template(s, tpl, &s->ref_template_path, "reference ", err);
    free(tpl);
    if (rc < 0) return -1;
  } else s->ref_template_path = xstrdup(s->template_path);
  if (sp_get_value(s, L, r, "block", &s->ref_geom.block, 1, 3, 0, "reference", w, err) < 0) return -1;
  if (sp_get_value(s, L, r, "grid", &s->ref_geom.grid, 1, 3, 0, "reference", w, err) < 0) return -1;
  if (sp_get_value(s, L, r, "shared", &s->ref_geom.shared, 0, 1, 0, "reference", w, err) < 0) return -1;
  lua_pop(L, 1);
  return 0;
}

int space_parse(space *s, cterr *err) {
  lua_State *L = s->L;
  char gbuf[96];
  int top = lua_gettop(L);
  const char *tag = sp_tag_of(L, top);
  s->file = space_intern_file(s, s->path), s->line = s->main_line;
  where w = {s->file, s->line};
  if (tag && !strcmp(tag, "space")) {   /* ct.space { ... }: we know the line of the call */
    w = (where){s->file, s->main_line}; /* `return ct.space {` is a tail call: no caller line */
    w = sp_tagged_where(s, L, top);
    s->file = w.file, s->line = w.line;
    lua_getfield(L, top, "spec");
    if (lua_type(L, -1) != LUA_TTABLE) return sp_perr(err, w, "ct.space expects a table (got %s)", GOT(-1));
  } else if (lua_type(L, top) != LUA_TTABLE)
    return sp_perr(err, w, "the space file must return ct.space { ... } (got %s)", GOT(top));
  else lua_pushvalue(L, top);
  int t = lua_gettop(L);
  static const char *const keys[] = {
      "name",    "template",     "kernel",       "params",        "constraints", "problems",   "problem",
      "args",    "symbols",      "block",        "grid",          "shared",      "reference",  "check",
      "bytes",   "flops",        "cublas_sgemm", "cublas_gemmex", "arch",        "objectives", "options",
      "timeout", "template_var", "launches",     "template_edit", "init",        NULL};
  if (sp_check_keys(L, t, keys, "space", w, err) < 0) return -1;
  if (sp_get_string(L, t, "name", &s->name, 0, "space", w, err) < 0) return -1;
  if (!s->name) {
    const char *b = path_basename(s->path);
    size_t n = strlen(b);
    s->name = n > 4 && !strcmp(b + n - 4, ".lua") ? xasprintf("%.*s", (int)(n - 4), b) : xstrdup(b);
  }
  int launches = lua_getfield(L, t, "launches") != LUA_TNIL;
  lua_pop(L, 1);
  static const char *const taken[] = {"kernel", "block", "grid", "shared", NULL};
  for (int k = 0; launches && taken[k]; k++) {
    int given = lua_getfield(L, t, taken[k]) != LUA_TNIL;
    lua_pop(L, 1);
    if (given)
      return sp_perr(err, w,
                     "give either launches or %s: with launches the first launch is the "
                     "configuration's kernel, with its geometry",
                     taken[k]);
  }
  if (!launches && sp_get_string(L, t, "kernel", &s->kernel, 1, "space", w, err) < 0) return -1;
  if (!launches && !sp_is_cxx_name(s->kernel))
    return sp_perr(err, w, "kernel '%s' is not a kernel's C++ name (\"k\", \"ns::k\", \"k<TILE, 4>\")", s->kernel);
  char *tpl = NULL;
  if (sp_get_string(L, t, "template", &tpl, 1, "space", w, err) < 0) return -1;
  int rc = resolve_template(s, tpl, &s->template_path, "", err);
  free(tpl);
  if (rc < 0) return -1;
  if (sp_get_string(L, t, "template_var", &s->template_var, 0, "space", w, err) < 0) return -1;
  if (s->template_var && !sp_is_ident(s->template_var))
    return sp_perr(err, w, "template_var '%s' is not a Python variable name", s->template_var);
  int ety = lua_getfield(L, t, "template_edit");
  if (ety == LUA_TFUNCTION) {
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">Su", &ar);
    s->edit_per_config = ar.nparams >= 2; /* function(text, p): a generator per configuration */
    s->edit_file = ar.source[0] == '@' ? space_intern_file(s, ar.source + 1) : w.file;
    s->edit_line = ar.linedefined > 0 ? ar.linedefined : w.line;
    s->edit_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
    if (ety != LUA_TNIL)
      return sp_perr(err, w,
                     "template_edit must be a function(text) or function(text, p) returning the program's text "
                     "(got %s)",
                     lua_typename(L, ety));
  }
  if (sp_parse_params(s, L, t, err) < 0 || sp_parse_constraints(s, L, t, err) < 0 ||
      sp_parse_problems(s, L, t, err) < 0 || sp_parse_args(s, L, t, err) < 0 || space_parse_symbols(s, L, t, err) < 0 ||
      space_parse_launches(s, L, t, err) < 0)
    return -1;
  if (!launches && (sp_get_value(s, L, t, "block", &s->geom.block, 1, 3, 0, "space", w, err) < 0 ||
                    sp_get_value(s, L, t, "grid", &s->geom.grid, 1, 3, 0, "space", w, err) < 0 ||
                    sp_get_value(s, L, t, "shared", &s->geom.shared, 0, 1, 0, "space", w, err) < 0))
    return -1;
  if (parse_reference(s, L, t, err) < 0) return -1;
  if (lua_getfield(L, t, "check") == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    s->unchecked = 1; /* check = false: timing only, said in every record, table and header */
    if (s->ref_kernel) return sp_perr(err, w, "check = false (timing only) and a reference: leave one out");
  } else if (!lua_isnil(L, -1)) {
    static const char *const ckeys[] = {"tolerance", "atol", "rtol", "kernel", "template", "mismatches", NULL};
    if (lua_type(L, -1) != LUA_TTABLE)
      return sp_perr(err, w,
                     "check must be a table {tolerance = ...} or {atol = ..., rtol = ...}, or false for timing "
                     "only (got %s)",
                     GOT(-1));
    if (sp_check_keys(L, -1, ckeys, "check", w, err) < 0) return -1;
    if (sp_get_string(L, lua_gettop(L), "kernel", &s->check_kernel, 0, "check", w, err) < 0) return -1;
    if (s->check_kernel && !sp_is_cxx_name(s->check_kernel))
      return sp_perr(err, w, "check.kernel '%s' is not a kernel's C++ name", s->check_kernel);
    char *ctpl = NULL;
    if (sp_get_string(L, lua_gettop(L), "template", &ctpl, 0, "check", w, err) < 0) return -1;
    if (ctpl && !s->check_kernel) {
      free(ctpl);
      return sp_perr(err, w, "check.template without check.kernel");
    }
    if (ctpl) {
      int rc2 = resolve_template(s, ctpl, &s->check_template_path, "check ", err);
      free(ctpl);
      if (rc2 < 0) return -1;
    } else if (s->check_kernel) s->check_template_path = xstrdup(s->template_path);
    double *dst[3] = {&s->tolerance, &s->atol, &s->rtol};
    for (int k = 0; k < 3; k++) {
      int ty = lua_getfield(L, -1, ckeys[k]);
      if (ty != LUA_TNIL && (ty != LUA_TNUMBER || !(lua_tonumber(L, -1) >= 0)))
        return sp_perr(err, w, "check.%s must be a number >= 0 (got %s)", ckeys[k], GOT(-1));
      if (ty != LUA_TNIL) *dst[k] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    if (sp_get_count(L, lua_gettop(L), "mismatches", &s->mismatches, "check", w, err) < 0) return -1;
  }
  lua_pop(L, 1);
  if (sp_get_value(s, L, t, "bytes", &s->bytes, 0, 1, 1, "space", w, err) < 0 ||
      sp_get_value(s, L, t, "flops", &s->flops, 0, 1, 1, "space", w, err) < 0 ||
      sp_get_value(s, L, t, "cublas_sgemm", &s->sgemm, 0, 3, 1, "space", w, err) < 0 ||
      sp_get_value(s, L, t, "cublas_gemmex", &s->gemmex, 0, 1, 0, "space", w, err) < 0 ||
      space_arch_parse(s, L, t, w.file, w.line, err) < 0)
    return -1;
  if (s->sgemm.kind != SV_NONE && s->gemmex.kind != SV_NONE)
    return sp_perr(err, w, "cublas_sgemm and cublas_gemmex are two baselines: give one");
  rc = parse_objectives(s, L, t, err);
  if (rc < 0 || parse_strings(s, L, t, "options", &s->options, &s->noptions, err) < 0) return -1;
  for (int i = 0; i < s->noptions; i++) {
    cterr e;
    if (space_option_check(s->options[i], &e) < 0) return sp_perr(err, w, "options[%d]: %s", i + 1, e.msg);
    if (resolve_include(s, i, w, err) < 0) return -1;
  }
  int ty = lua_getfield(L, t, "timeout");
  if (ty != LUA_TNIL && (ty != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0)))
    return sp_perr(err, w, "timeout must be a number of seconds > 0 (got %s)", GOT(-1));
  if (ty != LUA_TNIL) s->timeout = lua_tonumber(L, -1);
  lua_settop(L, top);
  return 0;
}
