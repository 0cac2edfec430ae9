/* gpu_worker_launches: a configuration that is a sequence of launches (space.h: launches), in
 * the GPU worker. Its image is a bundle of its programs (compile_bundle.c): the first is loaded
 * by wk_measure as any configuration's; the others here, each filled with the problem's symbols.
 * Each launch gets its kernel, geometry and parameter array (its arguments, by index, from the
 * problem's shared buffers and this job's scalars); its limits are checked as the first
 * kernel's are (over one: invalid, the launch named). Once set up, a wk_launch of the
 * configuration's kernel runs the whole sequence on the stream, so the check, the timing loops
 * and the energy window all see the sequence as one configuration. */
#include <stdio.h>
#include <string.h>

#include "compile/compile.h"
#include "gpu_worker_int.h"

void wk_params_map(worker *w, int n, const int8_t *idx, void **out) {
  for (int a = 0; a < n; a++) {
    int i = idx[a];
    argkind k = w->p->setup.args[i].kind;
    out[a] = k == ARG_SCALAR      ? (void *)w->p->arg[i].scalar
             : k == ARG_TENSORMAP ? wk_tmap_bytes(i)
                                  : (void *)&w->p->arg[i].d;
  }
}

static int attr_of(worker *w, CUfunction f, CUfunction_attribute a) {
  int v = -1;
  if (w->cu->cuFuncGetAttribute(&v, a, f)) v = -1;
  return v;
}

int wk_seq_setup(worker *w, CUmodule mod, CUfunction f, const wire_job *job, const void *cubin, wire_result *res) {
  const cuda_api *cu = w->cu;
  w->nseq = w->nseq_mod = 0;
  if (job->nlaunches <= 0) return 0;
  if (job->nlaunches > MAX_LAUNCHES) {
    wk_fail(res, ST_LAUNCH_ERROR, "GPU worker: %d launches in the job (at most %d)", (int)job->nlaunches, MAX_LAUNCHES);
    return -1;
  }
  CUmodule mods[COMPILE_MAX_PROGRAMS] = {mod};
  int nimg = compile_bundle_count(cubin, job->cubin_len);
  for (int k = 0; k < job->nlaunches; k++) {
    const launch_step *l = &job->launches[k];
    CUresult r;
    if (l->program < 0 || l->program >= nimg || l->nargs < 0 || l->nargs > MAX_ARGS) {
      wk_fail(res, ST_LAUNCH_ERROR, "launches[%d]: program %d of %d, %d arguments (malformed job)", k + 1,
              (int)l->program, nimg, (int)l->nargs);
      return -1;
    }
    for (int a = 0; a < l->nargs; a++)
      if (l->arg[a] < 0 || l->arg[a] >= w->p->setup.nargs) {
        wk_fail(res, ST_LAUNCH_ERROR, "launches[%d]: argument %d is not one of the problem's", k + 1, (int)l->arg[a]);
        return -1;
      }
    if (!mods[l->program]) {
      size_t len = 0;
      const void *img = compile_bundle_image(cubin, job->cubin_len, l->program, &len);
      if (!img || (r = cu->cuModuleLoadData(&mods[l->program], img))) {
        wk_fail(res, ST_LAUNCH_ERROR, "launches[%d]: loading program %d of the bundle: %s", k + 1, (int)l->program + 1,
                img ? cuda_errstr(r) : "not in the image");
        return -1;
      }
      w->seq_mod[w->nseq_mod++] = mods[l->program];
      if (wk_symbols_fill(w, mods[l->program], 1, res->message, sizeof res->message)) {
        res->status = ST_LAUNCH_ERROR;
        return -1;
      }
    }
    CUfunction fk = f;
    if ((k > 0 || l->program > 0) && (r = cu->cuModuleGetFunction(&fk, mods[l->program], l->kernel))) {
      wk_fail(res, ST_LAUNCH_ERROR, "launches[%d]: kernel '%s' not found in its program: %s", k + 1, l->kernel,
              cuda_errstr(r));
      return -1;
    }
    const launch_geom *g = &l->geom;
    unsigned threads = launch_threads(g);
    int fmax = attr_of(w, fk, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        smem = attr_of(w, fk, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    for (int d = 0; d < 3; d++)
      if (g->block[d] == 0 || g->grid[d] == 0 || g->block[d] > (unsigned)w->max_block[d] ||
          g->grid[d] > (unsigned)w->max_grid[d]) {
        wk_fail(res, ST_INVALID,
                "limit: launches[%d] (%s): grid (%u,%u,%u) block (%u,%u,%u) is outside the device's "
                "limits",
                k + 1, l->kernel, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2]);
        return -1;
      }
    if (fmax > 0 && threads > (unsigned)fmax) {
      wk_fail(res, ST_INVALID, "limit: launches[%d] (%s): a block of %u threads exceeds the kernel's limit of %d",
              k + 1, l->kernel, threads, fmax);
      return -1;
    }
    if (smem >= 0 && (long)smem + g->dyn_smem > (long)w->smem_optin) {
      wk_fail(res, ST_INVALID,
              "limit: launches[%d] (%s): shared memory %d static + %u dynamic bytes exceeds the "
              "device's %d per block",
              k + 1, l->kernel, smem, g->dyn_smem, w->smem_optin);
      return -1;
    }
    if ((r = wk_smem_optin(w, fk, g))) {
      wk_fail(res, ST_LAUNCH_ERROR, "launches[%d]: allowing %u bytes of dynamic shared memory: %s", k + 1, g->dyn_smem,
              cuda_errstr(r));
      return -1;
    }
    w->seq_f[k] = fk;
    w->seq_g[k] = *g;
    wk_params_map(w, l->nargs, l->arg, w->seq_params[k]);
  }
  w->seq_main = f;
  w->nseq = job->nlaunches;
  return 0;
}

CUresult wk_seq_launch(worker *w) {
  CUresult r = CUDA_SUCCESS;
  for (int k = 0; k < w->nseq && !r; k++) {
    const launch_geom *g = &w->seq_g[k];
    r = w->cu->cuLaunchKernel(w->seq_f[k], g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2],
                              g->dyn_smem, w->stream, w->seq_params[k], NULL);
  }
  return r;
}

void wk_seq_release(worker *w) {
  for (int m = 0; m < w->nseq_mod; m++) w->cu->cuModuleUnload(w->seq_mod[m]);
  w->nseq = w->nseq_mod = 0;
  w->seq_main = NULL;
}
