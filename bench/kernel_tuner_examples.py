#!/usr/bin/env python3
"""kernel_tuner_examples.py: Kernel Tuner 1.5 on one of its own CUDA examples, as the example's
tuning script sets it up (parameters, restrictions, problem size, cmem_args, grid divisors,
answer/verify where the script has one), on the cupy backend, with a wall-clock budget.

  python3 bench/kernel_tuner_examples.py EXAMPLE --src DIR [--seconds 20] [--dump FILE]

EXAMPLE is convolution, pnpoly, reduction, matmul, stencil or vector_add; DIR holds the unchanged
.cu files and vector_add.py (Kernel Tuner's examples/cuda). The strategy is random_sample over the
whole space with time_limit (brute_force takes no time limit); where the budget covers the space
that is every configuration. pnpoly's script tunes a host function that is not among the
examples: this tunes the kernel it launches, cn_pnpoly, with the script's parameters and the
vertices and slopes in constant memory (as examples/kernel_tuner/pnpoly.lua). Prints one line
KT <example> valid=<n> measured=<n> seconds=<s> best_ms=<t> best=<config>, and with --dump writes
{config: time_ms} of the configurations it timed (config keys as cutune writes them:
name=value,... in the parameters' order)."""
import argparse
import json
import math
import os
import re
import sys
import tempfile
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("example")
ap.add_argument("--src", required=True)
ap.add_argument("--seconds", type=float, default=20)
ap.add_argument("--dump", default=None)
ap.add_argument("--count", action="store_true", help="print the size of Kernel Tuner's space and stop")
a = ap.parse_args()

import kernel_tuner  # noqa: E402
import kernel_tuner.util  # noqa: E402
import kernel_tuner.backends.cupy as _kt_cupy  # noqa: E402
import uuid  # noqa: E402


class _UUID16:
    """Kernel Tuner 1.5's cupy backend records the device's UUID as uuid.UUID(bytes=props["uuid"]);
    cupy converts the 16-byte cudaUUID_t as a C string, cut at its first NUL byte (this H200's ends in
    00: 15 bytes), and the backend's constructor fails with "bytes is not a 16-char string", before any
    kernel. The UUID only goes into Kernel Tuner's env: pad it back to 16 bytes."""

    @staticmethod
    def UUID(**kw):
        b = kw.get("bytes")
        if isinstance(b, (bytes, bytearray)):
            kw["bytes"] = (bytes(b) + bytes(16))[:16]
        return uuid.UUID(**kw)


_kt_cupy.uuid = _UUID16
SMEM_SKIPPED = [0]
_compile = _kt_cupy.CupyFunctions.compile


def _compile_smem(self, instance):
    """Kernel Tuner skips a configuration whose compile fails with "uses too much shared data" (nvcc's
    ptxas message) and stops the whole run on any other compile error. NVRTC, which cupy compiles
    with, fails such a kernel with an empty error: its log only has ptxas -v's "N bytes smem" over
    the 48 KB of static shared memory. Give Kernel Tuner the message it expects for those alone."""
    try:
        return _compile(self, instance)
    except Exception as ex:
        smem = [int(b) for b in re.findall(r"(\d+) bytes smem", str(ex))]
        if smem and max(smem) > 48 * 1024:
            SMEM_SKIPPED[0] += 1
            raise RuntimeError("uses too much shared data (%d bytes of static shared memory)" % max(smem)) from ex
        raise


_kt_cupy.CupyFunctions.compile = _compile_smem

src = lambda name: open(os.path.join(a.src, name)).read()
a.src = os.path.abspath(a.src)
if a.dump:
    a.dump = os.path.abspath(a.dump)
