#!/usr/bin/env python3
"""kt_score.py: score Kernel Tuner's own strategies on brute-force Kernel Tuner caches with the
method of `cutune score` (docs/SEARCH.md "Kernel Tuner's strategies").

Every strategy runs --repeats seeded times per cache in Kernel Tuner's simulation mode (answers
from the cache; the space is the cache's configurations: a restriction keeps the search inside
them, failed entries count as evaluations that yield nothing), for --budget unique evaluations
(max_fevals; a revisit costs nothing, as in Kernel Tuner). The order of first visits is recorded
and scored like `cutune score`: at every budget b the mean best-so-far f(b) over the repeats
(before any success: the worst valid time) gives (E_b - f(b)) / (E_b - optimum), E_b the exact
expected best-so-far of random search without replacement (search/score.c). Writes a CSV in
the shape of `cutune score --csv` (budget_evals, one column per strategy; scores averaged over
the caches), which tools can put beside cutune's.

usage: bench/kt_score.py [--strategies a,b] [--repeats 25] [--budget 200] [--seed 1]
                         [--csv kt.csv] CACHE.json[.gz]...
Needs kernel_tuner (pip install kernel_tuner; 1.5.0 was used). No GPU.
"""
import argparse
import gzip
import json
import math
import os
import random
import sys
import tempfile
import time
import warnings

DEFAULT = ("random_sample,genetic_algorithm,simulated_annealing,greedy_ils,greedy_mls,mls,"
           "ordered_greedy_mls,pso,firefly_algorithm,diff_evo,dual_annealing,basinhopping,minimize,bayes_opt")


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def value(entry):
    t = entry.get("time")
    return float(t) if isinstance(t, (int, float)) and math.isfinite(t) else math.nan


def expected_random(sorted_ok, n, k):
    """E_b of search/score.c: best of k draws without replacement from n rows, m of them valid."""
    m = len(sorted_ok)
    k = min(k, n)
    e, p = 0.0, k / n
    for i in range(m):
        e += sorted_ok[i] * p
        if n - 1 - i == 0:
            break
        p *= (n - i - k) / (n - 1 - i)
        if p <= 0:
            break
    pf = 1.0
    for j in range(k):
        if pf <= 0:
            break
        pf *= (n - m - j) / (n - j)
    if pf > 0:
        e += sorted_ok[-1] * pf
    return e


def run_once(kt, data, cachefile, strategy, budget, seed):
    """One Kernel Tuner run in simulation mode; the keys of its first visits, in order."""
    from kernel_tuner.runners import simulation

    keys = set(data["cache"])
    order = []
    orig = simulation.SimulationRunner.run

    def run(self, parameter_space, tuning_options):
        parameter_space = list(parameter_space)
        for element in parameter_space:
            key = ",".join(str(i) for i in element)
            if key in tuning_options.cache and key not in self.visited_results and not tuning_options.budget.is_done():
                order.append(key)
                # the runner marks it visited itself; a duplicate inside one call is counted once
                if order.count(key) > 1:
                    order.pop()
        return orig(self, parameter_space, tuning_options)

    simulation.SimulationRunner.run = run
    names = data["tune_params_keys"]
    tune_params = {k: data["tune_params"][k] for k in names}

    def restrict(p):
        return ",".join(str(p[k]) for k in names) in keys

    random.seed(seed)
    try:
        import numpy as np
        np.random.seed(seed % (2 ** 32))
    except ImportError:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kt.tune_kernel(data.get("kernel_name", "k"), "__global__ void k() {}", data.get("problem_size", 1), [],
                           tune_params, restrictions=restrict, cache=cachefile, simulation_mode=True,
                           strategy=strategy, strategy_options={"max_fevals": budget}, verbose=False, quiet=True)
    finally:
        simulation.SimulationRunner.run = orig
    return order[:budget]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strategies", default=DEFAULT)
    ap.add_argument("--repeats", type=int, default=25)
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", default="kt_score.csv")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    import kernel_tuner as kt

    strategies = a.strategies.split(",")
    B = a.budget
    total = {s: [0.0] * (B + 1) for s in strategies}
    skipped = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.files:
            data = load(path)
            cachefile = os.path.join(tmp, os.path.basename(path).replace(".gz", ""))
            if not cachefile.endswith(".json"):
                cachefile += ".json"
            with open(cachefile, "w") as f:
                json.dump(data, f)
            vals = {k: value(e) for k, e in data["cache"].items()}
            ok = sorted(v for v in vals.values() if not math.isnan(v))
            n, opt, worst = len(vals), ok[0], ok[-1]
            for s in list(strategies):
                if s in skipped:
                    continue
                t0 = time.time()
                sums = [0.0] * (B + 1)
                short = 0
                try:
                    orders = [run_once(kt, data, cachefile, s, B, a.seed * 1000003 + rep) for rep in range(a.repeats)]
                except Exception as e:  # an optional dependency missing (skopt, pyatf): say so, go on
                    skipped[s] = f"{type(e).__name__}: {e}"
                    print(f"{s}: skipped ({skipped[s]})", file=sys.stderr, flush=True)
                    continue
                for order in orders:
                    short += len(order) < B
                    best = worst
                    for b in range(1, B + 1):
                        if b <= len(order):
                            v = vals[order[b - 1]]
                            if not math.isnan(v) and v < best:
                                best = v
                        sums[b] += best
                for b in range(1, B + 1):
                    mean, e = sums[b] / a.repeats, expected_random(ok, n, b)
                    sc = (e - mean) / (e - opt) if e - opt > 1e-12 * abs(opt) else (1.0 if mean <= opt else 0.0)
                    total[s][b] += sc / len(a.files)
                mean_score = sum(total[s][10:]) / (B - 9)
                print(f"{os.path.basename(path)} {s}: {time.time() - t0:.1f} s"
                      + (f" ({short} of {a.repeats} runs stopped before {B} evaluations)" if short else ""),
                      file=sys.stderr, flush=True)
    strategies = [s for s in strategies if s not in skipped]
    with open(a.csv, "w") as f:
        f.write("budget_evals," + ",".join(strategies) + "\n")
        for b in range(1, B + 1):
            f.write(f"{b}," + ",".join(f"{total[s][b]:.4f}" for s in strategies) + "\n")
    at = [b for b in (20, 50, 100, 200) if b <= B]
    print(f"{'strategy':22s}   mean  min>=20" + "".join(f"   @{b:<4d}" for b in at))
    for s in strategies:
        c = total[s]
        print(f"{s:22s} {sum(c[10:]) / (B - 9):6.3f} {min(c[20:]):8.3f}" + "".join(f" {c[b]:7.3f}" for b in at))


if __name__ == "__main__":
    main()
