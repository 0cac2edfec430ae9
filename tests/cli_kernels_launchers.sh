#!/bin/bash
# cli_kernels_launchers: the tuned SGEMM and vector add launchers (kernels/matmul_launch.cu,
# kernels/vecadd_launch.cu) build from the committed headers with plain nvcc for sm_80
# (kernels/build_nvcc.sh with CUTUNE_UNITS=nvcc; cli_kernels_nvrtc checks the default, NVRTC's
# units; cli_kernels_example builds them for sm_90 through CMake), with one
# generated unit per distinct shipped configuration that renames the template's kernel; the committed
# results/matmul.h and results/vecadd.h are what `cutune header` writes from results/ today;
# the example programs exit 77 where there is no GPU; a header with split-K and stream-K entries
# (bench/sk_header.sh) builds the SGEMM example for sm_90 and sm_80 (the default units). No GPU needed
# (cli_gpu_launcher runs them; bench/templates_session.sh runs the split-K one).
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }

for sp in matmul vecadd; do
  expect_status 0 -- "$BIN" header lua/${sp}_space.lua -o "$TMPROOT/$sp.h"
  if diff <(sed 3d results/$sp.h) <(sed 3d "$TMPROOT/$sp.h") > "$TMPROOT/diff"; then ok
  else fail "results/$sp.h is not what 'cutune header lua/${sp}_space.lua' writes now"; head -20 "$TMPROOT/diff" >&2; fi
done

expect_status 0 -- env NVCC="$NVCC" CUTUNE_UNITS=nvcc CUTUNE_SPACES="matmul vecadd" bash kernels/build_nvcc.sh 80 "$TMPROOT/nv"
for prog in sgemm_example vecadd_example; do
  if [ -x "$TMPROOT/nv/$prog" ]; then ok; else fail "build_nvcc.sh built no $prog"; fi
done
for sp in matmul vecadd; do
  # one unit per distinct line (configurations that differ only in GROUPM share one)
  n=$(sed -n 's/^ \* cutune-config [0-9]* //p' results/$sp.h | sort -u | wc -l)
  m=$(ls "$TMPROOT/nv/gen/$sp"/config_*.cu | wc -l)
  if [ "$n" -eq "$m" ] && [ "$n" -gt 0 ]; then ok; else fail "$sp: $m generated units for $n distinct shipped configurations"; fi
  if grep -q "^#define $sp cutune_${sp}_kernel_0$" "$TMPROOT/nv/gen/$sp/config_0.cu"; then ok; else fail "$sp config_0.cu does not rename the kernel"; fi
  # the parameters of configuration 0 are defined as the header lists them
  first=$(sed -n 's/^ \* cutune-config 0 //p' results/$sp.h | awk '{print $1}')
  if grep -q "^#define ${first%%=*} ${first#*=}$" "$TMPROOT/nv/gen/$sp/config_0.cu"; then ok; else fail "$sp config_0.cu lacks $first"; fi
done
# shipped configurations that differ only in runtime parameters (GROUPM) have the same
# cutune-config line: one generated unit, one kernel for both, in build_nvcc.sh and in
# cmake/CutuneKernels.cmake alike (a header whose configuration 1 is configuration 0's -D's)
D="$TMPROOT/dup"
mkdir -p "$D"
c0=$(sed -n 's/^ \* cutune-config 0 //p' results/matmul.h)
sed "s/^ \* cutune-config 1 .*/ * cutune-config 1 $c0/" results/matmul.h > "$D/matmul.h"
if [ "$(grep -c "^ \* cutune-config [01] $c0\$" "$D/matmul.h")" -eq 2 ]; then ok; else fail "the test header lacks the duplicate line"; fi
expect_status 0 -- env CUTUNE_UNITS=nvcc CUTUNE_GEN_ONLY=1 CUTUNE_HEADER_DIR="$D" CUTUNE_SPACES=matmul bash kernels/build_nvcc.sh 80 "$D/nv"
check_dup() { # folder of generated units
  if [ -f "$1/config_0.cu" ] && [ ! -e "$1/config_1.cu" ] && [ -f "$1/config_2.cu" ]; then ok
  else fail "$1: not config_0.cu and config_2.cu without config_1.cu: $(ls "$1" | tr '\n' ' ')"; fi
  if grep -q "case 1: return cutune_matmul_kernel_0_ptr();" "$1/kernels.cu"; then ok; else fail "$1/kernels.cu does not give configuration 1 the kernel of 0"; fi
}
check_dup "$D/nv/gen/matmul"
mkdir -p "$D/cm"
cat > "$D/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(dup LANGUAGES CXX CUDA)
include($SRC/cmake/CutuneKernels.cmake)
cutune_add_tuned_kernels(TARGET dup SPACE matmul HEADER $D/matmul.h TEMPLATE $SRC/templates/matmul.cu KERNEL matmul
  ARCHS 80 SOURCES $SRC/kernels/matmul_launch.cu UNITS nvcc)
