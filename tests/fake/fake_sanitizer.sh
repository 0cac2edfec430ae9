#!/bin/sh
# A stand-in for compute-sanitizer in tests/cli_explain.sh: prints the output recorded on an H200
# (tests/fixtures/sanitizer/) for the tool named by --tool — the planted fault's report when the
# command line contains $FAKE_SAN_FLAG, the clean summary otherwise — with the real tool's exit
# status (99 for --error-exitcode when flagged). It runs nothing.
tool=memcheck
prev=
for a in "$@"; do [ "$prev" = --tool ] && tool=$a; prev=$a; done
d="${CUTUNE_SRC:-.}/tests/fixtures/sanitizer"
case "$tool" in memcheck) bad=memcheck_oob ;; racecheck) bad=racecheck_race ;; *) bad=initcheck_uninit ;; esac
case " $* " in
  *"${FAKE_SAN_FLAG:-@none@}"*) cat "$d/$bad.rc99.txt"; exit 99 ;;
esac
cat "$d/${tool}_clean.rc0.txt"
exit 0
