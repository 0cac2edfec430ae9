/* gpu_worker_check: the output check of one configuration in the GPU worker — every output
 * compared with the reference's copy on the device, as its argspec says (docs/SPACE.md, "The
 * check"):
 *
 *   bitwise              tolerance 0 and no atol/rtol (and every integer type);
 *   tolerance            |a - r| <= tol * max(1, |r|) (check.tolerance);
 *   atol / rtol          |a - r| <= atol + rtol * |r|, numpy.isclose's test (Kernel Tuner's default);
 *   reduce               the sum (or max, min) of the output against the same of the reference's,
 *                        within atol/rtol (tolerance when neither is given; exact when none is):
 *                        for outputs whose elements differ by configuration but whose total
 *                        does not (a reduction's per-block partial sums);
 *   a check kernel       the user's (check.kernel), launched as the built-in ones are: (out, ref, n,
 *                        res) adds its mismatches to res[0] and lowers res[1] to the first;
 *   nocheck              not compared.
 *
 * An element-wise check passes with up to `mismatches` elements failing it (ct.output's option,
 * or check.mismatches): the record's message then says how many differed.
 *
 * And the reference that is run from a configuration's own module (reference.params): again
 * only when its key (the values of the parameters it reads) differs from the last run's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpu_worker_int.h"

void wk_fail(wire_result *res, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  res->status = status;
  vsnprintf(res->message, sizeof res->message, fmt, ap);
  va_end(ap);
}

void wk_note(wire_result *res, const char *fmt, ...) {
  size_t len = strlen(res->message);
  if (len && len + 2 < sizeof res->message) memcpy(res->message + len, "; ", 3), len += 2;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->message + len, sizeof res->message - len, fmt, ap);
  va_end(ap);
}

void wk_fail_run(worker *w, wire_result *res, CUresult r, const char *what) {
  res->fatal = wk_context_dead(w, r);
  wk_fail(res, ST_RUNTIME_FAULT, "%s: %s", what, cuda_errstr(r));
}

static float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
  if (e == 0x1f) x = sign | 0x7f800000u | (m << 13);
  else if (e) x = sign | ((e + 112) << 23) | (m << 13);
  else if (!m) x = sign;
  else { /* subnormal: normalise */ e = 113;
    while (!(m & 0x400u)) {
      m <<= 1;
      e--;
    }
    x = sign | (e << 23) | ((m & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static void format_elem(char *buf, size_t n, elemtype t, const unsigned char *p) {
  switch (t) {
  case EL_F32: {
    float f;
    uint32_t u;
    memcpy(&f, p, 4);
    memcpy(&u, p, 4);
    snprintf(buf, n, "%.9g (0x%08x)", f, u);
    break;
  }
  case EL_F64: {
    double d;
    memcpy(&d, p, 8);
    snprintf(buf, n, "%.17g", d);
    break;
  }
  case EL_F16: {
    uint16_t h;
    memcpy(&h, p, 2);
    snprintf(buf, n, "%.5g (0x%04x)", h2f(h), h);
    break;
  }
  case EL_BF16: {
    uint16_t h;
    memcpy(&h, p, 2);
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    snprintf(buf, n, "%.4g (0x%04x)", f, h);
    break;
  }
  case EL_I32: {
    int32_t i;
    memcpy(&i, p, 4);
    snprintf(buf, n, "%d", i);
    break;
  }
  case EL_U32: {
    uint32_t i;
    memcpy(&i, p, 4);
    snprintf(buf, n, "%u", i);
    break;
  }
  case EL_I64: {
    int64_t i;
    memcpy(&i, p, 8);
    snprintf(buf, n, "%lld", (long long)i);
    break;
  }
  case EL_U8: snprintf(buf, n, "%u", p[0]); break;
  default: snprintf(buf, n, "?");
  }
}

static int is_float(elemtype t) { return elemtype_is_float(t); }

/* "atol 1e-06, rtol 1e-05", "relative tolerance 0.001", "exact comparison" */
static void describe_bounds(char *how, size_t n, const argspec *a, double tol) {
  if ((a->atol > 0 || a->rtol > 0) && (is_float(a->type) || a->reduce))
    snprintf(how, n, "atol %g, rtol %g", a->atol, a->rtol);
  else if (tol > 0 && (is_float(a->type) || a->reduce)) snprintf(how, n, "relative tolerance %g", tol);
  else snprintf(how, n, "exact comparison");
}

/* The reduction a->reduce of n elements of type a->type at p (an output, or its reference copy) as a
 * double. */
static int reduce_one(worker *w, const argspec *a, CUdeviceptr p, unsigned long long n, double out[4],
                      wire_result *res) {
  const cuda_api *cu = w->cu;
  CUfunction f = a->type == EL_F32   ? w->reduce_f32
                 : a->type == EL_F64 ? w->reduce_f64
                 : a->type == EL_I32 ? w->reduce_i32
                 : a->type == EL_U32 ? w->reduce_u32
                                     : NULL;
  if (!f) {
    wk_fail(res, ST_LAUNCH_ERROR, "output '%s': reduce is for float, double, int and uint outputs (this is %s)",
            a->name, elemtype_name(a->type));
    return -1;
  }
  void *params[] = {&p, &n, &w->red_res};
  CUresult r;
  if ((r = cu->cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, w->stream, params, NULL)) ||
      (r = cu->cuStreamSynchronize(w->stream)) || (r = cu->cuMemcpyDtoH(out, w->red_res, 4 * sizeof(double)))) {
    wk_fail_run(w, res, r, "reducing an output for the check");
    return -1;
  }
  return 0;
}

/* The check of a reduction of output a (n of its elements at out; nref of the reference's at ref):
 * 0 passes, 1 res says how it failed, -1 an error. */
static int compare_reduced(worker *w, const argspec *a, CUdeviceptr out, CUdeviceptr ref, unsigned long long n,
                           unsigned long long nref, double tol, wire_result *res) {
  double got[4], want[4];
  if (reduce_one(w, a, out, n, got, res) || reduce_one(w, a, ref, nref, want, res)) return -1;
  int k = a->reduce == RED_SUM ? 0 : a->reduce == RED_MAX ? 1 : 2;
  double x = got[k], y = want[k];
  int ok;
  if (got[3] > want[3]) ok = 0; /* NaNs where the reference has none: poisoned elements left */
  else if (a->atol > 0 || a->rtol > 0) ok = fabs(x - y) <= a->atol + a->rtol * fabs(y);
  else if (tol > 0) ok = fabs(x - y) <= tol * fmax(1.0, fabs(y));
  else ok = x == y;
  if (ok) return 0;
  char how[64];
  describe_bounds(how, sizeof how, a, tol);
  if (got[3] > want[3])
    wk_fail(res, ST_WRONG_RESULT,
            "output '%s': %.0f NaN elements (poisoned, left unwritten?) where the reference has "
            "%.0f; the %s of the rest is %.17g, the reference's %.17g",
            a->name, got[3], want[3], argreduce_name(a->reduce), x, y);
  else
    wk_fail(res, ST_WRONG_RESULT, "output '%s': its %s is %.17g, the reference's %.17g (%s; difference %.3g)", a->name,
            argreduce_name(a->reduce), x, y, how, x - y);
  return 1;
}

int wk_compare(worker *w, wire_result *res) {
  const cuda_api *cu = w->cu;
  double tol = w->p->setup.tolerance;
  if (w->p->setup.unchecked) return 0;
  for (int i = 0; i < w->p->setup.nargs; i++) {
    const argspec *a0 = &w->p->setup.args[i];
    wk_arg *d = &w->p->arg[i];
    if ((a0->kind != ARG_OUTPUT && a0->kind != ARG_INOUT) || a0->nocheck) continue;
    unsigned long long n = (unsigned long long)(w->count[i] > 0 ? w->count[i] : a0->count), got[2];
    argspec av = *a0; /* a buffer typed by the configuration: compared in double, with its type's bounds */
    const argspec *a = &av;
    CUdeviceptr dp = d->d, rp = d->ref;
    CUresult r;
    if (a0->typed) {
      if ((r = wk_widen(w, d->d, (elemtype)w->jtype[i], w->p->wide, n))) {
        wk_fail_run(w, res, r, "widening an output for the check");
        return -1;
      }
      snprintf(av.name, sizeof av.name, "%.20s (%s)", a0->name, elemtype_name((elemtype)w->jtype[i]));
      av.type = EL_F64, av.atol = w->jatol[i], av.rtol = w->jrtol[i];
      dp = w->p->wide, rp = d->refd;
    }
    if (a->reduce) {
      int rc = compare_reduced(w, a, dp, rp, n, (unsigned long long)a->count, tol, res);
      if (rc) return rc;
      continue;
    }
    int es = wk_elsize(a->type), isfloat = is_float(a->type);
    int bytes_idx = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
    double atol = a->atol, rtol = a->rtol;
    CUfunction f = w->cmp_bits[bytes_idx];
    void *pb[] = {&dp, &rp, &n, &w->cmp_res};
    void *pt[] = {&dp, &rp, &n, &tol, &w->cmp_res};
    void *pa[] = {&dp, &rp, &n, &atol, &rtol, &w->cmp_res};
    void **params = pb;
    if (w->p->check_f && !a0->typed) { /* the user's: (out, ref, n, res), as the built-in ones */
      f = w->p->check_f;
    } else if ((atol > 0 || rtol > 0) && isfloat) {
      f = a->type == EL_F32   ? w->cmpar_f32
          : a->type == EL_F64 ? w->cmpar_f64
          : a->type == EL_F16 ? w->cmpar_f16
                              : w->cmpar_bf16;
      params = pa;
    } else if (tol > 0 && isfloat) {
      f = a->type == EL_F32   ? w->cmp_f32
          : a->type == EL_F64 ? w->cmp_f64
          : a->type == EL_F16 ? w->cmp_f16
                              : w->cmp_bf16;
      params = pt;
    }
    unsigned long long blocks = (n + 255) / 256, cap = (unsigned long long)w->info.sms * 16;
    if (blocks > cap) blocks = cap;
    if ((r = cu->cuMemsetD32Async(w->cmp_res, 0, 2, w->stream)) || /* {0 mismatches, first = ~0} */
        (r = cu->cuMemsetD32Async(w->cmp_res + 8, 0xffffffffu, 2, w->stream)) ||
        (r = cu->cuLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, w->stream, params, NULL)) ||
        (r = cu->cuStreamSynchronize(w->stream)) || (r = cu->cuMemcpyDtoH(got, w->cmp_res, sizeof got))) {
      wk_fail_run(w, res, r, "comparing with the reference");
      return -1;
    }
    if (got[0] == 0) continue;
    if (a->mismatches > 0 && got[0] <= (unsigned long long)a->mismatches) { /* within what the space allows */
      wk_note(res, "output '%s': %llu of %llu elements differ from the reference, within mismatches = %lld", a->name,
              got[0], n, (long long)a->mismatches);
      continue;
    }
    unsigned char gv[8] = {0}, rv[8] = {0};
    char gs[64], rs[64];
    cu->cuMemcpyDtoH(gv, dp + got[1] * es, es);
    cu->cuMemcpyDtoH(rv, rp + got[1] * es, es);
    format_elem(gs, sizeof gs, a->type, gv);
    format_elem(rs, sizeof rs, a->type, rv);
    char how[64];
    describe_bounds(how, sizeof how, a, tol);
    if (w->p->check_f && !a0->typed) snprintf(how, sizeof how, "the space's check kernel");
    wk_fail(
        res, ST_WRONG_RESULT,
        "output '%s': %llu of %llu elements differ from the reference (%s); first at index %llu: got %s, expected %s",
        a->name, got[0], n, how, got[1], gs, rs);
    return 1;
  }
  return 0;
}

