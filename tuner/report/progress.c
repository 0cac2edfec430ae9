/* progress: see progress.h. */
#include "progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/util.h"

struct progress {
  FILE *out;
  char *label;
  int tty;
  int width; /* 0: ask the terminal each redraw (it may be resized) */
  double (*now)(void);
  size_t total, done, failed, invalid, skipped;
  double t0, last_draw;
  size_t last_decile; /* non-TTY: the 10 % step last printed */
  int drawn;          /* TTY: a bar is on screen */
  double best_t, best_gbps;
  char *best_config;
  int quiet;  /* -q: no progress at all (progress_log still writes) */
  int tflops; /* best_gbps holds GFLOP/s, shown as TFLOP/s (progress_show_tflops) */
};

/* One write of whole lines: the other standard stream is flushed first, so that in a shared
 * log (2>&1 | tee) a table row on stdout and a progress line on stderr never cut each other. */
static void emit(progress *p, const char *data, size_t n) {
  FILE *out = p ? p->out : stderr;
  if (out == stderr) fflush(stdout);
  else if (out == stdout) fflush(stderr);
  fwrite(data, 1, n, out);
  fflush(out);
}

void progress_set_quiet(progress *p, int quiet) { p->quiet = quiet; }

progress *progress_new(FILE *out, const char *label, size_t total, int tty) {
  progress *p = xcalloc(1, sizeof *p);
  p->out = out;
  p->label = xstrdup(label ? label : "");
  p->tty = tty >= 0 ? tty : isatty(fileno(out));
  p->now = now_seconds;
  p->total = total;
  p->t0 = p->now();
  p->last_draw = -1e9;
  p->best_t = p->best_gbps = NAN;
  return p;
}

void progress_show_tflops(progress *p) {
  if (p) p->tflops = 1;
}

void progress_set_clock(progress *p, double (*now)(void)) {
  p->now = now;
  p->t0 = now();
}
void progress_set_width(progress *p, int columns) { p->width = columns; }
void progress_set_total(progress *p, size_t total) { p->total = total; }
size_t progress_done(const progress *p) { return p->done; }
size_t progress_failed(const progress *p) { return p->failed; }
size_t progress_invalid(const progress *p) { return p->invalid; }

static int term_width(const progress *p) {
  if (p->width > 0) return p->width;
  struct winsize ws;
  if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 100;
}

/* "134.2 µs" / "2.31 ms" / "1.20 s" */
static void fmt_time(dbuf *b, double ms) {
  if (ms < 1) dbuf_printf(b, "%.1f µs", ms * 1e3);
  else if (ms < 1000) dbuf_printf(b, "%.2f ms", ms);
  else dbuf_printf(b, "%.2f s", ms / 1e3);
}

static void fmt_duration(dbuf *b, double s) {
  if (!isfinite(s) || s < 0) {
    dbuf_puts(b, "?");
    return;
  }
  long t = (long)(s + 0.5);
  if (t >= 3600) dbuf_printf(b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else dbuf_printf(b, "%ld:%02ld", t / 60, t % 60);
}

static double rate(const progress *p, double now) {
  double el = now - p->t0;
  size_t measured = p->done - p->skipped;
  return el > 0 && measured ? (double)measured / el : NAN;
}

/* The best so far; config shortened to at most maxc characters. */
static void fmt_best(const progress *p, dbuf *b, size_t maxc) {
  if (isnan(p->best_t)) return;
  dbuf_puts(b, "best ");
  fmt_time(b, p->best_t);
  if (isfinite(p->best_gbps) && p->tflops) dbuf_printf(b, " %.2f TFLOP/s", p->best_gbps / 1e3);
  else if (isfinite(p->best_gbps)) dbuf_printf(b, " %.0f GB/s", p->best_gbps);
  if (p->best_config && maxc) {
    size_t n = strlen(p->best_config);
    if (n <= maxc) dbuf_printf(b, " %s", p->best_config);
    else dbuf_printf(b, " %.*s…", (int)(maxc - 1), p->best_config);
  }
}

/* Byte length of the longest prefix that fits in cols columns. */
static size_t fit(const char *s, size_t n, size_t cols) {
  size_t c = 0, i = 0;
  for (; i < n; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (c == cols) break;
      c++;
    }
  }
  return i;
}

