/* space_limits: the bounds on a space's Lua code — memory, instructions, wall-clock time and
 * string patterns — so that a space file that loops or grows without end fails with a message
 * naming file:line and the limit instead of hanging cutune or eating the machine.
 *
 *   memory        an allocator with a cap (lua_newstate): past it an allocation fails, Lua
 *                 raises "not enough memory", and the message says where the space was
 *                 (the innermost Lua function on the stack when the allocation was refused).
 *   instructions  a count hook (every SL_HOOK_EVERY VM instructions) charges each entry into
 *                 the space: the whole of space_load (main chunk, reading the table,
 *                 enumeration with its constraints) is one entry, each later call from C
 *                 (space_geometry) another, and lua_close (finalizers) a last one.
 *   time          the same hook checks the wall clock of the entry now and then: C functions
 *                 (string patterns, table.sort, string.rep) run without the hook firing, and
 *                 a loop of them spends little of the instruction budget.
 *   patterns      string.find/match/gmatch/gsub are wrapped: a pattern with k repetition
 *                 items (*, +, -, ?) followed by more items can backtrack through n^(k+1)
 *                 positions of an n-byte subject inside one C call, where no hook fires. A call
 *                 whose worst case exceeds the instruction limit is refused up front; plain
 *                 finds and patterns with no backtracking repetition always pass. Each call is
 *                 also charged its subject length against the instruction budget.
 *
 * Limits come from the environment (read once per space): CUTUNE_LUA_MEMORY (MiB, default
 * 512), CUTUNE_LUA_INSTRUCTIONS (per entry, default 1e9), CUTUNE_LUA_SECONDS (per entry,
 * default 60). */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space_int.h"

#define SL_HOOK_EVERY 1000
#define SL_CLOCK_EVERY 64 /* hooks between looks at the clock */

static double env_number(const char *name, double dflt, double lo, double hi) {
  const char *e = getenv(name);
  if (!e || !*e) return dflt;
  char *end;
  double v = strtod(e, &end);
  return *end || !(v >= lo && v <= hi) ? dflt : v;
}

void space_limits_init(space *s) {
  s->mem_max = (size_t)(env_number("CUTUNE_LUA_MEMORY", 512, 1, 1e6) * 1048576.0);
  s->instr_max = env_number("CUTUNE_LUA_INSTRUCTIONS", 1e9, 1e4, 1e15);
  s->seconds_max = env_number("CUTUNE_LUA_SECONDS", 60, 0.01, 1e7);
}

void space_limits_enter(space *s) {
  s->instr_used = 0;
  s->hooks = 0;
  s->entry_t0 = now_seconds();
  s->oom_msg[0] = 0;
}

/* Where the space is: file:line of the innermost Lua function on the stack, or "" */
static void lua_position(lua_State *L, char *buf, size_t n) {
  lua_Debug ar;
  buf[0] = 0;
  for (int level = 0; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar)) break;
    if (ar.currentline > 0) {
      snprintf(buf, n, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
}

void *space_limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  space *s = ud;
  if (!ptr) osize = 0;
  if (nsize == 0) {
    free(ptr);
    s->mem_used -= osize;
    return NULL;
  }
  if (nsize > osize && s->mem_used - osize + nsize > s->mem_max) {
    if (s->L && !s->oom_msg[0]) {
      char pos[300];
      lua_position(s->L, pos, sizeof pos);
      snprintf(s->oom_msg, sizeof s->oom_msg,
               "%sthe space's Lua code needs more than %.0f MiB of memory (the limit; raise it with "
               "CUTUNE_LUA_MEMORY=MiB)",
               pos[0] ? pos : "", (double)s->mem_max / 1048576.0);
    }
    return NULL;
  }
  void *q = realloc(ptr, nsize);
  if (q) s->mem_used = s->mem_used - osize + nsize;
  return q;
}

const char *space_limits_oom(space *s) { return s->oom_msg[0] ? s->oom_msg : NULL; }

static int over(lua_State *L, const char *what, double limit, const char *unit, const char *how) {
  char pos[300], msg[700];
  lua_position(L, pos, sizeof pos);
  snprintf(msg, sizeof msg,
           "%sthe space's Lua code ran %s %.3g%s in one call from cutune (a loop that never "
           "ends?); raise the limit with %s",
           pos, what, limit, unit, how);
  lua_pushstring(L, msg);
  return lua_error(L);
}

