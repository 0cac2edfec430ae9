/* compile: one NVRTC compilation in this process (compile_now), NVRTC's version and its
 * target architectures, and the cache key of a job (it hashes NVRTC's version). The only unit that includes nvrtc.h; the cache lives in
 * compile_cache.c, the worker pool in compile_pool.c.
 *
 * Options given to NVRTC, beyond the job's own: --gpu-architecture=sm_XX (a real
 * architecture, so the result is a CUBIN, not PTX), -Xptxas=-v (ptxas' resource report
 * lands in the program log, where we read registers, shared memory and spills) and
 * -I<toolkit>/include when a toolkit is found, so a template may #include <cuda_fp16.h>, and,
 * after the job's own options, -I<toolkit>/include/cccl where the toolkit has it (CUDA 13 moved
 * CUB, Thrust and libcu++ there; nvcc adds it as a system folder, after the user's -I, so a
 * template's `#include <cub/block/block_reduce.cuh>` finds it and a space's own -I folder may
 * still shadow one of its headers);
 * -lineinfo only where a job asks (compile_job.lineinfo: `cutune explain`, whose profilers map
 * SASS back to template lines). Tuning leaves it out: the code is the same byte for byte (the
 * .text sections of both cubins are identical), but the line tables and the embedded PTX make
 * the cubin ~3x larger and the compile ~10 % slower, and every module is loaded by the GPU
 * worker. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nvrtc.h>

#include "compile_int.h"

const char *compile_nvrtc_version(void) {
  static char ver[32];
  if (!ver[0]) {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) snprintf(ver, sizeof ver, "%d.%d", major, minor);
    else snprintf(ver, sizeof ver, "unknown");
  }
  return ver;
}

/* Each field goes in as its length then its bytes, so no two jobs hash alike by moving
 * text from one field to the next. */
static void hash_field(sha256_ctx *c, const char *s) {
  if (!s) s = "";
  char len[32];
  int n = snprintf(len, sizeof len, "%zu:", strlen(s));
  sha256_update(c, len, (size_t)n);
  sha256_update(c, s, strlen(s) + 1); /* NUL-separated */
}

void compile_job_key(const compile_job *job, char out[65]) {
  sha256_ctx c;
  sha256_init(&c);
  if (job->next) { /* a bundle: the key of the rest of the chain goes in first */
    char rest[65];
    compile_job_key(job->next, rest);
    hash_field(&c, "bundle");
    hash_field(&c, rest);
  }
  hash_field(&c, COMPILE_CACHE_FORMAT);
  /* the digest of the template and its includes, computed once per run (compile_source) */
  hash_field(&c, job->src_digest ? "digest" : "text");
  hash_field(&c, job->src_digest ? job->src_digest : job->src);
  char n[32];
  snprintf(n, sizeof n, "%d", job->nopts);
  hash_field(&c, n);
  for (int i = 0; i < job->nopts; i++) hash_field(&c, job->opts[i]);
  hash_field(&c, job->arch);
  hash_field(&c, job->kernel);
  for (int i = 0; i < job->nnames; i++) hash_field(&c, job->names[i]);
  hash_field(&c, job->lineinfo ? "lineinfo" : "");
  hash_field(&c, compile_nvrtc_version());
  uint8_t d[32];
  sha256_final(&c, d);
  hex_encode(d, 32, out);
  out[64] = 0;
}

const char *compile_supported_archs(void) {
  static char list[512];
  if (!list[0]) {
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 64) return "";
    int archs[64];
    if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) return "";
    size_t at = 0;
    for (int i = 0; i < n && at + 16 < sizeof list; i++)
      at += (size_t)snprintf(list + at, sizeof list - at, "%ssm_%d", i ? " " : "", archs[i]);
  }
  return list;
}

/* "sm_90" / "sm_90a" / "sm_100f" → 90 / 90 / 100; -1 when it is not an sm_ name. */
static int arch_number(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0 || !isdigit((unsigned char)arch[3])) return -1;
  char *end;
  long v = strtol(arch + 3, &end, 10);
  if (v <= 0 || v > 10000) return -1;
  if (*end && !((*end == 'a' || *end == 'f') && end[1] == 0)) return -1;
  return (int)v;
}

