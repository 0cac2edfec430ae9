/* space_edit: the space's template_edit function (space.h) — called once per run on the
 * template's text (function(text)), or per program with the configuration's parameters
 * (function(text, p): a code generator, Kernel Tuner's kernel_source given as a function of the
 * parameters); and the digest of such a function that the records' template hash is made from.
 * Each call is an entry into the space's code under its limits (space_limits.c). */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space_int.h"

int space_edit_per_config(const space *s) { return s->edit_ref && s->edit_per_config; }
int space_edit_once(const space *s) { return s->edit_ref && !s->edit_per_config; }

/* The function's result on the stack top into *out (popped); -1 with err for anything but a
 * string. ctx: " for BM=64,TILE=2", or "" once per run. */
static int take_text(space *s, const char *ctx, char **out, cterr *err) {
  size_t n;
  const char *r = lua_type(s->L, -1) == LUA_TSTRING ? lua_tolstring(s->L, -1, &n) : NULL;
  if (!r) {
    cterr_set(err, "%s:%d: template_edit returned %s%s (expected the program's text, a string)", s->edit_file,
              s->edit_line, luaL_typename(s->L, -1), ctx);
    lua_pop(s->L, 1);
    return -1;
  }
  *out = xmalloc(n + 1);
  memcpy(*out, r, n);
  (*out)[n] = 0;
  lua_pop(s->L, 1);
  return 0;
}

int space_edit_template(const space *cs, const char *text, char **out, cterr *err) {
  *out = NULL;
  if (!cs->edit_ref || cs->edit_per_config) return 0;
  space *s = (space *)cs; /* the call runs in the space's Lua state, under its limits; the space stays as it is */
  space_limits_enter(s);
  lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->edit_ref);
  lua_pushstring(s->L, text);
  cterr e;
  if (space_pcall(s, 1, 1, &e) < 0)
    return cterr_set(err, "%s:%d: template_edit failed: %s", s->edit_file, s->edit_line, e.msg);
  return take_text(s, "", out, err);
}

/* A define's value as p holds it: an integer where the whole value is one, else the string. */
static void push_define(lua_State *L, const char *v) {
  char *end;
  long long x = strtoll(v, &end, 0);
  if (*v && !*end && end != v) lua_pushinteger(L, (lua_Integer)x);
  else lua_pushstring(L, v);
}

int space_edit_program(const space *cs, const char *text, size_t cfg, int nd, const char *const *dn,
                       const char *const *dv, char **out, cterr *err) {
  *out = NULL;
  if (!space_edit_per_config(cs)) return 0;
  space *s = (space *)cs; /* as space_edit_template */
  if (cfg != SPACE_NO_CONFIG && cfg >= configset_count(s->cs))
    return cterr_set(err, "%s: no configuration %zu", s->path, cfg);
  dbuf ctx;
  dbuf_init(&ctx);
  if (cfg != SPACE_NO_CONFIG) {
    char *key = configset_row_key(s->cs, configset_row(s->cs, cfg));
    dbuf_printf(&ctx, " for %s", key);
    free(key);
  }
  if (cfg == SPACE_NO_CONFIG) dbuf_puts(&ctx, " for p = {");
  else if (nd) dbuf_puts(&ctx, ", with ");
  for (int i = 0; i < nd; i++) dbuf_printf(&ctx, "%s%s=%s", i ? ", " : "", dn[i], dv[i]);
  if (cfg == SPACE_NO_CONFIG) dbuf_puts(&ctx, "}");
  else if (nd) dbuf_puts(&ctx, " set in p");
  space_limits_enter(s);
  lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->edit_ref);
  lua_pushstring(s->L, text);
  if (cfg != SPACE_NO_CONFIG) space_push_config(s, cfg);
  else lua_createtable(s->L, 0, nd);
  for (int i = 0; i < nd; i++) {
    push_define(s->L, dv[i]);
    lua_setfield(s->L, -2, dn[i]);
  }
  cterr e;
  int rc = 0;
  if (space_pcall(s, 2, 1, &e) < 0)
    rc = cterr_set(err, "%s:%d: template_edit failed%s: %s", s->edit_file, s->edit_line, ctx.data, e.msg);
  else rc = take_text(s, ctx.data, out, err);
  dbuf_free(&ctx);
  return rc;
}

/* ---- the function's digest: what the records' template hash is made from (job_source.c) ---- */

