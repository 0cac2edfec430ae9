/* report_cmd: `cutune report` (see report_cmd.h and the --help text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "explain.h"
#include "explain/explain_store.h"
#include "report/report.h"
#include "report/report_html.h"
#include "report_cmd.h"
#include "ship/ship_space.h"
#include "space/space.h"
#include "store/store.h"

static const char help[] =
    "usage: cutune report SPACE.lua [options]\n"
    "       cutune report --store FILE [options]\n"
    "\n"
    "Writes one self-contained HTML file (inline SVG and CSS, no network, opens anywhere) from a\n"
    "results store: per problem the best configurations with their sanitizer verdicts, the time\n"
    "against each parameter's values as box plots over every measured configuration, the\n"
    "time/energy front when energy was measured, the search's best-so-far curve against\n"
    "evaluations and against seconds, the resources of the top configurations, the counters and\n"
    "readings of `cutune explain` when it has run; then provenance (GPU, driver, NVRTC, dates).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write (default: <space>-<device>.html in the current folder,\n"
    "                     named after the store results/<device>/<space>.jsonl; never inside results/)\n"
    "  --results DIR      where the stores are (default results): DIR/*/<space>.jsonl\n"
    "  --store FILE       the store itself (no space needed)\n"
    "  --problem KEY      only this problem: its key, or with a space its index or sizes in any order\n"
    "                     (\"N=8192,M=8192\", \"M=4096\"; default: every problem in the store)\n"
    "  --top N            rows of the best table (default 15)\n"
    "  --kernel-path DIR  look for the space's template in DIR too (as cutune run;\n"
    "                     $CUTUNE_KERNEL_PATH)\n"
    "  --all-checks       with a space: rank records of every check too (by default a record measured\n"
    "                     under another check of its problem than the space's now is left out and\n"
    "                     counted in a note, as cutune header leaves it out)\n"
    "  --all-versions     with a space: rank records of every version of the template too (by\n"
    "                     default a record of another template hash -- the template or a file it\n"
    "                     includes has changed since -- measured other code: it is left out and\n"
    "                     counted in a note, as cutune header leaves it out)\n"
    "\n"
    "Without a space (--store) every record is ranked; a problem whose records carry several check\n"
    "hashes (provenance.check_hash: the check changed between runs) says so on the page and here.\n"
    "\n"
    "exit status: 0 written; 1 error (no store, unreadable, cannot write); 2 usage.\n";

/* The page's default name for a store: <space>-<device>.html, in the current folder. */
static char *default_output(const char *spath) {
  const char *base = path_basename(spath), *dot = strstr(base, ".jsonl");
  int blen = dot ? (int)(dot - base) : (int)strlen(base);
  const char *slash = base > spath ? base - 1 : NULL, *dir = slash;
  while (dir && dir > spath && dir[-1] != '/') dir--;
  if (slash && dir < slash) return xasprintf("%.*s-%.*s.html", blen, base, (int)(slash - dir), dir);
  return xasprintf("%.*s.html", blen, base);
}

/* With a space, the records of each problem's check now (ship_keep_checked: as `cutune header`
 * ships them) stay at the front of recs, *n of them, and note counts the others; with all, every
 * record stays and note counts those of another check. Returns what would rank a problem whose
 * records still mix checks (report_html_opts.mix_hint). */
