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
 *   patterns      string.find/match/gmatch/gsub are wrapped: a pattern whose repetitions (*, +,
 *                 -) are followed by more pattern that may match what they do can backtrack
 *                 through n^(o+1) positions of an n-byte subject inside one C call, where no
 *                 hook fires (pattern_worst below). A call whose worst case exceeds the
 *                 instruction limit is refused up front; plain finds and patterns with no
 *                 backtracking repetition always pass. Each call is also charged its subject
 *                 length against the instruction budget.
 *
 * Limits come from the environment (read once per space): CUTUNE_LUA_MEMORY (MiB, default
 * 512), CUTUNE_LUA_INSTRUCTIONS (per entry, default 1e9), CUTUNE_LUA_SECONDS (per entry,
 * default 60). */
#include <ctype.h>
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

/* The pattern's worst case, item by item. A repetition (*, +, -) followed by more pattern
 * backtracks: after its run it hands the rest of the pattern every shorter (or longer) run in
 * turn. Where the rest's first character cannot be one of the repetition's own (their classes
 * are disjoint: %s* then [%w_], [^}]* then }), each of those tries fails on its first
 * character, so the repetition costs its run once: a factor of n for the start position it is
 * tried from, not for each try of what precedes it. Where they may overlap, each try can run the
 * rest in full: a factor of n per such repetition. An optional item (?) is tried at most twice.
 * So, with n the subject's length, o the overlapping repetitions, d > 0 when any disjoint one
 * and q the optional items: (n + 1)^o x (d ? n + 1 : 1) x 2^q per start position, n + 1 of
 * them unless anchored (^). Character sets follow Lua's (lstrlib.c: match_class, matchbracketclass);
 * a back-reference (%1) may start with anything. */
typedef struct {
  uint8_t bit[32];
} sl_set;

static void set_add(sl_set *a, int c) { a->bit[(unsigned char)c >> 3] |= (uint8_t)(1u << (c & 7)); }
static int set_meets(const sl_set *a, const sl_set *b) {
  for (int i = 0; i < 32; i++)
    if (a->bit[i] & b->bit[i]) return 1;
  return 0;
}
static void set_or(sl_set *a, const sl_set *b) {
  for (int i = 0; i < 32; i++) a->bit[i] |= b->bit[i];
}
static void set_not(sl_set *a) {
  for (int i = 0; i < 32; i++) a->bit[i] = (uint8_t)~a->bit[i];
}

/* Lua's %x class of character c (match_class): 1 if c is in it */
static int in_class(int c, int cl) {
  int r;
  switch (tolower(cl)) {
  case 'a': r = isalpha(c); break;
  case 'c': r = iscntrl(c); break;
  case 'd': r = isdigit(c); break;
  case 'g': r = isgraph(c); break;
  case 'l': r = islower(c); break;
  case 'p': r = ispunct(c); break;
  case 's': r = isspace(c); break;
  case 'u': r = isupper(c); break;
  case 'w': r = isalnum(c); break;
  case 'x': r = isxdigit(c); break;
  default: return cl == c;
  }
  if (isupper(cl)) r = !r;
  return r != 0;
}

static void add_class(sl_set *a, int cl) {
  for (int c = 0; c < 256; c++)
    if (in_class(c, cl)) set_add(a, c);
}

enum { IT_CHAR, IT_ANY, IT_ZERO, IT_END };
/* One item of a pattern. kind: IT_CHAR a character set; IT_ANY may start with anything (a
 * back-reference); IT_ZERO consumes nothing ((, ), %f[set]); IT_END $ at the pattern's end. */
typedef struct {
  int kind;
  char rep; /* '*', '+', '-', '?' or 0 */
  sl_set set;
} sl_item;

/* The items of pattern p[0..n-1] into it[] (at most max); -1 where there are more, or a
 * pattern Lua would reject (the call then fails in Lua itself) */