#define EDIT_MAX_FUNCS 64 /* functions followed through upvalues */

typedef struct fn_digest {
  sha256_ctx h;
  const void *seen[EDIT_MAX_FUNCS];
  int nseen;
} fn_digest;

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud) {
  (void)L;
  sha256_update(&((fn_digest *)ud)->h, p, n);
  return 0;
}

/* Lines first..last of text (1-based): where they start, *n their length; NULL past its end. */
static const char *text_lines(const char *t, int first, int last, size_t *n) {
  for (int l = 1; l < first && t; l++) {
    t = strchr(t, '\n');
    if (t) t++;
  }
  if (!t) return NULL;
  const char *e = t;
  for (int l = first; l <= last && *e; l++) {
    const char *nl = strchr(e, '\n');
    e = nl ? nl + 1 : e + strlen(e);
  }
  *n = (size_t)(e - t);
  return t;
}

/* The source of the Lua function at the stack top: its lines as its file (or the string it was
 * loaded from) holds them. Its bytecode (lua_dump) would keep the line it starts on, so an edit
 * above it in the file would change the digest; the lines do not move with it. 0 where the
 * source cannot be read (the bytecode serves then). */
static int digest_source(lua_State *L, fn_digest *d) {
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  if (ar.linedefined <= 0 || ar.lastlinedefined < ar.linedefined) return 0;
  dbuf file;
  dbuf_init(&file);
  const char *text = NULL;
  if (ar.source[0] == '@') {
    cterr e;
    if (file_read(ar.source + 1, &file, &e) == 0) text = file.data;
  } else if (ar.source[0] != '=') text = ar.source; /* load("...") of a string: the string itself */
  size_t n = 0;
  const char *lines = text ? text_lines(text, ar.linedefined, ar.lastlinedefined, &n) : NULL;
  if (lines) {
    sha256_update(&d->h, "source", 7);
    sha256_update(&d->h, lines, n);
  }
  dbuf_free(&file);
  return lines != NULL;
}

/* The function at the stack top: its source lines (else its bytecode without debug information),
 * then each upvalue's type and value — a number, string or boolean as it is, a function the same
 * way (each once: a recursive local function is its own upvalue), a table by its type alone. */
static void digest_function(lua_State *L, fn_digest *d) {
  const void *id = lua_topointer(L, -1);
  for (int i = 0; i < d->nseen; i++)
    if (d->seen[i] == id) {
      sha256_update(&d->h, "seen", 5);
      return;
    }
  if (d->nseen == EDIT_MAX_FUNCS) {
    sha256_update(&d->h, "deep", 5);
    return;
  }
  d->seen[d->nseen++] = id;
  if (lua_iscfunction(L, -1)) {
    sha256_update(&d->h, "cfunction", 10);
    return;
  }
  if (!digest_source(L, d)) {
    sha256_update(&d->h, "bytecode", 9);
    lua_dump(L, dump_writer, d, 1);
  }
  for (int i = 1; lua_getupvalue(L, -1, i); i++) {
    int t = lua_type(L, -1);
    char head[32];
    snprintf(head, sizeof head, "up %d %d", i, t);
    sha256_update(&d->h, head, strlen(head) + 1);
    if (t == LUA_TNUMBER || t == LUA_TSTRING) {
      size_t n;
      lua_pushvalue(L, -1); /* lua_tolstring turns a number into a string in place: a copy's */
      const char *v = lua_tolstring(L, -1, &n);
      sha256_update(&d->h, v, n);
      lua_pop(L, 1);
    } else if (t == LUA_TBOOLEAN) sha256_update(&d->h, lua_toboolean(L, -1) ? "1" : "0", 1);
    else if (t == LUA_TFUNCTION) digest_function(L, d);
    lua_pop(L, 1);
  }
}

void space_edit_digest(const space *cs, char out[65]) {
  space *s = (space *)cs; /* reads the function; runs none of the space's code */
  fn_digest d = {.nseen = 0};
  uint8_t h[32];
  sha256_init(&d.h);
  sha256_update(&d.h, "cutune-edit-v1", 15);
  if (s->edit_ref) {
    space_limits_enter(s);
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->edit_ref);
    digest_function(s->L, &d);
    lua_pop(s->L, 1);
  }
  sha256_final(&d.h, h);
  hex_encode(h, 32, out);
  out[64] = 0;
}
