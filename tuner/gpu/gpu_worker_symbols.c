/* gpu_worker_symbols: the problem's __constant__ and __device__ variables (space.h, symbols) in
 * the GPU worker. At setup each symbol's bytes are made on the host once: the data the space
 * sent (a Lua table or a file), the seeded fill (drawn as a buffer's, from a stream of its own),
 * or a copy of a buffer argument's initial contents. Every module the worker loads afterwards —
 * each configuration's and the reference's — gets them with cuModuleGetGlobal and a copy, before
 * anything of it runs. A symbol smaller in the module than the data is an error naming both
 * sizes; a larger one gets the data at its start (Kernel Tuner's cmem_args fills a prefix too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_worker_int.h"

void wk_symbols_free(worker *w) {
  for (int k = 0; k < MAX_SYMBOLS; k++) free(w->p->symdata[k]), w->p->symdata[k] = NULL;
}

int wk_symbols_setup(worker *w, const char *data, size_t len, cterr *err) {
  const wire_setup *s = &w->p->setup;
  wk_symbols_free(w);
  if (s->nsyms < 0 || s->nsyms > MAX_SYMBOLS)
    return cterr_set(err, "GPU worker: %d symbols in the setup", (int)s->nsyms);
  size_t at = 0;
  for (int k = 0; k < s->nsyms; k++) {
    const symspec *y = &s->syms[k];
    int es = wk_elsize(y->type);
    size_t bytes = (size_t)y->count * (size_t)es;
    if (es == 0 || y->count <= 0) return cterr_set(err, "symbol '%s': no elements of a known type", y->shown);
    unsigned char *b = w->p->symdata[k] = xmalloc(bytes);
    if (y->src == SYMSRC_DATA) {
      if (y->data_len != bytes || at + bytes > len)
        return cterr_set(err, "symbol '%s': %llu bytes of data for %zu (malformed setup)", y->shown,
                         (unsigned long long)y->data_len, bytes);
      memcpy(b, data + at, bytes);
      at += bytes;
    } else if (y->src == SYMSRC_ARG) {
      const wk_arg *a = y->arg >= 0 && y->arg < s->nargs ? &w->p->arg[y->arg] : NULL;
      if (!a || !a->d || a->bytes < bytes)
        return cterr_set(err, "symbol '%s': argument %d is not a buffer of %zu bytes", y->shown, (int)y->arg, bytes);
      CUresult r = w->cu->cuMemcpyDtoH(b, a->orig ? a->orig : a->d, bytes);
      if (r)
        return cterr_set(err, "symbol '%s': reading buffer '%s': %s", y->shown, s->args[y->arg].name, cuda_errstr(r));
    } else {
      argspec as = {.type = y->type, .count = y->count, .fill = y->fill, .lo = y->lo, .hi = y->hi};
      if (y->fill == FILL_ZERO) memset(b, 0, bytes);
      else wk_fill_host(&as, s->seed, MAX_ARGS + k, y->count, b); /* a stream past every argument's */
    }
  }
  if (at != len) return cterr_set(err, "GPU worker: %zu bytes of symbol data left over in the setup", len - at);
  return 0;
}

int wk_symbols_fill(worker *w, CUmodule mod, int required, char *msg, size_t len) {
  const cuda_api *cu = w->cu;
  for (int k = 0; k < w->p->setup.nsyms; k++) {
    const symspec *y = &w->p->setup.syms[k];
    size_t bytes = (size_t)y->count * (size_t)wk_elsize(y->type), have = 0;
    CUdeviceptr p = 0;
    CUresult r = cu->cuModuleGetGlobal(&p, &have, mod, y->name);
    if (r == CUDA_ERROR_NOT_FOUND && !required) continue;
    if (r) {
      snprintf(msg, len,
               "symbol '%s'%s%s%s is not in the module: %s (is it a __constant__ or __device__ variable "
               "of the program?)",
               y->shown, strcmp(y->name, y->shown) ? " (" : "", strcmp(y->name, y->shown) ? y->name : "",
               strcmp(y->name, y->shown) ? ")" : "", cuda_errstr(r));
      return -1;
    }
    if (have < bytes) {
      snprintf(msg, len, "symbol '%s' holds %zu bytes in the module, the space fills %zu (%lld %s)", y->shown, have,
               bytes, (long long)y->count, elemtype_name(y->type));
      return -1;
    }
    if ((r = cu->cuMemcpyHtoD(p, w->p->symdata[k], bytes))) {
      snprintf(msg, len, "filling symbol '%s': %s", y->shown, cuda_errstr(r));
      return -1;
    }
  }
  return 0;
}
