/* compile_hint: a note for a failed compile whose cause the compiler's own message hides.
 *
 * A space's compile-time parameters reach the program as macros (-DBLOCK=128). A C++ template
 * of the program with a parameter of the same name (`template <int BLOCK> __global__ void k()`)
 * then reads `template <int 128>`, and NVRTC says only `expected a "," or ">"` at that line.
 * When a compile fails, compile_hint_macro_clash looks for such a name: one of the job's -D
 * names declared as a template parameter (a name after a type or `typename`/`class` inside
 * `template <...>`), and names it with its line. Comments and string literals are skipped. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compile_int.h"

/* The -D option's name ("-DBLOCK=128" -> "BLOCK"), into out; 0 when o is not one. */
static int define_name(const char *o, char *out, size_t cap) {
  if (strncmp(o, "-D", 2) != 0) return 0;
  size_t n = strcspn(o + 2, "=");
  if (n == 0 || n >= cap) return 0;
  memcpy(out, o + 2, n);
  out[n] = 0;
  return 1;
}

/* p past a comment or a string/char literal starting at p (unchanged when none starts there);
 * *line counts the newlines passed. */
static const char *skip_noise(const char *p, int *line) {
  if (p[0] == '/' && p[1] == '/') {
    while (*p && *p != '\n') p++;
  } else if (p[0] == '/' && p[1] == '*') {
    for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++) *line += *p == '\n';
    if (*p) p += 2;
  } else if (*p == '"' || *p == '\'') {
    char q = *p++;
    for (; *p && *p != q && *p != '\n'; p++)
      if (*p == '\\' && p[1]) p++;
    if (*p == q) p++;
  }
  return p;
}

static int ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* In src, the line of the first template parameter named name, or 0. A "#line N" directive on
 * the first line (a template_var string's program) is taken into account. */
static int clash_line(const char *src, const char *name) {
  int line = 1;
  const char *p = src;
  if (!strncmp(p, "#line ", 6)) {
    int n = atoi(p + 6);
    const char *nl = strchr(p, '\n');
    if (n > 0 && nl) line = n, p = nl + 1;
  }
  size_t nlen = strlen(name);
  while (*p) {
    const char *q = skip_noise(p, &line);
    if (q != p) {
      p = q;
      continue;
    }
    if (*p == '\n') {
      line++, p++;
      continue;
    }
    if (!ident_start(*p) || (p > src && ident_char(p[-1]))) {
      p++;
      continue;
    }
    const char *w = p;
    while (ident_char(*p)) p++;
    if (p - w != 8 || strncmp(w, "template", 8) != 0) continue;
    const char *a = p;
    int al = line;
    while (*a == ' ' || *a == '\t' || *a == '\n') al += *a++ == '\n';
    if (*a != '<') continue;
    /* the parameter list: identifiers at depth 1, each after another identifier (its type),
     * outside a default argument (from '=' to the next ',' at depth 1: a use, not a name) */
    int depth = 0, prev_ident = 0, in_default = 0;
    for (; *a; a++) {
      const char *s = skip_noise(a, &al);
      if (s != a) {
        a = s - 1;
        continue;
      }
      if (*a == '\n') al++;
      if (*a == '<' || *a == '(') depth++, prev_ident = 0;
      else if (*a == '>' || *a == ')') {
        if (--depth == 0) break;
        prev_ident = 0;
      } else if (ident_start(*a)) {
        const char *b = a;
        while (ident_char(a[1])) a++;
        size_t bl = (size_t)(a - b) + 1;
        if (depth == 1 && !in_default && prev_ident && bl == nlen && !strncmp(b, name, nlen)) return al;
        prev_ident = 1;
      } else if (*a == ',' || *a == '=') {
        if (depth == 1) in_default = *a == '=';
        prev_ident = 0;
      } else if (!isspace((unsigned char)*a) && *a != '&' && *a != '*') {
        prev_ident = 0; /* ':' and '.' too: std::size_t sets it again with its last name */
      }
    }
  }
  return 0;
}

void compile_hint_macro_clash(dbuf *msg, const compile_job *job) {
  if (!job->src) return;
  for (int i = 0; i < job->nopts; i++) {
    char name[128];
    if (!define_name(job->opts[i], name, sizeof name)) continue;
    int line = clash_line(job->src, name);
    if (line > 0) {
      dbuf_printf(msg,
                  " (note: %s is a parameter of the space, given to the program as the macro -D%s, and a template "
                  "parameter of %s at line %d: the macro replaces that name; rename one of them. A template takes "
                  "the space's value by name: kernel = \"k<%s>\", docs/SPACE.md, C++ kernels)",
                  name, name, job->src_path ? job->src_path : "the program", line, name);
      return;
    }
  }
}
