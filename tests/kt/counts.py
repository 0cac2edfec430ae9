#!/usr/bin/env python3
"""The configuration counts of Kernel Tuner's CUDA examples, computed from their tuning scripts'
parameters and restrictions as Kernel Tuner's Searchspace does (the restrictions, and its
max_threads restriction on the product of block_size_x/y/z, 1024), without Kernel Tuner. Prints
"name count" per example. kernel_tuner 1.5's own Searchspace gives the same numbers
(docs/KERNEL_TUNER.md)."""
import itertools

def count(params, ok=lambda p: True):
    names = list(params)
    n = 0
    for vals in itertools.product(*params.values()):
        p = dict(zip(names, vals))
        threads = p.get("block_size_x", 1) * p.get("block_size_y", 1) * p.get("block_size_z", 1)
        if threads <= 1024 and ok(p):
            n += 1
    return n

ex = {}
ex["convolution"] = count({
    "filter_height": range(3, 35, 2), "filter_width": range(3, 35, 2),
    "block_size_x": [16 * i for i in range(1, 9)], "block_size_y": [2**i for i in range(6)],
    "tile_size_x": range(1, 9), "tile_size_y": range(1, 9), "use_padding": [0, 1], "read_only": [0, 1]},
    lambda p: p["use_padding"] == 0 or p["block_size_x"] % 32 != 0)
ex["matmul"] = count({"block_size_x": [16 * 2**i for i in range(3)], "block_size_y": [2**i for i in range(6)],
                      "tile_size_x": [2**i for i in range(4)], "tile_size_y": [2**i for i in range(4)]},
                     lambda p: p["block_size_x"] == p["block_size_y"] * p["tile_size_y"])
ex["pnpoly"] = count({"block_size_x": [32 * i for i in range(1, 32)], "tile_size": [1] + [2 * i for i in range(1, 11)],
                      "between_method": [0, 1, 2, 3], "use_precomputed_slopes": [0, 1], "use_method": [0, 1]})
ex["reduction"] = count({"block_size_x": [2**i for i in range(5, 11)], "vector": [2**i for i in range(3)],
                         "num_blocks": [2**i for i in range(5, 16)], "loop_unroll_factor_0": [0, 1, 8, 16, 32, 64],
                         "use_shuffle": [0, 1]})
ex["stencil"] = count({"block_size_x": [32 * i for i in range(1, 9)], "block_size_y": [2**i for i in range(6)]})
ex["vector_add"] = count({"block_size_x": [128 + 64 * i for i in range(15)]})
for k, v in ex.items():
    print(k, v)