static const char *keep_checked(space *s, int all, const record **recs, size_t *n, dbuf *note) {
  char(*chash)[33] = NULL;
  cterr e;
  if (job_space_check_hashes(s, &chash, &e) != 0) {
    dbuf_printf(note, "the space's check of each problem cannot be computed (%s): records of every check are ranked",
                e.msg);
    return "the space's check now cannot be computed";
  }
  ship_checks checks = {s, (const char(*)[33])chash};
  const record **keep = all ? xcalloc(*n ? *n : 1, sizeof *keep) : recs;
  if (all) memcpy(keep, recs, *n * sizeof *recs);
  size_t other = 0, kept = ship_keep_checked(&checks, keep, *n, &other);
  if (all) {
    if (other)
      dbuf_printf(note,
                  "records of every check are ranked (--all-checks): %zu of them measured under another check of "
                  "their problem than the space's now",
                  other);
    free(keep);
  } else {
    *n = kept;
    report_other_checks(note, other, "--all-checks shows them");
  }
  free(chash);
  return all ? "without --all-checks only those of the space's check now are ranked"
             : "a problem the space no longer has: its check now is not known";
}

/* With a space, the records of the template as it is now (job_template_hash: what `cutune header`
 * ships) go to the front of recs: returns how many. Without all, they are all that stays (*n);
 * with all, the records of other versions follow them (their check is that version's: the caller
 * does not judge them by today's). note counts the others either way. A record without a template
 * hash counts as of the template now. */
static size_t keep_version(space *s, int all, const record **recs, size_t *n, dbuf *note) {
  char th[33];
  cterr e;
  if (job_template_hash(s, th, &e) != 0) {
    dbuf_printf(note, "the template's hash cannot be computed (%s): records of every version of it are ranked", e.msg);
    return *n;
  }
  const record **other = xcalloc(*n ? *n : 1, sizeof *other);
  size_t now = 0, nother = 0;
  for (size_t i = 0; i < *n; i++) {
    if (recs[i]->template_hash && strcmp(recs[i]->template_hash, th)) other[nother++] = recs[i];
    else recs[now++] = recs[i];
  }
  if (all) memcpy(recs + now, other, nother * sizeof *other);
  *n = all ? now + nother : now;
  free(other);
  if (nother)
    dbuf_printf(note,
                all ? "records of every version of the template are ranked (--all-versions): %zu of them measured "
                      "another version than the template now (each under that version's check)"
                    : "%zu records of another version of the template (another template hash: it or a file it "
                      "includes changed since) are not ranked; --all-versions shows them",
                nother);
  return now;
}

