/* gpu_worker: the hidden `cutune __gpu-worker ORDINAL` process. It owns one CUDA context on one
 * device, answers the coordinator's frames (gpu_wire.h) on stdin/stdout, and exits when the
 * context is dead (a kernel faulted) so that the coordinator starts a fresh one.
 *
 * This file: process and device start-up (device info, the device-to-device copy bandwidth),
 * problem setup (arguments allocated and filled (gpu_worker_fill.c), the init launches and the
 * reference run once; up to GPU_PROBLEMS problems held at once, each job naming its slot) and the
 * command loop. gpu_worker_measure.c checks and times one configuration. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_worker_int.h"

extern const unsigned char cutune_gpu_kernels_fatbin[]; /* CMakeLists.txt: machine code and PTX */
extern const unsigned char cutune_gpu_kernels_ptx[];    /* ... the PTX alone, should the fatbin be refused */

static worker W;

int wk_elsize(elemtype t) {
  switch (t) {
  case EL_F32:
  case EL_I32:
  case EL_U32: return 4;
  case EL_F64:
  case EL_I64: return 8;
  case EL_U8: return 1;
  case EL_F16:
  case EL_BF16: return 2;
  default: return 0;
  }
}

static void free_problem(worker *w) {
  for (int i = 0; i < MAX_ARGS; i++) {
    wk_arg *a = &w->p->arg[i];
    if (a->d) w->cu->cuMemFree(a->d);
    if (a->orig) w->cu->cuMemFree(a->orig);
    if (a->ref) w->cu->cuMemFree(a->ref);
    if (a->refd) w->cu->cuMemFree(a->refd);
    memset(a, 0, sizeof *a);
  }
  if (w->p->wide) w->cu->cuMemFree(w->p->wide);
  w->p->wide = 0;
  w->p->have_problem = 0;
  w->p->working_set = 0;
  w->p->ref_key = 0;
  wk_symbols_free(w);
  if (w->p->check_mod) w->cu->cuModuleUnload(w->p->check_mod);
  w->p->check_mod = NULL, w->p->check_f = NULL;
}

/* A scalar argument's bytes as the kernel takes them; -1 for an unknown type. */
static int set_scalar(wk_arg *d, elemtype type, int64_t ival, double fval) {
  switch (type) {
  case EL_F32: {
    float f = (float)fval;
    memcpy(d->scalar, &f, 4);
    break;
  }
  case EL_F64: memcpy(d->scalar, &fval, 8); break;
  case EL_F16: {
    uint16_t h = wk_f2h((float)fval);
    memcpy(d->scalar, &h, 2);
    break;
  }
  case EL_BF16: {
    uint16_t h = wk_f2bf((float)fval);
    memcpy(d->scalar, &h, 2);
    break;
  }
  case EL_I32:
  case EL_U32: {
    uint32_t u = (uint32_t)ival;
    memcpy(d->scalar, &u, 4);
    break;
  }
  case EL_I64: memcpy(d->scalar, &ival, 8); break;
  case EL_U8: d->scalar[0] = (unsigned char)ival; break;
  default: return -1;
  }
  return 0;
}

/* A job's own scalar values (runtime parameters) over the setup's, or (restore) the setup's
 * back. An index that is not a scalar of the setup: -1 with msg filled. */
static int job_scalars(worker *w, const wire_job *job, int restore, char *msg, size_t len) {
  if (job->nargvals < 0 || job->nargvals > MAX_ARGVALS) {
    snprintf(msg, len, "GPU worker: %d argument values in the job (at most %d)", (int)job->nargvals, MAX_ARGVALS);
    return -1;
  }
  for (int k = 0; k < job->nargvals; k++) {
    const argval *v = &job->argvals[k];
    if (v->index < 0 || v->index >= w->p->setup.nargs) {
      snprintf(msg, len, "GPU worker: argument value for index %d, which is not an argument of the problem",
               (int)v->index);
      return -1;
    }
    const argspec *a = &w->p->setup.args[v->index];
    if (a->kind != ARG_SCALAR) { /* a buffer sized per configuration: this job's element count */
      if (!restore && (v->ival <= 0 || v->ival > a->count)) {
        snprintf(msg, len, "GPU worker: %lld elements of '%s' asked, %lld allocated", (long long)v->ival, a->name,
                 (long long)a->count);
        return -1;
      }
      w->count[v->index] = restore ? 0 : v->ival;
      continue;
    }
    set_scalar(&w->p->arg[v->index], a->type, restore ? a->ival : v->ival, restore ? a->fval : v->fval);
  }
  return 0;
}