os.chdir(tempfile.mkdtemp())  # Kernel Tuner leaves the source of a failed configuration in the working folder
T0 = time.time()
# random_sample snaps and validates its whole sample before it runs the first configuration: over
# convolution's 1.87 M that alone outlasts any budget here (nothing measured). The sample is capped at
# SAMPLE_CAP, far more than Kernel Tuner measures in the budget (it compiles each one); a space
# smaller than the cap is sampled whole, which in a budget that covers it is every configuration.
SAMPLE_CAP = 20000
kw = dict(lang="cupy", quiet=True, strategy="random_sample",
          strategy_options={"fraction": 1.0, "max_fevals": SAMPLE_CAP, "time_limit": a.seconds})
e = a.example
if e == "convolution":
    tp = {"filter_height": list(range(3, 35, 2)), "filter_width": list(range(3, 35, 2)),
          "block_size_x": [16 * i for i in range(1, 9)], "block_size_y": [2**i for i in range(6)],
          "tile_size_x": list(range(1, 9)), "tile_size_y": list(range(1, 9)), "use_padding": [0, 1], "read_only": [0, 1]}
    size = (4096, 4096)
    out = np.zeros(4096 * 4096, np.float32)
    inp = np.random.randn((4096 + 32) * (4096 + 32)).astype(np.float32)
    filt = np.random.randn(33 * 33).astype(np.float32)
    call = ("convolution_kernel", src("convolution.cu"), size, [out, inp, filt], tp)
    kw.update(grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"],
              cmem_args={"d_filter": filt}, restrictions=["use_padding==0 or (block_size_x % 32 != 0)"])
elif e == "pnpoly":
    n = 20000000
    tp = {"block_size_x": [32 * i for i in range(1, 32)], "tile_size": [1] + [2 * i for i in range(1, 11)],
          "between_method": [0, 1, 2, 3], "use_precomputed_slopes": [0, 1], "use_method": [0, 1]}
    points = np.random.uniform(-1.5, 1.5, 2 * n).astype(np.float32)
    seeds = np.sort(np.random.rand(600) * 2.0 * np.pi)[::-1]
    vxy = np.array(list(zip(np.cos(seeds), np.sin(seeds)))).astype(np.float32).ravel()
    vx, vy = vxy[0::2], vxy[1::2]
    k = np.roll(np.arange(600), 1)  # edge j to k = j - 1, as the kernel
    slopes = ((vx[k] - vx) / (vy[k] - vy)).astype(np.float32)
    call = ("cn_pnpoly", src("pnpoly.cu"), n, [np.zeros(n, np.int32), points, np.int32(n)], tp)
    kw.update(grid_div_x=["block_size_x", "tile_size"], cmem_args={"d_vertices": vxy, "d_slopes": slopes})
elif e == "reduction":
    tp = {"block_size_x": [2**i for i in range(5, 11)], "vector": [2**i for i in range(3)],
          "num_blocks": [2**i for i in range(5, 16)], "loop_unroll_factor_0": [0, 1, 8, 16, 32, 64], "use_shuffle": [0, 1]}
    size = 800000000
    x = np.random.rand(size).astype(np.float32)
    sum_x = np.zeros(max(tp["num_blocks"]), np.float32)

    def verify_partial_reduce(cpu_result, gpu_result, atol=None):
        return np.isclose(cpu_result[0], np.sum(gpu_result[0]), atol=atol)

    call = ("sum_floats", src("reduction.cu"), "num_blocks", [sum_x, x, np.int32(size)], tp)
    kw.update(grid_div_x=[], answer=[np.sum(x), None, None], verify=verify_partial_reduce)
