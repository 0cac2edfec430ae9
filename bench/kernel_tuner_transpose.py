#!/usr/bin/env python3
"""kernel_tuner_transpose.py: Kernel Tuner tunes templates/transpose.cu over the same space as
lua/transpose_space.lua, on its first problem (8192 x 8192 floats), for a wall-clock budget,
from a cold start: the side-by-side rate of bench/rate_session.sh.

  python3 bench/kernel_tuner_transpose.py [--seconds 60] [--n 8192] [--m 8192]
         [--strategy random_sample] [--cache FILE] [--seed 1] [--count-only]

The parameters and restrictions mirror lua/transpose_space.lua one for one (the script checks
that the count of valid configurations is the same, 2,438); BX is a derived parameter with
exactly one valid value per configuration (Kernel Tuner takes the block size from parameters).
Each configuration's output is checked against numpy's transpose, exactly, as cutune checks
it; the launch (grid, block) is the one cutune computes. Kernel Tuner's own timing (7
iterations, mean) is kept. The default strategy samples the space in random order, without
repeats, until the time is up: the closest Kernel Tuner has to cutune's exhaustive walk with a
clock. Prints the configurations evaluated and checked, the rate and the best time. Needs
kernel_tuner (carried as wheels on the GPU machine: bench/rate_session.sh), numpy and cupy."""
import argparse
import itertools
import math
import os
import sys
import time

T_START = time.time()
ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--n", type=int, default=8192)
ap.add_argument("--m", type=int, default=8192)
ap.add_argument("--strategy", default="random_sample")
ap.add_argument("--cache", default=None)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--count-only", action="store_true", help="count the valid configurations and exit (no GPU)")
a = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
src_path = os.path.join(here, "..", "templates", "transpose.cu")

# ---- the space: lua/transpose_space.lua, one for one ----
tune_params = {
    "TILE": [0, 16, 32, 64], "PAD": [0, 1, 2], "SWIZZLE": [0, 1], "BLOCK_ROWS": [1, 2, 4, 8, 16, 32],
    "VEC": [1, 2, 4], "UNROLL": [0, 1], "LDG": [0, 1], "ORDER": [0, 1, 2, 3], "TPB": [1, 4],
    "BX": [4, 8, 16, 32, 64],
}


def threads(p):
    return 32 * p["BLOCK_ROWS"] if p["TILE"] == 0 else (p["TILE"] // p["VEC"]) * p["BLOCK_ROWS"]


def valid(p):
    t = p["TILE"]
    if t == 0 and not (p["PAD"] == 0 and p["SWIZZLE"] == 0 and p["VEC"] == 1):
        return False
    if t == 0 and not (p["UNROLL"] == 0 and p["LDG"] == 0 and p["ORDER"] == 0):
        return False
    if t != 64 and (p["ORDER"] != 0 or p["TPB"] != 1):
        return False
    if p["SWIZZLE"] and p["PAD"]:
        return False
    if t and t % p["BLOCK_ROWS"]:
        return False
    if not 32 <= threads(p) <= 1024:
        return False
    if t * (t + p["PAD"]) * 4 > 48 * 1024:
        return False
    return p["BX"] == (32 if t == 0 else t // p["VEC"])


restrictions = [
    "TILE != 0 or (PAD == 0 and SWIZZLE == 0 and VEC == 1)",
    "TILE != 0 or (UNROLL == 0 and LDG == 0 and ORDER == 0)",
    "TILE == 64 or ORDER == 0",
    "TILE == 64 or TPB == 1",
    "SWIZZLE == 0 or PAD == 0",
    "TILE == 0 or TILE % BLOCK_ROWS == 0",
    "32 <= (32 * BLOCK_ROWS if TILE == 0 else (TILE // VEC) * BLOCK_ROWS) <= 1024",
    "TILE * (TILE + PAD) * 4 <= 48 * 1024",
    "BX == (32 if TILE == 0 else TILE // VEC)",
]


def count_valid():
    names = list(tune_params)
    return sum(valid(dict(zip(names, v))) for v in itertools.product(*tune_params.values()))


if a.count_only:
    print(f"valid configurations: {count_valid()}")
    sys.exit(0)

import numpy as np  # noqa: E402
import kernel_tuner  # noqa: E402


def cdiv(x, y):
    return (x + y - 1) // y


N, M = a.n, a.m


def grid(p):
    if p["TILE"] == 0:
        return (cdiv(M, 32), cdiv(N, p["BLOCK_ROWS"]))
    return (cdiv(M, p["TILE"]), cdiv(cdiv(N, p["TILE"]), p["TPB"]))


rng = np.random.default_rng(a.seed)
inp = rng.uniform(-1, 1, (N, M)).astype(np.float32)
out = np.zeros(N * M, dtype=np.float32)
want = np.ascontiguousarray(inp.T).reshape(-1)


def verify(answer, result, atol=None):
    got = result[0]
    if hasattr(got, "get"):
        got = got.get()
    return bool(np.array_equal(np.asarray(got).reshape(-1), answer[0]))


args = [out, inp.reshape(-1), np.int32(N), np.int32(M)]
answer = [want, None, None, None]
cache = a.cache or f"kt_transpose_{N}x{M}.json"
if os.path.exists(cache):
    os.remove(cache)  # a cold start
with open(src_path) as f:
    source = f.read()

opts = {"time_limit": a.seconds}
if a.strategy == "random_sample":
    opts["fraction"] = 1.0
t0 = time.time()
results, env = kernel_tuner.tune_kernel(
    "transpose", source, grid, args, tune_params, grid_div_x=1, grid_div_y=1,
    block_size_names=["BX", "BLOCK_ROWS"], restrictions=restrictions, answer=answer, verify=verify, lang="cupy",
    strategy=a.strategy, strategy_options=opts, cache=cache, quiet=True, iterations=7)
wall = time.time() - t0
ok = [r for r in results if isinstance(r.get("time"), (int, float)) and math.isfinite(r["time"])]
print(f"Kernel Tuner {kernel_tuner.__version__}, strategy {a.strategy}, time_limit {a.seconds:.0f} s, "
      f"transpose {N}x{M}, cold start (no cache)")
print(f"  tune_kernel wall {wall:.1f} s (script {time.time() - T_START:.1f} s); {len(results)} configurations "
      f"evaluated, {len(ok)} ok, {len(results) / wall:.2f} configurations/s")
if ok:
    b = min(ok, key=lambda r: r["time"])
    cfg = ",".join(f"{k}={b[k]}" for k in tune_params if k != "BX")
    print(f"  best: {b['time'] * 1e3:.1f} us = {8.0 * N * M / (b['time'] * 1e-3) / 1e9:.0f} GB/s (checked)  {cfg}")
