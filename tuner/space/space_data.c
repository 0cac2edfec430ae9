/* space_data: data a space gives for a buffer argument (ct.input, ct.inout) or a symbol
 * (ct.symbol), instead of the seeded fill:
 *
 *   values = {...}        a Lua list of numbers (nested lists flattened: {{x, y}, ...});
 *   values = function(n)  one such list per problem, run in the sandbox under the space's limits
 *                         (one entry of the load), math.random seeded per (argument, problem);
 *   file = "x.npy"        a .npy array (its dtype converted), or raw bytes of the type for any
 *                         other name, found as a template is.
 *
 * Every number is converted to the element type here, at load, so that a bad list, a file that
 * does not parse or a count that disagrees is a file:line error before anything runs. The bytes
 * of a buffer travel to the GPU worker in the problem's setup (gpu.h, gpu_problem.argdata), after
 * the symbols' data, and replace its seeded fill there. A list or a file is the same on every
 * problem: it is made once (the argument's) and its count checked per problem; a function's
 * data is the problem's own. The data's digest is part of the problem's check hash
 * (engine/job_check.c), so records measured on other data never answer. */
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "space_read.h"

/* v as the bytes of one element of type t at out */
static void put_elem(elemtype t, double v, unsigned char *out) {
  switch (t) {
  case EL_F32: {
    float f = (float)v;
    memcpy(out, &f, 4);
    break;
  }
  case EL_F64: memcpy(out, &v, 8); break;
  case EL_I32: {
    int32_t x = (int32_t)v;
    memcpy(out, &x, 4);
    break;
  }
  case EL_U32: {
    uint32_t x = (uint32_t)v;
    memcpy(out, &x, 4);
    break;
  }
  case EL_I64: {
    int64_t x = (int64_t)v;
    memcpy(out, &x, 8);
    break;
  }
  case EL_U8: out[0] = (unsigned char)v; break;
  case EL_F16: { /* through float: round to nearest half by the float's top bits */
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int e = (int)((x >> 23) & 0xff) - 127 + 15;
    uint16_t h = e >= 31  ? (uint16_t)(sign | 0x7c00u)
                 : e <= 0 ? (uint16_t)sign
                          : (uint16_t)(sign | ((uint32_t)e << 10) | ((mant + 0x1000u) >> 13));
    memcpy(out, &h, 2);
    break;
  }
  case EL_BF16: { /* the float's top half, rounded to nearest even (NaN kept a NaN) */
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t h = (x & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((x >> 16) | 0x40u)
                                                 : (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
    memcpy(out, &h, 2);
    break;
  }
  default: break;
  }
}

/* Append the numbers of the table at idx (nested tables flattened, depth <= 4) to out, at most
 * max bytes. */
static int flatten(lua_State *L, int idx, elemtype t, int depth, int64_t max, dbuf *out, int64_t *n) {
  idx = lua_absindex(L, idx);
  lua_Integer len = (lua_Integer)lua_rawlen(L, idx);
  int es = elemtype_size(t);
  for (lua_Integer i = 1; i <= len; i++) {
    int ty = lua_rawgeti(L, idx, i);
    if (ty == LUA_TNUMBER) {
      unsigned char b[8];
      put_elem(t, lua_tonumber(L, -1), b);
      dbuf_append(out, b, (size_t)es);
      (*n)++;
    } else if (ty != LUA_TTABLE || depth >= 4 || flatten(L, -1, t, depth + 1, max, out, n) < 0) {
      lua_pop(L, 1);
      return -1;
    }
    lua_pop(L, 1);
    if ((int64_t)out->len > max) return -1;
  }
  return 0;
}

/* A .npy file's dtype ('<f4', '<i4', ...) and data offset: 0, or -1 with why filled. */
static int npy_header(const dbuf *f, char *kind, int *size, size_t *off, const char **why) {
  const unsigned char *p = (const unsigned char *)f->data;
  if (f->len < 10 || memcmp(p, "\x93NUMPY", 6)) return *why = "not a .npy file (no \\x93NUMPY magic)", -1;
  size_t hl = p[6] == 1      ? (size_t)p[8] | (size_t)p[9] << 8
              : 12 <= f->len ? (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24
                             : 0;
  size_t start = p[6] == 1 ? 10 : 12;
  if (!hl || start + hl > f->len) return *why = "a .npy header that runs past the file", -1;
  char *h = xasprintf("%.*s", (int)hl, f->data + start);
  const char *d = strstr(h, "'descr':");
  char order = 0;
  if (d && sscanf(d, "'descr': '%c%c%d'", &order, kind, size) == 3 && (order == '<' || order == '|' || order == '=') &&
      !strstr(h, "'fortran_order': True"))
    *off = start + hl;
  else *why = "a .npy dtype other than little-endian numbers in C order";
  free(h);
  return *off ? 0 : -1;
}

/* The elements of file path as type t into out (empty on entry). A raw file is taken as it is
 * (its buffer handed over, not copied); a .npy is converted element by element. */
static int file_data(const char *path, elemtype t, int64_t max, const char *what, const char *file, int line, dbuf *out,
                     int64_t *n, cterr *err) {
  dbuf f;
  dbuf_init(&f);
  cterr e;
  int rc = -1, es = elemtype_size(t);
  if (input_read(path, "data file", input_data_max(), 0, &f, &e) < 0) {
    cterr_set(err, "%s:%d: %s: %s", file, line, what, e.msg);
    goto done;
  }
  size_t plen = strlen(path);
  if (plen > 4 && !strcmp(path + plen - 4, ".npy")) {
    char kind = 0;
    int size = 0;
    size_t off = 0;
    const char *why = NULL;
    if (npy_header(&f, &kind, &size, &off, &why) < 0 ||
        !((kind == 'f' && (size == 4 || size == 8)) ||
          ((kind == 'i' || kind == 'u') && (size == 1 || size == 4 || size == 8)))) {
      cterr_set(err, "%s:%d: %s: %s: %s", file, line, what, path,
                why ? why : "a dtype other than f4, f8, i1/i4/i8 or u1/u4/u8");
      goto done;
    }
    size_t count = (f.len - off) / (size_t)size;
    if ((int64_t)(count * (size_t)es) > max) {
      cterr_set(err, "%s:%d: %s: %s holds %zu elements, %zu bytes as %s: more than %lld", file, line, what, path, count,
                count * (size_t)es, elemtype_name(t), (long long)max);
      goto done;
    }
    for (size_t at = off; at + (size_t)size <= f.len; at += (size_t)size) {
      double v = 0;
      const char *q = f.data + at;
      if (kind == 'f' && size == 4) {
        float x;
        memcpy(&x, q, 4);
        v = x;
      } else if (kind == 'f') memcpy(&v, q, 8);
      else if (size == 1) v = kind == 'i' ? (double)(int8_t)q[0] : (double)(uint8_t)q[0];
      else if (size == 4) {
        int32_t x;
        uint32_t u;
        memcpy(&x, q, 4);
        memcpy(&u, q, 4);
        v = kind == 'i' ? (double)x : (double)u;
      } else {
        int64_t x;
        memcpy(&x, q, 8);
        v = (double)x;
      }
      unsigned char b[8];
      put_elem(t, v, b);
      dbuf_append(out, b, (size_t)es);
      (*n)++;
    }
  } else {
    if (f.len % (size_t)es) {
      cterr_set(err, "%s:%d: %s: %s holds %zu bytes, not a whole number of %s (%d bytes)", file, line, what, path,
                f.len, elemtype_name(t), es);
      goto done;
    }
    if ((int64_t)f.len > max) {
      cterr_set(err, "%s:%d: %s: %s holds %zu bytes, more than %lld", file, line, what, path, f.len, (long long)max);
      goto done;
    }
    *n = (int64_t)(f.len / (size_t)es);
    dbuf tmp = *out; /* hand the file's buffer over: a large file is not copied again */
    *out = f, f = tmp;
  }
  rc = 0;
done:
  dbuf_free(&f);
  return rc;
}

/* math.random seeded for one data function on one problem: the same data on every run and on
 * every rank of an MPI run (Lua seeds it from the clock otherwise). */
static void seed_random(lua_State *L, const char *key, int stream) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char *p = key; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "math") == LUA_TTABLE && lua_getfield(L, -1, "randomseed") == LUA_TFUNCTION) {
    lua_pushinteger(L, (lua_Integer)h);
    lua_pushinteger(L, stream + 1);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) lua_pop(L, 1);
  } else lua_pop(L, 1);
  lua_pop(L, 2);
}