/* Set the scalars and allocate and fill the buffers of the setup's arguments (the worker's
 * previous problem is freed first; what this allocates before an error is freed by the next
 * setup's free_problem, or by the caller). Under a memory checker (CUTUNE_GUARD_BYTES, set by
 * `cutune explain --sanitize`): a gap after each buffer, allocated now and freed once all are
 * placed, so that a write past a buffer's end lands in no live allocation (where memcheck
 * reports it) rather than in the next one. The gap must be small enough to be placed right
 * after the buffer (256 KiB is; 2 MiB is not). The gaps are freed on every way out. */
static int wk_alloc_args(worker *w, const wire_setup *s, const char *data, cterr *err) {
  const cuda_api *cu = w->cu;
  CUresult r;
  CUdeviceptr guards[MAX_ARGS];
  int nguards = 0, rc = -1;
  size_t wide = 0; /* bytes of w->p->wide */
  const char *gb = getenv("CUTUNE_GUARD_BYTES");
  size_t guard_bytes = gb ? (size_t)strtoull(gb, NULL, 10) : 0;
  free_problem(w);
  for (int i = 0; i < s->nargs; i++) {
    const argspec *a = &s->args[i];
    wk_arg *d = &w->p->arg[i];
    w->p->params[i] = &d->d;
    if (a->kind == ARG_TENSORMAP) { /* 128 zero bytes until a job encodes it (wk_tmaps_encode) */
      w->p->params[i] = wk_tmap_bytes(i);
      memset(w->p->params[i], 0, 128);
      continue;
    }
    if (a->kind == ARG_SCALAR) {
      w->p->params[i] = d->scalar;
      if (set_scalar(d, a->type, a->ival, a->fval) < 0) {
        cterr_set(err, "argument '%s': unknown element type %d", a->name, (int)a->type);
        goto done;
      }
      continue;
    }
    int es = wk_elsize(a->type);
    if (es == 0 || a->count <= 0) {
      cterr_set(err, "argument '%s': a buffer needs a known element type and a positive count (got %lld)", a->name,
                (long long)a->count);
      goto done;
    }
    d->bytes = (size_t)a->count * (a->typed > es ? a->typed : es); /* typed: the widest type's */
    w->p->working_set += d->bytes;
    if ((r = cu->cuMemAlloc(&d->d, d->bytes))) {
      cterr_set(err, "allocating %zu bytes for argument '%s': %s", d->bytes, a->name, cuda_errstr(r));
      goto done;
    }
    if (guard_bytes && nguards < MAX_ARGS && !cu->cuMemAlloc(&guards[nguards], guard_bytes)) nguards++;
    w->p->cur_type[i] = a->type; /* a typed one's: the reference's (gpu_worker_types.c) */
    if (a->kind != ARG_OUTPUT && wk_upload_arg(w, i, a, s->seed, data, err)) goto done;
    if (a->kind != ARG_OUTPUT && a->fill == FILL_DATA) data += d->bytes;
    if (a->kind == ARG_INOUT) {
      if ((r = cu->cuMemAlloc(&d->orig, d->bytes)) || (r = cu->cuMemcpyDtoD(d->orig, d->d, d->bytes))) {
        cterr_set(err, "keeping the initial contents of '%s': %s", a->name, cuda_errstr(r));
        goto done;
      }
    }
    if (a->kind != ARG_INPUT && a->typed && !a->nocheck) { /* compared in double: widened copies */
      size_t wb = (size_t)a->count * sizeof(double);
      if ((r = cu->cuMemAlloc(&d->refd, wb))) {
        cterr_set(err, "allocating the reference's copy of '%s' in double (%zu bytes): %s", a->name, wb,
                  cuda_errstr(r));
        goto done;
      }
      if (wb > wide) wide = wb;
    } else if (a->kind != ARG_INPUT && !a->nocheck && (r = cu->cuMemAlloc(&d->ref, d->bytes))) { /* compared */
      cterr_set(err, "allocating the reference copy of '%s' (%zu bytes): %s", a->name, d->bytes, cuda_errstr(r));
      goto done;
    }
  }
  if (wide && (r = cu->cuMemAlloc(&w->p->wide, wide))) { /* one typed output at a time, widened */
    w->p->wide = 0;
    cterr_set(err, "allocating %zu bytes to compare outputs in double: %s", wide, cuda_errstr(r));
    goto done;
  }
  rc = 0;
done:
  for (int i = 0; i < nguards; i++) cu->cuMemFree(guards[i]);
  return rc;
}

