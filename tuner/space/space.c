/* space: see space.h. This file owns the Lua state and the sandbox a space file runs in:
 * loading, `require`, protected calls, and the plain-C accessors. Parsing the returned table
 * is in space_parse.c; enumeration and evaluation in space_eval.c.
 *
 * The sandbox is a fresh globals table per space (the real globals stay with the embedded
 * prelude, which needs `debug` to record the caller's line): base functions without
 * dofile/loadfile/collectgarbage, `load` of text only, copies of string (no dump), table,
 * math, utf8; `os` with clock/time/date/getenv only; `io` absent. Touching a removed name
 * raises an error that says it is not available, at the line that touched it. */
#include <ctype.h>
#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "space_int.h"

extern const unsigned char cutune_prelude[];
extern const size_t cutune_prelude_len;

#define REG_SANDBOX "cutune.sandbox"
#define REG_LOADED "cutune.loaded"

/* Error handler of every protected call: the message as is (it already starts with
 * file:line:), no traceback — a space author wants the line, not the C stack. */
static int msghandler(lua_State *L) {
  if (lua_type(L, 1) == LUA_TSTRING) return 1;
  if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
  lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  return 1;
}

int space_pcall(space *s, int nargs, int nres, cterr *err) {
  /* the message handler sits at stack index 1 for the life of the state; inside a C function
   * the loader runs under a pcall (space_parse: a shape set's generator) index 1 is that
   * function's own first argument, and errors keep Lua's own message instead */
  int h = lua_tocfunction(s->L, 1) == msghandler ? 1 : 0;
  int rc = lua_pcall(s->L, nargs, nres, h);
  if (rc != LUA_OK) {
    const char *m = lua_tostring(s->L, -1);
    if (rc == LUA_ERRMEM && space_limits_oom(s)) m = space_limits_oom(s); /* no handler runs for these */
    cterr_set_code(err, CTERR_SPACE, "%s", m ? m : "(unknown Lua error)");
    lua_pop(s->L, 1);
    return -1;
  }
  return 0;
}

const char *space_intern_file(space *s, const char *file) {
  for (int i = 0; i < s->nfiles; i++)
    if (!strcmp(s->files[i], file)) return s->files[i];
  s->files = xrealloc(s->files, (size_t)(s->nfiles + 1) * sizeof(char *));
  return s->files[s->nfiles++] = xstrdup(file);
}

/* Candidate locations of a path named in a space: the space file's directory, its parent,
 * the working directory, then each folder of $CUTUNE_KERNEL_PATH (colon-separated; `cutune run
 * --kernel-path DIR` puts DIR first): where kernels kept outside the project are found. */
#define KPATH_MAX 16
void space_kernel_path_add(const char *dir) {
  const char *old = getenv("CUTUNE_KERNEL_PATH");
  char *v = old && *old ? xasprintf("%s:%s", dir, old) : xstrdup(dir);
  setenv("CUTUNE_KERNEL_PATH", v, 1);
  free(v);
}
int space_resolve(space *s, const char *rel, char **out, dbuf *looked) {
  char *cand[3 + KPATH_MAX] = {0};
  int n = 0;
  if (rel[0] == '/') cand[n++] = xstrdup(rel);
  else {
    cand[n++] = strcmp(s->dir, ".") ? path_join(s->dir, rel) : xstrdup(rel);
    char *parent;
    if (!strcmp(s->dir, ".")) parent = xstrdup("..");
    else if (!strcmp(path_basename(s->dir), "..")) parent = path_join(s->dir, "..");
    else parent = path_dirname(s->dir);
    cand[n++] = strcmp(parent, ".") ? path_join(parent, rel) : xstrdup(rel);
    free(parent);
    cand[n++] = xstrdup(rel);
    const char *kp = getenv("CUTUNE_KERNEL_PATH");
    while (kp && *kp && n < 3 + KPATH_MAX) {
      size_t len = strcspn(kp, ":");
      if (len) {
        char *dir = xasprintf("%.*s", (int)len, kp);
        cand[n++] = path_join(dir, rel);
        free(dir);
      }
      kp += len + (kp[len] == ':');
    }
  }
  int found = -1;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < i; j++) dup |= !strcmp(cand[i], cand[j]);
    if (dup) continue;
    if (looked) dbuf_printf(looked, "%s%s", looked->len ? ", " : "", cand[i]);
    if (found < 0 && file_exists(cand[i])) found = i;
  }
  for (int i = 0; i < n; i++)
    if (i != found) free(cand[i]);
  *out = found >= 0 ? cand[found] : NULL;
  return found >= 0 ? 0 : -1;
}

