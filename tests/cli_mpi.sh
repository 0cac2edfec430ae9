#!/usr/bin/env bash
# Several ranks on one CPU machine (Open MPI, fake devices): `mpirun -n 3 cutune run` records
# the same (config, problem) set as a one-process run, nothing twice, the records written by
# rank 0 only; then a run whose rank 2 is killed with SIGKILL while it holds configurations
# still completes: rank 0 takes the rank as lost and gives its configurations to rank 1; and a
# mixed cluster (an H200 rank and an A100 rank) tunes each model into its own store.
# Needs the MPI build (CUTUNE_MPI=ON, build-mpi/ in .ci/run) and mpirun; skips otherwise.
. "$(dirname "$0")/lib_cli.sh"
FAKE=$(dirname "$BIN")/fakecuda
[ -e "$FAKE/libcuda.so.1" ] || { echo "skipped: the fake libcuda.so.1 was not built"; exit 77; }
command -v mpirun >/dev/null || { echo "skipped: no mpirun (tools/setup --mpi installs Open MPI)"; exit 77; }
strings "$BIN" | grep -q "MPI_Init" || { echo "skipped: $BIN was built without CUTUNE_MPI"; exit 77; }
export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI runs as root
export OMPI_MCA_btl_vader_single_copy_mechanism=none              # containers forbid CMA
export OMPI_MCA_rmaps_base_oversubscribe=1
export CUTUNE_FAKE_DEVICES="NVIDIA H200"
MPIRUN=(mpirun --oversubscribe --enable-recovery -n 3)
set -e
SPACE=tests/spaces/fake_copy.lua
expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/one" $SPACE
expect_status 0 -- timeout 120 "${MPIRUN[@]}" "$BIN" run --no-progress --jobs 1 --results "$TMPROOT/mpi" $SPACE
echo "$OUTPUT" | grep -v '^ *[0-9]' | tail -6
expect_output "rank 0 of 3 coordinates; 2 ranks measure"
expect_output "NVIDIA H200 x2 (sm_90"
# the ranks' records carry the launch hash they computed, which a one-process run computes alike:
# it is answered whole from the ranks' store
expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/mpi" $SPACE
expect_output "0 measured (0 failed), 12 answered from the store"

# a heterogeneous "cluster": rank 1 has an H200, rank 2 an A100 (mpirun's MPMD form gives each
# its own environment); each model is tuned on its own into a store of its own
expect_status 0 -- timeout 120 mpirun --oversubscribe --enable-recovery \
  -n 2 -x CUTUNE_FAKE_DEVICES="NVIDIA H200" "$BIN" run --no-progress --jobs 1 --results "$TMPROOT/mixed" $SPACE : \
  -n 1 -x CUTUNE_FAKE_DEVICES="NVIDIA A100-SXM4-80GB" "$BIN" run --no-progress --jobs 1 --results "$TMPROOT/mixed" $SPACE
expect_output "NVIDIA A100-SXM4-80GB (sm_80"
expect_output "problem n=65536 on NVIDIA A100-SXM4-80GB: 12 measured"

# rank 2 killed while it measures: every module load takes 300 ms, so each rank holds work
FAKE_CUDA_LOAD_DELAY_MS=300 timeout 120 "${MPIRUN[@]}" "$BIN" run --no-progress --jobs 1 --rank-timeout 2 \
  --results "$TMPROOT/kill" $SPACE >"$TMPROOT/kill.log" 2>&1 &
mpipid=$!
store="$TMPROOT/kill/NVIDIA_H200/fake_copy.jsonl"
victim=""
for i in $(seq 1 600); do
  if [ -f "$store" ] && [ "$(wc -l < "$store")" -ge 2 ]; then
    # the rank-2 `cutune run` process: a child of mpirun (its workers, and a worker between
    # spawn and exec, share its environment and even its command line)
    for p in $(pgrep -P "$(pgrep -f -o "^mpirun .*--results $TMPROOT/kill")"); do
      tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -q "^OMPI_COMM_WORLD_RANK=2$" && victim=$p
    done
    break
  fi
  sleep 0.05