/* Allocate and fill the arguments, run the reference once and keep its outputs. *fatal is set
 * when the reference broke the context. */
static int wk_setup(worker *w, const dbuf *p, int *fatal, cterr *err) {
  const cuda_api *cu = w->cu;
  wire_setup *s = &w->p->setup;
  CUresult r;
  CUmodule mod = NULL;
  if (p->len < sizeof *s) return cterr_set(err, "GPU worker: setup frame of %zu bytes is too short", p->len);
  memcpy(s, p->data, sizeof *s);
  if (s->nargs < 0 || s->nargs > MAX_ARGS ||
      sizeof *s + s->kernel_len + s->cubin_len + s->check_kernel_len + s->check_cubin_len + s->init_cubin_len > p->len)
    return cterr_set(err, "GPU worker: malformed setup frame (%d args, %zu bytes)", (int)s->nargs, p->len);
  char kernel[256];
  snprintf(kernel, sizeof kernel, "%.*s", (int)s->kernel_len, p->data + sizeof *s);
  const char *cubin = p->data + sizeof *s + s->kernel_len; /* dbuf keeps a NUL after: PTX text works too */

  /* after the cubins: the symbols' data, then the data-filled buffers' (gpu_wire.h) */
  size_t head = sizeof *s + s->kernel_len + s->cubin_len + s->check_kernel_len + s->check_cubin_len + s->init_cubin_len;
  size_t symlen = 0, datalen = 0;
  for (int k = 0; k < s->nsyms && k < MAX_SYMBOLS; k++)
    if (s->syms[k].src == SYMSRC_DATA) symlen += s->syms[k].data_len;
  for (int i = 0; i < s->nargs; i++)
    if (s->args[i].kind != ARG_SCALAR && s->args[i].kind != ARG_TENSORMAP && s->args[i].kind != ARG_OUTPUT &&
        s->args[i].fill == FILL_DATA)
      datalen += (size_t)s->args[i].count * (size_t)wk_elsize(s->args[i].type);
  if (head + symlen + datalen != p->len)
    return cterr_set(err, "GPU worker: malformed setup frame (%zu bytes, %zu of them data for %zu)", p->len,
                     p->len - head, symlen + datalen);
  if (wk_alloc_args(w, s, p->data + head + symlen, err)) return -1;
  w->p->best_full = NAN;
  if ((r = cu->cuCtxSynchronize())) { /* all uploads done before the reference reads them */
    *fatal = wk_context_dead(w, r);
    return cterr_set(err, "uploading the arguments: %s", cuda_errstr(r));
  }
  if (wk_symbols_setup(w, p->data + head, symlen, err)) return -1;
  if (s->check_cubin_len) { /* the user's check kernel: loaded once for the problem */
    char cname[512], msg[512];
    const char *cp = p->data + sizeof *s + s->kernel_len + s->cubin_len;
    snprintf(cname, sizeof cname, "%.*s", (int)s->check_kernel_len, cp);
    if ((r = cu->cuModuleLoadData(&w->p->check_mod, cp + s->check_kernel_len)))
      return cterr_set(err, "the check kernel: loading its module: %s", cuda_errstr(r));
    if (wk_symbols_fill(w, w->p->check_mod, 0, msg, sizeof msg)) return cterr_set(err, "the check kernel: %s", msg);
    if ((r = cu->cuModuleGetFunction(&w->p->check_f, w->p->check_mod, cname)))
      return cterr_set(err, "the check kernel '%s' is not in its module: %s", cname, cuda_errstr(r));
  }
  if (wk_init_run(w, p->data + (head - s->init_cubin_len), fatal, err)) return -1; /* before the reference */
  if (s->unchecked || s->ref_per_config || !s->cubin_len) { /* no reference at setup: timing only, or one per job */
    w->p->have_problem = 1;
    return 0;
  }
  CUfunction f;
  char msg[512];
  if ((r = cu->cuModuleLoadData(&mod, cubin)))
    return cterr_set(err, "reference: loading its module: %s", cuda_errstr(r));
  if (wk_symbols_fill(w, mod, 0, msg, sizeof msg)) {
    cu->cuModuleUnload(mod);
    return cterr_set(err, "reference: %s", msg);
  }
  if ((r = cu->cuModuleGetFunction(&f, mod, kernel))) {
    cu->cuModuleUnload(mod);
    return cterr_set(err, "reference: kernel '%s' not found in its module: %s", kernel, cuda_errstr(r));
  }
  if (s->ref_nargs > 0) { /* reference.args: its own arguments */
    wk_params_map(w, s->ref_nargs, s->ref_arg, w->ref_params);
    w->launch_params = w->ref_params;
  }
  r = wk_smem_optin(w, f, &s->ref_geom);
  if (!r) r = wk_prepare_run(w);
  if (!r) r = wk_launch(w, f, &s->ref_geom);
  w->launch_params = NULL;
  if (!r && !(r = cu->cuStreamSynchronize(w->stream))) {
    for (int i = 0; i < s->nargs && !r; i++)
      if (w->p->arg[i].ref) r = cu->cuMemcpyDtoDAsync(w->p->arg[i].ref, w->p->arg[i].d, w->p->arg[i].bytes, w->stream);
      else if (w->p->arg[i].refd) /* typed by the configuration: kept as doubles */
        r = wk_widen(w, w->p->arg[i].d, s->args[i].type, w->p->arg[i].refd, (unsigned long long)s->args[i].count);
    if (!r) r = cu->cuStreamSynchronize(w->stream);
  }
  if (r) {
    *fatal = wk_context_dead(w, r);
    if (!*fatal) cu->cuModuleUnload(mod);
    return cterr_set(err, "reference kernel '%s' (grid %u,%u,%u block %u,%u,%u): %s", kernel, s->ref_geom.grid[0],
                     s->ref_geom.grid[1], s->ref_geom.grid[2], s->ref_geom.block[0], s->ref_geom.block[1],
                     s->ref_geom.block[2], cuda_errstr(r));
  }
  cu->cuModuleUnload(mod);
  w->p->have_problem = 1;
  return 0;
}

