/* compile: one NVRTC compilation in this process (compile_now), NVRTC's version and its
 * target architectures, and the cache key of a job (it hashes NVRTC's version). The only unit that includes nvrtc.h; the cache lives in
 * compile_cache.c, the worker pool in compile_pool.c.
 *
 * Options given to NVRTC, beyond the job's own: --gpu-architecture=sm_XX (a real
 * architecture, so the result is a CUBIN, not PTX), -Xptxas=-v (ptxas' resource report
 * lands in the program log, where we read registers, shared memory and spills),
 * -lineinfo (profilers map SASS back to template lines) and -I<toolkit>/include when a
 * toolkit is found, so a template may #include <cuda_fp16.h>. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nvrtc.h>

#include "compile.h"

const char *compile_nvrtc_version(void) {
  static char ver[32];
  if (!ver[0]) {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
      snprintf(ver, sizeof ver, "%d.%d", major, minor);
    else
      snprintf(ver, sizeof ver, "unknown");
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

/* The entry names ptxas compiled, for the "kernel not found" message. */
static void list_entries(dbuf *out, const char *log) {
  const char *key = "Compiling entry function '";
  int n = 0;
  for (const char *p = strstr(log, key); p; p = strstr(p, key)) {
    p += strlen(key);
    const char *q = strchr(p, '\'');
    if (!q) break;
    dbuf_printf(out, "%s%.*s", n++ ? ", " : "", (int)(q - p), p);
  }
  if (!n) dbuf_puts(out, "none");
}

/* The first entry of the ptxas -v report whose static shared memory is over 48 KB: its name
 * (demangled to the function's for C++ names, "_Z18convolution_kernelPfS_S_" -> convolution_kernel)
 * in `out`, its bytes returned; 0 when none is. */
static int over_smem_entry(const char *log, char *out, size_t cap) {
  static const char key[] = "Compiling entry function '";
  for (const char *p = strstr(log, key); p; p = strstr(p, key)) {
    p += sizeof key - 1;
    char entry[512];
    snprintf(entry, sizeof entry, "%.*s", (int)strcspn(p, "'"), p);
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

int compile_now(const compile_job *job, compile_result *res, cterr *err) {
  compile_result_init(res);
  if (!job || !job->src || !job->kernel || !job->arch)
    return cterr_set(err, "compile job without %s", !job ? "a job" : !job->src ? "source" : !job->kernel ? "kernel name" : "architecture");
  const char *name = job->src_path ? job->src_path : "kernel.cu";
  if (job->nopts < 0 || job->nopts > COMPILE_MAX_OPTS)
    return cterr_set(err, "%s: %d options given, at most %d allowed", name, job->nopts, COMPILE_MAX_OPTS);
  if (!compile_arch_supported(job->arch))
    return cterr_set(err, "%s: architecture '%s' is not one NVRTC %s can target (expected one of: %s)", name,
                     job->arch, compile_nvrtc_version(), compile_supported_archs());
  compile_job_key(job, res->key);

  const char *opts[COMPILE_MAX_OPTS + 8];
  int n = 0;
  char arch_opt[64], inc_opt[PATH_MAX + 3];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", job->arch);
  opts[n++] = arch_opt;
  opts[n++] = "-Xptxas=-v";
  opts[n++] = "-lineinfo";
  const char *inc = compile_toolkit_include_dir();
  if (inc) {
    snprintf(inc_opt, sizeof inc_opt, "-I%s", inc);
    opts[n++] = inc_opt;
  }
  for (int i = 0; i < job->nopts; i++) opts[n++] = job->opts[i];

  nvrtcProgram prog;
  nvrtcResult rc = nvrtcCreateProgram(&prog, job->src, name, 0, NULL, NULL);
  if (rc != NVRTC_SUCCESS) return cterr_set(err, "%s: nvrtcCreateProgram failed: %s", name, nvrtcGetErrorString(rc));
  if (add_names(prog, job) != 0) {
    nvrtcDestroyProgram(&prog);
    return cterr_set(err, "%s: NVRTC refused the name expressions of '%s'", name, job->kernel);
  }

  double t0 = now_seconds();
  rc = nvrtcCompileProgram(prog, n, opts);
  fill_log(prog, res);
  const char *log = res->log.data ? res->log.data : "";
  dbuf msg;
  dbuf_init(&msg);
  char kname[512] = "";
  if (rc == NVRTC_SUCCESS) {
    get_lowered(prog, job, res);
    compile_lowered(res, 0, job->kernel, kname, sizeof kname);
    size_t size = 0;
    nvrtcResult rc2 = nvrtcGetCUBINSize(prog, &size);
    if (rc2 == NVRTC_SUCCESS && size > 0) {
      char *tmp = xmalloc(size);
      rc2 = nvrtcGetCUBIN(prog, tmp);
      if (rc2 == NVRTC_SUCCESS) dbuf_append(&res->cubin, tmp, size);
      free(tmp);
    }
    res->compile_ms = (now_seconds() - t0) * 1e3;
    if (rc2 != NVRTC_SUCCESS || res->cubin.len == 0) {
      dbuf_printf(&msg, "%s: NVRTC produced no cubin (%s)", name, nvrtcGetErrorString(rc2));
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
    res->compile_ms = (now_seconds() - t0) * 1e3;
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
    if (over_bytes > 0)
      dbuf_printf(&msg, "%s: kernel '%s' uses %d bytes of static shared memory; at most 49152 (48 KB) are allowed "
                  "(more needs dynamic shared memory)", name, over, over_bytes);
    else if (msg.len == 0)
      dbuf_printf(&msg, "%s: NVRTC failed (%s) and its log names no error", name, nvrtcGetErrorString(rc));
    else if (rc == NVRTC_ERROR_INVALID_OPTION) {
      char *lines = dbuf_steal(&msg);
      dbuf_printf(&msg, "%s: %s", name, lines);
      free(lines);
    }
  }
  nvrtcDestroyProgram(&prog);
  if (!res->ok) {
    append_options_note(&msg, job);
    res->message = dbuf_steal(&msg);
    dbuf_reset(&res->cubin);
  }
  dbuf_free(&msg);
  return 0;
}
