#!/usr/bin/env python3
"""ncu_table: a short table from an Nsight Compute raw CSV export (`ncu -i R.ncu-rep --csv --page
raw`) of a program that printed "PROFILE i SHAPE NAME" before its i-th profiled launch
(bench/templates_transpose.cu --profile, bench/templates_sgemm.cu --profile).

    bench/ncu_table.py REPORT.csv PROGRAM_STDOUT.txt [transpose|sgemm]

transpose: per kernel its time, DRAM bytes read and written as multiples of the ideal (the
matrix once each way: R*C*4 bytes), L2 sectors read and written from the SMs as multiples of the
ideal (R*C*4/32), L1 store sectors per request and the L2 hit rate: a misaligned row shows as
more than one L2 sector per 32 bytes moved, a partial-sector write that L2 completes from DRAM as
DRAM reads above 1.0. sgemm: time, SM clock, issue stalls (barrier, long/short scoreboard, MIO
throttle, not selected) and the FMA pipe's share. Columns that the report lacks print as '-'."""
import csv
import re
import sys

SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
TIME = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}


def num(value, unit):
    """The value in base units: bytes, sectors, ns, Hz (ncu may print Kbyte, usecond, Ghz ...)."""
    try:
        v = float(value.replace(",", ""))
    except ValueError:
        return None
    unit = unit or ""
    if unit in TIME:
        return v * TIME[unit]
    m = re.match(r"^([KMGT]?)(byte|sector|hz|Hz|cycle/second|cycle/nsecond)$", unit)
    if m:
        v *= SCALE[m.group(1)]
        if m.group(2) == "cycle/nsecond":
            v *= 1e9
    return v


def load(path):
    rows = list(csv.reader(l for l in open(path, errors="replace") if l.startswith('"')))
    if len(rows) < 2:
        return []
    hdr, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        d = {}
        for h, u, v in zip(hdr, units, r):
            d[h] = num(v, u)
            d[h + "#raw"] = v
        out.append(d)
    return out


def order(path):
    got = []
    for line in open(path, errors="replace"):
        m = re.match(r"PROFILE (\d+) (\S+) (\S+)", line)
        if m:
            got.append((int(m.group(1)), m.group(2), m.group(3)))
    return got


def fmt(v, f="%.2f"):
    return "-" if v is None else f % v


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    rows, names = load(sys.argv[1]), order(sys.argv[2])
    kind = sys.argv[3] if len(sys.argv) > 3 else "transpose"
    if not rows:
        print("ncu_table: no rows in %s" % sys.argv[1])
        return 1
    if len(rows) != len(names):
        print("ncu_table: %d profiled kernels, %d PROFILE lines: matched in order, the rest unnamed" % (len(rows), len(names)))
    g = lambda d, k: d.get(k)
    if kind == "sgemm":
        print("%-3s %-16s %-5s %9s %7s %6s %6s %6s %6s %6s %6s %5s" % (
            "i", "shape", "name", "time_us", "MHz", "bar", "lsb", "ssb", "mio", "nsel", "fma%", "regs"))
        for i, d in enumerate(rows):
            _, shape, name = names[i] if i < len(names) else (i, "?", "?")
            t = g(d, "gpu__time_duration.sum")
            clk = g(d, "sm__cycles_elapsed.avg.per_second")
            st = lambda s: g(d, "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s)
            print("%-3d %-16s %-5s %9s %7s %6s %6s %6s %6s %6s %6s %5s" % (
                i, shape, name, fmt(t and t / 1e3), fmt(clk and clk / 1e6, "%.0f"), fmt(st("barrier")),
                fmt(st("long_scoreboard")), fmt(st("short_scoreboard")), fmt(st("mio_throttle")), fmt(st("not_selected")),
                fmt(g(d, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"), "%.1f"),
                fmt(g(d, "launch__registers_per_thread"), "%.0f")))
        return 0
    print("%-3s %-12s %-8s %9s %7s %7s %7s %7s %6s %6s %6s" % (
        "i", "shape", "name", "time_us", "dramR", "dramW", "L2secR", "L2secW", "st/req", "L2hit", "dram%"))
    print("    (dramR/W: DRAM bytes over the ideal R*C*4; L2secR/W: L2 sectors from the SMs over R*C*4/32)")
    for i, d in enumerate(rows):
        _, shape, name = names[i] if i < len(names) else (i, "?", "?")
        m = re.match(r"(\d+)x(\d+)", shape)
        ideal = float(m.group(1)) * float(m.group(2)) * 4 if m else None
        ratio = lambda k, per=1: (g(d, k) * per / ideal) if g(d, k) is not None and ideal else None
        t = g(d, "gpu__time_duration.sum")
        sreq = g(d, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        ssec = g(d, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        print("%-3d %-12s %-8s %9s %7s %7s %7s %7s %6s %6s %6s" % (
            i, shape, name, fmt(t and t / 1e3), fmt(ratio("dram__bytes_read.sum"), "%.3f"),
            fmt(ratio("dram__bytes_write.sum"), "%.3f"), fmt(ratio("lts__t_sectors_srcunit_tex_op_read.sum", 32), "%.3f"),
            fmt(ratio("lts__t_sectors_srcunit_tex_op_write.sum", 32), "%.3f"),
            fmt(ssec / sreq if sreq and ssec is not None else None), fmt(g(d, "lts__t_sector_hit_rate.pct"), "%.1f"),
            fmt(g(d, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), "%.1f")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