int report_cmd_main(int argc, char **argv) {
  const char *space_path = NULL, *store_path = NULL, *results = "results", *outp = NULL, *problem = NULL;
  long top = 15;
  int all_checks = 0, all_versions = 0;
  cterr err = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(help, stdout);
      return 0;
    }
    int takes = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--results") || !strcmp(a, "--store") ||
                !strcmp(a, "--problem") || !strcmp(a, "--top") || !strcmp(a, "--kernel-path");
    if (takes && !v) {
      fprintf(stderr, "cutune report: %s needs a value\n", a);
      return 2;
    }
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) outp = v, i++;
    else if (!strcmp(a, "--results")) results = v, i++;
    else if (!strcmp(a, "--store")) store_path = v, i++;
    else if (!strcmp(a, "--problem")) problem = v, i++;
    else if (!strcmp(a, "--kernel-path")) space_kernel_path_add(v), i++;
    else if (!strcmp(a, "--top")) {
      if (parse_long(v, &top, "--top", &err) != 0) {
        fprintf(stderr, "cutune report: %s\n", err.msg);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--all-checks")) all_checks = 1;
    else if (!strcmp(a, "--all-versions")) all_versions = 1;
    else if (a[0] == '-') {
      fprintf(stderr, "cutune report: unknown option '%s' (see 'cutune report --help')\n", a);
      return 2;
    } else if (!space_path) space_path = a;
    else {
      fprintf(stderr, "cutune report: one space only ('%s' and '%s')\n", space_path, a);
      return 2;
    }
  }
  if (!space_path && !store_path) {
    fprintf(stderr, "cutune report: give a space or --store FILE (see 'cutune report --help')\n");
    return 2;
  }
  if (!space_path && (all_checks || all_versions)) { /* nothing to compare with: every record is ranked anyway */
    fprintf(stderr, "cutune report: %s needs a space (with --store alone every record is ranked already)\n",
            all_checks ? "--all-checks" : "--all-versions");
    return 2;
  }
  space *s = NULL;
  store *st = NULL;
  explain_set *ex = NULL;
  char *spath = NULL, *out = NULL, *title = NULL;
  const record **recs = NULL;
  dbuf page, warn, note;
  dbuf_init(&page), dbuf_init(&warn), dbuf_init(&note);
  int rc = 1;
  if (space_path && space_load(space_path, &s, &err) != 0) goto done;
  if (s && problem) { /* an index, or sizes in any order, as run's --problem takes them */
    int prob = job_find_problem(s, problem, &err);
    if (prob < 0) {
      cterr_wrap(&err, "--problem");
      goto done;
    }
    problem = space_problem_key(s, prob);
  }
  if (!(spath = explain_find_store(results, store_path, s, &err))) goto done;
  if (store_load(spath, &st, &warn, &err) != 0) goto done;
  if (warn.len) fprintf(stderr, "%s", warn.data);
  size_t skipped = 0;
  if (explain_load(spath, &ex, &skipped, &err) != 0) goto done;
  if (skipped)
    fprintf(stderr, "cutune report: %zu lines of %s did not parse (skipped)\n", skipped, "the explain sidecar");
  size_t n = store_count(st);
  recs = xcalloc(n ? n : 1, sizeof *recs);
  for (size_t i = 0; i < n; i++) recs[i] = store_get(st, i);
  dbuf vnote;
  dbuf_init(&vnote);
  const char *hint = "give the space (cutune report SPACE.lua) to rank only the records of its check now";
  if (s) { /* the template now's records judged by the check now; other versions' (--all-versions) after them */
    size_t now = keep_version(s, all_versions, recs, &n, &vnote), kept = now;
    hint = keep_checked(s, all_checks, recs, &kept, &note);
    memmove(recs + kept, recs + now, (n - now) * sizeof *recs);
    if (n > now) hint = "--all-versions ranks the records of other versions of the template, each under its own check";
    n = kept + (n - now);
  }
  if (vnote.len) { /* one note: the versions first, then the checks */
    if (note.len) dbuf_puts(&vnote, "; ");
    if (note.len) dbuf_append(&vnote, note.data, note.len);
    dbuf_reset(&note);
    dbuf_append(&note, vnote.data, vnote.len);
  }
  dbuf_free(&vnote);
  if (note.len) fprintf(stderr, "cutune report: %s\n", note.data);
  const char *sname = s ? space_name(s) : (n && recs[0]->space ? recs[0]->space : path_basename(spath));
  const char *dev = n && recs[0]->device_name ? recs[0]->device_name : "an unknown device";
  title = xasprintf("cutune: %s on %s", sname, dev);
  report_html_opts o = {
      .title = title, .source = spath, .problem = problem, .top = (int)top, .note = note.data, .mix_hint = hint};
  int mixed = report_html(&page, recs, n, ex, &o);
  if (mixed)
    fprintf(stderr, "cutune report: %d problem%s records of several checks ranked together (the page says which): %s\n",
            mixed, mixed == 1 ? " has" : "s have", hint);
  if (outp) {
    out = xstrdup(outp);
  } else { /* results/<device>/<space>.jsonl -> ./<space>-<device>.html: the data folder stays data */
    out = default_output(spath);
  }
  if (file_write_output(out, page.data, page.len, &err) != 0) goto done;
  printf("wrote %s (%zu records, %.0f KB)\n", out, n, page.len / 1024.0);
  rc = 0;
done:
  if (rc) fprintf(stderr, "cutune report: %s\n", err.msg);
  free(recs), free(spath), free(out), free(title);
  explain_free(ex);
  store_close(st);
  space_free(s);
  dbuf_free(&page), dbuf_free(&warn), dbuf_free(&note);
  return rc;
}
