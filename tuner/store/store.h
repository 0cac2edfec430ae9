/* store: the results store, results/<device>/<space>.jsonl — one JSON record per line,
 * appended and fsync'd the moment it exists.
 *
 * Opening takes an exclusive lock (flock on <file>.lock): a second run on the same store
 * fails at once with a message naming the holder's pid. A last line cut off by a crash is
 * moved aside to <file>.torn (appended there, never lost) and the file is truncated to its
 * last complete record before anything new is written. Lines that do not parse are reported
 * with file:line and kept in place; they never stop a run.
 *
 * The compressed part: where <file>.gz exists beside <file> (results/<device>/<space>.jsonl.gz,
 * written by tools/store-archive --pack), its records belong to the same store: every open and
 * load reads it first (read-only; appends go to <file>), so a run's answers, the header and the
 * reports see both. It keeps a committed store small.
 *
 * Ownership: the store owns the records it has loaded; store_get's pointer lives until
 * store_close. store_append copies. */
#ifndef CUTUNE_STORE_H
#define CUTUNE_STORE_H

#include <stddef.h>

#include "record.h"
#include "base/util.h"

typedef struct store store;

/* Path of the store for a device and a space: dir/<slug(device)>/<slug(space)>.jsonl */
char *store_path_for(const char *dir, const char *device_name, const char *space_name);

/* Open (creating folders and file as needed) for appending; loads every complete record.
 * warnings (may be NULL) receives one line per malformed line skipped. */
int store_open(const char *path, store **out, dbuf *warnings, cterr *err);
/* Read-only load, no lock (reports, header generation, replay); a gzip-compressed file is read
 * too, and the whole (decompressed) file is capped at input_data_max() (base/input.h). */
int store_load(const char *path, store **out, dbuf *warnings, cterr *err);
void store_close(store *s);
/* Whether there is a store at path: its plain file, or only its compressed part (path.gz). */
int store_exists(const char *path);

const char *store_file(const store *s);
size_t store_count(const store *s);
const record *store_get(const store *s, size_t i);
/* The newest record for (config, problem) whose template_hash and options_hash match
 * (NULL hashes match anything) and that was checked as this run checks: its check_hash equal
 * to check_hash, or none (a record written before the field answers whatever the check; NULL
 * check_hash matches anything). NULL if none: that measurement is still to be made. A record
 * measured under another check is passed over, not removed: an older record of this check
 * behind it still answers. Records of status worker_lost (an infrastructure failure, not the
 * configuration's) and space_error (the space's own code failed: it may have been fixed since)
 * never answer: a resumed run makes that measurement again. */
const record *store_find(const store *s, const char *config, const char *problem, const char *template_hash,
                         const char *options_hash, const char *check_hash);

/* store_find with the launch: want->launch (NULL: any launch) gives the launch hash the run
 * would launch the configuration with (record.h: launch_hash), or NULL when it cannot say (the
 * space's code fails for it). It is called only when a candidate record carries a launch hash,
 * at most once per lookup, so a lookup with nothing stored (or only records written before the
 * field) evaluates nothing. A record with another launch hash is passed over as one of another
 * check is; one without answers whatever the launch. want->space_errors: a space_error record is
 * taken too, never as an answer but as what became of the configuration last (the run's tables
 * list it with the failures). */
typedef struct store_want {
  const char *template_hash, *options_hash, *check_hash;
  int space_errors;
  const char *(*launch)(void *ctx);
  void *launch_ctx;
} store_want;
const record *store_find_want(const store *s, const char *config, const char *problem, const store_want *want);

/* Whether record r was checked as a run with check hash `want` (of r's problem) checks: the
 * same check hash, or none on r (a record written before the field answers whatever the check),
 * or want NULL (no check asked). store_find's rule, for whatever else picks records by their
 * check: `cutune header`, `best --space`, `report` and the run's tables. */
int store_same_check(const char *want, const record *r);

/* How many records of (config, problem) with matching hashes (as store_find matches them) have
 * status `status`, over every version kept, not only the newest (e.g. how often a compile has
 * timed out). */
size_t store_count_status(const store *s, const char *config, const char *problem, const char *template_hash,
                          const char *options_hash, const char *check_hash, rec_status status);

/* Serialise, write one line, fsync. The record is also added to the in-memory index. */
int store_append(store *s, const record *r, cterr *err);

#endif
