#!/usr/bin/env python
"""Fixture for tests/cli_fake_pystring.sh: kernels as Python strings, the way Kernel Tuner's
scripts give them (an indented string inside a function, a %s placeholder, a Jinja-like
expression), read by a space's template_var. copy_ok is a name the fake driver emulates."""

def plain():
    kernel_string = """
    extern "C" __global__ void copy_ok(float *out, const float *in, int n) {
        int i = blockIdx.x * BLOCK + threadIdx.x;
        if (i < n) out[i] = in[i];
    }
    """
    return kernel_string

def generated(params):
    kernel_format = """
    extern "C" __global__ void copy_ok(float *out, const float *in, int n) {
        int i = blockIdx.x * %s + threadIdx.x;
        if (i < n) out[i] = in[i];
    }
    """ % params["BLOCK"]
    return kernel_format

def jinja():
    kernel_jinja = """
    extern "C" __global__ void copy_ok({{ real_type }} *out, const {{ real_type }} *in, int n) {
        int i = blockIdx.x * {{ BLOCK }} + threadIdx.x;
        if (i < n) out[i] = in[i];
    }
    """
    return kernel_jinja

def wrapped():
    from jinja2 import Template
    kernel_wrapped = Template("""
    extern "C" __global__ void copy_ok(float *out, const float *in, int n) {
        int i = blockIdx.x * {{BLOCK}} + threadIdx.x;
        if (i < n) out[i] = in[i];
    }
    """)
    return kernel_wrapped.render

def broken():
    # a compile error (BLOCK=256 only: the reference, BLOCK=32, compiles) on a known line of this
    # file: NVRTC's message must name kernels.py and the undefined name's line here, not its
    # line within the string
    kernel_broken = """
    extern "C" __global__ void copy_ok(float *out, const float *in, int n) {
        // a line the drop edit removes
        int i = blockIdx.x * BLOCK + threadIdx.x;
    #if BLOCK == 256
        if (i < n) out[i] = in[i] + undefined_value;
    #else
        if (i < n) out[i] = in[i];
    #endif
    }
    """
    return kernel_broken
