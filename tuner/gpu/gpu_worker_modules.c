/* gpu_worker_modules: the GPU worker's loaded modules, kept between jobs. Configurations that
 * share a cubin — the members of one batched compile (compile.h) and configurations that differ
 * only in runtime parameters — reach the worker one after the other with the same image; the
 * module loaded for the first serves the others, so each pays cuModuleLoadData once. Keyed by
 * the image's bytes (a checksum first, then the bytes themselves), least recently used out. */
#include <stdlib.h>
#include <string.h>

#include "gpu_worker_int.h"

CUresult wk_module_get(worker *w, const void *image, size_t len, CUmodule *out, int *reused) {
  uint64_t sum = checksum64(image, len);
  *reused = 0;
  wk_module *lru = &w->mods[0];
  for (int i = 0; i < WK_MODULES; i++) {
    wk_module *m = &w->mods[i];
    if (m->mod && m->len == len && m->sum == sum && !memcmp(m->image, image, len)) {
      m->used = ++w->mod_clock;
      *out = m->mod;
      *reused = 1;
      return CUDA_SUCCESS;
    }
    if (!m->mod || (lru->mod && m->used < lru->used)) lru = m;
  }
  CUmodule mod;
  CUresult r = w->cu->cuModuleLoadData(&mod, image);
  if (r) return r;
  if (lru->mod) w->cu->cuModuleUnload(lru->mod);
  free(lru->image);
  lru->mod = mod;
  lru->image = xmalloc(len ? len : 1);
  memcpy(lru->image, image, len);
  lru->len = len;
  lru->sum = sum;
  lru->used = ++w->mod_clock;
  *out = mod;
  return CUDA_SUCCESS;
}

void wk_modules_free(worker *w) {
  for (int i = 0; i < WK_MODULES; i++) {
    if (w->mods[i].mod) w->cu->cuModuleUnload(w->mods[i].mod);
    free(w->mods[i].image);
    memset(&w->mods[i], 0, sizeof w->mods[i]);
  }
}
