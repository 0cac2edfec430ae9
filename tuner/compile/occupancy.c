/* occupancy: theoretical occupancy from a kernel's resources, without a GPU.
 *
 * Follows the rules of the CUDA occupancy calculator (the toolkit's cuda_occupancy.h):
 *  - warps:     blocks ≤ max warps per SM / warps per block
 *  - blocks:    blocks ≤ the architecture's resident-block limit
 *  - registers: a warp's registers are rounded up to the 256-register allocation unit;
 *               registers are split across 4 SM sub-partitions, so blocks ≤
 *               (4 · ⌊(regs per SM / 4) / regs per warp⌋) / warps per block; a block whose
 *               warps, rounded up to a multiple of 4, would need more than 64K registers
 *               does not launch at all
 *  - shared:    (static + dynamic + the 1 KB the driver reserves per block on sm_80+),
 *               rounded up to the allocation granularity, against the largest shared
 *               memory carve-out the SM can be configured with (the driver picks a
 *               carve-out that fits; we assume the one that allows the most blocks).
 * blocks per SM = the smallest of these; the limiter is the one that sets it. */
#include <string.h>

#include "compile.h"

typedef struct arch_limits {
  const char *name;
  int max_warps;        /* resident warps per SM */
  int max_blocks;       /* resident blocks per SM */
  int smem_per_sm;      /* largest configurable carve-out, bytes */
  int smem_per_block;   /* largest (opt-in) shared memory per block, bytes */
  int smem_reserved;    /* per block, reserved by the driver */
  int smem_granularity; /* allocation unit, bytes */
} arch_limits;

#define KB 1024
static const arch_limits ARCHS[] = {
    {"sm_70", 64, 32, 96 * KB, 96 * KB, 0, 256},    {"sm_75", 32, 16, 64 * KB, 64 * KB, 0, 256},
    {"sm_80", 64, 32, 164 * KB, 163 * KB, KB, 128}, {"sm_86", 48, 16, 100 * KB, 99 * KB, KB, 128},
    {"sm_87", 48, 16, 164 * KB, 163 * KB, KB, 128}, {"sm_89", 48, 24, 100 * KB, 99 * KB, KB, 128},
    {"sm_90", 64, 32, 228 * KB, 227 * KB, KB, 128}, {"sm_100", 64, 32, 228 * KB, 227 * KB, KB, 128},
    {"sm_120", 48, 24, 100 * KB, 99 * KB, KB, 128},
};
#define NARCHS (sizeof ARCHS / sizeof ARCHS[0])

enum {
  WARP = 32,
  REGS_PER_SM = 65536,
  REGS_PER_BLOCK = 65536,
  REG_UNIT = 256,
  SUBPARTITIONS = 4,
  MAX_REGS_PER_THREAD = 255,
  MAX_THREADS_PER_BLOCK = 1024
};

static int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

static const arch_limits *find_arch(const char *arch) {
  if (!arch) return NULL;
  /* sm_90a / sm_100f run on the same SM as sm_90 / sm_100 */
  size_t n = strlen(arch);
  if (n > 3 && (arch[n - 1] == 'a' || arch[n - 1] == 'f')) n--;
  for (size_t i = 0; i < NARCHS; i++)
    if (strlen(ARCHS[i].name) == n && !strncmp(ARCHS[i].name, arch, n)) return &ARCHS[i];
  return NULL;
}

int occupancy_theoretical(const char *arch, int threads_per_block, int regs_per_thread, int smem_per_block,
                          occupancy_info *out, cterr *err) {
  const arch_limits *a = find_arch(arch);
  if (!a) {
    char known[256] = "";
    for (size_t i = 0; i < NARCHS; i++) {
      strcat(known, i ? " " : "");
      strcat(known, ARCHS[i].name);
    }
    return cterr_set(err, "occupancy: unknown architecture '%s' (known: %s)", arch ? arch : "(null)", known);
  }
  if (threads_per_block <= 0)
    return cterr_set(err, "occupancy: %d threads per block; expected at least 1", threads_per_block);
  if (regs_per_thread > MAX_REGS_PER_THREAD)
    return cterr_set(err, "occupancy: %d registers per thread; %s allows at most %d", regs_per_thread, a->name,
                     MAX_REGS_PER_THREAD);
  /* Unknown resources (-1) count as none: the figure is then an upper bound. */
  if (regs_per_thread < 0) regs_per_thread = 0;
  if (smem_per_block < 0) smem_per_block = 0;

  int warps = (threads_per_block + WARP - 1) / WARP;

  /* warps per SM, and the per-block thread limit (a launch over it never runs) */
  int by_threads = threads_per_block > MAX_THREADS_PER_BLOCK ? 0 : a->max_warps / warps;
  int by_blocks = a->max_blocks;

  int by_regs = 1 << 30;
  if (regs_per_thread > 0) {
    int per_warp = round_up(regs_per_thread * WARP, REG_UNIT);
    if (per_warp * round_up(warps, SUBPARTITIONS) > REGS_PER_BLOCK || per_warp * warps > REGS_PER_BLOCK) by_regs = 0;
    else by_regs = SUBPARTITIONS * ((REGS_PER_SM / SUBPARTITIONS) / per_warp) / warps;
  }

  int by_smem = 1 << 30;
  int smem = round_up(smem_per_block + a->smem_reserved, a->smem_granularity);
  if (smem_per_block > a->smem_per_block) by_smem = 0;
  else if (smem > 0) by_smem = a->smem_per_sm / smem;

  /* The first limiter in this order wins a tie. When the block size caps blocks as tightly
   * as a resource does, saving registers or shared memory alone would gain nothing, so
   * the block-size limits are named first. */
  struct {
    int blocks;
    const char *name;
  } lim[] = {{by_threads, "threads"}, {by_blocks, "blocks"}, {by_regs, "registers"}, {by_smem, "shared_memory"}};
  int best = 0;
  for (int i = 1; i < 4; i++)
    if (lim[i].blocks < lim[best].blocks) best = i;
  out->blocks_per_sm = lim[best].blocks;
  out->occupancy = (double)(out->blocks_per_sm * warps) / a->max_warps;
  if (out->occupancy > 1) out->occupancy = 1;
  out->limiter = out->blocks_per_sm * warps >= a->max_warps ? "none" : lim[best].name;
  return 0;
}