/* ---- sandbox functions ---- */

static int sb_print(lua_State *L) {
  /* stdout belongs to cutune's own output (tables, progress); a space's prints go to stderr */
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *p = luaL_tolstring(L, i, &len);
    if (i > 1) fputc('\t', stderr);
    fwrite(p, 1, len, stderr);
    lua_pop(L, 1);
  }
  fputc('\n', stderr);
  return 0;
}

static void push_sandbox(lua_State *L) { lua_getfield(L, LUA_REGISTRYINDEX, REG_SANDBOX); }

/* load(text [, chunkname [, mode [, env]]]): text chunks only; env defaults to the sandbox */
static int sb_load(lua_State *L) {
  size_t len;
  const char *text = lua_tolstring(L, 1, &len);
  if (!text) return luaL_error(L, "load: only strings are accepted in a space file (got %s)", luaL_typename(L, 1));
  const char *name = luaL_optstring(L, 2, "=(load)");
  const char *mode = luaL_optstring(L, 3, "t");
  if (strchr(mode, 'b')) return luaL_error(L, "load: binary chunks are not allowed in a space file");
  if (luaL_loadbufferx(L, text, len, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (!lua_isnone(L, 4)) lua_pushvalue(L, 4);
  else push_sandbox(L);
  lua_setupvalue(L, -2, 1);
  return 1;
}

static int valid_module_name(const char *m) {
  if (!*m || *m == '.') return 0;
  for (const char *p = m; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') return 0;
  return !strstr(m, "..");
}

/* require: "cutune" is the embedded prelude; any other name is a .lua file next to the space
 * or in lua/ (dots become '/'), run in the same sandbox. Nothing else is reachable. */
static int sb_require(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, REG_LOADED);
  int loaded = lua_gettop(L);
  if (lua_getfield(L, loaded, name) != LUA_TNIL) return 1;
  lua_pop(L, 1);
  if (!strcmp(name, "cutune")) {
    if (luaL_loadbufferx(L, (const char *)cutune_prelude, cutune_prelude_len, "=cutune", "t") != LUA_OK)
      return lua_error(L);
    lua_call(L, 0, 1);                   /* the prelude keeps the real globals: it needs debug.getinfo */
    if (lua_type(L, -1) == LUA_TTABLE) { /* ct.product and ct.zip count against the loader's cap */
      lua_pushinteger(L, (lua_Integer)space_max_problems());
      lua_setfield(L, -2, "max_problems");
    }
  } else {
    space *s = lua_touserdata(L, lua_upvalueindex(1));
    if (!valid_module_name(name))
      return luaL_error(L,
                        "require '%s': not allowed (a space may require \"cutune\" or a .lua module "
                        "named by letters, digits, '_' and '.')",
                        name);
    char *rel = xasprintf("%s.lua", name), *rel2 = NULL, *path = NULL;
    for (char *p = rel; *p && strcmp(p, ".lua"); p++)
      if (*p == '.') *p = '/';
    rel2 = path_join("lua", rel);
    dbuf looked, src;
    dbuf_init(&looked), dbuf_init(&src);
    if (space_resolve(s, rel, &path, &looked) < 0) space_resolve(s, rel2, &path, &looked);
    if (!path) {
      lua_pushfstring(L,
                      "require '%s': not allowed or not found (looked in %s; a space may require only "
                      "\"cutune\" and .lua files next to it or in lua/)",
                      name, looked.data);
      free(rel), free(rel2), dbuf_free(&looked);
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
      return lua_error(L);
    }
    free(rel), free(rel2), dbuf_free(&looked);
    cterr e;
    if (input_read(path, "Lua module", INPUT_SOURCE_MAX, 0, &src, &e) < 0) {
      lua_pushfstring(L, "require '%s': %s", name, e.msg);
      free(path);
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
      return lua_error(L);
    }
    char *chunk = xasprintf("@%s", path);
    int rc = luaL_loadbufferx(L, src.data, src.len, chunk, "t");
    free(chunk), free(path), dbuf_free(&src);
    if (rc != LUA_OK) return lua_error(L); /* a syntax error in the module: its own file:line */
    push_sandbox(L);
    lua_setupvalue(L, -2, 1);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
  }
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, loaded, name);
  return 1;
}

/* __index of the sandbox's os and io tables, and of the sandbox itself: a removed function is
 * an error at the line that reached for it, not a puzzling "attempt to call a nil value". */
static int sb_denied_field(lua_State *L) {
  const char *lib = lua_tostring(L, lua_upvalueindex(1));
  const char *why = lua_tostring(L, lua_upvalueindex(2));
  const char *k = lua_tostring(L, 2);
  return luaL_error(L, "%s.%s is not available in a space file (%s)", lib, k ? k : "?", why);
}

/* setmetatable without finalizers: Lua runs __gc with hooks off (lgc.c GCTM), so a finalizer
 * that never ends would escape the instruction and time limits (space_limits.c). An object
 * is marked for finalization only if its metatable has __gc when it is set, so refusing such
 * metatables here is enough. */
static int sb_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L,
                        "setmetatable: __gc (finalizers) is not available in a space file (finalizers run "
                        "outside the limits on a space's Lua code)");
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