int compile_arch_supported(const char *arch) {
  int want = arch_number(arch);
  if (want < 0) return 0;
  int n = 0, archs[64];
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 64) return 0;
  if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) return 0;
  for (int i = 0; i < n; i++)
    if (archs[i] == want) return 1;
  return 0;
}

/* The toolkit's include folder, found at run time (the binary may run on a machine whose
 * toolkit lives elsewhere than the build machine's). NULL when none is found: templates
 * that include nothing still compile. */
const char *compile_toolkit_include_dir(void) {
  static int done;
  static char dir[PATH_MAX];
  if (done) return dir[0] ? dir : NULL;
  done = 1;
  const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
  for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
    if (!roots[i] || !roots[i][0]) continue;
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/include/cuda_fp16.h", roots[i]);
    struct stat st;
    if (stat(probe, &st) == 0) {
      snprintf(dir, sizeof dir, "%s/include", roots[i]);
      return dir;
    }
  }
  return NULL;
}

/* The toolkit's CCCL folder (<toolkit>/include/cccl: CUB, Thrust, libcu++ since CUDA 13), NULL
 * where the toolkit has none (CUDA 12 keeps them in include/ itself). */
const char *compile_toolkit_cccl_dir(void) {
  static int done;
  static char dir[PATH_MAX];
  if (done) return dir[0] ? dir : NULL;
  done = 1;
  const char *inc = compile_toolkit_include_dir();
  struct stat st;
  if (inc && (size_t)snprintf(dir, sizeof dir, "%s/cccl", inc) < sizeof dir && stat(dir, &st) == 0 &&
      S_ISDIR(st.st_mode))
    return dir;
  dir[0] = 0;
  return NULL;
}

/* " [compiled with -DTILE=64 -DPAD=1 for sm_90]" */
static void append_options_note(dbuf *b, const compile_job *job) {
  dbuf_puts(b, " [compiled with");
  for (int i = 0; i < job->nopts; i++) dbuf_printf(b, " %s", job->opts[i]);
  dbuf_printf(b, "%s for %s]", job->nopts ? "" : " no options", job->arch);
}

/* The lines of the log that say "error", joined by newlines: the code excerpts and the
 * "N errors detected" trailer are left out so the message stays short. */
static void collect_error_lines(dbuf *out, const char *log) {
  int count = 0;
  const char *p = log;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    /* "x.cu(3): error: ...", "x.cu(1): catastrophic error: ...", "nvrtc: error: ...",
     * "ptxas error   : ...", "ptxas fatal   : ..." */
    static const char *marks[] = {": error", "catastrophic error", "fatal error", "ptxas error", "ptxas fatal"};
    int is_error = 0;
    if (len && p[0] != ' ') {
      char *line = xmalloc(len + 1);
      memcpy(line, p, len);
      line[len] = 0;
      for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) is_error |= strstr(line, marks[i]) != NULL;
      if (strstr(line, "detected in the compilation")) is_error = 0; /* the "N errors" trailer */
      free(line);
    }
    if (is_error && count < 8) {
      if (count) dbuf_puts(out, "\n");
      dbuf_append(out, p, len);
      count++;
    }
    p += len + (nl ? 1 : 0);
  }
}

/* Find the line in [from, to) that contains needle; NULL if none. */
static const char *find_in(const char *from, const char *to, const char *needle) {
  const char *s = strstr(from, needle);
  return s && s < to ? s : NULL;
}

/* Read the number right before " <unit>" in a line, e.g. "640 bytes stack frame". */
static int number_before(const char *line_start, const char *line_end, const char *unit) {
  const char *u = find_in(line_start, line_end, unit);
  if (!u) return -1;
  const char *q = u;
  while (q > line_start && q[-1] == ' ') q--;
  const char *digits_end = q;
  while (q > line_start && isdigit((unsigned char)q[-1])) q--;
  if (q == digits_end) return -1;
  return (int)strtol(q, NULL, 10);
}

static const char *line_end_of(const char *s) {
  const char *nl = strchr(s, '\n');
  return nl ? nl : s + strlen(s);
}

/* Registers, static shared memory, stack frame and spills of `kernel` from ptxas -v:
 *   ptxas info    : Compiling entry function 'k' for 'sm_90'
 *   ptxas info    : Function properties for k
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
 * Non-inlined device functions get their own "Function properties" block inside the
 * entry's section, hence the search for this kernel's own block. Returns 0 if the entry
 * is absent. */
