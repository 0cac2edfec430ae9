/* input: bounded reading of the files a user hands to cutune (space files, templates, Lua
 * modules, results stores, Kernel Tuner caches).
 *
 * Every such file is read whole into memory, so each read has a cap: a file that is not a
 * regular file (/dev/zero, a FIFO) is refused before it is opened for reading, and one larger
 * than the cap is refused with a message naming its size, the cap and how to raise it.
 * Data files may be gzip-compressed (detected by the magic bytes, not the name); the cap then
 * applies to the decompressed size, so a small file that inflates to gigabytes stops at the cap.
 *
 * Caps: sources (space files, templates, modules) INPUT_SOURCE_MAX, fixed; data files
 * input_data_max(): $CUTUNE_MAX_INPUT_MB MiB, default 256. */
#ifndef CUTUNE_INPUT_H
#define CUTUNE_INPUT_H

#include <stddef.h>

#include "util.h"

#define INPUT_SOURCE_MAX ((size_t)16 << 20) /* 16 MiB: no template or space file is that large */

/* The cap on a data file's (decompressed) size in bytes: $CUTUNE_MAX_INPUT_MB or 256 MiB. */
size_t input_data_max(void);

/* Read path whole into out: a regular file of at most max bytes; with gunzip set, a gzip file
 * is decompressed (at most max bytes of output). `what` names the file in messages
 * ("template", "space file", "results file"). Returns 0, or -1 with err naming path. */
int input_read(const char *path, const char *what, size_t max, int gunzip, dbuf *out, cterr *err);

/* 0 if path names a regular file of at most max bytes; else -1 with err saying why. */
int input_check(const char *path, const char *what, size_t max, cterr *err);

#endif
