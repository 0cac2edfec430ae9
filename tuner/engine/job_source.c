/* job_source: the program's text as every compile of a run gets it (job.h): the template and its
 * includes read and hashed once, a Python string taken out of a script (template_var), the
 * space's template_edit applied (once per run; or per program, a generator taking p:
 * job_edit_text), and #line directives where the text's lines are not the file's own; the
 * store's template hash of it. */
#include "job.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A digest (64 hex) extended by what else made its text (a name, an edited text). */
static void digest_chain(char digest[65], const char *what, size_t n) {
  sha256_ctx c;
  uint8_t d[32];
  sha256_init(&c);
  sha256_update(&c, digest, strlen(digest));
  sha256_update(&c, what, n);
  sha256_final(&c, d);
  hex_encode(d, 32, digest);
  digest[64] = 0;
}
static void digest_add(compile_source *src, const char *what, size_t n) { digest_chain(src->digest, what, n); }

/* template_var: the text of `var = """..."""` (or ''', r-prefixed too; or the argument of a call,
 * `var = Template("""...""")`, `textwrap.dedent(...)`) in the file, in place of the whole file;
 * the digest covers the file's and the name. *first: the file's line the string starts on. */
static int extract_python_string(const space *s, compile_source *src, int *first, cterr *err) {
  const char *var = space_template_var(s), *t = src->text.data ? src->text.data : "";
  size_t vl = strlen(var);
  for (const char *p = strstr(t, var); p; p = strstr(p + 1, var)) {
    if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    const char *q = p + vl;
    while (*q == ' ' || *q == '\t') q++;
    if (*q++ != '=') continue;
    while (*q == ' ' || *q == '\t') q++;
    const char *call = q; /* a call around the literal: Template( ... ), textwrap.dedent( ... ) */
    while (isalnum((unsigned char)*call) || *call == '_' || *call == '.') call++;
    if (call > q && *call == '(') q = call + 1;
    if (*q == 'r' || *q == 'R') q++;
    if (strncmp(q, "\"\"\"", 3) && strncmp(q, "'''", 3)) continue;
    char quote[4] = {q[0], q[0], q[0], 0};
    const char *end = strstr(q + 3, quote);
    if (!end) break;
    *first = 1;
    for (const char *c = t; c < q + 3; c++) *first += *c == '\n';
    char *text = xasprintf("%.*s", (int)(end - q - 3), q + 3);
    digest_add(src, var, vl + 1);
    dbuf_reset(&src->text);
    dbuf_puts(&src->text, text);
    free(text);
    return 0;
  }
  return cterr_set(err, "%s: no Python string %s = \"\"\"...\"\"\" in %s (template_var)", space_path(s), var,
                   space_template_path(s));
}

static int count_lines(const char *t) {
  int n = 1;
  for (; *t; t++) n += *t == '\n';
  return n;
}

/* The start of the line that ends at end (its '\n' or the text's end) in text t. */
static const char *line_start(const char *t, const char *end) {
  while (end > t && end[-1] != '\n') end--;
  return end;
}

/* Whether the line that ends just before the line starting at p (p > t) is continued by a
 * backslash: a directive cannot go between the two. */
static int continued(const char *t, const char *p) {
  const char *e = p - 1; /* its '\n' */
  if (e > t && e[-1] == '\r') e--;
  return e > t && e[-1] == '\\';
}

/* #line directives in the program's text (*text, made from `given`, whose first line is line
 * `first` of the template file) so that NVRTC's messages, and -lineinfo's line table that
 * `cutune explain`'s profilers read, give the file's own line numbers: a template_var string
 * starts at its line of the script, not at line 1, and a template_edit that adds or removes
 * lines shifts what follows. The directives name no file (the program's name, the template's
 * path, stays), so the text does not depend on where the space is run from, and they stay out of
 * the digest: the file, the variable's name and the edited text already decide them.
 *
 * An edit that keeps the number of lines (placeholders replaced within their lines) maps every
 * line exactly. One that does not is mapped by the lines its result shares with the given text
 * at the start and at the end: the lines it adds at the start or the end, or before a common
 * tail, are numbered as the line they stand at, and the common tail as its own (a second
 * directive where it begins; not inside a backslash-continued line, where it would belong to the
 * macro). Lines inside a changed middle part are approximate. */