done
[ -n "$victim" ] && kill -KILL "$victim" && ok || fail "no rank-2 process to kill"
set +e; wait $mpipid; rc=$?; set -e
tail -8 "$TMPROOT/kill.log"
[ $rc -eq 0 ] && ok || fail "mpirun exited $rc after rank 2 was killed"
grep -q "cutune: rank 2 lost" "$TMPROOT/kill.log" && ok || fail "rank 0 did not report rank 2 as lost"

python3 - "$TMPROOT" <<'PY' && ok || fail "store check failed"
import json, sys, os
root = sys.argv[1]
def load(path):
    seen = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            r = json.loads(line)
            k = (r["config"], r["problem"])
            if k in seen:
                sys.exit(f"{path}: duplicate record for {k} at lines {seen[k]} and {n}")
            seen[k] = n
    return set(seen)
one = load(f"{root}/one/NVIDIA_H200/fake_copy.jsonl")
for run, model in (("mpi", "NVIDIA_H200"), ("kill", "NVIDIA_H200"), ("mixed", "NVIDIA_H200"),
                   ("mixed", "NVIDIA_A100-SXM4-80GB")):
    got = load(f"{root}/{run}/{model}/fake_copy.jsonl")
    assert got == one, f"{run}: records differ from the one-process run: {sorted(got ^ one)}"
    print(f"{run} {model}: {len(got)} records, the one-process set, no duplicates")
arch = {json.loads(l)["provenance"]["arch"] for l in open(f"{root}/mixed/NVIDIA_A100-SXM4-80GB/fake_copy.jsonl")}
assert arch == {"sm_80"}, f"the A100 records were compiled for {arch}"
PY

# every rank makes the space's data itself: a rank whose data differs from rank 0's (here its
# values function reads another environment) is lost before it measures, with the problem and
# both digests named, and the other rank measures everything
D="$TMPROOT/data"
mkdir -p "$D" && cp tests/spaces/data/fake_acc.lua tests/spaces/data/fake_data.cu "$D/"
expect_status 0 -- timeout 120 mpirun --oversubscribe --enable-recovery \
  -n 2 "$BIN" run --no-progress --jobs 1 --results "$D/R" "$D/fake_acc.lua" : \
  -n 1 -x FAKE_ACC_HALF=1 "$BIN" run --no-progress --jobs 1 --results "$D/R" "$D/fake_acc.lua"
expect_output "rank 2 lost"
expect_output "its data of problem n=4096 differs from rank 0's (digest "
n=$(grep -c '"status":"ok"' "$D/R/NVIDIA_H200/fake_acc.jsonl" || true)
[ "$n" -eq 3 ] && ok || fail "$n ok records with one rank's data different (wanted 3, by rank 1)"

# the energy objective's second pass runs on the ranks too: the same space with time and energy
# objectives; rank 0 appends an energy record for each of the fastest configurations
E="$TMPROOT/energy"
mkdir -p "$E" && cp tests/spaces/fake_copy.cu "$E/"
sed 's/objectives = { "time" },/objectives = { "time", "energy" },/' $SPACE > "$E/fake_copy.lua"
grep -q '"energy"' "$E/fake_copy.lua" && ok || fail "could not make the energy space"
expect_status 0 -- timeout 180 "${MPIRUN[@]}" "$BIN" run --no-progress --jobs 1 --energy-top 3 --results "$E/R" "$E/fake_copy.lua"
n=$(grep -c '"energy_mj":[0-9]' "$E/R/NVIDIA_H200/fake_copy.jsonl" || true)
[ "$n" -eq 3 ] && ok || fail "$n records with energy under MPI (wanted 3: --energy-top 3)"
finish
