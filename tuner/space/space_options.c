/* space_options: the NVRTC options a space file may pass (`options = {...}`).
 *
 * NVRTC options are not all harmless: --time=FILE and --fdevice-time-trace=FILE create or
 * append files anywhere, -Xptxas passes options to ptxas, and --gpu-architecture would fight
 * cutune's own. A space may pass only the options below, which change code generation and
 * nothing outside the compiled program; everything else is refused at load with the option
 * and this list. cutune's own options (--gpu-architecture, -Xptxas=-v, -lineinfo, -I<toolkit>)
 * are added by tuner/compile. */
#include <stdlib.h>
#include <string.h>

#include "space_int.h"

typedef struct allowed {
  const char *name;   /* as written, up to '=' for options with a value */
  const char *values; /* NULL: a flag (no value); "": any non-empty value; else '|'-separated */
  int attached;       /* the value follows the name directly (-DNAME=1, -Ipath) */
} allowed;

static const allowed list[] = {{"-D", "", 1},
                               {"--define-macro=", "", 1},
                               {"-U", "", 1},
                               {"--undefine-macro=", "", 1},
                               {"-I", "", 1},
                               {"--include-path=", "", 1},
                               {"-std=", "c++03|c++11|c++14|c++17|c++20", 1},
                               {"--std=", "c++03|c++11|c++14|c++17|c++20", 1},
                               {"-use_fast_math", NULL, 0},
                               {"--use_fast_math", NULL, 0},
                               {"-ftz=", "true|false", 1},
                               {"--ftz=", "true|false", 1},
                               {"-prec-div=", "true|false", 1},
                               {"--prec-div=", "true|false", 1},
                               {"-prec-sqrt=", "true|false", 1},
                               {"--prec-sqrt=", "true|false", 1},
                               {"-fmad=", "true|false", 1},
                               {"--fmad=", "true|false", 1},
                               {"-maxrregcount=", "#", 1},
                               {"--maxrregcount=", "#", 1},
                               {"-lineinfo", NULL, 0},
                               {"--generate-line-info", NULL, 0},
                               {"-extra-device-vectorization", NULL, 0},
                               {"--extra-device-vectorization", NULL, 0},
                               {"-default-device", NULL, 0},
                               {"--device-as-default-execution-space", NULL, 0},
                               {"-restrict", NULL, 0},
                               {"--restrict", NULL, 0},
                               {"-w", NULL, 0},
                               {"--disable-warnings", NULL, 0},
                               {"-dopt=", "on|off", 1},
                               {"--dopt=", "on|off", 1},
                               {NULL, NULL, 0}};

static int value_ok(const char *v, const char *values) {
  if (!*v) return 0;
  if (!*values) return 1;
  if (!strcmp(values, "#")) {
    char *end;
    long n = strtol(v, &end, 10);
    return !*end && n > 0 && n <= 255;
  }
  size_t n = strlen(v);
  for (const char *p = values; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && !strncmp(p, v, n)) return 1;
    p += len + (bar ? 1 : 0);
  }
  return 0;
}

static void list_allowed(dbuf *b) {
  for (int i = 0; list[i].name; i++) {
    if (list[i].name[1] == '-' && i > 0 && list[i - 1].name[1] != '-') continue; /* one spelling each */
    dbuf_printf(b, "%s%s", i ? ", " : "", list[i].name);
    if (list[i].values && !strcmp(list[i].values, ""))
      dbuf_puts(b, list[i].name[1] == 'D' ? "NAME[=VALUE]" : list[i].name[1] == 'U' ? "NAME" : "DIR");
    else if (list[i].values && !strcmp(list[i].values, "#")) dbuf_puts(b, "N");
    else if (list[i].values) dbuf_printf(b, "{%s}", list[i].values);
  }
}

int space_option_check(const char *opt, cterr *err) {
  for (int i = 0; list[i].name; i++) {
    size_t n = strlen(list[i].name);
    if (!list[i].values) {
      if (!strcmp(opt, list[i].name)) return 0;
      continue;
    }
    if (strncmp(opt, list[i].name, n)) continue;
    if (value_ok(opt + n, list[i].values)) return 0;
    if (!strcmp(list[i].values, ""))
      return cterr_set(err, "option '%s' needs a value right after %s", opt, list[i].name);
    return cterr_set(err, "option '%s': the value must be %s", opt,
                     !strcmp(list[i].values, "#") ? "a register count from 1 to 255" : list[i].values);
  }
  dbuf b;
  dbuf_init(&b);
  list_allowed(&b);
  const char *why = !strncmp(opt, "-arch", 5) || !strncmp(opt, "--gpu-architecture", 18) || !strncmp(opt, "-gpu", 4)
                        ? " (cutune chooses the architecture: use --arch on the command line)"
                    : !strncmp(opt, "--time", 6) || !strncmp(opt, "-time", 5) || strstr(opt, "time-trace")
                        ? " (it writes files)"
                        : "";
  cterr_set(err, "option '%s' is not one a space may pass to NVRTC%s; allowed: %s", opt, why, b.data);
  dbuf_free(&b);
  return -1;
}