static int parse_resources(const char *log, const char *kernel, kresources *r) {
  char head[512];
  snprintf(head, sizeof head, "Compiling entry function '%s' for", kernel);
  const char *sec = strstr(log, head);
  if (!sec) return 0;
  const char *sec_end = strstr(sec + 1, "Compiling entry function '");
  if (!sec_end) sec_end = sec + strlen(sec);

  char props[512];
  snprintf(props, sizeof props, "Function properties for %s\n", kernel);
  const char *fp = find_in(sec, sec_end, props);
  if (fp) {
    const char *l = line_end_of(fp);
    if (*l) {
      l++;
      const char *e = line_end_of(l);
      r->local_bytes = number_before(l, e, "bytes stack frame");
      r->spill_stores = number_before(l, e, "bytes spill stores");
      r->spill_loads = number_before(l, e, "bytes spill loads");
    }
  }
  const char *used = find_in(sec, sec_end, ": Used ");
  if (used) {
    const char *e = line_end_of(used);
    r->regs = number_before(used, e, "registers");
    int smem = number_before(used, e, "bytes smem");
    r->smem_static = smem < 0 ? 0 : smem; /* ptxas omits the field when there is none */
  }
  return 1;
}

/* Whether the cubin's string table holds `name` as a whole symbol ("\0name\0"). */
static int cubin_has_symbol(const dbuf *cubin, const char *name) {
  size_t n = strlen(name);
  if (cubin->len < n + 2) return 0;
  for (size_t i = 0; i + n + 1 < cubin->len; i++)
    if (cubin->data[i] == 0 && !memcmp(cubin->data + i + 1, name, n) && cubin->data[i + 1 + n] == 0) return 1;
  return 0;
}

/* The next entry ptxas' report names at or after p ("Compiling entry function 'NAME' for"): its
 * name into entry (size cap), and where to look for the one after it; NULL when there is none. */
static const char *next_entry(const char *p, char *entry, size_t cap) {
  static const char key[] = "Compiling entry function '";
  p = strstr(p, key);
  if (!p) return NULL;
  p += sizeof key - 1;
  size_t len = strcspn(p, "'");
  if (!p[len]) return NULL;
  snprintf(entry, cap, "%.*s", (int)len, p);
  return p + len;
}

/* The entry names ptxas compiled, for the "kernel not found" message. */
static void list_entries(dbuf *out, const char *log) {
  int n = 0;
  char entry[512];
  for (const char *p = next_entry(log, entry, sizeof entry); p; p = next_entry(p, entry, sizeof entry))
    dbuf_printf(out, "%s%s", n++ ? ", " : "", entry);
  if (!n) dbuf_puts(out, "none");
}

/* The first entry of the ptxas -v report whose static shared memory is over 48 KB: its name
 * (demangled to the function's for C++ names, "_Z18convolution_kernelPfS_S_" -> convolution_kernel)
 * in `out`, its bytes returned; 0 when none is. */
static int over_smem_entry(const char *log, char *out, size_t cap) {
  char entry[512];
  for (const char *p = next_entry(log, entry, sizeof entry); p; p = next_entry(p, entry, sizeof entry)) {
    kresources r;
    memset(&r, 0, sizeof r);
    if (parse_resources(log, entry, &r) && r.smem_static > 48 * 1024) {
      const char *nm = entry;
      size_t len = strlen(entry);
      if (strncmp(entry, "_Z", 2) == 0 && isdigit((unsigned char)entry[2])) { /* _Z<len><name>...: a plain function */
        char *end;
        unsigned long l = strtoul(entry + 2, &end, 10);
        if (l > 0 && l <= strlen(end)) nm = end, len = l;
      }
      snprintf(out, cap, "%.*s", (int)len, nm);
      return r.smem_static;
    }
  }
  return 0;
}

/* The message of a kernel over 48 KB of static shared memory (job.c reads it as invalid). */
static void over_smem_message(dbuf *msg, const char *path, const char *kernel, int bytes) {
  dbuf_printf(msg,
              "%s: kernel '%s' uses %d bytes of static shared memory; at most 49152 (48 KB) are allowed "
              "(more needs dynamic shared memory)",
              path, kernel, bytes);
}