elif e == "matmul":
    A = np.random.randn(4096, 4096).astype(np.float32)
    B = np.random.randn(4096, 4096).astype(np.float32)
    tp = {"block_size_x": [16 * 2**i for i in range(3)], "block_size_y": [2**i for i in range(6)],
          "tile_size_x": [2**i for i in range(4)], "tile_size_y": [2**i for i in range(4)]}
    call = ("matmul_kernel", src("matmul.cu"), (4096, 4096), [np.zeros_like(A), A, B], tp)
    kw.update(grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"],
              restrictions=["block_size_x==block_size_y*tile_size_y"], answer=[np.dot(A, B), None, None], iterations=32,
              verify=lambda ans, res, atol=None: np.allclose(ans[0], res[0], atol=1e-3, rtol=1e-4))
    # the script's numpy.allclose with its default atol 1e-6 and rtol 1e-5: float sums of 4096 terms
    # in another order differ by ~1e-4 of the result, and one element over stops Kernel Tuner's
    # whole run; the tolerance of cutune's space (examples/kernel_tuner/matmul.lua) instead
elif e == "stencil":
    x_old = np.random.randn(4096 * 2048).astype(np.float32)
    tp = {"block_size_x": [32 * i for i in range(1, 9)], "block_size_y": [2**i for i in range(6)]}
    call = ("stencil_kernel", src("stencil.cu"), (4096, 2048), [np.copy(x_old), x_old], tp)
    kw.update(grid_div_x=["block_size_x"], grid_div_y=["block_size_y"])
elif e == "vector_add":
    m = re.search(r'kernel_string = """(.*?)"""', src("vector_add.py"), re.S)
    n = 10000000
    a_, b_ = np.random.randn(n).astype(np.float32), np.random.randn(n).astype(np.float32)
    tp = {"block_size_x": [128 + 64 * i for i in range(15)]}
    call = ("vector_add", m.group(1), n, [np.zeros_like(b_), a_, b_, np.int32(n)], tp)
else:
    sys.exit("unknown example " + e)



def space_size():
    """Kernel Tuner's own count of the space: its restrictions and the device's 1024 threads."""
    from kernel_tuner.searchspace import Searchspace
    return Searchspace(tp, kw.get("restrictions", []), 1024).size


if a.count:
    print("KT %s space=%d" % (e, space_size()))
    sys.exit(0)
setup = time.time() - T0
T1 = time.time()
# Kernel Tuner stops the whole run on a failed verification, and on a compile error it does not
# recognise as a resource limit (NVRTC reports static shared memory over 48 KB with an empty error,
# which its patterns miss): what it measured before is kept from its cache file, written as it goes.
cache = (a.dump or "kt-%s.json" % e) + ".cache.json"  # Kernel Tuner appends .json to a name without it
if os.path.exists(cache):
    os.remove(cache)
kw["cache"] = cache
aborted = ""
try:
    results, env = kernel_tuner.tune_kernel(*call, **kw)
except Exception as ex:
    wall = time.time() - T1
    aborted = "%s: %s" % (type(ex).__name__, " ".join(str(ex).split())[:300])
    try:
        results = list(kernel_tuner.util.read_cache(cache, open_cache=False)["cache"].values())
    except (OSError, ValueError, KeyError):
        results = []
    print("KT %s aborted after %.1f s (%d configurations before): %s" % (e, wall, len(results), aborted))
wall = time.time() - T1
names = list(tp)
timed = {}
for r in results:
    t = r.get("time")
    if isinstance(t, (int, float)) and math.isfinite(t) and t < 1e19:
        timed[",".join("%s=%s" % (k, r[k]) for k in names)] = t
best = min(timed.items(), key=lambda kv: kv[1]) if timed else ("-", float("nan"))
cms = [r["compile_time"] for r in results if isinstance(r.get("compile_time"), (int, float)) and r["compile_time"] > 0]
print("KT %s valid=%d measured=%d seconds=%.1f setup=%.1f best_ms=%.6g compile_ms_mean=%.0f smem_skipped=%d aborted=%s best=%s" % (
    e, len(timed), len(results), wall, setup, best[1], sum(cms) / len(cms) if cms else float("nan"), SMEM_SKIPPED[0],
    "yes" if aborted else "no", best[0]))
print("KT %s space=%d" % (e, space_size()))
if a.dump:
    json.dump(timed, open(a.dump, "w"))