/* Median device-to-device copy bandwidth (bytes read + written per second) of buffers of
 * `size` bytes (smaller where memory is short): the ceiling memory-bound configurations are
 * compared with. */
static double wk_copy_bw(worker *w, size_t size) {
  const cuda_api *cu = w->cu;
  CUdeviceptr a = 0, b = 0;
  size_t least = size < ((size_t)64 << 20) ? size : ((size_t)64 << 20);
  while (size >= least) {
    if (!cu->cuMemAlloc(&a, size) && !cu->cuMemAlloc(&b, size)) break;
    if (a) cu->cuMemFree(a);
    a = b = 0;
    size /= 4;
  }
  if (!a) return NAN;
  enum { WARM = 3, REPS = 21 };
  double ms[REPS], gbps = NAN;
  int ok = !cu->cuMemsetD8Async(a, 0x5a, size, w->stream);
  for (int i = 0; i < WARM && ok; i++) ok = !cu->cuMemcpyDtoDAsync(b, a, size, w->stream);
  for (int i = 0; i < REPS && ok; i++)
    ok = !cu->cuEventRecord(w->ev[2 * i], w->stream) && !cu->cuMemcpyDtoDAsync(b, a, size, w->stream) &&
         !cu->cuEventRecord(w->ev[2 * i + 1], w->stream);
  if (ok) ok = !cu->cuStreamSynchronize(w->stream);
  for (int i = 0; i < REPS && ok; i++) {
    float t;
    ok = !cu->cuEventElapsedTime(&t, w->ev[2 * i], w->ev[2 * i + 1]);
    ms[i] = t;
  }
  double tmp[REPS];
  if (ok) gbps = 2.0 * (double)size / (wk_median(ms, REPS, tmp) * 1e-3) / 1e9;
  cu->cuMemFree(a);
  cu->cuMemFree(b);
  return gbps;
}