static void fill_log(nvrtcProgram prog, compile_result *res) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return;
  char *tmp = xmalloc(n + 1);
  if (nvrtcGetProgramLog(prog, tmp) == NVRTC_SUCCESS) {
    tmp[n] = 0;
    dbuf_puts(&res->log, tmp);
  }
  free(tmp);
}

/* The kernel and the job's other names as name expressions: NVRTC instantiates what they name
 * (a template's parameters may be -D macros) and, after the compile, lowers each to the name in
 * the cubin (mangled for C++, itself for extern "C"); res->lowered gets them one per line. */
static int add_names(nvrtcProgram prog, const compile_job *job) {
  if (job->nnames < 0 || job->nnames > COMPILE_MAX_NAMES) return -1;
  if (nvrtcAddNameExpression(prog, job->kernel) != NVRTC_SUCCESS) return -1;
  for (int i = 0; i < job->nnames; i++)
    if (nvrtcAddNameExpression(prog, job->names[i]) != NVRTC_SUCCESS) return -1;
  return 0;
}

static void get_lowered(nvrtcProgram prog, const compile_job *job, compile_result *res) {
  dbuf b;
  dbuf_init(&b);
  for (int i = 0; i <= job->nnames; i++) {
    const char *low = NULL, *name = i ? job->names[i - 1] : job->kernel;
    if (nvrtcGetLoweredName(prog, name, &low) != NVRTC_SUCCESS || !low) low = name[0] == '&' ? name + 1 : name;
    dbuf_printf(&b, "%s%s", i ? "\n" : "", low);
  }
  res->lowered = dbuf_steal(&b);
}

/* cutune's options before the job's (see the top of this file); arch_opt and inc_opt hold the
 * text of two of them. Returns their count. */
static int base_opts(const compile_job *job, const char **opts, char *arch_opt, size_t alen, char *inc_opt,
                     size_t ilen) {
  int n = 0;
  snprintf(arch_opt, alen, "--gpu-architecture=%s", job->arch);
  opts[n++] = arch_opt;
  opts[n++] = "-Xptxas=-v";
  if (job->lineinfo) opts[n++] = "-lineinfo";
  const char *inc = compile_toolkit_include_dir();
  if (inc) {
    snprintf(inc_opt, ilen, "-I%s", inc);
    opts[n++] = inc_opt;
  }
  return n;
}

/* -I<toolkit>/include/cccl, after the job's options (nvcc's order: its -isystem folder comes
 * after every -I), into *opts; returns 1, or 0 where the toolkit has no such folder. */
static int cccl_opt_after(const char **opts, char *buf, size_t len) {
  const char *cccl = compile_toolkit_cccl_dir();
  if (!cccl) return 0;
  snprintf(buf, len, "-I%s", cccl);
  opts[0] = buf;
  return 1;
}

/* One NVRTC program: res gets its log, its cubin (where it compiled), compile_ms and, for a
 * job's names (names_of, NULL in a batch), their lowered forms; *rc is NVRTC's verdict. -1
 * (err) when the program could not be created or its name expressions were refused. */
static int nvrtc_run(const char *name, const char *src, int nh, const char *const *hsrc, const char *const *hname,
                     const compile_job *names_of, int nopts, const char *const *opts, compile_result *res,
                     nvrtcResult *rc, cterr *err) {
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, src, name, nh, hsrc, hname);
  if (r != NVRTC_SUCCESS) return cterr_set(err, "%s: nvrtcCreateProgram failed: %s", name, nvrtcGetErrorString(r));
  if (names_of && add_names(prog, names_of) != 0) {
    nvrtcDestroyProgram(&prog);
    return cterr_set(err, "%s: NVRTC refused the name expressions of '%s'", name, names_of->kernel);
  }
  double t0 = now_seconds();
  *rc = nvrtcCompileProgram(prog, nopts, opts);
  fill_log(prog, res);
  if (*rc == NVRTC_SUCCESS) {
    if (names_of) get_lowered(prog, names_of, res);
    size_t size = 0;
    nvrtcResult r2 = nvrtcGetCUBINSize(prog, &size);
    if (r2 == NVRTC_SUCCESS && size > 0) {
      char *tmp = xmalloc(size);
      r2 = nvrtcGetCUBIN(prog, tmp);
      if (r2 == NVRTC_SUCCESS) dbuf_append(&res->cubin, tmp, size);
      free(tmp);
    }
    (void)r2; /* no image: the cubin stays empty, which the caller reports */
  }
  res->compile_ms = (now_seconds() - t0) * 1e3;
  nvrtcDestroyProgram(&prog);
  return 0;
}

