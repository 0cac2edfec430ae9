"""matmul_variants.py: summaries of a matmul store for the `variants` stage of bench/matmul_session.sh.

  bench/matmul_variants.py best STORE.jsonl [PROBLEM]   the old winner's rows and the best per value
                                                         of REGDB, STAGES, SDB, HOIST, BK
  bench/matmul_variants.py status STORE.jsonl           record counts per problem and status; the
                                                         number of wrong_result (must be 0)
  bench/matmul_variants.py compile STORE.jsonl          median and mean compile_ms"""
import collections
import json
import statistics
import sys

OLD = "BM=128,BN=256,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=1,SDB=0,PAD=4,REGDB=1,UNROLL=0,GROUPM=8"


def records(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def best(path, prob):
    rs = [r for r in records(path) if r["problem"] == prob and r["status"] == "ok"]
    dims = dict(kv.split("=") for kv in prob.split(","))
    flop = 2 * int(dims["M"]) * int(dims["N"]) * int(dims["K"])

    def show(label, sel):
        b = [r for r in rs if sel(r["params"])]
        if not b:
            print(f"  {label:40s} none")
            return
        r = min(b, key=lambda r: r["t_median"])
        print(f"  {label:40s} {r['t_median']:.4f} ms {flop / r['t_median'] / 1e9:6.2f} TFLOP/s "
              f"regs {r['resources']['regs']:3d}  {r['config']}")

    def key(p):
        return ",".join(f"{k}={p[k]}" for k in p if k != "HOIST")

    print(f"  {len(rs)} configurations ok at {prob}; the old winner measured 3.071 ms = 44.75 TFLOP/s "
          "on 2026-12-01 (HOIST=0 is the code measured then)")
    for h in ("0", "1"):
        show(f"old winner, HOIST={h}", lambda p, h=h: key(p) == OLD and p.get("HOIST") == h)
    for k in ("REGDB", "STAGES", "SDB", "HOIST", "BK"):
        for v in sorted({r["params"].get(k, "?") for r in rs} - {"?"}, key=int):
            show(f"{k}={v}", lambda p, k=k, v=v: p.get(k) == v)


def status(path):
    c = collections.Counter((r["problem"], r["status"]) for r in records(path))
    for k, v in sorted(c.items()):
        print(f"  {k[0]:24s} {k[1]:14s} {v}")
    print(f"  wrong_result: {sum(v for k, v in c.items() if k[1] == 'wrong_result')} (must be 0)")


def compile_ms(path):
    c = [r["compile_ms"] for r in records(path) if r.get("compile_ms")]
    if c:
        print(f"  compile_ms over {len(c)} configurations: median {statistics.median(c):.0f}, "
              f"mean {statistics.mean(c):.0f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if sys.argv[1] == "best":
        best(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "K=4096,M=4096,N=4096")
    elif sys.argv[1] == "status":
        status(sys.argv[2])
    elif sys.argv[1] == "compile":
        compile_ms(sys.argv[2])
    else:
        sys.exit(__doc__)
