#!/usr/bin/env python3
"""sass_lds_bar: the barriers of a cubin at which shared-memory loads are still in flight.

    nvdisasm -c -hex kernel.cubin > kernel.sass && bench/sass_lds_bar.py kernel.sass

Walks the instructions in address order (branches ignored: enough for an unrolled main loop),
decoding each one's control bits (sm_70+: write scoreboard bits 110-112, wait mask 116-121 of the
128-bit word); an LDS whose write scoreboard has not been waited on when a BAR.SYNC or BAR.RED
issues has its result consumed after the barrier. With REGDB=2 (templates/matmul.cu) every
cp.async configuration has one: the last k step's fragments, read before the tile's barrier and
used after it, while other warps past the barrier overwrite that stage with cp.async (the PTX
memory model orders it; docs/MATMUL.md, "The one wrong_result of 2026-12-01"). LDS complete in
order, so an LDS listed may be covered by a later one that is waited on: a list, not a proof.
Prints one line per such barrier and a count."""
import re
import sys


def main(path):
    ins = []
    for line in open(path):
        m = re.search(r'/\*([0-9a-f]{4,6})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/', line)
        if m:
            ins.append([m.group(1), m.group(2).strip(), None])
            continue
        m = re.search(r'^\s*/\* (0x[0-9a-f]+) \*/', line)
        if m and ins and ins[-1][2] is None:
            ins[-1][2] = int(m.group(1), 16)
    pending = {}  # scoreboard -> (address, instruction) that set it
    hits = 0
    for addr, text, hi in ins:
        if hi is None:
            continue
        wb, wait = (hi >> 46) & 7, (hi >> 52) & 0x3f
        for sb in range(6):
            if wait >> sb & 1:
                pending.pop(sb, None)
        if 'BAR.SYNC' in text or 'BAR.RED' in text:
            lds = [v for v in pending.values() if v[1].startswith('LDS')]
            if lds:
                hits += 1
                print(f"{addr} {text}: LDS in flight: " + "; ".join(f"{a} {t}" for a, t in lds))
        if wb != 7:
            pending[wb] = (addr, text)
    print(f"{hits} barrier(s) with LDS results pending")


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
