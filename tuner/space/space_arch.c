/* space_arch: the architecture each configuration needs, and whether a target has it.
 *
 * A space may say `arch = function(p) ... end` (p: every parameter of a configuration) or
 * `arch = "sm_XY"` for all of them. The answer is nil (any architecture), "sm_XY" (compute
 * capability X.Y or newer: compiled for the target as it is) or "sm_XYa" (exactly X.Y, with
 * its architecture-specific instructions, e.g. sm_90a's wgmma: compiled for sm_XYa on an X.Y
 * target). It is evaluated once per valid configuration when the space loads (so a bad answer
 * fails the load with the function's line, like a constraint), kept as a byte per configuration.
 * The configurations are the same whatever the target (every command sees one space); a
 * configuration the target lacks is an invalid record of the run, compiled never. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "space_int.h"

/* "sm_90" -> 90, suffix 0; "sm_90a" -> 90, 'a'; "sm_100f" -> 100, 'f'; -1: not an sm_ name */
static int arch_split(const char *a, char *suffix) {
  if (!a || strncmp(a, "sm_", 3) != 0) return -1;
  int v = 0, i = 3;
  for (; a[i] >= '0' && a[i] <= '9' && i < 8; i++) v = 10 * v + (a[i] - '0');
  if (i == 3 || v < 10) return -1;
  if (a[i] && !((a[i] == 'a' || a[i] == 'f') && !a[i + 1])) return -1;
  *suffix = a[i];
  return v;
}

/* the index (1-based) of name in the space's table of answers, added if new; -1 when full */
static int intern(space *s, const char *name) {
  for (int i = 0; i < s->narch_names; i++)
    if (!strcmp(s->arch_names[i], name)) return i + 1;
  if (s->narch_names == SP_MAX_ARCH_NAMES) return -1;
  s->arch_names[s->narch_names] = xstrdup(name);
  return ++s->narch_names;
}

int space_arch_parse(space *s, lua_State *L, int t, const char *file, int line, cterr *err) {
  int ty = lua_getfield(L, t, "arch");
  char sfx;
  int rc = 0;
  if (ty == LUA_TFUNCTION) {
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &ar);
    s->arch_file = ar.source[0] == '@' ? space_intern_file(s, ar.source + 1) : file;
    s->arch_line = ar.linedefined > 0 ? ar.linedefined : line;
    s->arch_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
  }
  if (ty == LUA_TSTRING && arch_split(lua_tostring(L, -1), &sfx) > 0) {
    s->arch_all = intern(s, lua_tostring(L, -1));
  } else if (ty != LUA_TNIL) {
    rc = cterr_set(err,
                   "%s:%d: arch must be a function(p) giving \"sm_XY\" or \"sm_XYa\" (or nil), or one such "
                   "string (got %s%s%s)",
                   file, line, ty == LUA_TSTRING ? "\"" : luaL_typename(L, -1),
                   ty == LUA_TSTRING ? lua_tostring(L, -1) : "", ty == LUA_TSTRING ? "\"" : "");
  }
  lua_pop(L, 1);
  return rc;
}

int space_arch_eval(space *s, cterr *err) {
  if (!s->arch_ref) return 0;
  lua_State *L = s->L;
  size_t n = configset_count(s->cs);
  s->arch_of = xcalloc(n ? n : 1, 1);
  for (size_t cfg = 0; cfg < n; cfg++) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->arch_ref);
    space_push_config(s, cfg);
    cterr e;
    char *key = NULL;
    if (space_pcall(s, 1, 1, &e) < 0) {
      key = configset_row_key(s->cs, configset_row(s->cs, cfg));
      cterr_set(err, "%s:%d: arch failed for %s: %s", s->arch_file, s->arch_line, key, e.msg);
      free(key);
      return -1;
    }
    char sfx;
    int ty = lua_type(L, -1), idx = 0;
    if (ty == LUA_TSTRING && arch_split(lua_tostring(L, -1), &sfx) > 0) idx = intern(s, lua_tostring(L, -1));
    if (ty == LUA_TNIL) idx = 0;
    else if (idx <= 0) {
      key = configset_row_key(s->cs, configset_row(s->cs, cfg));
      if (idx < 0)
        cterr_set(err, "%s:%d: arch gives more than %d different architectures", s->arch_file, s->arch_line,
                  SP_MAX_ARCH_NAMES);
      else
        cterr_set(err, "%s:%d: arch for %s returned %s%s%s (expected nil, \"sm_XY\" or \"sm_XYa\")", s->arch_file,
                  s->arch_line, key, ty == LUA_TSTRING ? "\"" : luaL_typename(L, -1),
                  ty == LUA_TSTRING ? lua_tostring(L, -1) : "", ty == LUA_TSTRING ? "\"" : "");
      free(key);
      lua_pop(L, 1);
      return -1;
    }
    lua_pop(L, 1);
    s->arch_of[cfg] = (unsigned char)idx;
  }
  return 0;
}

void space_arch_free(space *s) {
  for (int i = 0; i < s->narch_names; i++) free(s->arch_names[i]);
  free(s->arch_of);
}

const char *space_config_needs(const space *s, size_t cfg) {
  int idx = s->arch_all;
  if (s->arch_of && cfg < configset_count(s->cs)) idx = s->arch_of[cfg];
  return idx > 0 ? s->arch_names[idx - 1] : NULL;
}

int space_config_arch(const space *s, size_t cfg, const char *target, char *out, size_t outlen, char *why,
                      size_t whylen) {
  const char *need = space_config_needs(s, cfg);
  snprintf(out, outlen, "%s", target);
  if (why && whylen) why[0] = 0;
  if (!need) return 1;
  char ts, ns;
  int tv = arch_split(target, &ts), nv = arch_split(need, &ns);
  if (tv < 0) return 1; /* not an sm_ name: NVRTC will say so */
  if (ns == 'a') {
    if (tv == nv) {
      snprintf(out, outlen, "sm_%da", nv);
      return 1;
    }
    snprintf(why, whylen, "needs %s (architecture-specific: compute capability %d.%d only), not %s", need, nv / 10,
             nv % 10, target);
    return 0;
  }
  if (tv >= nv) return 1;
  snprintf(why, whylen, "needs %s or newer, not %s", need, target);
  return 0;
}
