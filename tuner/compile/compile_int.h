/* compile_int: what the units of tuner/compile/ share and nobody else needs. */
#ifndef CUTUNE_COMPILE_INT_H
#define CUTUNE_COMPILE_INT_H

#include "compile.h"

/* The name member i's kernel gets in a batched program (printf: member index, kernel). */
#define COMPILE_BATCH_ENTRY_FMT "cutune_b%d_%s"

/* The program text of a batch of n compatible jobs (compile_batch_compatible): per member its
 * -D options as #defines, the kernel renamed, the template (an in-memory header named
 * jobs[0].src_path) included inside namespace cutune_b<i>, and every macro it defined
 * #undef'd after it. common gets the options of the whole program (jobs[0]'s options less the
 * -D options not every member has), *ncommon their count; they point into jobs[0]. */
void compile_batch_source(const compile_job *jobs, int n, dbuf *src, const char **common, int *ncommon);

/* compile_hint.c: where one of the job's -D names is declared as a template parameter in its
 * source (the macro replaces it, and NVRTC's message says only "expected a ',' or '>'"), a note
 * naming it and its line, appended to msg. */
void compile_hint_macro_clash(dbuf *msg, const compile_job *job);

#endif