static int check_job(const compile_job *job, cterr *err) {
  if (!job || !job->src || !job->kernel || !job->arch)
    return cterr_set(err, "compile job without %s",
                     !job           ? "a job"
                     : !job->src    ? "source"
                     : !job->kernel ? "kernel name"
                                    : "architecture");
  const char *name = job->src_path ? job->src_path : "kernel.cu";
  if (job->nopts < 0 || job->nopts > COMPILE_MAX_OPTS)
    return cterr_set(err, "%s: %d options given, at most %d allowed", name, job->nopts, COMPILE_MAX_OPTS);
  if (!compile_arch_supported(job->arch))
    return cterr_set(err, "%s: architecture '%s' is not one NVRTC %s can target (expected one of: %s)", name, job->arch,
                     compile_nvrtc_version(), compile_supported_archs());
  return 0;
}

int compile_now(const compile_job *job, compile_result *res, cterr *err) {
  compile_result_init(res);
  if (check_job(job, err) != 0) return -1;
  const char *name = job->src_path ? job->src_path : "kernel.cu";
  compile_job_key(job, res->key);
  const char *opts[COMPILE_MAX_OPTS + 8];
  char arch_opt[64], inc_opt[PATH_MAX + 3];
  int n = base_opts(job, opts, arch_opt, sizeof arch_opt, inc_opt, sizeof inc_opt);
  for (int i = 0; i < job->nopts; i++) opts[n++] = job->opts[i];
  char cccl_opt[PATH_MAX + 3];
  n += cccl_opt_after(opts + n, cccl_opt, sizeof cccl_opt);
  nvrtcResult rc;
  if (nvrtc_run(name, job->src, 0, NULL, NULL, job, n, opts, res, &rc, err) != 0) return -1;
  res->batch = 1;
  const char *log = res->log.data ? res->log.data : "";
  dbuf msg;
  dbuf_init(&msg);
  char kname[512] = "";
  if (rc == NVRTC_SUCCESS) {
    compile_lowered(res, 0, job->kernel, kname, sizeof kname);
    if (res->cubin.len == 0) {
      dbuf_printf(&msg, "%s: NVRTC produced no cubin", name);
    } else if (!parse_resources(log, kname, &res->res) && !strstr(log, "Compiling entry function") &&
               cubin_has_symbol(&res->cubin, kname)) {
      /* Seen on the GPU host under load: NVRTC returned a good cubin with an empty ptxas
       * report. The kernel is in the image; its resources stay unknown here (the GPU worker
       * reads them from the driver). */
      res->ok = 1;
    } else if (!parse_resources(log, kname, &res->res)) {
      dbuf_printf(&msg, "%s: kernel '%s' not found in the compiled program (entry points: ", name, job->kernel);
      list_entries(&msg, log);
      dbuf_puts(&msg, "); is it a __global__ function?");
    } else {
      res->ok = 1;
    }
  } else {
    collect_error_lines(&msg, log);
    if (strstr(log, "__nv_name_map")) { /* a name expression names nothing in the program */
      char *lines = dbuf_steal(&msg);
      dbuf_printf(&msg, "%s: kernel '%s'%s not found in the compiled program (NVRTC: %s)", name, job->kernel,
                  job->nnames ? " or one of the names the space gives" : "", lines);
      free(lines);
    }
    /* ptxas refuses static shared memory over 48 KB without printing an error: find the entry
     * (any of the program's: the kernel's lowered name is not known after a failed compile) */
    char over[512] = "";
    int over_bytes = msg.len == 0 ? over_smem_entry(log, over, sizeof over) : 0;
    if (over_bytes > 0) over_smem_message(&msg, name, over, over_bytes);
    else if (msg.len == 0)
      dbuf_printf(&msg, "%s: NVRTC failed (%s) and its log names no error", name, nvrtcGetErrorString(rc));
    else if (strstr(log, "is not allowed in JIT mode"))
      /* NVRTC compiles device code only; Kernel Tuner's examples are often compiled by nvcc */
      dbuf_puts(&msg,
                " (NVRTC compiles device code only, and a header this program includes holds host code, as "
                "<cub/cub.cuh> and Thrust's headers do: include the device-side header instead, such as "
                "<cub/block/block_reduce.cuh>, or, for a template that must stay unchanged, shadow the header "
                "with one of that name in a folder the space's options give as -I: docs/SPACE.md, \"Host "
                "code in included headers\")");
    else if (rc == NVRTC_ERROR_INVALID_OPTION) {
      char *lines = dbuf_steal(&msg);
      dbuf_printf(&msg, "%s: %s", name, lines);
      free(lines);
    }
  }
  if (!res->ok) {
    if (rc != NVRTC_SUCCESS) compile_hint_macro_clash(&msg, job);
    append_options_note(&msg, job);
    res->message = dbuf_steal(&msg);
    dbuf_reset(&res->cubin);
  }
  dbuf_free(&msg);
  return 0;
}

