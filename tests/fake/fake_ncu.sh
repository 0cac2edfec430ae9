#!/bin/sh
# A stand-in for ncu in tests/cli_explain.sh: prints the CSV recorded on an H200 for the
# configuration named on its command line (tests/fixtures/ncu/), or, with FAKE_NCU=perm, the
# counter-permission error some machines give. It runs nothing.
if [ "${FAKE_NCU:-}" = perm ]; then
  echo "==PROF== Connected to process 1234"
  echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0." >&2
  exit 1
fi
f=winner
case "$*" in
  *" TILE=0,"*) f=naive ;;
  *" TILE=32,PAD=0,"*) f=t32p0 ;;
  *" TILE=32,PAD=1,"*) f=t32p1 ;;
esac
echo "==PROF== Connected to process 1234 (cutune)"
cat "${CUTUNE_SRC:-.}/tests/fixtures/ncu/ncu_$f.csv"
