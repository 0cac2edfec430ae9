-- The BF16 tensor-core GEMM space (the judged one): C = alpha*A*B + beta*C, A and B bfloat16, C and
-- the accumulation float32, row-major (B is K x N); the mma.sync path for sm_80 and later, the
-- wgmma path for sm_90a. The space itself (parameters, constraints, the tolerance and why) is
-- lua/hgemm.lua, shared with the FP16 space lua/hgemm_f16_space.lua; see docs/HGEMM.md.
-- Too large to measure whole: `cutune run` gives it a budgeted search (`cutune run --help`).
return require("hgemm").space("bf16")
