/* space_read: the typed readers the parsers of a space file share (space_parse.c,
 * space_parse_params.c, space_parse_args.c): messages that start with the user's file:line,
 * what a value was ("string \"abc\"", "empty table"), allow-lists of keys, sequences, strings
 * and values (constants, functions, size expressions). Private to tuner/space/. */
#ifndef CUTUNE_SPACE_READ_H
#define CUTUNE_SPACE_READ_H

#include "space_int.h"

typedef struct where {
  const char *file;
  int line;
} where;

/* Fill err with "file:line: message" (no line: "file: message"); returns -1. */
__attribute__((format(printf, 3, 4))) int sp_perr(cterr *err, where w, const char *fmt, ...);
/* "string \"abc\"", "number 1.5", "empty table", "boolean": what a value was, for messages */
const char *sp_got(lua_State *L, int idx, char *buf, size_t n);
#define GOT(idx) sp_got(L, (idx), gbuf, sizeof gbuf)
int sp_is_ident(const char *s);
/* A kernel named as C++ does it, for NVRTC's name expressions: "k", "ns::k", "k<TILE, 4>". */
int sp_is_cxx_name(const char *k);
/* The tag (`__ct`) of a table built by the prelude's constructors, or NULL. */
const char *sp_tag_of(lua_State *L, int idx);
/* Where a tagged table (ct.param etc.) was built; where a function was defined (else dflt). */
where sp_tagged_where(space *s, lua_State *L, int idx);
where sp_func_where(space *s, lua_State *L, int idx, where dflt);
/* Allow-list of keys of a named table; the message names the first stranger. */
int sp_check_keys(lua_State *L, int idx, const char *const *allowed, const char *what, where w, cterr *err);
/* Length of a proper sequence 1..n with no other keys, or -1. */
int sp_seq_len(lua_State *L, int idx);
int sp_get_string(lua_State *L, int t, const char *key, char **out, int required, const char *what, where w,
                  cterr *err);
/* An optional integer >= 0 (a float with an integer value counts): *out is left as it was when
 * t has no such key. "what.key must be an integer >= 0 (got number 1.5)". */
int sp_get_count(lua_State *L, int t, const char *key, int64_t *out, const char *what, where w, cterr *err);
/* A value given as a function, a number, a list of up to maxcon numbers (maxcon > 1), or
 * (expr) a string compiled once as a Lua expression over the problem's sizes. */
int sp_read_value(space *s, lua_State *L, int idx, sp_value *v, int maxcon, int expr, const char *what, where w,
                  cterr *err);
int sp_get_value(space *s, lua_State *L, int t, const char *key, sp_value *v, int required, int maxcon, int expr,
                 const char *what, where w, cterr *err);

/* space_data.c (space_int.h): the data options of a buffer or a symbol, and the data made. */
int sp_data_opts(space *s, lua_State *L, int o, sp_value *values, char **path, int *given, const char *what,
                 const char *owhat, where w, cterr *err);
int sp_data_make(space *s, int prob, const sp_value *values, const char *path, elemtype t, int64_t max, int stream,
                 const char *what, const char *file, int line, dbuf *out, int64_t *n, cterr *err);

/* The parsers of the top-level keys, t the spec table (space_parse_params.c, space_parse_args.c). */
/* space_types.c: an output's atol or rtol (k: 0 or 1) given per element type, the table at idx
 * ({half = 1e-2, float = 1e-5, double = 1e-12}), into a->tbound[k]. */
int space_types_bounds(lua_State *L, int idx, sp_arg *a, int k, const char *owhat, where w, cterr *err);
int sp_parse_params(space *s, lua_State *L, int t, cterr *err);
int sp_parse_constraints(space *s, lua_State *L, int t, cterr *err);
int sp_parse_problems(space *s, lua_State *L, int t, cterr *err);
int sp_parse_args(space *s, lua_State *L, int t, cterr *err);

#endif