/* ptxas' own time for one entry ("Compile time = 12.3 ms" in its section of the log); NAN when
 * the log does not say. */
static double entry_ms(const char *log, const char *entry) {
  char *head = xasprintf("Compiling entry function '%s' for", entry);
  const char *sec = strstr(log, head);
  free(head);
  if (!sec) return NAN;
  const char *end = strstr(sec + 1, "Compiling entry function '"), *t = strstr(sec, "Compile time = ");
  if (!t || (end && t > end)) return NAN;
  return strtod(t + strlen("Compile time = "), NULL);
}

/* A failed batch whose log names no error: ptxas refuses an entry's static shared memory over
 * 48 KB without one, after reporting every entry's resources. over[i]: the bytes of member i when
 * over the limit, else 0. Returns how many are over, or -1 when the log does not account for
 * every member (an entry not found, or an error line): then nothing can be said of any. */
static int batch_over_smem(const char *log, const compile_job *jobs, int n, int *over) {
  dbuf errs;
  dbuf_init(&errs);
  collect_error_lines(&errs, log);
  int noerr = errs.len == 0;
  dbuf_free(&errs);
  if (!noerr) return -1;
  int blamed = 0;
  for (int i = 0; i < n; i++) {
    char ident[300], needle[320];
    snprintf(ident, sizeof ident, COMPILE_BATCH_ENTRY_FMT, i, jobs[0].kernel);
    snprintf(needle, sizeof needle, "%zu%s", strlen(ident), ident); /* in a mangled C++ name */
    int found = 0;
    char entry[512];
    for (const char *q = next_entry(log, entry, sizeof entry); q && !found; q = next_entry(q, entry, sizeof entry)) {
      kresources r;
      memset(&r, 0, sizeof r);
      if ((strcmp(entry, ident) == 0 || strstr(entry, needle)) && parse_resources(log, entry, &r)) {
        found = 1;
        over[i] = r.smem_static > 48 * 1024 ? r.smem_static : 0;
        blamed += over[i] > 0;
      }
    }
    if (!found) return -1;
  }
  return blamed;
}

