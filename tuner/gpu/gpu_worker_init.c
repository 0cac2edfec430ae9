/* gpu_worker_init: the space's init launches (docs/SPACE.md, "Init launches"), run by the GPU
 * worker once per problem, untimed, after the arguments are filled and before the reference: a
 * kernel that sets up state the tuned kernel reads (curand_init over a curandState array). Their
 * program is loaded, its symbols filled, each launch run in order on its own arguments and
 * synchronised, and the module unloaded; an inout's restore copy is then taken again, so that
 * every run (the reference's, each configuration's check) starts from what the init left. */
#include <stdio.h>

#include "gpu_worker_int.h"

int wk_init_run(worker *w, const char *cubin, int *fatal, cterr *err) {
  const cuda_api *cu = w->cu;
  const wire_setup *s = &w->p->setup;
  if (!s->ninit) return 0;
  if (s->ninit < 0 || s->ninit > MAX_LAUNCHES)
    return cterr_set(err, "GPU worker: %d init launches in the setup (at most %d)", (int)s->ninit, MAX_LAUNCHES);
  CUmodule mod = NULL;
  CUresult r;
  char msg[512];
  int rc = -1;
  if ((r = cu->cuModuleLoadData(&mod, cubin))) {
    mod = NULL;
    cterr_set(err, "init: loading its module: %s", cuda_errstr(r));
    goto done;
  }
  if (wk_symbols_fill(w, mod, 0, msg, sizeof msg)) {
    cterr_set(err, "init: %s", msg);
    goto done;
  }
  for (int k = 0; k < s->ninit; k++) {
    const launch_step *l = &s->init[k];
    char kname[LAUNCH_NAME_MAX];
    snprintf(kname, sizeof kname, "%.*s", (int)sizeof kname - 1, l->kernel);
    int bad = l->nargs < 0 || l->nargs > MAX_ARGS;
    for (int a = 0; !bad && a < l->nargs; a++) bad = l->arg[a] < 0 || l->arg[a] >= s->nargs;
    if (bad) {
      cterr_set(err, "GPU worker: init[%d] names arguments the problem lacks", k + 1);
      goto done;
    }
    CUfunction f;
    if ((r = cu->cuModuleGetFunction(&f, mod, kname))) {
      cterr_set(err, "init[%d]: kernel '%s' not found in its module: %s", k + 1, kname, cuda_errstr(r));
      goto done;
    }
    void *params[MAX_ARGS];
    wk_params_map(w, l->nargs, l->arg, params);
    w->launch_params = params;
    r = wk_smem_optin(w, f, &l->geom);
    if (!r) r = wk_launch(w, f, &l->geom);
    w->launch_params = NULL;
    if (!r) r = cu->cuStreamSynchronize(w->stream);
    if (r) {
      *fatal = wk_context_dead(w, r);
      const launch_geom *g = &l->geom;
      cterr_set(err, "init[%d] kernel '%s' (grid %u,%u,%u block %u,%u,%u): %s", k + 1, kname, g->grid[0], g->grid[1],
                g->grid[2], g->block[0], g->block[1], g->block[2], cuda_errstr(r));
      goto done;
    }
  }
  for (int i = 0; i < s->nargs; i++) { /* the init's output is what each run of an inout starts from */
    wk_arg *d = &w->p->arg[i];
    if (s->args[i].kind == ARG_INOUT && (r = cu->cuMemcpyDtoD(d->orig, d->d, d->bytes))) {
      *fatal = wk_context_dead(w, r);
      cterr_set(err, "init: keeping what it left in '%s': %s", s->args[i].name, cuda_errstr(r));
      goto done;
    }
  }
  rc = 0;
done:
  if (mod && !*fatal) cu->cuModuleUnload(mod);
  return rc;
}
