// matmul_grid.cuh: how the bench harnesses that build one configuration of templates/matmul.cu
// with -D (bench/matmul_bench.cu, bench/matmul_recheck.cu) launch it: the grid as
// lua/matmul_space.lua and kernels/matmul_launch.cu compute it (one tile per cluster, or with
// STREAMK a persistent grid of STREAMK blocks per multiprocessor), the dynamic shared memory,
// and the stream-K workspace (templates/matmul.cu's MM_WS_FLOATS, its counters zeroed once: every
// launch leaves them at zero). Include it after templates/matmul.cu and bench_common.cuh.
#ifndef CUTUNE_BENCH_MATMUL_GRID_CUH
#define CUTUNE_BENCH_MATMUL_GRID_CUH

struct mm_plan {
  unsigned grid;
  size_t smem;
  float *ws;      // NULL without STREAMK
  int ws_floats;
};

// dynamic shared memory: the pipeline's buffers, or the partial tile where split-K or stream-K
// stage it there
static size_t mm_smem_bytes(void) {
  size_t smem = (size_t)MM_NBUF * BK * (BM + PAD + BN) * sizeof(float);
  if ((SPLITK > 1 || STREAMK > 0) && (size_t)BM * BN * sizeof(float) > smem) smem = (size_t)BM * BN * sizeof(float);
  return smem;
}

static mm_plan mm_plan_for(int M, int N, int K) {
  mm_plan p{};
  const long long tiles = (long long)((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  long long blocks = tiles * SPLITK;
  if (STREAMK > 0) {
    int dev, sms;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const long long ktiles = K > BK ? (K + BK - 1) / BK : 1, per = (long long)STREAMK * sms / SPLITK;
    blocks = SPLITK * (per < tiles * ktiles ? per : tiles * ktiles);
  }
  p.grid = (unsigned)blocks;
  p.smem = mm_smem_bytes();
  if (STREAMK > 0) {
    p.ws_floats = (int)MM_WS_FLOATS(p.grid);
    CK(cudaMalloc(&p.ws, (size_t)p.ws_floats * sizeof(float)));
    CK(cudaMemset(p.ws, 0, (size_t)p.ws_floats * sizeof(float)));
  }
  return p;
}

static void mm_plan_free(mm_plan &p) {
  if (p.ws) CK(cudaFree(p.ws));
  p.ws = nullptr;
}

#endif