static const char *const denied_globals[] = {"dofile", "loadfile", "collectgarbage", "debug", "package", NULL};

static int sb_denied_global(lua_State *L) {
  const char *k = lua_tostring(L, 2);
  for (int i = 0; k && denied_globals[i]; i++)
    if (!strcmp(k, denied_globals[i]))
      return luaL_error(L, "'%s' is not available in a space file (the sandbox has no file, package or debug access)",
                        k);
  return 0; /* any other unknown global reads as nil, as in plain Lua */
}

static void deny_table(lua_State *L, const char *lib, const char *why) {
  lua_createtable(L, 0, 2);
  lua_pushstring(L, lib);
  lua_pushstring(L, why);
  lua_pushcclosure(L, sb_denied_field, 2);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
}

static void copy_fields(lua_State *L, int from, const char *const *names) {
  for (int i = 0; names[i]; i++) {
    lua_getfield(L, from, names[i]);
    lua_setfield(L, -2, names[i]);
  }
}

static void copy_lib(lua_State *L, const char *lib, const char *skip) {
  lua_getglobal(L, lib);
  int from = lua_gettop(L);
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, from)) {
    if (lua_type(L, -2) == LUA_TSTRING && skip && !strcmp(lua_tostring(L, -2), skip)) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, -4);
  }
  lua_remove(L, from);
}

static void build_sandbox(space *s) {
  lua_State *L = s->L;
  static const char *const base[] = {"assert",   "error",    "ipairs", "next",   "pairs",    "pcall",
                                     "rawequal", "rawget",   "rawlen", "rawset", "select",   "getmetatable",
                                     "tonumber", "tostring", "type",   "xpcall", "_VERSION", NULL};
  static const char *const os_keep[] = {"clock", "time", "date", "getenv", NULL};
  lua_pushglobaltable(L);
  int g = lua_gettop(L);
  lua_newtable(L);
  copy_fields(L, g, base);
  lua_pushcfunction(L, sb_print), lua_setfield(L, -2, "print");
  lua_getfield(L, g, "setmetatable"), lua_pushcclosure(L, sb_setmetatable, 1), lua_setfield(L, -2, "setmetatable");
  lua_pushcfunction(L, sb_load), lua_setfield(L, -2, "load");
  lua_pushlightuserdata(L, s), lua_pushcclosure(L, sb_require, 1), lua_setfield(L, -2, "require");
  copy_lib(L, "string", "dump");
  space_limits_wrap_patterns(L, -1);
  /* ("").dump and ("x"):find reach the string table through the strings' metatable: point it
   * at the sandbox's copy (no dump, bounded patterns), for the prelude as well */
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 2);
  lua_setfield(L, -2, "string");
  copy_lib(L, "table", NULL), lua_setfield(L, -2, "table");
  copy_lib(L, "math", NULL), lua_setfield(L, -2, "math");
  copy_lib(L, "utf8", NULL), lua_setfield(L, -2, "utf8");
  lua_getglobal(L, "os");
  lua_newtable(L);
  copy_fields(L, lua_gettop(L) - 1, os_keep);
  deny_table(L, "os", "the sandbox's os has only clock, time, date and getenv");
  lua_setfield(L, -3, "os");
  lua_pop(L, 1);
  lua_newtable(L);
  deny_table(L, "io", "the sandbox has no io library: space files cannot read or write files");
  lua_setfield(L, -2, "io");
  lua_pushvalue(L, -1), lua_setfield(L, -2, "_G");
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, sb_denied_global), lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_SANDBOX);
  lua_pop(L, 1);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_LOADED);
}

