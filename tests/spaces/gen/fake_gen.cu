// Fixture for tests/cli_fake_gen.sh (see fake_gen.lua): a kernel written for a code generator, as
// a Jinja template is. Not CUDA until the space's template_edit renders it per configuration: the
// for tag repeats its statement U times, the if tag keeps its statement where G is 1. C++ kernels
// (not extern "C"): the reference beside the kernel in every program (reference.params needs it
// there) leaves the configurations batchable, each member's in a namespace of its own.
__global__ void copy_ok(float *out, const float *in, int n, int s, int g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  {% for k in range(U) %}
  v = v + 0.0f * {{ k }};
  {% endfor %}
  {% if G %}
  v = v * 1.0f;
  {% endif %}
  out[i] = v + 0.0f * (s + g);
}

__global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