static void hook(lua_State *L, lua_Debug *ar) {
  space *s = *(space **)lua_getextraspace(L);
  if (ar->event == LUA_HOOKLINE) {
    space_line_hook(s, L, ar);
    return;
  }
  if (ar->event != LUA_HOOKCOUNT) return;
  s->instr_used += SL_HOOK_EVERY;
  if (s->instr_used > s->instr_max) over(L, "more than", s->instr_max, " instructions", "CUTUNE_LUA_INSTRUCTIONS=N");
  if (++s->hooks % SL_CLOCK_EVERY == 0 && now_seconds() - s->entry_t0 > s->seconds_max)
    over(L, "longer than", s->seconds_max, " s", "CUTUNE_LUA_SECONDS=N");
}

void space_limits_hook(space *s, int with_lines) {
  lua_sethook(s->L, hook, LUA_MASKCOUNT | (with_lines ? LUA_MASKLINE : 0), SL_HOOK_EVERY);
}

/* ---- string patterns ---- */

/* Repetition items that can backtrack: *, +, - or ? after a single-character class, with
 * more pattern after them (a trailing repetition takes its longest or shortest match once). */
static int backtracking_items(const char *p, size_t n) {
  int k = 0;
  size_t i = 0;
  if (i < n && p[i] == '^') i++;
  while (i < n) {
    size_t start = i;
    if (p[i] == '%') {
      if (i + 1 < n && (p[i + 1] == 'b')) {
        i += 4;
        continue;
      }
      if (i + 1 < n && (p[i + 1] == 'f')) { /* %f[set] */
        i += 2;
        if (i < n && p[i] == '[') {
          i++;
          if (i < n && p[i] == '^') i++;
          if (i < n) i++;
          while (i < n && p[i] != ']') i += p[i] == '%' ? 2 : 1;
          i++;
        }
        continue;
      }
      i += 2;
    } else if (p[i] == '[') {
      i++;
      if (i < n && p[i] == '^') i++;
      if (i < n) i++; /* a ']' first is literal */
      while (i < n && p[i] != ']') i += p[i] == '%' ? 2 : 1;
      i++;
    } else if (p[i] == '(' || p[i] == ')') {
      i++;
      continue;
    } else {
      i++;
    }
    (void)start;
    if (i < n && (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?')) {
      i++;
      if (i < n) k++; /* something follows that may fail and send it back */
    }
  }
  return k;
}

static int sb_pattern(lua_State *L) {
  space *s = *(space **)lua_getextraspace(L);
  const char *name = lua_tostring(L, lua_upvalueindex(2));
  size_t n = 0, pn = 0;
  const char *subj = lua_tolstring(L, 1, &n), *pat = lua_tolstring(L, 2, &pn);
  int plain = !strcmp(name, "find") && lua_toboolean(L, 4);
  if (subj && pat && !plain) {
    int k = backtracking_items(pat, pn);
    double worst = k ? pow((double)n + 1, (double)k + (pat[0] == '^' ? 0 : 1)) : (double)n;
    if (worst > s->instr_max) {
      char msg[600];
      snprintf(msg, sizeof msg,
               "string.%s: the pattern \"%.80s\" on a subject of %zu bytes could backtrack through "
               "~%.2g positions (%d repetition item%s followed by more pattern), over the limit of %.3g per call "
               "(CUTUNE_LUA_INSTRUCTIONS); use a simpler pattern or a shorter subject",
               name, pat, n, worst, k, k == 1 ? "" : "s", s->instr_max);
      return luaL_error(L, "%s", msg);
    }
    s->instr_used += (double)n;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

void space_limits_wrap_patterns(lua_State *L, int strtab) {
  static const char *const fns[] = {"find", "match", "gmatch", "gsub", NULL};
  strtab = lua_absindex(L, strtab);
  for (int i = 0; fns[i]; i++) {
    lua_getfield(L, strtab, fns[i]);
    lua_pushstring(L, fns[i]);
    lua_pushcclosure(L, sb_pattern, 2);
    lua_setfield(L, strtab, fns[i]);
  }
}