static void draw_tty(progress *p, double now) {
  int width = term_width(p);
  dbuf tail, line;
  dbuf_init(&tail), dbuf_init(&line);
  if (p->total) dbuf_printf(&tail, " %zu/%zu", p->done, p->total);
  else dbuf_printf(&tail, " %zu", p->done);
  if (p->failed) dbuf_printf(&tail, "  %zu failed", p->failed);
  if (p->invalid) dbuf_printf(&tail, "  %zu invalid", p->invalid);
  double r = rate(p, now);
  if (isfinite(r)) dbuf_printf(&tail, "  %.1f/s", r);
  if (p->total && isfinite(r) && p->done < p->total) {
    dbuf_puts(&tail, "  ETA ");
    fmt_duration(&tail, (double)(p->total - p->done) / r);
  }
  if (!isnan(p->best_t)) {
    dbuf_puts(&tail, "  ");
    fmt_best(p, &tail, 28);
  }
  if (*p->label) dbuf_printf(&line, "%s ", p->label);
  /* the bar comes before the details: on a narrow terminal the best config is cut, not it */
  int bar = width / 4 < 30 ? width / 4 : 30;
  if (p->total && bar >= 10) {
    int fill = (int)((double)bar * (double)p->done / (double)p->total);
    if (fill > bar) fill = bar;
    dbuf_puts(&line, "[");
    for (int i = 0; i < bar; i++) dbuf_puts(&line, i < fill ? "#" : "-");
    dbuf_puts(&line, "]");
  }
  dbuf_append(&line, tail.data, tail.len);
  /* one column short of the width: a full line would wrap on some terminals */
  size_t n = fit(line.data, line.len, (size_t)(width - 1));
  dbuf full;
  dbuf_init(&full);
  dbuf_printf(&full, "\r%.*s\033[K", (int)n, line.data);
  emit(p, full.data, full.len);
  dbuf_free(&full);
  p->drawn = 1;
  p->last_draw = now;
  dbuf_free(&tail), dbuf_free(&line);
}

static void print_plain(progress *p, double now, int final) {
  dbuf line;
  dbuf_init(&line);
  if (*p->label) dbuf_printf(&line, "%s: ", p->label);
  if (p->total) dbuf_printf(&line, "%zu/%zu (%.0f%%)", p->done, p->total, 100.0 * (double)p->done / (double)p->total);
  else dbuf_printf(&line, "%zu done", p->done);
  if (final) {
    dbuf_puts(&line, " in ");
    fmt_duration(&line, now - p->t0);
  }
  dbuf_printf(&line, ", %zu failed", p->failed);
  if (p->invalid) dbuf_printf(&line, ", %zu invalid", p->invalid);
  if (p->skipped) dbuf_printf(&line, ", %zu from the results store", p->skipped);
  if (!isnan(p->best_t)) {
    dbuf_puts(&line, ", ");
    fmt_best(p, &line, 200);
  }
  double r = rate(p, now);
  if (isfinite(r)) dbuf_printf(&line, ", %.1f configs/s", r);
  if (!final && p->total && isfinite(r) && p->done < p->total) {
    dbuf_puts(&line, ", ETA ");
    fmt_duration(&line, (double)(p->total - p->done) / r);
  }
  dbuf_puts(&line, "\n");
  emit(p, line.data, line.len);
  p->last_draw = now;
  dbuf_free(&line);
}

/* Draw if due: a terminal ~10 times a second, a log every 2 s or every 10 %. */
static void update(progress *p) {
  if (p->quiet) return;
  double now = p->now();
  if (p->tty) {
    if (now - p->last_draw >= 0.1 || (p->total && p->done >= p->total)) draw_tty(p, now);
    return;
  }
  size_t decile = p->total ? p->done * 10 / p->total : 0;
  if (now - p->last_draw >= 2.0 || decile > p->last_decile) {
    p->last_decile = decile;
    print_plain(p, now, 0);
  }
}

void progress_step(progress *p, int failed, double t_ms, double gbps, const char *config) {
  if (!p) return;
  p->done++;
  if (failed == PROGRESS_INVALID) {
    p->invalid++;
  } else if (failed) {
    p->failed++;
  } else if (isfinite(t_ms) && (isnan(p->best_t) || t_ms < p->best_t)) {
    p->best_t = t_ms;
    p->best_gbps = gbps;
    free(p->best_config);
    p->best_config = config ? xstrdup(config) : NULL;
  }
  update(p);
}

void progress_skip(progress *p, size_t n) {
  if (!p || !n) return;
  p->done += n;
  p->skipped += n;
  update(p);
}

void progress_log(progress *p, const char *fmt, ...) {
  va_list ap;
  dbuf msg;
  dbuf_init(&msg);
  va_start(ap, fmt);
  dbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  while (msg.len && msg.data[msg.len - 1] == '\n') msg.data[--msg.len] = 0;
  dbuf line;
  dbuf_init(&line);
  if (p && p->tty && p->drawn) dbuf_puts(&line, "\r\033[K");
  dbuf_printf(&line, "%s\n", msg.data);
  emit(p, line.data, line.len);
  if (p && p->tty && p->drawn) draw_tty(p, p->now());
  dbuf_free(&msg), dbuf_free(&line);
}

void progress_finish(progress *p) {
  if (!p || p->quiet) return;
  double now = p->now();
  if (p->tty) {
    draw_tty(p, now);
    emit(p, "\n", 1);
    p->drawn = 0;
  } else {
    print_plain(p, now, 1);
  }
}

void progress_free(progress *p) {
  if (!p) return;
  free(p->label);
  free(p->best_config);
  free(p);
}
