/* gpu_worker_tmaps: the GPU worker's ct.tensormap arguments (docs/SPACE.md, "Tensor maps"). Each
 * is a CUtensorMap passed by value: 128 bytes, kept here 128-byte aligned (as cuda.h declares it;
 * one slot per argument index), encoded for every job from its tmapspec over the device address
 * of the buffer it describes. A map the driver refuses fails the configuration (its message names the map and
 * its shape), unless it is optional: then the kernel gets 128 zero bytes (and must not use them).
 * A map that reaches past its buffer is refused before the driver sees it, optional or not. */
#include <stdio.h>
#include <string.h>

#include "gpu_worker_int.h"

static _Alignas(128) unsigned char tmap_store[MAX_ARGS][128];

unsigned char *wk_tmap_bytes(int i) { return tmap_store[i >= 0 && i < MAX_ARGS ? i : 0]; }

static int dtype_of(int t, CUtensorMapDataType *out) {
  switch (t) {
  case EL_F32: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; return 0;
  case EL_F64: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT64; return 0;
  case EL_F16: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; return 0;
  case EL_BF16: *out = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; return 0;
  case EL_I32: *out = CU_TENSOR_MAP_DATA_TYPE_INT32; return 0;
  case EL_U32: *out = CU_TENSOR_MAP_DATA_TYPE_UINT32; return 0;
  case EL_I64: *out = CU_TENSOR_MAP_DATA_TYPE_INT64; return 0;
  case EL_U8: *out = CU_TENSOR_MAP_DATA_TYPE_UINT8; return 0;
  default: return -1;
  }
}

static const char *shape_of(const tmapspec *t, char *buf, size_t n) {
  int len = snprintf(buf, n, "dims {");
  for (int i = 0; i < t->rank; i++)
    len += snprintf(buf + len, n - (size_t)len, "%s%lld", i ? "," : "", (long long)t->dims[i]);
  len += snprintf(buf + len, n - (size_t)len, "}, strides {");
  for (int i = 0; i + 1 < t->rank; i++)
    len += snprintf(buf + len, n - (size_t)len, "%s%lld", i ? "," : "", (long long)t->strides[i]);
  len += snprintf(buf + len, n - (size_t)len, "} bytes, box {");
  for (int i = 0; i < t->rank; i++) len += snprintf(buf + len, n - (size_t)len, "%s%d", i ? "," : "", t->box[i]);
  snprintf(buf + len, n - (size_t)len, "}, swizzle %d", t->swizzle);
  return buf;
}

static int encode(worker *w, const tmapspec *t, char *msg, size_t len) {
  const argspec *a = &w->p->setup.args[t->arg];
  const argspec *b = t->buffer >= 0 && t->buffer < w->p->setup.nargs ? &w->p->setup.args[t->buffer] : NULL;
  unsigned char *dst = wk_tmap_bytes(t->arg);
  char shape[300];
  memset(dst, 0, 128);
  CUtensorMapDataType dt;
  if (!b || b->kind == ARG_SCALAR || b->kind == ARG_TENSORMAP || t->rank < 1 || t->rank > TMAP_MAX_RANK ||
      dtype_of(t->type, &dt) < 0) {
    snprintf(msg, len, "GPU worker: tensor map '%s': malformed job (buffer %d, rank %d)", a->name, (int)t->buffer,
             (int)t->rank);
    return -1;
  }
  if (!w->cu->cuTensorMapEncodeTiled) {
    snprintf(msg, len, "tensor map '%s': this CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or later needed)",
             a->name);
    return -1;
  }
  cuuint64_t dims[TMAP_MAX_RANK], strides[TMAP_MAX_RANK];
  cuuint32_t box[TMAP_MAX_RANK], estr[TMAP_MAX_RANK];
  for (int i = 0; i < t->rank; i++) {
    dims[i] = (cuuint64_t)t->dims[i], box[i] = (cuuint32_t)t->box[i], estr[i] = 1;
    if (i + 1 < t->rank) strides[i] = (cuuint64_t)t->strides[i];
  }
  /* the map must stay inside the buffer: its last element's offset below the allocation */
  const uint64_t es = (uint64_t)elemtype_size((elemtype)t->type);
  uint64_t last = es;
  for (int i = 0; i < t->rank; i++) last += (uint64_t)(t->dims[i] - 1) * (i ? (uint64_t)t->strides[i - 1] : es);
  const char *why = NULL;
  if (last > w->p->arg[t->buffer].bytes)
    why = "it reaches past the end of the buffer (a declaration error: not optional)";
  CUtensorMapSwizzle sw = t->swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                          : t->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : t->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                             : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = CUDA_SUCCESS;
  if (!why)
    r = w->cu->cuTensorMapEncodeTiled((CUtensorMap *)dst, dt, (cuuint32_t)t->rank, (void *)w->p->arg[t->buffer].d, dims,
                                      strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (!why && r == CUDA_SUCCESS) return 0;
  memset(dst, 0, 128);
  if (t->optional && !why) return 0;
  snprintf(msg, len, "tensor map '%s' of '%s' (%s): %s", a->name, b->name, shape_of(t, shape, sizeof shape),
           why ? why : cuda_errstr(r));
  return -1;
}

int wk_tmaps_encode(worker *w, const wire_job *job, char *msg, size_t len) {
  if (job->ntmaps < 0 || job->ntmaps > MAX_TMAPS) {
    snprintf(msg, len, "GPU worker: %d tensor maps in the job (at most %d)", (int)job->ntmaps, MAX_TMAPS);
    return -1;
  }
  for (int i = 0; i < w->p->setup.nargs; i++) {
    if (w->p->setup.args[i].kind != ARG_TENSORMAP) continue;
    int k = 0;
    while (k < job->ntmaps && job->tmaps[k].arg != i) k++;
    if (k == job->ntmaps) {
      snprintf(msg, len, "GPU worker: no tensor map for argument '%s' in the job", w->p->setup.args[i].name);
      return -1;
    }
    if (encode(w, &job->tmaps[k], msg, len) < 0) return -1;
  }
  return 0;
}