int sp_data_opts(space *s, lua_State *L, int o, sp_value *values, char **path, int *given, const char *what,
                 const char *owhat, where w, cterr *err) {
  char gbuf[96];
  if (lua_getfield(L, o, "values") != LUA_TNIL) {
    (*given)++;
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pushvalue(L, -1);
      values->kind = SV_CONST; /* a table: its registry reference stands for the constant */
      values->ref = luaL_ref(L, LUA_REGISTRYINDEX);
      values->file = w.file, values->line = w.line;
    } else if (lua_type(L, -1) == LUA_TFUNCTION) {
      char *vwhat = xasprintf("%s values", what);
      int rc = sp_read_value(s, L, -1, values, 1, 0, vwhat, w, err);
      free(vwhat);
      if (rc < 0) return -1;
    } else
      return sp_perr(err, w, "%s: values must be a list of numbers or function(n) returning one (got %s)", owhat,
                     GOT(-1));
  }
  lua_pop(L, 1);
  char *str = NULL;
  if (sp_get_string(L, o, "file", &str, 0, owhat, w, err) < 0) return -1;
  if (str) {
    (*given)++;
    dbuf looked;
    dbuf_init(&looked);
    int rc = space_resolve(s, str, path, &looked);
    if (rc < 0) sp_perr(err, w, "%s: file '%s' not found (looked in %s)", owhat, str, looked.data);
    dbuf_free(&looked), free(str);
    if (rc < 0) return -1;
  }
  return 0;
}

