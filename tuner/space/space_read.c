/* space_read: the typed readers the space file's parsers share. See space_read.h. */
#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "space_read.h"

int sp_perr(cterr *err, where w, const char *fmt, ...) {
  char msg[CTERR_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (w.line > 0) return cterr_set(err, "%s:%d: %s", w.file, w.line, msg);
  return cterr_set(err, "%s: %s", w.file, msg);
}

const char *sp_got(lua_State *L, int idx, char *buf, size_t n) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER: /* not lua_tostring: that would turn the slot itself into a string */
    if (lua_isinteger(L, idx)) snprintf(buf, n, "number %lld", (long long)lua_tointeger(L, idx));
    else snprintf(buf, n, "number %.17g", lua_tonumber(L, idx));
    return buf;
  case LUA_TSTRING: snprintf(buf, n, "string \"%.40s\"", lua_tostring(L, idx)); return buf;
  case LUA_TTABLE:
    lua_pushnil(L);
    if (!lua_next(L, idx < 0 ? idx - 1 : idx)) return "empty table";
    lua_pop(L, 2);
    return "table";
  default: return luaL_typename(L, idx);
  }
}

int sp_is_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

const char *sp_tag_of(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return NULL;
  lua_getfield(L, idx, "__ct");
  const char *t = lua_tostring(L, -1);
  lua_pop(L, 1); /* the string stays alive: it is an interned constant of the prelude */
  return t;
}

/* where a tagged table (ct.param etc.) was built */
where sp_tagged_where(space *s, lua_State *L, int idx) {
  where w = {s->file, s->line};
  idx = lua_absindex(L, idx);
  lua_getfield(L, idx, "file");
  if (lua_type(L, -1) == LUA_TSTRING) w.file = space_intern_file(s, lua_tostring(L, -1));
  lua_getfield(L, idx, "line");
  if (lua_isinteger(L, -1)) w.line = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return w;
}

where sp_func_where(space *s, lua_State *L, int idx, where dflt) {
  lua_Debug ar;
  lua_pushvalue(L, idx);
  if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0) {
    dflt.file = space_intern_file(s, ar.short_src);
    dflt.line = ar.linedefined;
  }
  return dflt;
}

int sp_check_keys(lua_State *L, int idx, const char *const *allowed, const char *what, where w, cterr *err) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      char k[64];
      if (lua_isinteger(L, -1)) snprintf(k, sizeof k, "%lld", (long long)lua_tointeger(L, -1));
      else snprintf(k, sizeof k, "%s", luaL_typename(L, -1));
      lua_pop(L, 1);
      return sp_perr(err, w, "unexpected entry [%s] in %s (expected named fields)", k, what);
    }
    const char *k = lua_tostring(L, -1);
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++) ok = !strcmp(k, allowed[i]);
    if (!ok) {
      dbuf b;
      dbuf_init(&b);
      for (int i = 0; allowed[i]; i++) dbuf_printf(&b, "%s%s", i ? ", " : "", allowed[i]);
      sp_perr(err, w, "unknown field '%s' in %s (expected one of: %s)", k, what, b.data);
      dbuf_free(&b);
      lua_pop(L, 1);
      return -1;
    }
  }
  return 0;
}

int sp_seq_len(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) return -1;
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
      lua_pop(L, 1);
      return -1;
    }
    count++;
  }
  return count == n ? (int)n : -1;
}

int sp_get_string(lua_State *L, int t, const char *key, char **out, int required, const char *what, where w,
                  cterr *err) {
  char gbuf[96];
  int ty = lua_getfield(L, t, key);
  if (ty == LUA_TNIL) {
    lua_pop(L, 1);
    return required ? sp_perr(err, w, "%s is missing required key '%s'", what, key) : 0;
  }
  if (ty != LUA_TSTRING || !lua_rawlen(L, -1)) {
    sp_perr(err, w, "%s.%s must be a non-empty string (got %s)", what, key, GOT(-1));
    lua_pop(L, 1);
    return -1;
  }
  *out = xstrdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  return 0;
}

