/* test_occupancy: theoretical occupancy against cases worked out by hand with the CUDA
 * occupancy calculator's rules (see tuner/compile/occupancy.c). Notation: W = warps per block;
 * a warp's registers are regs*32 rounded up to 256; per SM sub-partition (4 of them)
 * 16384 registers; shared memory per block = smem + 1 KB reserved (sm_80+), rounded up
 * to 128 bytes (256 on sm_7x). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "compile/compile.h"

static void expect(const char *arch, int threads, int regs, int smem, int blocks, double occ, const char *limiter) {
  occupancy_info o;
  cterr err;
  err.msg[0] = 0;
  int rc = occupancy_theoretical(arch, threads, regs, smem, &o, &err);
  CHECK_MSG(rc == 0, "%s: %s", arch, err.msg);
  if (rc != 0) return;
  CHECK_MSG(o.blocks_per_sm == blocks && fabs(o.occupancy - occ) < 1e-9 && !strcmp(o.limiter, limiter),
            "%s threads=%d regs=%d smem=%d: got %d blocks, %.4f, %s; expected %d, %.4f, %s", arch, threads, regs, smem,
            o.blocks_per_sm, o.occupancy, o.limiter, blocks, occ, limiter);
}

int main(void) {
  /* sm_90, 256 threads, 32 regs, no smem. W = 8. threads: 64/8 = 8 blocks; block cap 32;
   * regs: 32*32 = 1024 per warp, 16384/1024 = 16 warps per sub-partition, 64 per SM,
   * 64/8 = 8 blocks; smem: 1 KB reserved → 228 blocks. 8 blocks = 64 warps = 100%. */
  expect("sm_90", 256, 32, 0, 8, 1.0, "none");
  /* same on sm_90a (same SM) */
  expect("sm_90a", 256, 32, 0, 8, 1.0, "none");

  /* sm_90, 256 threads, 255 regs: 255*32 = 8160 → 8192 per warp; 16384/8192 = 2 warps
   * per sub-partition, 8 per SM → 1 block of 8 warps = 8/64 = 12.5%. */
  expect("sm_90", 256, 255, 0, 1, 8.0 / 64, "registers");

  /* sm_90, 256 threads, 32 regs, 48 KB static smem: 49152 + 1024 = 50176 (a multiple
   * of 128); 233472 / 50176 = 4.65 → 4 blocks (threads and regs allow 8) → 32 warps = 50%. */
  expect("sm_90", 256, 32, 48 * 1024, 4, 0.5, "shared_memory");

  /* sm_90, 32 threads, 16 regs: W = 1. threads 64 blocks, regs 16*32 = 512 per warp →
   * 32 warps per sub-partition → 128 blocks; the 32-block cap binds: 32 warps = 50%. */
  expect("sm_90", 32, 16, 0, 32, 0.5, "blocks");

  /* sm_90, 768 threads (W = 24), 32 regs: 64/24 = 2 blocks by warps, 64/24 = 2 by
   * registers: a tie, named "threads" (the block size is what has to change). 48/64. */
  expect("sm_90", 768, 32, 0, 2, 0.75, "threads");

  /* sm_86 has 48 warps per SM: 768 threads = 24 warps → 2 blocks fill it: 100%. */
  expect("sm_86", 768, 32, 0, 2, 1.0, "none");

  /* sm_80, 1024 threads (W = 32), 64 regs: 2048 per warp, 16384/2048 = 8 per
   * sub-partition → 32 warps per SM → 1 block (warps would allow 2): 32/64 = 50%. */
  expect("sm_80", 1024, 64, 0, 1, 0.5, "registers");
  /* 65 regs: 2080 → 2304 per warp, × 32 warps = 73728 > 65536 per block: cannot launch. */
  expect("sm_80", 1024, 65, 0, 0, 0.0, "registers");

  /* sm_89: 100 KB per SM, 99 KB per block. 50 KB: 51200 + 1024 = 52224; 102400 / 52224
   * = 1.96 → 1 block of 4 warps (128 threads, 32 regs) = 4/48. */
  expect("sm_89", 128, 32, 50 * 1024, 1, 4.0 / 48, "shared_memory");
  /* over the per-block maximum (99 KB): no block fits */
  expect("sm_89", 128, 32, 99 * 1024 + 1, 0, 0.0, "shared_memory");
  /* sm_89 block cap is 24: 64 threads (W = 2), few regs: warps allow 24, cap 24: tie →
   * "threads"... and 24 × 2 = 48 warps = 100%, so "none". */
  expect("sm_89", 64, 16, 0, 24, 1.0, "none");
  /* sm_89, 32 threads: cap 24 blocks of 1 warp = 24/48 = 50%. */
  expect("sm_89", 32, 16, 0, 24, 0.5, "blocks");

  /* sm_80, 100 threads → W = 4 (partial warp counts whole); 32 regs: warps 64/4 = 16,
   * regs 64/4 = 16; 16 × 4 = 64 warps = 100%. */
  expect("sm_80", 100, 32, 0, 16, 1.0, "none");

  /* sm_75: 32 warps, 16 blocks, 64 KB, no reserve, 256-byte granularity.
   * 128 threads, 32 regs, 20000 B smem → 20224 B; 65536 / 20224 = 3.24 → 3 blocks
   * × 4 warps = 12/32. */
  expect("sm_75", 128, 32, 20000, 3, 12.0 / 32, "shared_memory");
  /* sm_70: 96 KB; 20000 → 20224; 98304 / 20224 = 4.86 → 4 × 4 warps = 16/64. */
  expect("sm_70", 128, 32, 20000, 4, 16.0 / 64, "shared_memory");
  /* sm_87: 48 warps, 16 blocks, 164 KB: 32 threads → cap 16 blocks = 16/48. */
  expect("sm_87", 32, 32, 0, 16, 16.0 / 48, "blocks");

  /* unknown resources (-1) count as none */
  expect("sm_90", 256, -1, -1, 8, 1.0, "none");
  /* more than 1024 threads never launches */
  expect("sm_90", 2048, 16, 0, 0, 0.0, "threads");

  occupancy_info o;
  cterr err;
  CHECK(occupancy_theoretical("sm_61", 256, 32, 0, &o, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "sm_61");
  CHECK_STR_CONTAINS(err.msg, "sm_90"); /* lists the known ones */
  CHECK(occupancy_theoretical("sm_90", 0, 32, 0, &o, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "0 threads");
  CHECK(occupancy_theoretical("sm_90", 128, 256, 0, &o, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "256 registers");
  return check_report();
}
