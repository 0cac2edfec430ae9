/* compile_source: a template and every file it #includes, read and hashed once per run.
 *
 * NVRTC resolves `#include "x.h"` in the directory of the including file first (for the
 * template: the directory of the program name cutune gives it, the template's path), then
 * in the -I folders in the order they are given; `#include <x.h>` in the -I folders only
 * (plus NVRTC's built-in headers, which are part of its version). cutune gives NVRTC the
 * toolkit's include folder first (compile_toolkit_include_dir), then the space's options, then
 * the toolkit's CCCL folder (compile_toolkit_cccl_dir).
 * This unit follows the same rules, transitively, so that a header edit changes the digest,
 * and with it the compile-cache key and the store's template hash.
 *
 * The scan is deliberately conservative: every #include line counts, whatever #if it sits
 * under (a header that is hashed and not used costs a recompile, never a stale result); a
 * name that resolves nowhere is hashed as absent (creating it later changes the digest); an
 * #include of a macro cannot be followed and is noted in `unresolved`. What is hashed is the
 * bytes of each file and each #include name as written, not the folders they live in. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#include "base/input.h"

#define SOURCE_MAX_FILES 4096
#define SOURCE_MAX_BYTES (256u << 20)

typedef struct scan {
  compile_source *cs;
  const char **incdirs;
  int nincdirs;
  size_t bytes;
  sha256_ctx h;
} scan;

static void hash_str(sha256_ctx *c, const char *s, size_t n) {
  char len[32];
  int k = snprintf(len, sizeof len, "%zu:", n);
  sha256_update(c, len, (size_t)k);
  sha256_update(c, s, n);
}

/* index of path among the files read so far, or -1 */
static int seen(const compile_source *cs, const char *path) {
  for (int i = 0; i < cs->nfiles; i++)
    if (!strcmp(cs->files[i], path)) return i;
  return -1;
}

/* Where NVRTC would find `name` included from `from_dir` (NULL for <...>); NULL if nowhere. */
static char *resolve(const scan *sc, const char *from_dir, const char *name) {
  if (name[0] == '/') return file_exists(name) ? xstrdup(name) : NULL;
  if (from_dir) {
    char *p = path_join(from_dir, name);
    if (file_exists(p)) return p;
    free(p);
  }
  for (int i = 0; i < sc->nincdirs; i++) {
    char *p = path_join(sc->incdirs[i], name);
    if (file_exists(p)) return p;
    free(p);
  }
  return NULL;
}

static int add_file(scan *sc, const char *path, const char *text, size_t len, cterr *err);

/* Each #include of text (included from the file at path), in order. */
static int scan_includes(scan *sc, const char *path, const char *text, size_t len, cterr *err) {
  char *dir = path_dirname(path);
  int rc = 0;
  const char *p = text, *end = text + len;
  size_t lineno = 1;
  while (p < end && rc == 0) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    const char *q = p;
    while (q < le && (*q == ' ' || *q == '\t')) q++;
    if (q < le && *q == '#') {
      q++;
      while (q < le && (*q == ' ' || *q == '\t')) q++;
      if (le - q > 7 && !strncmp(q, "include", 7)) {
        q += 7;
        while (q < le && (*q == ' ' || *q == '\t')) q++;
        char close = q < le && *q == '"' ? '"' : q < le && *q == '<' ? '>' : 0;
        const char *e = close ? memchr(q + 1, close, (size_t)(le - q - 1)) : NULL;
        if (!e) {
          sc->cs->unresolved++; /* #include MACRO: cannot be followed here */
        } else {
          char *name = xmalloc((size_t)(e - q));
          memcpy(name, q + 1, (size_t)(e - q - 1));
          name[e - q - 1] = 0;
          char *found = resolve(sc, close == '"' ? dir : NULL, name);
          sha256_update(&sc->h, close == '"' ? "q" : "a", 1);
          hash_str(&sc->h, name, strlen(name));
          if (!found) {
            sha256_update(&sc->h, "-", 1); /* absent: creating it later changes the digest */
            sc->cs->absent++;
          } else if (seen(sc->cs, found) < 0) {
            dbuf b;
            dbuf_init(&b);
            if (input_read(found, "included file", INPUT_SOURCE_MAX, 0, &b, err) != 0) {
              rc = cterr_wrap(err, "%s:%zu: #include \"%s\"", path, lineno, name);
            } else {
              sha256_update(&sc->h, "+", 1);
              rc = add_file(sc, found, b.data ? b.data : "", b.len, err);
            }
            dbuf_free(&b);
          } else {
            char idx[16]; /* already hashed (include guards, diamonds): which one */
            snprintf(idx, sizeof idx, "=%d", seen(sc->cs, found));
            hash_str(&sc->h, idx, strlen(idx));
          }
          free(found);
          free(name);
        }
      }
    }
    p = le + 1;
    lineno++;
  }
  free(dir);
  return rc;
}

