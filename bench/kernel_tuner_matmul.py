#!/usr/bin/env python3
"""kernel_tuner_matmul.py: Kernel Tuner tunes templates/matmul.cu over the same space as
lua/matmul_space.lua, on the same problem, with a wall-clock budget, from a cold start.

  python3 bench/kernel_tuner_matmul.py [--seconds 300] [--size 4096] [--strategy genetic_algorithm]
         [--cache FILE] [--cutune-store results/.../matmul.jsonl] [--seed 1]

The parameters and restrictions below mirror lua/matmul_space.lua one for one (the script checks
that the count of valid configurations is the same, 74,748); NTHREADS is a derived parameter with
exactly one valid value per configuration (Kernel Tuner takes the block size from a parameter).
Every configuration is checked against a float64 reference (cupy) with cutune's rule,
|c - ref| <= tol * max(1, |ref|), tol = 4 * 2^-24 * K, before it counts. The kernels are compiled
by Kernel Tuner's cupy backend (NVRTC), launched with the same grid, block and dynamic shared
memory as cutune launches them; Kernel Tuner's own timing (7 iterations, mean) is kept.

Prints the best configuration found (time, TFLOP/s), the number of configurations measured and
the rate, and, with --cutune-store, how the times agree with cutune's on the configurations both
measured (ratio KT/cutune: median and 10-90 % range). Needs kernel_tuner (carried as wheels on
the GPU machine: see bench/gpu_session.sh), numpy and cupy."""
import argparse
import json
import math
import os
import sys
import time

T_START = time.time()

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=300)
ap.add_argument("--size", type=int, default=4096)
ap.add_argument("--strategy", default="genetic_algorithm")
ap.add_argument("--cache", default=None)
ap.add_argument("--cutune-store", default=None)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--dump", default=None, help="write {config: time in ms} of the checked configurations as JSON")
ap.add_argument("--count-only", action="store_true", help="count the valid configurations and exit (no GPU)")
a = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
src_path = os.path.join(here, "..", "templates", "matmul.cu")

# ---- the space: lua/matmul_space.lua, one for one ----
tune_params = {
    "BM": [32, 64, 128, 256], "BN": [32, 64, 128, 256], "BK": [8, 16, 32],
    "WM": [16, 32, 64, 128], "WN": [16, 32, 64, 128], "TM": [4, 8, 16], "TN": [4, 8, 16],
    "STAGES": [1, 2, 3, 4], "SDB": [0, 1], "PAD": [0, 4], "REGDB": [0, 1], "UNROLL": [0, 2], "GROUPM": [1, 8, 16], "HOIST": [0, 1],
    "NTHREADS": [64, 128, 256, 512, 1024],
}


