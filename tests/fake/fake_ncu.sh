#!/bin/sh
# A stand-in for ncu in tests/cli_explain.sh: prints the CSV recorded on an H200 for the
# configuration named on its command line (tests/fixtures/ncu/), or, with FAKE_NCU=perm, the
# counter-permission error some machines give; FAKE_NCU=missing below. It runs nothing.
if [ "${FAKE_NCU:-}" = perm ]; then
  echo "==PROF== Connected to process 1234"
  echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0." >&2
  exit 1
fi
# FAKE_NCU=missing: an ncu without the ldsm wavefront metric refuses a list that asks for it
# (as the ncu of CUDA 13.0 does on an H200), naming it
if [ "${FAKE_NCU:-}" = missing ]; then
  case "$*" in
    *"regex:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum"*)
      echo "==PROF== Connected to process 1234 (cutune)"
      echo "==ERROR== Failed to find metric regex:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum"
      echo "==ERROR== The application returned an error code (9)."
      exit 9 ;;
  esac
fi
f=winner
case "$*" in
  *" TILE=0,"*) f=naive ;;
  *" TILE=32,PAD=0,"*) f=t32p0 ;;
  *" TILE=32,PAD=1,"*) f=t32p1 ;;
esac
echo "==PROF== Connected to process 1234 (cutune)"
cat "${CUTUNE_SRC:-.}/tests/fixtures/ncu/ncu_$f.csv"
