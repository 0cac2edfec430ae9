/* test_progress: the progress display under a fake clock — plain lines are throttled
 * (every ~2 s or 10 %), the terminal line is redrawn in place and never wider than the
 * terminal, and a logged message lands on its own line with the bar redrawn below it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/progress.h"

static double fake_now;
static double fake_clock(void) { return fake_now; }

static size_t count(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* display columns of UTF-8 text */
static size_t cols(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

static void test_plain(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fake_now = 100;
  progress *p = progress_new(f, "transpose", 1000, 0);
  progress_set_clock(p, fake_clock);
  /* 1000 steps, 1 ms apart (1 s in all): only the 10 % marks print, not 1000 lines */
  for (int i = 0; i < 1000; i++) {
    fake_now += 0.001;
    int failed = i % 100 == 7;
    double t = 0.2 - i * 1e-4; /* keeps improving */
    progress_step(p, failed, failed ? NAN : t, 1000 + i, "TILE=64,PAD=1");
  }
  progress_finish(p);
  fclose(f);
  fputs(buf, stderr);
  CHECK(!strchr(buf, '\r') && !strchr(buf, '\033'));
  size_t lines = count(buf, "\n");
  CHECK_MSG(lines >= 10 && lines <= 12, "%zu lines", lines);
  CHECK_STR_CONTAINS(buf, "transpose: 500/1000 (50%)");
  CHECK_STR_CONTAINS(buf, "transpose: 1000/1000 (100%) in 0:01, 10 failed");
  CHECK(progress_done(p) == 1000 && progress_failed(p) == 10);
  /* the last best: step 999 (not a failure) at 0.2 - 0.0999 ms = 100.1 µs */
  CHECK_STR_CONTAINS(buf, "best 100.1 µs 1999 GB/s TILE=64,PAD=1");
  CHECK_STR_CONTAINS(buf, "1000.0 configs/s");
  progress_free(p);
  free(buf);

  /* slow steps: one line per step once 2 s have passed, whatever the percentage */
  buf = NULL;
  f = open_memstream(&buf, &len);
  fake_now = 0;
  p = progress_new(f, NULL, 0, 0); /* total unknown */
  progress_set_clock(p, fake_clock);
  for (int i = 0; i < 5; i++) {
    fake_now += 2.5;
    progress_step(p, 1, NAN, NAN, NULL);
  }
  fclose(f);
  CHECK(count(buf, "\n") == 5);
  CHECK_STR_CONTAINS(buf, "5 done, 5 failed");
  CHECK(!strstr(buf, "best"));
  progress_free(p);
  free(buf);

  /* over a device limit: counted apart from the failures, its figures ignored */
  buf = NULL;
  f = open_memstream(&buf, &len);
  fake_now = 0;
  p = progress_new(f, NULL, 0, 0);
  progress_set_clock(p, fake_clock);
  fake_now += 2.5;
  progress_step(p, PROGRESS_INVALID, 0.001, 5000, "B=2048");
  fake_now += 2.5;
  progress_step(p, 1, NAN, NAN, NULL);
  fake_now += 2.5;
  progress_step(p, 0, 0.5, 250, "B=128");
  fclose(f);
  CHECK(progress_failed(p) == 1 && progress_invalid(p) == 1 && progress_done(p) == 3);
  CHECK_STR_CONTAINS(buf, "3 done, 1 failed, 1 invalid");
  CHECK_STR_CONTAINS(buf, "B=128");
  CHECK(!strstr(buf, "B=2048"));
  progress_free(p);
  free(buf);
}

static void test_tty(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fake_now = 0;
  const int width = 60;
  progress *p = progress_new(f, "transpose", 200, 1);
  progress_set_clock(p, fake_clock);
  progress_set_width(p, width);
  progress_skip(p, 50); /* resumed: done, but not in the rate */
  for (int i = 0; i < 150; i++) {
    fake_now += 0.06;
    progress_step(p, i == 3, 0.15 - i * 1e-4, 3000 + i, "TILE=64,PAD=1,VEC=4,ROWS=8,UNROLL=2,EXTRA=1");
    if (i == 75) progress_log(p, "warning: TILE=16 spilled %d bytes", 24);
  }
  progress_finish(p);
  fclose(f);
  /* every redraw starts with \r and clears to the end of the line */
  CHECK(count(buf, "\r") >= 70 && count(buf, "\033[K") == count(buf, "\r"));
  /* the message sits on a line of its own: cleared bar, message, newline, bar again */
  CHECK_STR_CONTAINS(buf, "\r\033[Kwarning: TILE=16 spilled 24 bytes\n\r");
  CHECK(buf[len - 1] == '\n');
  /* no drawn line wider than the terminal */
  size_t widest = 0;
  for (char *s = buf; *s;) {
    size_t n = strcspn(s, "\r\n");
    char *esc = strstr(s, "\033[K");
    size_t vis = esc && (size_t)(esc - s) < n ? (size_t)(esc - s) : n;
    if (cols(s, vis) > widest) widest = cols(s, vis);
    s += n;
    if (*s) s++;
  }
  CHECK_MSG(widest <= (size_t)width - 1, "widest %zu", widest);
  /* the final line: full bar, counts, no ETA, best shortened */
  char *last = strrchr(buf, '\r');
  REQUIRE(last);
  CHECK_STR_CONTAINS(last, "200/200");
  CHECK_STR_CONTAINS(last, "1 failed");
  CHECK(!strstr(last, "ETA"));
  CHECK_STR_CONTAINS(last, "[#");
  CHECK(!strstr(last, "-]"));
  fputs(buf, stderr);
  fputc('\n', stderr);
  progress_free(p);
  free(buf);

  /* a wide terminal shows everything, the rate counting only measured configs */
  buf = NULL;
  f = open_memstream(&buf, &len);
  fake_now = 0;
  p = progress_new(f, "transpose", 100, 1);
  progress_set_clock(p, fake_clock);
  progress_set_width(p, 200);
  progress_skip(p, 40);
  for (int i = 0; i < 20; i++) {
    fake_now += 0.5;
    progress_step(p, 0, 0.5, 250, "TILE=32");
  }
  fclose(f);
  last = strrchr(buf, '\r');
  REQUIRE(last);
  CHECK_STR_CONTAINS(last, "60/100");
  CHECK_STR_CONTAINS(last, "2.0/s");    /* 20 measured in 10 s, the 40 resumed not counted */
  CHECK_STR_CONTAINS(last, "ETA 0:20"); /* 40 left at 2/s */
  CHECK_STR_CONTAINS(last, "best 500.0 µs 250 GB/s TILE=32");
  progress_free(p);
  free(buf);
}

int main(void) {
  test_plain();
  test_tty();
  progress_free(NULL);
  return check_report();
}
