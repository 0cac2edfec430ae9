// The tensor-map fixture's template (tests/spaces/fake_tmap.lua): a copy that reads its input
// through a CUtensorMap (Hopper's TMA on a real GPU), emulated by name by tests/fake/fake_libcuda.c.
// The map is a 64-byte aligned 128-byte parameter (cuda.h's CUtensorMap, which NVRTC lacks).
// Compiled by NVRTC like any template; on a real GPU it copies with plain loads.
struct __align__(64) tmap_t { unsigned long long v[16]; };
extern "C" __global__ void tmap_copy(float *out, const float *in, const __grid_constant__ tmap_t map, int M, int N, int box) {
  (void)map, (void)box;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += gridDim.x * blockDim.x) out[i] = in[i];
}
extern "C" __global__ void tmap_ref(float *out, const float *in, const __grid_constant__ tmap_t map, int M, int N, int box) {
  (void)map, (void)box;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += gridDim.x * blockDim.x) out[i] = in[i];
}