int compile_now_batch(const compile_job *jobs, int n, compile_result *res, cterr *err) {
  if (n < 1 || n > COMPILE_BATCH_MAX)
    return cterr_set(err, "a batch of %d configurations (1 to %d)", n, COMPILE_BATCH_MAX);
  for (int i = 0; i < n; i++) compile_result_init(&res[i]);
  if (n == 1) return compile_now(&jobs[0], &res[0], err);
  for (int i = 0; i < n; i++) {
    if (check_job(&jobs[i], err) != 0) return -1;
    if (i && !compile_batch_compatible(&jobs[0], &jobs[i]))
      return cterr_set(err, "%s: configuration %d of a batch cannot share its program", jobs[0].src_path, i);
    compile_job_key(&jobs[i], res[i].key);
  }
  dbuf src;
  dbuf_init(&src);
  const char *common[COMPILE_MAX_OPTS], *opts[COMPILE_MAX_OPTS + 8];
  int nc = 0;
  compile_batch_source(jobs, n, &src, common, &nc);
  char arch_opt[64], inc_opt[PATH_MAX + 3];
  int no = base_opts(&jobs[0], opts, arch_opt, sizeof arch_opt, inc_opt, sizeof inc_opt);
  for (int i = 0; i < nc; i++) opts[no++] = common[i];
  char cccl_opt[PATH_MAX + 3];
  no += cccl_opt_after(opts + no, cccl_opt, sizeof cccl_opt);
  const char *path = jobs[0].src_path ? jobs[0].src_path : "kernel.cu";
  char *name = xasprintf("%s (%d configurations)", path, n);
  /* each member's kernel as a name expression, cutune_b<i>::cutune_b<i>_<kernel>: lowered, it is
   * the entry's name in the cubin, the same as the renamed kernel for an extern "C" one, mangled
   * (namespace included) for a C++ one */
  char expr[COMPILE_BATCH_MAX][300];
  compile_job names = {0};
  for (int i = 0; i < n; i++) {
    snprintf(expr[i], sizeof expr[i], "cutune_b%d::" COMPILE_BATCH_ENTRY_FMT, i, i, jobs[0].kernel);
    if (i) names.names[i - 1] = expr[i];
  }
  names.kernel = expr[0], names.nnames = n - 1;
  compile_result all;
  compile_result_init(&all);
  nvrtcResult rc = NVRTC_SUCCESS;
  int ran = nvrtc_run(name, src.data, 1, &jobs[0].src, &path, &names, no, opts, &all, &rc, err);
  free(name);
  dbuf_free(&src);
  if (ran != 0) {
    compile_result_free(&all);
    return -1;
  }
  const char *log = all.log.data ? all.log.data : "";
  char entry[COMPILE_BATCH_MAX][300];
  double own[COMPILE_BATCH_MAX], own_sum = 0;
  int have_own = 1, noreport = !strstr(log, "Compiling entry function");
  for (int i = 0; i < n; i++) {
    compile_lowered(&all, i, expr[i], entry[i], sizeof entry[i]);
    if (strstr(entry[i], "::")) /* not lowered (the compile failed): the extern "C" form, for the log */
      snprintf(entry[i], sizeof entry[i], COMPILE_BATCH_ENTRY_FMT, i, jobs[0].kernel);
    own[i] = entry_ms(log, entry[i]);
    if (isfinite(own[i])) own_sum += own[i];
    else have_own = 0;
  }
  /* over the shared-memory limit: those members get their own result now (as alone: invalid),
   * and the others, which compiled, may share a program again (retry 2) */
  int over[COMPILE_BATCH_MAX] = {0};
  int blamed = rc != NVRTC_SUCCESS ? batch_over_smem(log, jobs, n, over) : -1;
  for (int i = 0; i < n; i++) {
    compile_result *r = &res[i];
    if (blamed > 0 && over[i] > 0) {
      dbuf msg;
      dbuf_init(&msg);
      over_smem_message(&msg, path, jobs[i].kernel, over[i]);
      append_options_note(&msg, &jobs[i]);
      r->message = dbuf_steal(&msg);
      dbuf_append(&r->log, log, strlen(log));
      r->batch = n;
      r->compile_ms = all.compile_ms / n;
      continue;
    }
    if (blamed > 0) { /* it compiled: only the program failed, over another member's limit */
      r->retry = 2;
      r->message = xasprintf(
          "%s: compiled in a batch that failed over another member's shared memory; to be "
          "compiled again",
          path);
      continue;
    }
    int ok = rc == NVRTC_SUCCESS && all.cubin.len > 0 &&
             (parse_resources(log, entry[i], &r->res) || (noreport && cubin_has_symbol(&all.cubin, entry[i])));
    if (!ok) { /* the batch says nothing of this member: it is compiled alone */
      r->retry = 1;
      r->message = xasprintf("%s: compiled in a batch that failed; to be compiled alone", path);
      continue;
    }
    r->ok = 1;
    dbuf_append(&r->cubin, all.cubin.data, all.cubin.len);
    dbuf_append(&r->log, log, strlen(log));
    r->lowered = xstrdup(entry[i]); /* the kernel's name in the cubin (compile_lowered) */
    r->batch = n;
    /* its share: ptxas' own time for its kernel, and an even share of the rest (front end,
     * NVVM, fixed costs) */
    r->compile_ms =
        have_own && own_sum <= all.compile_ms ? (all.compile_ms - own_sum) / n + own[i] : all.compile_ms / n;
  }
  compile_result_free(&all);
  return 0;
}
