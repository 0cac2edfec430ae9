#!/usr/bin/env python3
"""kt_launch_gap.py: why Kernel Tuner's times of short kernels are higher than cutune's.

  PYTHONPATH=<Kernel Tuner's site> python3 bench/kt_launch_gap.py KT_SRC [CUTUNE_STORE_DIR]

Kernel Tuner 1.5 times a configuration (core.py, benchmark_default) as: synchronize, record a
start event, launch the kernel from Python (cupy), record a stop event, wait. The GPU reaches the
start event at once (it is idle) and the kernel only when the Python launch has reached the
driver, so the time between the two events is the kernel plus the host time of that launch.
cutune times kernels with the launches queued back to back (docs/MEASURE.md), where the host time
of one launch overlaps the kernel before it.

On vector_add (10^7 floats) and stencil (4096 x 2048), the two short kernels of Kernel Tuner's
examples, for every configuration of their tuning scripts, this prints, in microseconds:
  kt      Kernel Tuner's own time (tune_kernel, its default 7 iterations, cupy backend)
  alone   a launch between its own events right after a synchronize, in cupy (KT's method by hand)
  behind  the same pair of events, queued behind a 200 us spinning kernel: the GPU is busy when
          the launch arrives, so the events bracket the kernel alone
  queued  20 launches back to back between two events, per launch
and the ratios kt/behind and alone/behind; with CUTUNE_STORE_DIR (the records of
bench/kernel_tuner_examples.sh, or any cutune run of examples/kernel_tuner/{vector_add,stencil}.lua
on this GPU) also cutune's median and kt/cutune. If alone ~ kt and behind ~ cutune, the
difference is the launch's host time, not the kernel.
"""
import glob
import json
import os
import statistics
import sys

import cupy as cp
import numpy as np

SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}
"""


def median_us(fn, reps):
    xs = [fn() for _ in range(reps)]
    return statistics.median(xs) * 1e3


def times(kernel, grid, block, args, reps=30):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    spin = cp.RawKernel(SPIN, "spin")
    clock = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrClockRate, 0) * 1e3  # Hz
    spin_cycles = np.int64(int(200e-6 * clock))

    def one(spin_first):
        cp.cuda.runtime.deviceSynchronize()
        if spin_first:  # the GPU is busy when the launch arrives: the events bracket the kernel
            spin((1,), (1,), (spin_cycles,))
        start.record()
        kernel(grid, block, args)
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop)

    def alone():
        return one(False)

    def behind():
        return one(True)

    def queued():
        cp.cuda.runtime.deviceSynchronize()
        start.record()
        for _ in range(20):
            kernel(grid, block, args)
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) / 20

    for f in (alone, behind, queued):  # warm-up
        f()
    return median_us(alone, reps), median_us(behind, reps), median_us(queued, reps)


def cutune_medians(store_dir, space):
    out = {}
    for path in glob.glob(os.path.join(store_dir, "**", space + ".jsonl"), recursive=True):
        for line in open(path):
            r = json.loads(line)
            if r.get("status") == "ok" and "raced_above" not in r["time_ms"]:
                out[r["config"]] = r["t_median"] * 1e3
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    store = sys.argv[2] if len(sys.argv) > 2 else None
    import kernel_tuner  # after the argument check: the usage needs no Kernel Tuner

    rng = np.random.default_rng(1)
    cases = []
    # vector_add, as Kernel Tuner's vector_add.py (its kernel string is in the script)
    n = 10000000
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    vsrc = open(os.path.join(src, "vector_add.py")).read()
    vk = vsrc[vsrc.index('"""', vsrc.index("kernel_string")) + 3:]
    vk = vk[:vk.index('"""')]
    cases.append(("vector_add", vk, "vector_add", [np.zeros_like(a), a, b, np.int32(n)],
                  n, {"block_size_x": [128 + 64 * i for i in range(15)]}, None, None))
    # stencil, as stencil.py
    size = (4096, 2048)
    x = rng.standard_normal(size[0] * size[1], dtype=np.float32)
    cases.append(("stencil", open(os.path.join(src, "stencil.cu")).read(), "stencil_kernel", [np.copy(x), x],
                  size, {"block_size_x": [32 * i for i in range(1, 9)], "block_size_y": [2 ** i for i in range(6)]},
                  ["block_size_x"], ["block_size_y"]))

    for name, ksrc, kname, args, psize, params, gdx, gdy in cases:
        kw = dict(verbose=False, quiet=True, lang="cupy")
        if gdx:
            kw.update(grid_div_x=gdx, grid_div_y=gdy)
        kt_res, _ = kernel_tuner.tune_kernel(kname, ksrc, psize, args, params, **kw)
        ct = cutune_medians(store, name) if store else {}
        dargs = [cp.asarray(v) if isinstance(v, np.ndarray) else v for v in args]
        ratios = []
        print(f"== {name}: us per launch (kt: Kernel Tuner's time; alone/behind/queued: cupy, see the header)")
        print("  %-34s %8s %8s %8s %8s %8s %9s %9s" % ("config", "kt", "alone", "behind", "queued", "cutune",
                                                   "kt/behind", "alone/beh"))
        for r in kt_res:
            cfg = {k: r[k] for k in params}
            defs = "".join(f"#define {k} {v}\n" for k, v in cfg.items())
            mod = cp.RawModule(code=defs + ksrc, name_expressions=[kname])  # C++ names, as KT compiles them
            k = mod.get_function(kname)
            if name == "vector_add":
                grid, block = ((n + cfg["block_size_x"] - 1) // cfg["block_size_x"],), (cfg["block_size_x"],)
            else:
                bx, by = cfg["block_size_x"], cfg["block_size_y"]
                grid, block = ((size[0] + bx - 1) // bx, (size[1] + by - 1) // by), (bx, by)
            al, be, qu = times(k, grid, block, tuple(dargs))
            key = ",".join(f"{k_}={v}" for k_, v in cfg.items())
            c = ct.get(key)
            kt_us = r["time"] * 1e3
            ratios.append((kt_us / be, al / be, kt_us / c if c else None))
            print("  %-34s %8.1f %8.1f %8.1f %8.1f %8s %9.3f %9.3f" % (key, kt_us, al, be, qu,
                  "%.1f" % c if c else "-", kt_us / be, al / be))
        med = lambda i: statistics.median(x[i] for x in ratios if x[i] is not None)
        line = f"  median over {len(ratios)}: kt/behind {med(0):.3f}, alone/behind {med(1):.3f}"
        if any(x[2] for x in ratios):
            line += f", kt/cutune {med(2):.3f}"
        print(line)


if __name__ == "__main__":
    main()