/* The start: the device's identity sent (IDENT) as soon as the driver has described it, then
 * the context and the rest, after which the caller sends HELLO (gpu_wire.h). */
static int wk_init(worker *w, int out, int ordinal, int measure_copy, cterr *err) {
  CUresult r;
  const cuda_api *cu = w->cu = cuda_api_load(err);
  if (!cu) return -1;
  trace_mark("GPU worker: driver loaded");
  if ((r = cu->cuInit(0))) return cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device: cuInit: %s", cuda_errstr(r));
  trace_mark("GPU worker: cuInit");
  int n = 0;
  if ((r = cu->cuDeviceGetCount(&n))) return cterr_set(err, "cuDeviceGetCount: %s", cuda_errstr(r));
  if (ordinal < 0 || ordinal >= n)
    return cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device %d (this machine has %d)", ordinal, n);
  if ((r = cu->cuDeviceGet(&w->dev, ordinal))) return cterr_set(err, "cuDeviceGet(%d): %s", ordinal, cuda_errstr(r));
  gpu_device_info *in = &w->info;
  memset(in, 0, sizeof *in);
  cu->cuDeviceGetName(in->name, sizeof in->name, w->dev);
  CUuuid u;
  if (!cu->cuDeviceGetUuid(&u, w->dev)) {
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(in->uuid, sizeof in->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  }
  int major = 0, minor = 0, v = 0;
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, w->dev);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, w->dev);
  snprintf(in->cc, sizeof in->cc, "%d.%d", major, minor);
  snprintf(in->arch, sizeof in->arch, "sm_%d%d", major, minor);
  if (!cu->cuDriverGetVersion(&v)) snprintf(in->driver, sizeof in->driver, "%d.%d", v / 1000, v % 1000 / 10);
  cu->cuDeviceGetAttribute(&in->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, w->dev);
  cu->cuDeviceGetAttribute(&in->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, w->dev);
  cu->cuDeviceGetAttribute(&w->max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, w->dev);
  cu->cuDeviceGetAttribute(&w->max_block[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, w->dev);
  cu->cuDeviceGetAttribute(&w->max_block[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, w->dev);
  cu->cuDeviceGetAttribute(&w->max_block[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, w->dev);
  cu->cuDeviceGetAttribute(&w->max_grid[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, w->dev);
  cu->cuDeviceGetAttribute(&w->max_grid[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, w->dev);
  cu->cuDeviceGetAttribute(&w->max_grid[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, w->dev);
  cu->cuDeviceGetAttribute(&w->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, w->dev);
  size_t mem = 0;
  cu->cuDeviceTotalMem(&mem, w->dev);
  in->mem_bytes = (int64_t)mem;
  char pci[32] = "";
  cu->cuDeviceGetPCIBusId(pci, sizeof pci, w->dev);
  in->copy_gbps = NAN;
  wire_ident id;
  memset(&id, 0, sizeof id); /* the padding too: the struct travels as raw bytes */
  id.ordinal = ordinal, id.info = *in;
  trace_mark("GPU worker: IDENT (%s): the device described, no context yet", in->arch);
  if (wire_write(out, MSG_IDENT, &id, sizeof id, NULL, 0, NULL, 0, err)) return -1;

  /* Waits block instead of spinning: the worker waits on the GPU for most of a run, and a
   * spinning core is one compile process fewer (the timing is the events', not the host's; the
   * wake-up costs ~10-50 us per synchronisation, against chunks of ~5-20 ms of launches). An
   * error (the context was made elsewhere with other flags) leaves the driver's default. */
  (void)cu->cuDevicePrimaryCtxSetFlags(w->dev, CU_CTX_SCHED_BLOCKING_SYNC);
  if ((r = cu->cuDevicePrimaryCtxRetain(&w->ctx, w->dev)) || (r = cu->cuCtxSetCurrent(w->ctx)))
    return cterr_set(err, "creating a CUDA context on device %d: %s", ordinal, cuda_errstr(r));
  trace_mark("GPU worker: context");
  /* A blocking stream: it waits for the synchronous copies of setup (which use the legacy
   * stream and may return before their DMA is done). */
  if ((r = cu->cuStreamCreate(&w->stream, CU_STREAM_DEFAULT)))
    return cterr_set(err, "cuStreamCreate: %s", cuda_errstr(r));
  for (size_t i = 0; i < sizeof w->ev / sizeof w->ev[0]; i++)
    if ((r = cu->cuEventCreate(&w->ev[i], CU_EVENT_BLOCKING_SYNC)))
      return cterr_set(err, "cuEventCreate: %s", cuda_errstr(r));
  /* the fatbin (no JIT on the GPUs it has machine code for); its PTX alone where the driver
   * refuses it (the JIT then costs this worker's start ~0.2 s, as before 2026-12-08) */
  if ((r = cu->cuModuleLoadData(&w->helpers, cutune_gpu_kernels_fatbin))) {
    trace_mark("GPU worker: the helpers' fatbin refused (%s): their PTX", cuda_errstr(r));
    if ((r = cu->cuModuleLoadData(&w->helpers, cutune_gpu_kernels_ptx)))
      return cterr_set(err, "loading the worker's helper kernels (the fatbin, then the PTX for compute_75): %s",
                       cuda_errstr(r));
  }
  static const char *bits[4] = {"ct_cmp_b8", "ct_cmp_b16", "ct_cmp_b32", "ct_cmp_b64"};
  for (int i = 0; i < 4 && !r; i++) r = cu->cuModuleGetFunction(&w->cmp_bits[i], w->helpers, bits[i]);
  if (!r) r = cu->cuModuleGetFunction(&w->cmp_f32, w->helpers, "ct_cmp_f32");
  if (!r) r = cu->cuModuleGetFunction(&w->cmp_f64, w->helpers, "ct_cmp_f64");
  if (!r) r = cu->cuModuleGetFunction(&w->cmp_f16, w->helpers, "ct_cmp_f16");
  if (!r) r = cu->cuModuleGetFunction(&w->cmp_bf16, w->helpers, "ct_cmp_bf16");
  if (!r) r = cu->cuModuleGetFunction(&w->empty, w->helpers, "ct_empty");
  if (!r) r = cu->cuModuleGetFunction(&w->spin, w->helpers, "ct_spin");
  if (!r) r = cu->cuModuleGetFunction(&w->fill_f32, w->helpers, "ct_fill_f32");
  if (!r) r = cu->cuModuleGetFunction(&w->fill_h16, w->helpers, "ct_fill_h16");
  static const char *more[] = {"ct_cmpar_f32",  "ct_cmpar_f64",  "ct_cmpar_f16",  "ct_cmpar_bf16",
                               "ct_reduce_f32", "ct_reduce_f64", "ct_reduce_i32", "ct_reduce_u32"};
  CUfunction *dst[] = {&w->cmpar_f32,  &w->cmpar_f64,  &w->cmpar_f16,  &w->cmpar_bf16,
                       &w->reduce_f32, &w->reduce_f64, &w->reduce_i32, &w->reduce_u32};
  for (int i = 0; i < 8 && !r; i++) r = cu->cuModuleGetFunction(dst[i], w->helpers, more[i]);
  if (!r) r = cu->cuModuleGetFunction(&w->widen, w->helpers, "ct_widen");
  w->iso_floor_ms = NAN;
  if (r) return cterr_set(err, "helper kernels: %s", cuda_errstr(r));
  trace_mark("GPU worker: helper kernels loaded");
  if ((r = cu->cuMemAlloc(&w->cmp_res, 16)) || (r = cu->cuMemAlloc(&w->red_res, 8 * sizeof(double))))
    return cterr_set(err, "cuMemAlloc: %s", cuda_errstr(r));
  w->scratch_bytes = 2 * (size_t)(in->l2_bytes > 0 ? in->l2_bytes : (64 << 20));
  if (cu->cuMemAlloc(&w->scratch, w->scratch_bytes)) w->scratch = 0; /* then no flushing: noted per result */
  /* written once, so the read-only flush of the isolated time never reads uninitialised memory
   * (initcheck stays quiet) */
  if (w->scratch && cu->cuMemsetD32Async(w->scratch, 0, w->scratch_bytes / 4, w->stream)) {
    cu->cuMemFree(w->scratch);
    w->scratch = 0;
  }

  w->nv = nvml_open(in->uuid[0] ? in->uuid : NULL, pci[0] ? pci : NULL);
  trace_mark("GPU worker: NVML");
  in->copy_gbps = measure_copy ? wk_copy_bw(w, (size_t)1 << 30) : NAN;
  trace_mark("GPU worker: copy bandwidth measured");
  return 0;
}

static int send_error(int out, const cterr *e) {
  cterr werr;
  return wire_write_error(out, e, &werr);
}

static int count_devices(int out) {
  cterr err;
  const cuda_api *cu = cuda_api_load(&err);
  if (!cu) {
    send_error(out, &err);
    return 1;
  }
  CUresult r = cu->cuInit(0);
  int32_t n = 0;
  if (r == CUDA_ERROR_NO_DEVICE) {
    cterr_set_code(&err, CTERR_NO_DEVICE, "no CUDA device: the driver found none");
    send_error(out, &err);
    return 1;
  }
  if (r || (r = cu->cuDeviceGetCount(&n))) {
    cterr_set_code(&err, CTERR_NO_DEVICE, "no CUDA device: cuInit: %s", cuda_errstr(r));
    send_error(out, &err);
    return 1;
  }
  return wire_write(out, MSG_COUNT_IS, &n, sizeof n, NULL, 0, NULL, 0, &err) ? 1 : 0;
}

/* A MSG_SETUP frame: the problem set up and answered with its baselines, or an error sent.
 * 0 to go on, else the worker's exit status (3: the context is dead; 1: the coordinator is gone). */
static int on_setup(worker *w, int out, const dbuf *p) {
  cterr err;
  int fatal = 0;
  int32_t slot = 0;
  if (p->len >= sizeof(wire_setup)) memcpy(&slot, p->data + offsetof(wire_setup, slot), sizeof slot);
  if (slot < 0 || slot >= GPU_PROBLEMS) {
    cterr_set(&err, "GPU worker: setup of problem slot %d (0 to %d)", (int)slot, GPU_PROBLEMS - 1);
    send_error(out, &err);
    return 0;
  }
  if (slot == 0) /* a new set of problems: the others' memory is given back first */
    for (int k = 1; k < GPU_PROBLEMS; k++) w->p = &w->probs[k], free_problem(w);
  w->p = &w->probs[slot];
  if (wk_setup(w, p, &fatal, &err)) {
    send_error(out, &err);
    if (fatal) return 3;
    free_problem(w);
    return 0;
  }
  /* The copy ceiling of this problem: a device-to-device copy moving the same bytes as one
   * launch (half read, half written), as cudaMemcpy would at this size. Where the data would
   * sit in L2 (configurations are then timed with L2 flushed) the large-copy figure stands
   * instead. */
  double copy = NAN;
  int known = w->p->setup.baselines_known;
  if (!known && isfinite(w->p->setup.bytes) && w->p->setup.bytes > 0 && w->p->setup.bytes >= 2.0 * w->info.l2_bytes) {
    double half = w->p->setup.bytes / 2;
    size_t size = half > (double)((size_t)1 << 30) ? (size_t)1 << 30 : ((size_t)half + 255) / 256 * 256;
    copy = wk_copy_bw(w, size);
  }
  /* The cuBLAS baseline of a GEMM space (cublas_sgemm); why it is missing, if it is. */
  wire_setup_ok ok = {copy, NAN, ""};
  if (!known && w->p->setup.sgemm[0] > 0)
    ok.sgemm_ms = wk_sgemm_ms(w, w->p->setup.sgemm, (elemtype)w->p->setup.gemm_type, ok.sgemm_why, sizeof ok.sgemm_why);
  return wire_write(out, MSG_SETUP_OK, &ok, sizeof ok, NULL, 0, NULL, 0, &err) ? 1 : 0;
}

/* A MSG_MEASURE frame: one configuration measured, its result sent. 0 to go on, else the
 * worker's exit status (2: a malformed frame; 3: the context is dead; 1: the coordinator is gone). */
static int on_measure(worker *w, int out, const dbuf *p) {
  cterr err;
  wire_result res;
  wire_result_init(&res);
  wire_job job;
  if (p->len < sizeof job) return 2;
  memcpy(&job, p->data, sizeof job);
  if (sizeof job + job.kernel_len + job.cubin_len != p->len) return 2;
  char kernel[256];
  snprintf(kernel, sizeof kernel, "%.*s", (int)job.kernel_len, p->data + sizeof job);
  if (job.slot < 0 || job.slot >= GPU_PROBLEMS) return 2;
  w->p = &w->probs[job.slot];
  if (!w->p->have_problem) {
    res.status = ST_INVALID;
    snprintf(res.message, sizeof res.message, "GPU worker: measure before a successful setup");
  } else if (job_scalars(w, &job, 0, res.message, sizeof res.message) < 0 ||
             wk_tmaps_encode(w, &job, res.message, sizeof res.message) < 0) {
    res.status = ST_INVALID;
  } else {
    if (wk_types_apply(w, &job, &res) == 0) wk_measure(w, &job, kernel, p->data + sizeof job + job.kernel_len, &res);
    job_scalars(w, &job, 1, NULL, 0);
  }
  if (wire_write(out, MSG_RESULT, &res, sizeof res, NULL, 0, NULL, 0, &err)) return 1;
  return res.fatal ? 3 : 0;
}

int gpu_worker_main(int argc, char **argv) {
  /* The protocol owns the original stdout; anything printed by accident goes to stderr. */
  int out = dup(1);
  if (out < 0 || dup2(2, 1) < 0) return 1;
  fcntl(out, F_SETFD, FD_CLOEXEC);
  signal(SIGPIPE, SIG_IGN); /* a gone coordinator shows up as a write error: exit then */

  if (argc < 2) {
    fputs("usage: cutune __gpu-worker ORDINAL [--no-copy-bw] | --count (started by cutune itself)\n", stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--count")) return count_devices(out);
  int measure_copy = !(argc > 2 && !strcmp(argv[2], "--no-copy-bw"));
  cterr err;
  long ord;
  if (parse_long(argv[1], &ord, "GPU ordinal", &err)) {
    send_error(out, &err);
    return 2;
  }

  worker *w = &W;
  w->p = &w->probs[0];
  if (wk_init(w, out, (int)ord, measure_copy, &err)) {
    send_error(out, &err);
    return 1;
  }
  if (wire_write(out, MSG_HELLO, &w->info, sizeof w->info, NULL, 0, NULL, 0, &err)) return 1;

  dbuf p;
  dbuf_init(&p);
  int rc = 0;
  for (;;) {
    uint32_t type;
    if (wire_read(0, &type, &p, &err)) break; /* coordinator gone: just leave */
    if (type == MSG_QUIT) break;
    int st;
    if (type == MSG_SETUP) st = on_setup(w, out, &p);
    else if (type == MSG_MEASURE) st = on_measure(w, out, &p);
    else {
      fprintf(stderr, "GPU worker: unknown frame type %u\n", type);
      st = 2;
    }
    if (st == 1) break; /* the coordinator is gone: as before, exit 0 */
    if (st) {
      rc = st;
      break;
    }
  }
  dbuf_free(&p);
  /* A dead context is left to the process exit; a healthy one is released cleanly. */
  if (rc != 3) {
    for (int k = 0; k < GPU_PROBLEMS; k++) w->p = &w->probs[k], free_problem(w);
    wk_modules_free(w);
    if (w->helpers) w->cu->cuModuleUnload(w->helpers);
  }
  nvml_close(w->nv);
  return rc;
}
