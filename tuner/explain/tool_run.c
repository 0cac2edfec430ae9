/* tool_run: external tools with captured output and a time limit (see tool_run.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/proc.h"
#include "tool_run.h"

static int executable(const char *p) { return p && access(p, X_OK) == 0; }

char *tool_find(const char *given, const char *name) {
  if (given) return executable(given) ? xstrdup(given) : NULL;
  const char *path = getenv("PATH");
  if (path) {
    char *copy = xstrdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
      char *c = path_join(*d ? d : ".", name);
      if (executable(c)) {
        free(copy);
        return c;
      }
      free(c);
    }
    free(copy);
  }
  const char *home = getenv("CUDA_HOME");
  const char *dirs[] = {"/usr/local/cuda/bin", home};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    if (!dirs[i]) continue;
    char *b = i == 1 ? path_join(dirs[i], "bin") : xstrdup(dirs[i]), *c = path_join(b, name);
    free(b);
    if (executable(c)) return c;
    free(c);
  }
  return NULL;
}

#define TOOL_OUT_MAX ((size_t)256 << 20)

int tool_run(char *const argv[], double timeout_s, dbuf *out, int *status, char *how, size_t howlen, cterr *err) {
  proc p;
  proc_init(&p);
  *status = -1;
  if (how && howlen) how[0] = 0;
  int e = proc_spawn(&p, argv[0], argv, 1);
  if (e) return cterr_set(err, "cannot start %s: %s", argv[0], strerror(e));
  close(p.to);
  p.to = -1;
  double t0 = now_seconds();
  int open_fds = 2, timed_out = 0;
  char buf[65536];
  while (open_fds > 0) {
    struct pollfd pf[2] = {{.fd = p.from, .events = POLLIN}, {.fd = p.err, .events = POLLIN}};
    int wait_ms = -1;
    if (timeout_s > 0) {
      double left = timeout_s - (now_seconds() - t0);
      if (left <= 0) {
        timed_out = 1;
        break;
      }
      wait_ms = (int)(left * 1000) + 1;
    }
    int r = poll(pf, 2, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    for (int i = 0; i < 2; i++) {
      if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(pf[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (out->len + (size_t)n <= TOOL_OUT_MAX) dbuf_append(out, buf, (size_t)n);
      } else if (n == 0 || errno != EINTR) {
        if (i == 0) close(p.from), p.from = -1;
        else close(p.err), p.err = -1;
        open_fds--;
      }
    }
  }
  char h[256];
  if (timed_out) kill(-p.pid, SIGKILL); /* the tool's own group: the profiled cutune and its worker too */
  proc_reap(&p, timed_out, timed_out ? 0 : -1, h, sizeof h);
  int code;
  if (!timed_out && sscanf(h, "exited with status %d", &code) == 1) *status = code;
  if (how) {
    if (timed_out) snprintf(how, howlen, "timed out after %.0f s (killed)", timeout_s);
    else snprintf(how, howlen, "%s", h);
  }
  return 0;
}