int sp_data_make(space *s, int prob, const sp_value *values, const char *path, elemtype t, int64_t max, int stream,
                 const char *what, const char *file, int line, dbuf *out, int64_t *n, cterr *err) {
  lua_State *L = s->L;
  sp_problem *pr = &s->probs[prob];
  *n = 0;
  if (path) return file_data(path, t, max, what, file, line, out, n, err);
  lua_rawgeti(L, LUA_REGISTRYINDEX, values->ref);
  if (values->kind == SV_FUNC) {
    lua_createtable(L, 0, pr->nvars);
    for (int j = 0; j < pr->nvars; j++) lua_pushinteger(L, pr->vals[j]), lua_setfield(L, -2, pr->names[j]);
    seed_random(L, pr->key, stream);
    cterr e;
    if (space_pcall(s, 1, 1, &e) < 0)
      return cterr_set(err, "%s:%d: %s values on problem %s failed: %s", values->file, values->line, what, pr->key,
                       e.msg);
  }
  int bad = lua_type(L, -1) != LUA_TTABLE || flatten(L, -1, t, 0, max, out, n) < 0;
  lua_pop(L, 1);
  if (bad || *n == 0)
    return cterr_set(err,
                     "%s:%d: %s values on problem %s: expected a non-empty list of numbers "
                     "(lists of lists are flattened; at most %lld bytes)",
                     file, line, what, pr->key, (long long)max);
  return 0;
}

/* ---- buffer arguments ---- */

static void arg_what(const space *s, int i, char *buf, size_t n) {
  const sp_arg *a = &s->args[i];
  snprintf(buf, n, "args[%d] (ct.%s '%s')", i + 1, a->kind == ARG_INOUT ? "inout" : "input", a->name);
}

/* The 16-byte digest, in hex, of len bytes. */
static void digest(const void *p, size_t len, char out[33]) { sha256_hex(p, len, out, 16); }