static void line_map(dbuf *text, const char *given, int first) {
  const char *t = text->data ? text->data : "";
  int nb = count_lines(given), na = count_lines(t);
  const char *tail = NULL; /* where the lines t shares with the end of given begin in t */
  int ntail = 0;
  if (na != nb) {
    const char *be = given + strlen(given), *ae = t + strlen(t);
    for (;;) {
      const char *b0 = line_start(given, be), *a0 = line_start(t, ae);
      if (be - b0 != ae - a0 || memcmp(b0, a0, (size_t)(be - b0))) break;
      tail = a0, ntail++;
      if (b0 == given || a0 == t) break;
      be = b0 - 1, ae = a0 - 1;
    }
    while (tail && tail > t && continued(t, tail)) {
      const char *nl = strchr(tail, '\n');
      tail = nl ? nl + 1 : NULL, ntail--;
      if (ntail == 0) tail = NULL;
    }
  }
  if (first == 1 && !tail) return; /* the file's own numbering */
  dbuf out;
  dbuf_init(&out);
  if (tail != t) dbuf_printf(&out, "#line %d\n", first);
  if (tail) {
    dbuf_append(&out, t, (size_t)(tail - t));
    dbuf_printf(&out, "#line %d\n", first + nb - ntail);
    dbuf_puts(&out, tail);
  } else dbuf_puts(&out, t);
  dbuf_reset(text);
  dbuf_append(text, out.data, out.len);
  dbuf_free(&out);
}

int job_load_source(const space *s, compile_source *src, cterr *err) {
  const char *opts[COMPILE_MAX_OPTS];
  int n = space_noptions(s), first = 1, rc = -1;
  if (n > COMPILE_MAX_OPTS) n = COMPILE_MAX_OPTS; /* job_make refuses more */
  for (int i = 0; i < n; i++) opts[i] = space_option(s, i);
  char *edited = NULL, *given = NULL;
  if (compile_source_load(src, space_template_path(s), n, opts, err) != 0) goto done;
  if (space_template_var(s) && extract_python_string(s, src, &first, err) != 0) goto done;
  src->first_line = first;
  if (space_edit_per_config(s)) {
    /* a generator: the text stays as given, each program's is made from it (job_edit_text); the
     * run's digest (the template hash) covers the function, not what it makes */
    char fd[65];
    space_edit_digest(s, fd);
    digest_add(src, "template_edit(p)", sizeof "template_edit(p)");
    digest_add(src, fd, 64);
    rc = 0;
    goto done;
  }
  given = xstrdup(src->text.data ? src->text.data : "");
  /* template_edit: the space's function makes the program's text */
  if (space_edit_template(s, given, &edited, err) != 0) goto done;
  if (edited) {
    digest_add(src, "template_edit", sizeof "template_edit");
    digest_add(src, edited, strlen(edited));
    dbuf_reset(&src->text);
    dbuf_puts(&src->text, edited);
  }
  line_map(&src->text, given, first);
  rc = 0;
done:
  free(edited), free(given);
  return rc;
}

int job_edit_text(const space *s, const compile_source *src, size_t cfg, int nd, const char *const *dn,
                  const char *const *dv, char **text, char digest[65], cterr *err) {
  const char *given = src->text.data ? src->text.data : "";
  char *made = NULL;
  *text = NULL;
  if (space_edit_program(s, given, cfg, nd, dn, dv, &made, err) != 0) return -1;
  memcpy(digest, src->digest, 65);
  digest_chain(digest, "template_edit(p)", sizeof "template_edit(p)");
  digest_chain(digest, made, strlen(made));
  dbuf t;
  dbuf_init(&t);
  dbuf_puts(&t, made);
  line_map(&t, given, src->first_line > 0 ? src->first_line : 1);
  free(made);
  *text = t.data ? t.data : xstrdup("");
  return 0;
}

void job_source_hash(const compile_source *src, char out[33]) {
  memcpy(out, src->digest, 32);
  out[32] = 0;
}

int job_template_hash(const space *s, char out[33], cterr *err) {
  compile_source src;
  compile_source_init(&src);
  int rc = job_load_source(s, &src, err);
  if (rc == 0) job_source_hash(&src, out);
  compile_source_free(&src);
  return rc;
}
