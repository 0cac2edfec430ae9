#!/usr/bin/env bash
# The layering of tuner/ and search/ holds (tools/check-layers): no file includes from a layer
# above its own, and lua.h, nvrtc.h, cuda.h, mpi.h and cuBLAS each have one owner. Also checks that the
# checker itself catches a violation, on a scratch copy.
set -euo pipefail
cd "${CUTUNE_SRC:-.}"
command -v git >/dev/null || { echo "no git: cannot list the sources"; exit 77; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout"; exit 77; }
tools/check-layers
tmp=$(mktemp -d "${CUTUNE_TMP:-/tmp}/layers.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z tuner search tools/check-layers | xargs -0 cp --parents -t "$tmp"
( cd "$tmp" && git init -q && git add -A )
echo '#include "engine/job.h"' >> "$tmp/tuner/store/store.c"
echo '#include <cuda.h>' >> "$tmp/tuner/report/report.c"
echo 'static const char *lib = "libcublas.so.13";' >> "$tmp/tuner/gpu/gpu_worker.c"
( cd "$tmp" && git add -A )
if out=$("$tmp/tools/check-layers" 2>&1); then echo "check-layers missed planted violations"; exit 1; fi
grep -q "tuner/store/store.c:.*layer 'engine' is above 'store'" <<<"$out" || { echo "$out"; exit 1; }
grep -q "tuner/report/report.c:.*<cuda.h>, which only tuner/gpu may include" <<<"$out" || { echo "$out"; exit 1; }
grep -q "tuner/gpu/gpu_worker.c:.*loads cuBLAS, which only tuner/gpu/gpu_worker_cublas.c may" <<<"$out" || { echo "$out"; exit 1; }
echo "ok"
