// Fixture for tests/cli_fake_gen.sh (see fake_gen_seq.lua): a reduction's two passes (the kernels
// of ../realk/fake_cxx.cu) behind a line a generator makes, its {{ PASS }} replaced by p's value.
#define CUTUNE_GEN_PASS {{ PASS }}
static_assert(CUTUNE_GEN_PASS == 1 || CUTUNE_GEN_PASS == 2, "the pass is 1 or 2");
#include "../realk/fake_cxx.cu"