int wk_reference_in(worker *w, CUmodule mod, const wire_job *job, wire_result *res) {
  const cuda_api *cu = w->cu;
  if (!job->ref_kernel[0] || w->p->setup.unchecked) return 0;
  if (w->p->ref_key && w->p->ref_key == job->ref_key) return 0; /* its outputs are still in arg[].ref */
  w->p->ref_key = 0;
  CUfunction f;
  CUresult r;
  if ((r = cu->cuModuleGetFunction(&f, mod, job->ref_kernel))) {
    wk_fail(res, ST_LAUNCH_ERROR, "the reference kernel '%s' is not in this configuration's module: %s",
            job->ref_kernel, cuda_errstr(r));
    return -1;
  }
  const launch_geom *g = &job->ref_geom;
  if (w->p->setup.ref_nargs > 0) {
    wk_params_map(w, w->p->setup.ref_nargs, w->p->setup.ref_arg, w->ref_params);
    w->launch_params = w->ref_params;
  }
  if (!(r = wk_smem_optin(w, f, g)) && !(r = wk_prepare_run(w))) r = wk_launch(w, f, g);
  w->launch_params = NULL;
  if (r || (r = cu->cuStreamSynchronize(w->stream))) {
    res->fatal = wk_context_dead(w, r);
    wk_fail(res, res->fatal ? ST_RUNTIME_FAULT : ST_LAUNCH_ERROR,
            "the reference kernel '%s' (grid %u,%u,%u block "
            "%u,%u,%u) from this configuration's module: %s",
            job->ref_kernel, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], cuda_errstr(r));
    return -1;
  }
  for (int i = 0; i < w->p->setup.nargs && !r; i++)
    if (w->p->arg[i].ref) r = cu->cuMemcpyDtoDAsync(w->p->arg[i].ref, w->p->arg[i].d, w->p->arg[i].bytes, w->stream);
  if (!r) r = cu->cuStreamSynchronize(w->stream);
  if (r) {
    wk_fail_run(w, res, r, "keeping the reference's outputs");
    return -1;
  }
  w->p->ref_key = job->ref_key;
  return 0;
}
