/* gpu_worker_types: buffers whose element type is the configuration's (argspec.typed; docs/SPACE.md,
 * "Buffers typed by the configuration"). Each is allocated at its widest type. The setup fills an
 * input or inout in the reference's type and keeps the reference's outputs widened to doubles;
 * each job names its own types (wire_job.types): an input or inout whose contents are in another
 * type is filled again in the job's (the same seeded draws, rounded to it; an inout's restore copy
 * too), and the check widens the job's output and compares it with the reference's in double,
 * within the bounds the job gives for its type (gpu_worker_check.c). */
#include <stdio.h>
#include <string.h>

#include "gpu_worker_int.h"

CUresult wk_widen(worker *w, CUdeviceptr src, elemtype t, CUdeviceptr dst, unsigned long long n) {
  int ti = (int)t;
  unsigned long long blocks = (n + 255) / 256, cap = (unsigned long long)(w->info.sms > 0 ? w->info.sms : 1) * 16;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  void *params[] = {&src, &dst, &n, &ti};
  CUresult r = w->cu->cuLaunchKernel(w->widen, (unsigned)blocks, 1, 1, 256, 1, 1, 0, w->stream, params, NULL);
  return r ? r : w->cu->cuStreamSynchronize(w->stream);
}

int wk_types_apply(worker *w, const wire_job *job, wire_result *res) {
  const cuda_api *cu = w->cu;
  const wire_setup *s = &w->p->setup;
  int seen[MAX_ARGS] = {0};
  if (job->ntypes < 0 || job->ntypes > MAX_ARGTYPES) {
    wk_fail(res, ST_INVALID, "GPU worker: %d typed buffers in the job (at most %d)", (int)job->ntypes, MAX_ARGTYPES);
    return -1;
  }
  for (int k = 0; k < job->ntypes; k++) {
    const argtype *t = &job->types[k];
    int i = t->index;
    if (i < 0 || i >= s->nargs || !s->args[i].typed || t->type < 0 || t->type >= EL_COUNT ||
        wk_elsize((elemtype)t->type) > s->args[i].typed) {
      wk_fail(res, ST_INVALID, "GPU worker: the job types argument %d as %d, which the problem does not allow", i,
              (int)t->type);
      return -1;
    }
    seen[i] = 1;
    w->jtype[i] = t->type, w->jatol[i] = t->atol, w->jrtol[i] = t->rtol;
    const argspec *a = &s->args[i];
    if (a->kind == ARG_OUTPUT || w->p->cur_type[i] == t->type) continue;
    argspec as = *a; /* the same seeded draws, in this job's type */
    as.type = (elemtype)t->type;
    wk_arg *d = &w->p->arg[i];
    cterr e;
    CUresult r = CUDA_SUCCESS;
    if (wk_upload_arg(w, i, &as, s->seed, NULL, &e) ||
        (a->kind == ARG_INOUT && (r = cu->cuMemcpyDtoD(d->orig, d->d, d->bytes)))) {
      w->p->cur_type[i] = -1; /* what it holds now is unknown: filled again by the next job */
      if (r) wk_fail_run(w, res, r, "keeping an inout's contents in the configuration's type");
      else wk_fail(res, ST_LAUNCH_ERROR, "filling '%s' in %s: %s", a->name, elemtype_name(as.type), e.msg);
      return -1;
    }
    w->p->cur_type[i] = t->type;
  }
  for (int i = 0; i < s->nargs; i++)
    if (s->args[i].typed && !seen[i]) {
      wk_fail(res, ST_INVALID, "GPU worker: the job gives no type for '%s', which the configuration types",
              s->args[i].name);
      return -1;
    }
  return 0;
}