/* ---- load / free ---- */

/* Line hook while the main chunk runs: `return ct.space { ... }` is a tail call, which
 * leaves ct.space no caller frame to read its line from; the last line the main chunk
 * executed is that call's line (the call instruction carries the line of `ct.space`). */
void space_line_hook(space *s, lua_State *L, lua_Debug *ar) {
  int line = ar->currentline;
  if (!lua_getinfo(L, "S", ar) || strcmp(ar->what, "main")) return;
  if (s && s->chunkname && !strcmp(ar->source, s->chunkname)) s->main_line = line;
}

/* A panic is an error outside every protected call: none should remain, but say what it was
 * before abort() rather than die silently. */
static int at_panic(lua_State *L) {
  const char *m = lua_tostring(L, -1);
  fprintf(stderr, "cutune: unprotected Lua error: %s\n", m ? m : "?");
  return 0;
}

/* space_parse in a protected call: reading the returned table runs the user's metamethods
 * (__index, __pairs...), which may raise errors. Stack: the space, err, the table. */
static int parse_protected(lua_State *L) {
  space *s = lua_touserdata(L, 1);
  cterr *err = lua_touserdata(L, 2);
  lua_pushinteger(L, space_parse(s, err));
  return 1;
}

int space_load(const char *path, space **out, cterr *err) {
  *out = NULL;
  space *s = xcalloc(1, sizeof *s);
  dbuf src;
  dbuf_init(&src);
  s->path = xstrdup(path);
  s->dir = path_dirname(path);
  s->tolerance = 0, s->timeout = 10;
  s->cs = configset_new();
  space_limits_init(s);
  {
    double cap = 4194304; /* CUTUNE_MAX_CONFIGS: valid configurations at most */
    const char *e = getenv("CUTUNE_MAX_CONFIGS");
    char *end;
    if (e && *e && strtod(e, &end) >= 1 && !*end) cap = strtod(e, NULL);
    configset_set_max(s->cs, (size_t)cap);
  }
  s->L = lua_newstate(space_limits_alloc, s);
  if (!s->L) {
    cterr_set(err, "%s: cannot create a Lua state (out of memory)", path);
    goto fail;
  }
  lua_State *L = s->L;
  *(space **)lua_getextraspace(L) = s;
  lua_atpanic(L, at_panic);
  space_limits_enter(s); /* the whole load is one entry: main chunk, parse, enumeration */
  luaL_openlibs(L);
  lua_pushcfunction(L, msghandler); /* stays at index 1: see space_pcall */
  build_sandbox(s);
  if (input_read(path, "space file", INPUT_SOURCE_MAX, 0, &src, err) < 0) goto fail;
  s->chunkname = xasprintf("@%s", path);
  if (luaL_loadbufferx(L, src.data, src.len, s->chunkname, "t") != LUA_OK) { /* Lua's own "file:line: ..." */
    cterr_set(err, "%s", lua_tostring(L, -1));
    goto fail;
  }
  push_sandbox(L);
  lua_setupvalue(L, -2, 1);
  space_limits_hook(s, 1);
  int rc = space_pcall(s, 0, 1, err);
  space_limits_hook(s, 0);
  if (rc < 0) goto fail;
  if (lua_isnil(L, -1)) {
    cterr_set(err, "%s: the space file returned nothing (expected: return ct.space { ... })", path);
    goto fail;
  }
  lua_pushcfunction(L, parse_protected);
  lua_pushlightuserdata(L, s);
  lua_pushlightuserdata(L, err);
  lua_pushvalue(L, -4);
  if (space_pcall(s, 3, 1, err) < 0) {
    char m[CTERR_MAX - 200];
    memcpy(m, err->msg, sizeof m - 1);
    m[sizeof m - 1] = 0;
    int placed = !strncmp(m, path, strlen(path)) && m[strlen(path)] == ':';
    cterr_set(err, "%s%s%s (raised while cutune read the table the space file returned)", placed ? "" : path,
              placed ? "" : ": ", m);
    goto fail;
  }
  if (lua_tointeger(L, -1) < 0) goto fail;
  lua_settop(L, 1);
  if (space_eval_problems(s, err) < 0 || space_eval_arg_data(s, err) < 0 || space_eval_runtime_check(s, err) < 0 ||
      space_eval_symbols(s, err) < 0)
    goto fail;
  double t0 = now_seconds();
  if (space_eval_enumerate(s, err) < 0 || space_eval_buffer_max(s, err) < 0 || space_arch_eval(s, err) < 0 ||
      space_tmaps_check(s, err) < 0 || space_types_eval(s, err) < 0)
    goto fail;
  s->enum_seconds = now_seconds() - t0;
  lua_settop(L, 1);
  dbuf_free(&src);
  *out = s;
  return 0;
fail:
  dbuf_free(&src);
  space_free(s);
  return -1;
}

