#!/usr/bin/env bash
# The GPU check of issue 23's engine changes (about 2 minutes on an H200, from a cold compile
# cache; no Lua, no network needed): provenance now completed in one place (tune.c) and the
# options hash computed once, the GPU worker's frame loop split, cutune __profile-one's measuring
# moved to engine/measure_one.c, the compile-only summary. Runs from the repository root over a
# build made elsewhere and carried along:
#   CUTUNE=build/cutune bench/mends_gpu.sh            (OUT: where the logs go, default gpu-out/)
# It writes $OUT/mends.txt (the log) and $OUT/mends.tgz (the store and the header), and prints a
# table last: every row should say ok. MENDS_SPACE, MENDS_PROBLEM, MENDS_BUDGET choose another
# space (without a GPU, through the fake driver: LD_LIBRARY_PATH=build/fakecuda
# MENDS_SPACE=tests/spaces/fake_run.lua MENDS_PROBLEM=n=4096 MENDS_BUDGET=6).
set -uo pipefail
CUTUNE=${CUTUNE:-build/cutune}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
LOG="$OUT/mends.txt"
R="$OUT/mends-results"
rm -rf "$R"
: > "$LOG"
export CUTUNE_CACHE="$OUT/mends-cache"
rows=()
row() { rows+=("$(printf '%-58s %s' "$1" "$2")"); }
check() { if eval "$2"; then row "$1" ok; else row "$1" FAILED; fi; }
S=${MENDS_SPACE:-lua/transpose_space.lua} # (tests through the fake driver: tests/spaces/fake_run.lua)
PROB=${MENDS_PROBLEM:-M=3002}
B=${MENDS_BUDGET:-60}
SPACE=$(basename "$S" _space.lua); SPACE=${SPACE%.lua}

# 1. a budgeted run on the ragged problem, then the same run again (resume: nothing measured)
"$CUTUNE" run "$S" --problem "$PROB" --budget "$B" --no-progress --results "$R" >> "$LOG" 2>&1
st1=$?
check "run --problem $PROB --budget $B (exit 0 or 3)" "[ $st1 -eq 0 ] || [ $st1 -eq 3 ]"
STORE=$(find "$R" -name "$SPACE.jsonl" | head -1)
check "store written under $R" "[ -n \"$STORE\" ] && [ -s \"$STORE\" ]"
n=$(grep -c . "$STORE" 2>/dev/null || echo 0)
check "$B records ($n)" "[ $n -ge $B ]"
# provenance: every record carries both hashes and the device's name, UUID and driver
bad=$(python3 - "$STORE" <<'PY'
import json, sys
bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line); p = r.get("provenance", {})
    if not (p.get("template_hash") and p.get("options_hash") and p.get("device") and p.get("uuid") and p.get("driver")):
        bad += 1
print(bad)
PY
)
check "every record's provenance whole ($bad without)" "[ \"$bad\" = 0 ]"
"$CUTUNE" run "$S" --problem "$PROB" --budget "$B" --no-progress --results "$R" > "$OUT/mends-resume.txt" 2>&1
cat "$OUT/mends-resume.txt" >> "$LOG"
# stored configurations are answered, not charged: the second run answers the first B (and
# measures up to B more: the budget counts new measurements)
answered=$(sed -n 's/.*measured ([0-9]* failed), \([0-9]*\) answered from the store.*/\1/p' "$OUT/mends-resume.txt" | head -1)
check "the same run again answers the first $B from the store (${answered:-none})" "[ \"${answered:-0}\" -ge $B ]"

# 2. the header of that store compiles with nvcc; best writes its front
"$CUTUNE" header "$S" "$R" -o "$OUT/mends-header.h" >> "$LOG" 2>&1
check "header from the store" "grep -q _select \"$OUT/mends-header.h\""
printf '#include "mends-header.h"\nint main(void) { return 0; }\n' > "$OUT/mends-use.cu"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
check "the header compiles with nvcc" "\"$NVCC\" -o \"$OUT/mends-use\" \"$OUT/mends-use.cu\" >> \"$LOG\" 2>&1 && \"$OUT/mends-use\""
"$CUTUNE" best "$R" > /dev/full 2>> "$LOG"
check "best > /dev/full exits non-zero" "[ $? -ne 0 ]"

# 3. cutune __profile-one (engine/measure_one.c) on the run's fastest configuration
best=$("$CUTUNE" best "$R" 2>/dev/null | sed -n 's/^fastest: \([^ ]*\) .*/\1/p' | head -1)
"$CUTUNE" __profile-one "$S" "$best" "$PROB" --samples 5 > "$OUT/mends-one.txt" 2>&1
cat "$OUT/mends-one.txt" >> "$LOG"
check "__profile-one measures the fastest ($best)" "grep -q '^cutune-profile-one: .*\"status\":\"ok\"' \"$OUT/mends-one.txt\""

# 4. the compile-only summary on the GPU machine's CPUs (a sample, --compile-only)
"$CUTUNE" run "$S" --compile-only --sample 40 --no-progress > "$OUT/mends-compile.txt" 2>&1
cat "$OUT/mends-compile.txt" >> "$LOG"
check "compile-only summary" "grep -q 'theoretical occupancy by limiter' \"$OUT/mends-compile.txt\""

tar czf "$OUT/mends.tgz" -C "$OUT" mends-results mends-header.h 2>/dev/null
printf '%s\n' "${rows[@]}" | tee -a "$LOG"