CM
expect_status 0 -- cmake -S "$D/cm" -B "$D/cmb" -DCMAKE_CUDA_COMPILER="$NVCC"
check_dup "$D/cmb/cutune_dup"
# the launchers pick an entry for an architecture the header has no entry for (sm_80 here):
# the selector's portable default, the same configuration (a compile-time check of the C API)
cat > "$TMPROOT/api.cu" <<'CU'
#include "cutune_matmul.h"
#include "cutune_vecadd.h"
#include "matmul.h"
#include "vecadd.h"
#include <stdio.h>
int main(void) {
  const cutune_matmul_entry *m = cutune_matmul_select("NVIDIA A100-SXM4-80GB", 8, 0, 999, 1000, 1003);
  const cutune_vecadd_entry *v = cutune_vecadd_select("NVIDIA H200", 9, 0, 5);
  printf("matmul level %d config %d, vecadd level %d n %lld\n", m->level, m->config, v->level, v->problem[0]);
  /* n = 5 is nearest 2^20, 2^22, 2^24 and 2^24 + 3: the entry is one of those the rule's k
   * (1 to 4, results/vecadd.h's table) consults */
  const long long p = v->problem[0];
  const int near = p == 1048576 || p == 4194304 || p == 16777216 || p == 16777219;
  return m->level == 2 && v->level == 0 && near ? 0 : 1;
}
CU
expect_status 0 -- "$NVCC" -arch=sm_80 -I kernels -I results -o "$TMPROOT/api" "$TMPROOT/api.cu"
expect_status 0 -- "$TMPROOT/api"
# where no GPU exists the programs say so and exit 77 (skipped, not failed)
for prog in sgemm_example vecadd_example; do
  set +e; "$TMPROOT/nv/$prog" > "$TMPROOT/run.txt" 2>&1; rc=$?; set -e
  if [ $rc -eq 77 ] || [ $rc -eq 0 ]; then ok; else fail "$prog exited $rc"; cat "$TMPROOT/run.txt" >&2; fi
done
# everything the space can ship builds: a header of split-K (a cluster), stream-K (alone and in
# clusters: the workspace) and plain entries (bench/sk_header.sh) gives the SGEMM example with
# plain nvcc for sm_90 (clusters) and sm_80 (no clusters: the other branch of the template)
SK="$TMPROOT/sk"
expect_status 0 -- bash bench/sk_header.sh "$SK" "$BIN"
if grep -q "cutune-config .* SPLITK=8 STREAMK=1$" "$SK/matmul.h" && grep -q "cutune-config .* SPLITK=2 STREAMK=0$" "$SK/matmul.h"; then ok
else fail "bench/sk_header.sh: no split-K and stream-K entries in $SK/matmul.h"; fi
for a in 90 80; do
  expect_status 0 -- env NVCC="$NVCC" CUTUNE_HEADER_DIR="$SK" CUTUNE_SPACES=matmul bash kernels/build_nvcc.sh $a "$SK/nv$a"
  if [ -x "$SK/nv$a/sgemm_example" ]; then ok; else fail "no sgemm_example for sm_$a from the split-K header"; fi
done
finish
