/* record_json: a record as one line of JSON (the store's line format, docs/ARCHITECTURE.md)
 * and back. Reading accepts what older stores lack (a missing field keeps record_init's
 * value) and ignores fields it does not know. */
#ifndef CUTUNE_RECORD_JSON_H
#define CUTUNE_RECORD_JSON_H

#include <stddef.h>

#include "base/util.h"
#include "record.h"

/* JSON form of one record (one line, no newline) and back. */
void record_to_json(const record *r, dbuf *out);
int record_from_json(const char *line, record *r, cterr *err);
/* The same over n bytes that need not be NUL-terminated. On failure r is left empty
 * (initialised), so it can be freed or reused either way. */
int record_from_json_n(const char *line, size_t n, record *r, cterr *err);

#endif