int sp_get_count(lua_State *L, int t, const char *key, int64_t *out, const char *what, where w, cterr *err) {
  char gbuf[96];
  int isint = 0, ty = lua_getfield(L, t, key);
  lua_Integer v = ty == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
  if (ty != LUA_TNIL && (!isint || v < 0)) {
    sp_perr(err, w, "%s.%s must be an integer >= 0 (got %s)", what, key, GOT(-1));
    lua_pop(L, 1);
    return -1;
  }
  if (ty != LUA_TNIL) *out = (int64_t)v;
  lua_pop(L, 1);
  return 0;
}

/* ---- values: constants, functions, size expressions ---- */

int sp_read_value(space *s, lua_State *L, int idx, sp_value *v, int maxcon, int expr, const char *what, where w,
                  cterr *err) {
  char gbuf[96];
  idx = lua_absindex(L, idx);
  v->file = w.file, v->line = w.line;
  int ty = lua_type(L, idx);
  if (ty == LUA_TFUNCTION) {
    where fw = sp_func_where(s, L, idx, w);
    v->file = fw.file, v->line = fw.line;
    lua_pushvalue(L, idx);
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    v->kind = SV_FUNC;
    return 0;
  }
  if (ty == LUA_TNUMBER) {
    v->kind = SV_CONST, v->ncon = 1, v->con[0] = lua_tonumber(L, idx);
    return 0;
  }
  if (ty == LUA_TTABLE && maxcon > 1) {
    int n = sp_seq_len(L, idx);
    if (n < 1 || n > maxcon)
      return sp_perr(err, w, "%s must be a list of 1 to %d numbers or a function (got %s)", what, maxcon, GOT(idx));
    for (int i = 0; i < n; i++) {
      if (lua_rawgeti(L, idx, i + 1) != LUA_TNUMBER)
        return sp_perr(err, w, "%s[%d] must be a number (got %s)", what, i + 1, GOT(-1));
      v->con[i] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    v->kind = SV_CONST, v->ncon = n;
    return 0;
  }
  if (ty == LUA_TSTRING && expr) {
    const char *text = lua_tostring(L, idx);
    char *src = xasprintf("return (%s)", text);
    int rc = luaL_loadbufferx(L, src, strlen(src), "=expression", "t");
    free(src);
    if (rc != LUA_OK) {
      sp_perr(err, w, "%s: the size expression \"%s\" does not compile: %s", what, text, lua_tostring(L, -1));
      lua_pop(L, 1);
      return -1;
    }
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    v->kind = SV_EXPR, v->text = xstrdup(text);
    return 0;
  }
  return sp_perr(err, w, "%s must be %s (got %s)", what,
                 maxcon > 1 ? "a function or a list of numbers"
                 : expr     ? "a number, a size expression string or a function"
                            : "a number or a function",
                 GOT(idx));
}

int sp_get_value(space *s, lua_State *L, int t, const char *key, sp_value *v, int required, int maxcon, int expr,
                 const char *what, where w, cterr *err) {
  if (lua_getfield(L, t, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return required ? sp_perr(err, w, "%s is missing required key '%s'", what, key) : 0;
  }
  char name[64];
  snprintf(name, sizeof name, "%s%s%s", strcmp(what, "space") ? what : "", strcmp(what, "space") ? "." : "", key);
  int rc = sp_read_value(s, L, -1, v, maxcon, expr, name, w, err);
  lua_pop(L, 1);
  return rc;
}

/* A kernel named as C++ does it, for NVRTC's name expressions: "k", "ns::k", "k<TILE, 4>" (the
 * parameters are macros of the program, so they may stand as template arguments). */
int sp_is_cxx_name(const char *k) {
  size_t n = strlen(k);
  if (!n || n > 255 || !(isalpha((unsigned char)k[0]) || k[0] == '_' || k[0] == ':')) return 0;
  for (const char *p = k; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("_:<>, ()+-*/", *p)) return 0;
  return 1;
}