static int pattern_items(const char *p, size_t n, sl_item *it, int max) {
  int k = 0;
  size_t i = 0;
  if (i < n && p[i] == '^') i++;
  while (i < n) {
    if (k == max) return -1;
    sl_item *x = &it[k++];
    memset(x, 0, sizeof *x);
    x->kind = IT_CHAR;
    unsigned char c = (unsigned char)p[i];
    if (c == '(' || c == ')') {
      x->kind = IT_ZERO, i++;
      if (c == '(' && i < n && p[i] == ')') i++; /* a position capture */
      continue;
    }
    if (c == '$' && i + 1 == n) {
      x->kind = IT_END, i++;
      continue;
    }
    if (c == '%') {
      if (i + 1 >= n) return -1;
      unsigned char d = (unsigned char)p[i + 1];
      if (d == 'b') { /* %bxy: starts with x, matches once per position */
        if (i + 3 >= n) return -1;
        set_add(&x->set, p[i + 2]);
        i += 4;
        continue;
      }
      if (d == 'f') { /* %f[set]: a frontier, zero width */
        i += 2;
        if (i >= n || p[i] != '[') return -1;
        i++;
        if (i < n && p[i] == '^') i++;
        if (i < n) i++;
        while (i < n && p[i] != ']') i += p[i] == '%' ? 2 : 1;
        if (i >= n) return -1;
        i++;
        x->kind = IT_ZERO;
        continue;
      }
      if (d >= '0' && d <= '9') { /* a back-reference: any text */
        x->kind = IT_ANY, i += 2;
        continue;
      }
      add_class(&x->set, d);
      i += 2;
    } else if (c == '[') {
      size_t j = i + 1;
      int neg = j < n && p[j] == '^';
      if (neg) j++;
      int first = 1;
      while (j < n && (p[j] != ']' || first)) {
        first = 0;
        if (p[j] == '%' && j + 1 < n) {
          add_class(&x->set, (unsigned char)p[j + 1]);
          j += 2;
        } else if (j + 2 < n && p[j + 1] == '-' && p[j + 2] != ']') {
          for (int ch = (unsigned char)p[j]; ch <= (unsigned char)p[j + 2]; ch++) set_add(&x->set, ch);
          j += 3;
        } else {
          set_add(&x->set, p[j]);
          j++;
        }
      }
      if (j >= n) return -1;
      if (neg) set_not(&x->set);
      i = j + 1;
    } else if (c == '.') {
      set_not(&x->set);
      i++;
    } else {
      set_add(&x->set, c);
      i++;
    }
    if (i < n && (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?')) x->rep = p[i++];
  }
  return k;
}

/* What the rest of the pattern from item j may start with; *any set when it may start with
 * anything; 0 when it can only end (nothing consuming is left, or $). */
static void rest_first(const sl_item *it, int n, int j, sl_set *out, int *any) {
  memset(out, 0, sizeof *out);
  *any = 0;
  for (; j < n; j++) {
    if (it[j].kind == IT_ZERO) continue;
    if (it[j].kind == IT_END) return;
    if (it[j].kind == IT_ANY) {
      *any = 1;
      return;
    }
    set_or(out, &it[j].set);
    if (it[j].rep != '*' && it[j].rep != '-' && it[j].rep != '?') return; /* it must match here */
  }
}

/* The worst-case positions string.find/match/gmatch/gsub may visit on an n-byte subject. */
static double pattern_worst(const char *p, size_t pn, double n) {
  sl_item it[256];
  int k = pattern_items(p, pn, it, 256), over = 0, disj = 0, opt = 0;
  if (k < 0) { /* too long to read item by item: every repetition a factor of n */
    for (size_t i = 1; i < pn; i++) over += p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?';
    k = 0;
  }
  for (int i = 0; i < k; i++) {
    if (!it[i].rep) continue;
    sl_set f;
    int any;
    rest_first(it, k, i + 1, &f, &any);
    int more = 0; /* anything consuming after it: else it takes its run once */
    for (int j = i + 1; j < k; j++) more |= it[j].kind == IT_CHAR || it[j].kind == IT_ANY;
    if (!more) continue;
    if (it[i].rep == '?') opt++;
    else if (any || set_meets(&it[i].set, &f)) over++;
    else disj = 1;
  }
  double w = pow(n + 1, over) * (disj ? n + 1 : 1) * pow(2, opt);
  return pn && p[0] == '^' ? w : w * (n + 1);
}

static int sb_pattern(lua_State *L) {
  space *s = *(space **)lua_getextraspace(L);
  const char *name = lua_tostring(L, lua_upvalueindex(2));
  size_t n = 0, pn = 0;
  const char *subj = lua_tolstring(L, 1, &n), *pat = lua_tolstring(L, 2, &pn);
  int plain = !strcmp(name, "find") && lua_toboolean(L, 4);
  if (subj && pat && !plain) {
    double worst = pattern_worst(pat, pn, (double)n);
    if (worst > s->instr_max) {
      char msg[600];
      snprintf(msg, sizeof msg,
               "string.%s: the pattern \"%.80s\" on a subject of %zu bytes could backtrack through "
               "~%.2g positions (repetitions followed by more pattern that may match what they do), over the "
               "limit of %.3g per call (CUTUNE_LUA_INSTRUCTIONS); use a simpler pattern or a shorter subject",
               name, pat, n, worst, s->instr_max);
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
