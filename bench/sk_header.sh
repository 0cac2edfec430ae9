#!/usr/bin/env bash
# sk_header.sh: a matmul header whose entries are split-K and stream-K configurations, for
# checking that the production launcher (kernels/matmul_launch.cu) builds and launches everything
# lua/matmul_space.lua can ship: cluster split-K, stream-K alone and in clusters (the workspace),
# next to a plain entry. It writes a small store of made-up records (one per problem, the current
# template's hash, device "NVIDIA H200", times invented: they only rank nothing) and runs
# `cutune header` on it.
#
#   bench/sk_header.sh OUTDIR [CUTUNE]      -> OUTDIR/matmul.h (CUTUNE: default build/cutune)
#
# Entries (problem -> configuration): 4096^3 -> 128x256 tiles stream-K (STREAMK=1); 256x256x16384
# -> the same in clusters of 8 (SPLITK=8 STREAMK=1); 1000x1003x999 -> 128x128 tiles stream-K in
# clusters of 4; 1100x1284x1060 -> 128x256 split 2 in a cluster (no workspace); 2048^3 -> plain.
# Used by tests/cli_kernels_launchers.sh (build) and bench/templates_session.sh (run on the GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/sk_header.sh OUTDIR [CUTUNE]}
cutune=${2:-build/cutune}
mkdir -p "$out/store/NVIDIA_H200"
hash=$(sha256sum templates/matmul.cu | cut -c1-32)
W="BM=128 BN=256 BK=32 WM=32 WN=128 TM=16 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=0 UNROLL=0 GROUPM=8 HOIST=1"
Q="BM=128 BN=128 BK=32 WM=64 WN=32 TM=8 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=0 UNROLL=0 GROUPM=8 HOIST=1"
record() { # PROBLEM MS PARAMS...
  local problem=$1 ms=$2 kv config="" params=""
  shift 2
  for kv in "$@"; do
    config="$config${config:+,}$kv"
    params="$params${params:+,}\"${kv%%=*}\":\"${kv#*=}\""
  done
  printf '{"space":"matmul","config":"%s","params":{%s},"problem":"%s","status":"ok","time_ms":{"median":%s},' \
    "$config" "$params" "$problem" "$ms"
  printf '"provenance":{"template_hash":"%s","device":"NVIDIA H200","cc":"9.0","arch":"sm_90"}}\n' "$hash"
}
# shellcheck disable=SC2086
{
  record K=4096,M=4096,N=4096 2.9 $W SPLITK=1 STREAMK=1
  record K=16384,M=256,N=256 0.06 $W SPLITK=8 STREAMK=1
  record K=999,M=1000,N=1003 0.06 $Q SPLITK=4 STREAMK=1
  record K=1060,M=1100,N=1284 0.09 $W SPLITK=2 STREAMK=0
  record K=2048,M=2048,N=2048 0.38 $W SPLITK=1 STREAMK=0
} >"$out/store/NVIDIA_H200/matmul.jsonl"
"$cutune" header lua/matmul_space.lua "$out/store" -o "$out/matmul.h"