void space_value_free(lua_State *L, sp_value *v) {
  if (L && (v->kind == SV_FUNC || v->kind == SV_EXPR)) luaL_unref(L, LUA_REGISTRYINDEX, v->ref);
  free(v->text);
  memset(v, 0, sizeof *v);
}

void space_free(space *s) {
  if (!s) return;
  if (s->L) space_limits_enter(s); /* finalizers (__gc) run in lua_close: a last, bounded entry */
  if (s->L) lua_close(s->L);       /* releases every registry reference at once */
  for (int i = 0; i < s->nrules; i++) free(s->rules[i].desc);
  free(s->rules);
  space_symbols_free(s); /* before the problems that hold the data */
  space_arg_data_free(s);
  space_launches_free(s);
  space_types_free(s);
  space_tmaps_free(s);
  for (int i = 0; i < s->nproblems; i++) {
    sp_problem *p = &s->probs[i];
    for (int j = 0; j < p->nvars; j++) free(p->names[j]);
    free(p->names), free(p->vals), free(p->key), free(p->args), free(p->init_geom);
  }
  free(s->probs), free(s->pslot);
  for (int i = 0; i < s->nargs; i++) free(s->args[i].size.text);
  sp_value *vals[] = {&s->geom.block,      &s->geom.grid, &s->geom.shared, &s->ref_geom.block, &s->ref_geom.grid,
                      &s->ref_geom.shared, &s->bytes,     &s->flops,       &s->sgemm,          &s->gemmex};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) free(vals[i]->text);
  for (int p = 0; p < CS_MAX_PARAMS; p++) free(s->pval[p]);
  for (int i = 0; i < s->nobjectives; i++) free(s->objectives[i]);
  for (int i = 0; i < s->noptions; i++) free(s->options[i]);
  for (int i = 0; i < s->nfiles; i++) free(s->files[i]);
  free(s->objectives), free(s->objmax), free(s->options), free(s->files);
  free(s->path), free(s->dir), free(s->chunkname), free(s->name), free(s->template_path), free(s->kernel);
  free(s->ref_kernel), free(s->ref_template_path), free(s->template_var);
  free(s->check_kernel), free(s->check_template_path);
  for (int i = 0; i < s->nref_defines; i++) free(s->ref_defines[i]);
  free(s->ref_defines);
  space_arch_free(s);
  configset_free(s->cs);
  free(s);
}

