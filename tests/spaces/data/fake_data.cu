// Fixture for tests/cli_fake_data.sh: kernels whose inputs must have structure, which the fake
// libcuda.so.1 (tests/fake) emulates by name. csr_spmv is y = A x for a CSR matrix: its row
// offsets must be sorted, from 0 to nnz (the fake faults otherwise); accumulate adds its input to
// an inout buffer, so a buffer not restored before each run fails the check.
__global__ void csr_spmv(float *y, const int *rows, const int *cols, const float *vals, const float *x, int nrows,
                         int ncols, int nnz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nrows) {
    float acc = 0;
    for (int j = rows[i]; j < rows[i + 1]; j++) acc += vals[j] * x[cols[j]];
    y[i] = acc;
  }
}
extern "C" __global__ void csr_spmv_ref(float *y, const int *rows, const int *cols, const float *vals, const float *x,
                                        int nrows, int ncols, int nnz) {
  csr_spmv(y, rows, cols, vals, x, nrows, ncols, nnz);
}

// accumulate: out[i] += in[i] on an inout buffer (the fake emulates it by name)
extern "C" __global__ void accumulate(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += in[i];
}
