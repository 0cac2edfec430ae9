/* job_programs: the programs and launches of a configuration whose space has `launches`
 * (space.h). The configuration's own program also names the kernels of the launches that use it
 * (name expressions: each is instantiated and lowered); each further program is the template
 * compiled with the configuration's -D's, some replaced or added by its launch's defines, chained
 * behind the first (compile_job.next: one compile job, one bundle). The lowered names come back
 * in one list: the first program's kernel, its further names (the reference run from it, then
 * the launch kernels), then each further program's kernel — launch_line says which line is whose. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

/* The line of the lowered-name list that holds launch k's kernel. */
static int launch_line(const space *s, int k) {
  int prog = space_launch_program(s, k);
  int own = space_ref_per_config(s) ? 1 : 0, before = 0;
  for (int j = 1; j < space_nlaunches(s); j++)
    if (space_launch_program(s, j) == 0) {
      if (j < k) before++;
      own++;
    }
  if (prog > 0) return 1 + own + prog - 1;
  return k == 0 ? 0 : 1 + (space_ref_per_config(s) ? 1 : 0) + before;
}

int job_programs(const space *s, size_t cfg, compile_job *job, job_hold *hold, cterr *err) {
  int nl = space_nlaunches(s);
  for (int k = 1; k < nl; k++)
    if (space_launch_program(s, k) == 0) {
      if (job->nnames >= COMPILE_MAX_NAMES) return cterr_set(err, "%s: too many kernels in one program", space_path(s));
      job->names[job->nnames++] = space_launch_kernel(s, k);
    }
  const configset *cs = space_configs(s);
  const uint16_t *row = configset_row(cs, cfg);
  compile_job *prev = job;
  for (int prog = 1; prog < space_nprograms(s) && prog < COMPILE_MAX_PROGRAMS; prog++) {
    compile_job *x = &hold->extra[prog - 1];
    *x = *job;
    x->nnames = 0;
    x->next = NULL;
    x->kernel = space_program_kernel(s, prog);
    x->nopts = 0;
    const char *const *dn, *const *dv;
    int nd = space_program_defines(s, prog, &dn, &dv), used[COMPILE_MAX_OPTS] = {0};
    for (int p = 0; p < configset_nparams(cs); p++) {
      const cs_param *pp = configset_param(cs, p);
      if (space_param_runtime(s, p)) continue;
      const char *v = pp->str[row[p]];
      for (int d = 0; d < nd; d++)
        if (!strcmp(dn[d], pp->name)) v = dv[d], used[d] = 1;
      x->opts[x->nopts++] = hold->opts[hold->n++] = xasprintf("-D%s=%s", pp->name, v);
    }
    for (int d = 0; d < nd && x->nopts < COMPILE_MAX_OPTS; d++)
      if (!used[d]) x->opts[x->nopts++] = hold->opts[hold->n++] = xasprintf("-D%s=%s", dn[d], dv[d]);
    for (int i = 0; i < space_noptions(s) && x->nopts < COMPILE_MAX_OPTS; i++) x->opts[x->nopts++] = space_option(s, i);
    prev->next = x;
    prev = x;
  }
  return 0;
}

void job_launch_names(const space *s, const compile_result *cr, launch_step *steps, int n) {
  for (int k = 0; k < n; k++)
    compile_lowered(cr, launch_line(s, k), space_launch_kernel(s, k), steps[k].kernel, sizeof steps[k].kernel);
}
