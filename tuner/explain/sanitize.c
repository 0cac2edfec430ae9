/* sanitize: compute-sanitizer command lines and verdicts (see sanitize.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

static const char *const tool_names[SAN_NTOOLS] = {"memcheck", "racecheck", "initcheck"};
static const char *const status_names[] = {"clean", "flagged", "error"};

const char *san_tool_name(san_tool t) { return t < SAN_NTOOLS ? tool_names[t] : "?"; }
int san_tool_parse(const char *s) {
  for (int i = 0; i < SAN_NTOOLS; i++)
    if (!strcmp(s, tool_names[i])) return i;
  return -1;
}
const char *san_status_name(san_status s) { return s <= SAN_ERROR ? status_names[s] : "?"; }
int san_status_parse(const char *s) {
  for (int i = 0; i <= SAN_ERROR; i++)
    if (!strcmp(s, status_names[i])) return i;
  return -1;
}

int san_options(san_tool t, const char **argv, int max) {
  const char *o[12];
  int n = 0;
  o[n++] = "--tool";
  o[n++] = san_tool_name(t);
  o[n++] = "--error-exitcode";
  o[n++] = "99"; /* SAN_EXIT_FLAGGED */
  o[n++] = "--target-processes";
  o[n++] = "all"; /* the GPU worker is a child of the profiled cutune process */
  o[n++] = "--print-limit";
  o[n++] = "20";
  if (t == SAN_RACECHECK) o[n++] = "--racecheck-report", o[n++] = "hazard";
  int k = n < max ? n : max;
  memcpy(argv, o, (size_t)k * sizeof *argv);
  return k;
}

/* The text after "========= " on a line, trimmed. */
static void line_body(const char *l, size_t n, char *out, size_t cap) {
  while (n && (*l == '=' || *l == ' ')) l++, n--;
  while (n && (l[n - 1] == ' ' || l[n - 1] == '\r')) n--;
  snprintf(out, cap, "%.*s", (int)n, l);
}

void san_parse(san_tool t, const char *text, int exit_status, san_verdict *v) {
  memset(v, 0, sizeof *v);
  v->tool = t;
  v->status = SAN_ERROR;
  v->errors = -1;
  if (!text) text = "";
  /* memcheck/initcheck: "ERROR SUMMARY: 2 errors"; racecheck: "RACECHECK SUMMARY: 1 hazard
   * displayed (0 errors, 1 warning)"; the last summary of the output counts (one per process:
   * a sum over them) */
  long total = 0;
  int seen = 0;
  for (const char *p = text; (p = strstr(p, "SUMMARY: ")); p += 9) {
    const char *q = p + 9;
    long a = 0, e = 0, w = 0;
    if (p >= text + 10 && !strncmp(p - 10, "RACECHECK", 9)) {
      if (sscanf(q, "%ld hazard%*[^(](%ld error%*[^,], %ld warning", &a, &e, &w) >= 1) {
        seen = 1;
        total += (e + w) > a ? e + w : a;
      }
    } else if (sscanf(q, "%ld error", &e) == 1 &&
               strncmp(strchr(q, ' ') ? strchr(q, ' ') : q, " errors were not", 16)) {
      seen = 1;
      total += e;
    }
  }
  /* the first finding: the first "=========" line after the banner that is not a frame */
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 10 && !strncmp(p, "=========", 9)) {
      char body[400];
      line_body(p, len, body, sizeof body);
      int frame = !strncmp(body, "at ", 3) || !strncmp(body, "by thread", 9) || !strncmp(body, "Host Frame", 10) ||
                  !strncmp(body, "Saved host", 10) || !strncmp(body, "Address", 7) || !strncmp(body, "and ", 4) ||
                  !strncmp(body, "Access", 6);
      if (body[0] && !frame && strncmp(body, "COMPUTE-SANITIZER", 17) && !strstr(body, "SUMMARY") && !v->finding[0]) {
        snprintf(v->finding, sizeof v->finding, "%s", body);
        /* add the location line that follows ("at planted_oob+0x100 in faulty.cu:14") */
        if (e) {
          const char *n2 = e + 1, *e2 = strchr(n2, '\n');
          size_t l2 = e2 ? (size_t)(e2 - n2) : strlen(n2);
          char b2[300];
          line_body(n2, l2, b2, sizeof b2);
          if (!strncmp(b2, "at ", 3) || !strncmp(b2, "and ", 4)) {
            size_t fl = strlen(v->finding);
            snprintf(v->finding + fl, sizeof v->finding - fl, " %s", b2);
          }
        }
      }
    }
    if (!e) break;
    p = e + 1;
  }
  if (seen) {
    v->errors = total;
    v->status = total > 0 || exit_status == SAN_EXIT_FLAGGED ? SAN_FLAGGED : SAN_CLEAN;
  } else if (exit_status == SAN_EXIT_FLAGGED) {
    v->status = SAN_FLAGGED;
  }
  if (v->status == SAN_ERROR && !v->finding[0])
    snprintf(v->finding, sizeof v->finding, "no %s summary in the tool's output (exit status %d)", san_tool_name(t),
             exit_status);
  if (v->status == SAN_CLEAN) v->finding[0] = 0;
}