/* ---- accessors ---- */

const char *space_path(const space *s) { return s->path; }
const char *space_name(const space *s) { return s->name; }
const char *space_template_path(const space *s) { return s->template_path; }
const char *space_template_var(const space *s) { return s->template_var; }

const char *space_kernel(const space *s) { return s->kernel; }
const configset *space_configs(const space *s) { return s->cs; }
double space_enumerate_seconds(const space *s) { return s->enum_seconds; }
int space_noptions(const space *s) { return s->noptions; }
const char *space_option(const space *s, int i) { return i >= 0 && i < s->noptions ? s->options[i] : NULL; }
int space_nproblems(const space *s) { return s->nproblems; }
int space_problem_index(const space *s, const char *key) { return space_problem_lookup(s, key); }
const char *space_problem_key(const space *s, int prob) { return s->probs[prob].key; }
int space_problem_nvars(const space *s, int prob) { return s->probs[prob].nvars; }
const char *space_problem_var(const space *s, int prob, int j, int64_t *value) {
  if (value) *value = s->probs[prob].vals[j];
  return s->probs[prob].names[j];
}
const char *space_ref_kernel(const space *s) { return s->ref_kernel; }
const char *space_ref_template_path(const space *s) { return s->ref_template_path; }
double space_tolerance(const space *s) { return s->tolerance; }
int space_unchecked(const space *s) { return s->unchecked; }
const char *space_check_kernel(const space *s) { return s->check_kernel; }
const char *space_check_template_path(const space *s) { return s->check_template_path; }
int space_ref_ndefines(const space *s) { return s->nref_defines; }
const char *space_ref_define(const space *s, int i) { return i >= 0 && i < s->nref_defines ? s->ref_defines[i] : NULL; }
int space_ref_per_config(const space *s) { return s->ref_per_config; }
int space_nobjectives(const space *s) { return s->nobjectives; }
int space_objective_max(const space *s, int i) { return i >= 0 && i < s->nobjectives ? s->objmax[i] : 0; }
const char *space_objective(const space *s, int i) { return i >= 0 && i < s->nobjectives ? s->objectives[i] : NULL; }
double space_timeout(const space *s) { return s->timeout; }

int space_args(space *s, int prob, argspec *out, int *nargs, cterr *err) {
  if (prob < 0 || prob >= s->nproblems) return cterr_set(err, "%s: no problem %d", s->path, prob);
  memcpy(out, s->probs[prob].args, (size_t)s->nargs * sizeof(argspec));
  *nargs = s->nargs;
  return 0;
}

int space_ref_geometry(space *s, int prob, launch_geom *out, cterr *err) {
  if (!s->ref_kernel)
    return cterr_set(err,
                     "%s: the space has no reference kernel (give one, or check = false to time "
                     "without checking)",
                     s->path);
  if (prob < 0 || prob >= s->nproblems) return cterr_set(err, "%s: no problem %d", s->path, prob);
  *out = s->probs[prob].ref_geom;
  return 0;
}

double space_bytes(space *s, int prob, cterr *err) {
  if (prob < 0 || prob >= s->nproblems) return cterr_set(err, "%s: no problem %d", s->path, prob), NAN;
  return s->probs[prob].bytes;
}

double space_flops(space *s, int prob, cterr *err) {
  if (prob < 0 || prob >= s->nproblems) return cterr_set(err, "%s: no problem %d", s->path, prob), NAN;
  return s->probs[prob].flops;
}

elemtype space_gemm_type(const space *s) { return s->gemmex.kind != SV_NONE ? s->gemm_type : EL_F32; }

int space_sgemm(const space *s, int prob, int64_t mnk[3]) {
  mnk[0] = mnk[1] = mnk[2] = 0;
  if (prob < 0 || prob >= s->nproblems || s->probs[prob].sgemm[0] < 1) return 0;
  for (int i = 0; i < 3; i++) mnk[i] = s->probs[prob].sgemm[i];
  return 1;
}
