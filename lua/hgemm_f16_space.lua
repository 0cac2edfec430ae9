-- The FP16 tensor-core GEMM space: lua/hgemm_space.lua's, with A and B in half (templates/hgemm.cu
-- built with -DHG_F16=1, the cuBLAS baseline cublasGemmEx with CUDA_R_16F inputs).
return require("hgemm").space("f16")
