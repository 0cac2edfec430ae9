/* fuzz_util: what the libFuzzer targets share — the input written to a private temporary file
 * (the loaders under test read paths, as cutune does), and quiet limits. */
#ifndef CUTUNE_FUZZ_UTIL_H
#define CUTUNE_FUZZ_UTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write data to a per-process file named by suffix (the loaders look at the name: .jsonl,
 * .json, .lua); returns its path (static storage). */
static const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
  static char path[256];
  const char *dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/cutune_fuzz_%ld%s", dir && *dir ? dir : "/tmp", (long)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}
#endif