static int add_file(scan *sc, const char *path, const char *text, size_t len, cterr *err) {
  compile_source *cs = sc->cs;
  if (cs->nfiles >= SOURCE_MAX_FILES)
    return cterr_set(err, "%s: more than %d files included (transitively); is there an include loop?", cs->path,
                     SOURCE_MAX_FILES);
  sc->bytes += len;
  if (sc->bytes > SOURCE_MAX_BYTES)
    return cterr_set(err, "%s: the template and its includes exceed %u MB", cs->path, SOURCE_MAX_BYTES >> 20);
  cs->files = xrealloc(cs->files, (size_t)(cs->nfiles + 1) * sizeof *cs->files);
  cs->files[cs->nfiles++] = xstrdup(path);
  /* the bytes and the names as written, not where the files live: a moved checkout keeps
   * its digests */
  hash_str(&sc->h, text, len);
  return scan_includes(sc, path, text, len, err);
}

/* The folders of -I/--include-path options, in order; arguments are taken from opts. */
static int include_dirs(int nopts, const char *const *opts, const char **out, int max) {
  int n = 0;
  const char *tk = compile_toolkit_include_dir();
  if (tk && n < max) out[n++] = tk; /* compile_now passes it before the job's options */
  for (int i = 0; i < nopts && n < max; i++) {
    const char *o = opts[i];
    if (!strcmp(o, "-I") || !strcmp(o, "--include-path")) {
      if (i + 1 < nopts) out[n++] = opts[++i];
    } else if (!strncmp(o, "-I", 2)) {
      out[n++] = o + 2;
    } else if (!strncmp(o, "--include-path=", 15)) {
      out[n++] = o + 15;
    }
  }
  const char *cccl = compile_toolkit_cccl_dir();
  if (cccl && n < max) out[n++] = cccl; /* compile_now passes it after the job's options */
  return n;
}

void compile_source_init(compile_source *cs) {
  memset(cs, 0, sizeof *cs);
  dbuf_init(&cs->text);
}

void compile_source_free(compile_source *cs) {
  if (!cs) return;
  for (int i = 0; i < cs->nfiles; i++) free(cs->files[i]);
  free(cs->files);
  free(cs->path);
  dbuf_free(&cs->text);
  compile_source_init(cs);
}

int compile_source_load(compile_source *cs, const char *path, int nopts, const char *const *opts, cterr *err) {
  compile_source_init(cs);
  cs->path = xstrdup(path);
  if (input_read(path, "template", INPUT_SOURCE_MAX, 0, &cs->text, err) != 0) goto fail;
  const char *incdirs[COMPILE_MAX_OPTS + 1];
  scan sc = {.cs = cs, .incdirs = incdirs, .nincdirs = include_dirs(nopts, opts, incdirs, COMPILE_MAX_OPTS + 1)};
  sha256_init(&sc.h);
  sha256_update(&sc.h, "cutune-source-v1", 17);
  /* --pre-include files reach NVRTC before the template */
  for (int i = 0; i < nopts; i++) {
    const char *name = NULL;
    if (!strncmp(opts[i], "--pre-include=", 14)) name = opts[i] + 14;
    else if ((!strcmp(opts[i], "-include") || !strcmp(opts[i], "--pre-include")) && i + 1 < nopts) name = opts[++i];
    if (!name) continue;
    char *found = resolve(&sc, NULL, name);
    hash_str(&sc.h, name, strlen(name));
    if (found) {
      dbuf b;
      dbuf_init(&b);
      int rc = input_read(found, "pre-included file", INPUT_SOURCE_MAX, 0, &b, err) != 0
                   ? -1
                   : add_file(&sc, found, b.data ? b.data : "", b.len, err);
      dbuf_free(&b);
      free(found);
      if (rc) goto fail;
    } else {
      cs->absent++;
    }
  }
  if (add_file(&sc, path, cs->text.data ? cs->text.data : "", cs->text.len, err) != 0) goto fail;
  uint8_t d[32];
  sha256_final(&sc.h, d);
  if (cs->nfiles == 1 && cs->absent == 0 && cs->unresolved == 0)
    /* a template that includes nothing hashes as its own bytes, as before includes counted,
     * so that stores recorded then still answer for it */
    sha256_hex(cs->text.data ? cs->text.data : "", cs->text.len, cs->digest, 32);
  else hex_encode(d, 32, cs->digest);
  cs->digest[64] = 0;
  return 0;
fail:
  compile_source_free(cs);
  return -1;
}