def threads(p):
    return (p["BM"] // p["WM"]) * (p["BN"] // p["WN"]) * 32


def cdiv(x, y):
    return (x + y - 1) // y


def smem_bytes(p):
    nbuf = p["STAGES"] if p["STAGES"] > 1 else (2 if p["SDB"] == 1 else 1)
    return nbuf * p["BK"] * (p["BM"] + p["PAD"] + p["BN"]) * 4


def regs(p):
    t = threads(p)
    r = p["TM"] * p["TN"] + (1 + min(p["REGDB"], 1)) * (p["TM"] + p["TN"]) + 40
    if p["STAGES"] == 1:
        r += 4 * (cdiv(p["BM"] * p["BK"] // 4, t) + cdiv(p["BK"] * p["BN"] // 4, t))
    return r


def valid(p):
    if p["BM"] % p["WM"] or p["BN"] % p["WN"] or p["WM"] % p["TM"] or p["WN"] % p["TN"]:
        return False
    lm, ln = p["WM"] // p["TM"], p["WN"] // p["TN"]
    if lm * ln != 32 or lm > 16 or ln > 16 or p["TM"] * p["TN"] > 128:
        return False
    t = threads(p)
    if t < 64 or t > 1024 or p["NTHREADS"] != t:
        return False
    va = 4 if p["STAGES"] == 1 else 1
    la, lb = p["BM"] * p["BK"] // va, p["BK"] * p["BN"] // 4
    if la % t or lb % t or la // t > 16 or lb // t > 16:
        return False
    if p["STAGES"] != 1 and p["SDB"] != 0:
        return False
    if p["REGDB"] >= 1 and p["UNROLL"] != 0:
        return False
    if p["REGDB"] == 2 and p["STAGES"] == 1 and p["SDB"] == 0:
        return False
    if p["UNROLL"] != 0 and p["UNROLL"] >= p["BK"]:
        return False
    r = regs(p)
    if r > 255 or r * t > 65536:
        return False
    return smem_bytes(p) <= 232448


# The same rules as Python expressions over the parameter names, in the order of the Lua file, so
# that Kernel Tuner's constraint solver prunes early (as cutune's enumeration does) instead of
# testing every full combination. (Kernel Tuner 1.5.0 drops (function, names) tuples when it
# parses restrictions, and one function over all parameters takes a minute to build the space.)
restrictions = [
    "BM % WM == 0",
    "BN % WN == 0",
    "WM % TM == 0",
    "WN % TN == 0",
    "(WM // TM) * (WN // TN) == 32",
    "WM // TM <= 16",
    "WN // TN <= 16",
    "TM * TN <= 128",
    "NTHREADS == (BM // WM) * (BN // WN) * 32",
    "(BM * BK // (1 + 3 * max(0, 2 - STAGES))) % NTHREADS == 0",
    "(BK * BN // 4) % NTHREADS == 0",
    "BM * BK // (1 + 3 * max(0, 2 - STAGES)) // NTHREADS <= 16",
    "BK * BN // 4 // NTHREADS <= 16",
    "STAGES == 1 or SDB == 0",
    "REGDB == 0 or UNROLL == 0",
    "REGDB < 2 or STAGES > 1 or SDB == 1",
    "UNROLL == 0 or UNROLL < BK",
    "TM * TN + (1 + min(REGDB, 1)) * (TM + TN) + 40 + 4 * max(0, 2 - STAGES) * ((BM * BK // 4 + NTHREADS - 1) // NTHREADS"
    " + (BK * BN // 4 + NTHREADS - 1) // NTHREADS) <= 255",
    "(TM * TN + (1 + min(REGDB, 1)) * (TM + TN) + 40 + 4 * max(0, 2 - STAGES) * ((BM * BK // 4 + NTHREADS - 1) // NTHREADS"
    " + (BK * BN // 4 + NTHREADS - 1) // NTHREADS)) * NTHREADS <= 65536",
    "max(STAGES, 1 + SDB) * BK * (BM + PAD + BN) * 4 <= 232448",
]


def count_valid():
    import itertools
    names = list(tune_params)
    n = 0
    for vals in itertools.product(*tune_params.values()):
        n += valid(dict(zip(names, vals)))
    return n


if a.count_only:
    print(f"valid configurations: {count_valid()}")
    sys.exit(0)

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402
import kernel_tuner  # noqa: E402
from kernel_tuner.backends import cupy as kt_cupy  # noqa: E402

# Kernel Tuner's cupy backend passes shared_mem= but never raises the kernel's dynamic limit
# above 48 KB (cutune's worker does): do the same here so that both tools can launch the space.
_orig_run = kt_cupy.CupyFunctions.run_kernel


def _run_kernel(self, func, gpu_args, threads_, grid, stream=None):
    if self.smem_size > 48 * 1024:  # a host-side attribute call, ~1 us, before the launch
        func.max_dynamic_shared_size_bytes = self.smem_size
    return _orig_run(self, func, gpu_args, threads_, grid, stream)


kt_cupy.CupyFunctions.run_kernel = _run_kernel

M = N = K = a.size
rng = np.random.default_rng(a.seed)
A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32)
alpha, beta = np.float32(1.0), np.float32(0.5)
ref = (cp.asarray(A, dtype=cp.float64) @ cp.asarray(B, dtype=cp.float64)) * 1.0 + 0.5 * cp.asarray(C0, dtype=cp.float64)
ref = cp.asnumpy(ref)
tol = 4 * 2.0**-24 * K


def verify(answer, result, atol=None):
    got = result[0]
    want = answer[0]
    if hasattr(got, "get"):
        got = got.get()
    got = np.asarray(got, dtype=np.float64).reshape(want.shape)
    ok = np.abs(got - want) <= tol * np.maximum(1.0, np.abs(want))
    return bool(np.all(ok))


# groupm: the template takes GROUPM as an argument too; Kernel Tuner defines GROUPM, which wins.
# ws, ws_floats: the stream-K workspace, unused here (this space has neither SPLITK nor STREAMK)
args = [C0, A, B, np.int32(M), np.int32(N), np.int32(K), alpha, beta, np.int32(0), np.zeros(4, np.float32), np.int32(0)]
answer = [ref.reshape(-1).astype(np.float64)] + [None] * 10
cache = a.cache or f"kt_matmul_{a.size}.json"
if os.path.exists(cache):
    os.remove(cache)  # a cold start
with open(src_path) as f:
    source = f.read()

strategy_options = {"time_limit": a.seconds}
t0 = time.time()
results, env = kernel_tuner.tune_kernel(
    "matmul", source, lambda p: (cdiv(M, p["BM"]) * cdiv(N, p["BN"]), 1), args, tune_params,
    grid_div_x=1, grid_div_y=1, block_size_names=["NTHREADS"], restrictions=restrictions, answer=answer,
    verify=verify, smem_args={"size": smem_bytes}, lang="cupy", compiler_options=["-std=c++17"],
    strategy=a.strategy, strategy_options=strategy_options, cache=cache, quiet=True, iterations=7)
wall = time.time() - t0
wall_total = time.time() - T_START

flop = 2.0 * M * N * K
ok = [r for r in results if isinstance(r.get("time"), (int, float)) and math.isfinite(r["time"])]
print(f"Kernel Tuner {kernel_tuner.__version__}, strategy {a.strategy}, time_limit {a.seconds:.0f} s, "
      f"problem {M}x{N}x{K}, cold start (no cache)")
print(f"  tune_kernel wall {wall:.1f} s (script {wall_total:.1f} s incl. inputs and reference); "
      f"{len(results)} configurations evaluated, {len(ok)} ok, "
      f"{len(results) / wall:.2f} configurations/s")
if ok:
    b = min(ok, key=lambda r: r["time"])
    cfg = ",".join(f"{k}={b[k]}" for k in tune_params if k != "NTHREADS")
    print(f"  best: {b['time']:.4f} ms = {flop / b['time'] / 1e9:.2f} TFLOP/s (checked)  {cfg}")

if a.dump:
    with open(a.dump, "w") as f:
        json.dump({",".join(f"{k}={r[k]}" for k in tune_params if k != "NTHREADS"): r["time"] for r in ok}, f)

if a.cutune_store and os.path.exists(a.cutune_store):
    prob = f"K={K},M={M},N={N}"
    ct = {}
    with open(a.cutune_store, errors="replace") as f:
        for ln in f:
            try:
                r = json.loads(ln)
            except ValueError:
                continue
            if r.get("problem") == prob and r.get("status") == "ok" and r.get("t_median"):
                ct[r["config"]] = r["t_median"]
    ratios = []
    for r in ok:
        cfg = ",".join(f"{k}={r[k]}" for k in tune_params if k != "NTHREADS")
        if cfg in ct:
            ratios.append(r["time"] / ct[cfg])
    if ratios:
        ratios.sort()
        q = lambda x: ratios[min(len(ratios) - 1, int(x * len(ratios)))]
        print(f"  agreement on {len(ratios)} configurations both measured: KT time / cutune time "
              f"median {q(0.5):.3f}, 10-90 % {q(0.1):.3f}-{q(0.9):.3f}")
    else:
        print("  agreement: no configuration measured by both")