int space_eval_arg_data(space *s, cterr *err) {
  int any = 0;
  for (int i = 0; i < s->nargs; i++) any |= s->args[i].data;
  if (!any) return 0;
  for (int prob = 0; prob < s->nproblems; prob++) {
    sp_problem *pr = &s->probs[prob];
    int64_t total = 0;
    dbuf h;
    dbuf_init(&h);
    dbuf_puts(&h, "cutune data 1\n");
    for (int i = 0; i < s->nargs; i++) {
      sp_arg *a = &s->args[i];
      if (!a->data) continue;
      char what[96];
      arg_what(s, i, what, sizeof what);
      if (a->per_config) {
        dbuf_free(&h);
        return cterr_set(err,
                         "%s:%d: %s: a buffer filled from data has one element count per problem (its count must "
                         "not read parameters)",
                         a->file, a->line, what);
      }
      const dbuf *d = &a->cdata;
      const char *dg = a->cdigest;
      int64_t have = a->ccount;
      if (a->values.kind == SV_FUNC) { /* the problem's own */
        if (!pr->argdata) pr->argdata = xcalloc((size_t)s->nargs, sizeof(dbuf));
        if (!pr->argdigest) pr->argdigest = xcalloc((size_t)s->nargs, 33);
        if (sp_data_make(s, prob, &a->values, NULL, a->type, SPACE_DATA_MAX, i, what, a->file, a->line, &pr->argdata[i],
                         &have, err) < 0) {
          dbuf_free(&h);
          return -1;
        }
        d = &pr->argdata[i];
        digest(d->data, d->len, pr->argdigest[i]);
        dg = pr->argdigest[i];
      } else if (!a->cdigest[0]) { /* a list or a file: made once */
        if (sp_data_make(s, prob, &a->values, a->path, a->type, SPACE_DATA_MAX, i, what, a->file, a->line, &a->cdata,
                         &a->ccount, err) < 0) {
          dbuf_free(&h);
          return -1;
        }
        digest(a->cdata.data, a->cdata.len, a->cdigest);
        have = a->ccount;
      }
      argspec *o = &pr->args[i];
      if (a->size.kind != SV_NONE && o->count != have) {
        dbuf_free(&h);
        return cterr_set(err, "%s:%d: %s on problem %s: the element count is %lld but the %s holds %lld", a->file,
                         a->line, what, pr->key, (long long)o->count, a->path ? "file" : "values", (long long)have);
      }
      o->count = have;
      total += (int64_t)d->len;
      if (total > SPACE_DATA_MAX) {
        dbuf_free(&h);
        return cterr_set(err,
                         "%s:%d: %s on problem %s: the problem's buffers filled from data hold %lld bytes, more than "
                         "%lld (they travel to the GPU worker in one setup)",
                         a->file, a->line, what, pr->key, (long long)total, (long long)SPACE_DATA_MAX);
      }
      dbuf_printf(&h, "arg %d type %s count %lld data %s\n", i, elemtype_name(a->type), (long long)have, dg);
    }
    digest(h.data, h.len, pr->datadigest);
    dbuf_free(&h);
  }
  return 0;
}

void space_arg_data_free(space *s) {
  for (int i = 0; i < s->nargs; i++) {
    free(s->args[i].path);
    free(s->args[i].values.text);
    dbuf_free(&s->args[i].cdata);
  }
  for (int p = 0; p < s->nproblems; p++) {
    sp_problem *pr = &s->probs[p];
    for (int i = 0; pr->argdata && i < s->nargs; i++) dbuf_free(&pr->argdata[i]);
    free(pr->argdata), free(pr->argdigest);
    pr->argdata = NULL, pr->argdigest = NULL;
  }
}

const void *space_arg_data(const space *s, int prob, int i, size_t *len) {
  *len = 0;
  if (prob < 0 || prob >= s->nproblems || i < 0 || i >= s->nargs || !s->args[i].data) return NULL;
  const dbuf *d = s->args[i].values.kind == SV_FUNC ? &s->probs[prob].argdata[i] : &s->args[i].cdata;
  *len = d->len;
  return d->data;
}

const char *space_data_digest(const space *s, int prob) {
  return prob >= 0 && prob < s->nproblems ? s->probs[prob].datadigest : "";
}
