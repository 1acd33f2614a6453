// probe_kernels.cu: the probe's micro-kernels on the GPU (probe_kernels.h).
//
// What each thread computes is in kernel_work.cuh, shared with a host-side test; here are
// the kernels around it and their launchers.  Built with --fmad=false and without fast
// math, so every float operation is one IEEE operation with subnormals, as on the CPU.
// Casts use CUDA's own conversions, which is the point: `vramlab probe selftest` compares
// them with the software codecs.  Counts use integer atomics, so they do not depend on the
// order the threads run in.  No tensor cores.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "cuda/kernel_work.cuh"
#include "cuda/probe_kernels.h"

char vl_cuda_last_error[256];

const char *vl_cuda_error(void)
{
    return vl_cuda_last_error;
}

// ---- the kernels ---------------------------------------------------------------------------

__global__ static void encode_kernel(int f, bool saturate, const float *x, size_t n,
                                     uint32_t *codes)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        codes[i] = cast_code(f, x[i], saturate);
}

// Counts in shared memory per block, added to the global ones at the end.
__global__ static void underflow_kernel(const float *x, size_t n, float scale, bool saturate,
                                        unsigned formats, unsigned long long *cls,
                                        unsigned long long *hist)
{
    __shared__ unsigned int s_cls[VL_N_FORMATS * VL_N_CLASSES], s_hist[VL_HIST_BINS];
    for (int j = threadIdx.x; j < VL_N_FORMATS * VL_N_CLASSES; j += blockDim.x)
        s_cls[j] = 0;
    for (int j = threadIdx.x; j < VL_HIST_BINS; j += blockDim.x)
        s_hist[j] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float y = mul_rn(x[i], scale);
        int b = vl_log2_bin(vl_f32_bits(y));
        if (b >= 0)
            atomicAdd(&s_hist[b], 1u);
        for (int f = 0; f < VL_N_FORMATS; f++)
            if (formats >> f & 1)
                atomicAdd(&s_cls[f * VL_N_CLASSES + underflow_class(f, x[i], y, saturate)], 1u);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < VL_N_FORMATS * VL_N_CLASSES; j += blockDim.x)
        if (s_cls[j])
            atomicAdd(&cls[j], (unsigned long long)s_cls[j]);
    for (int j = threadIdx.x; j < VL_HIST_BINS; j += blockDim.x)
        if (s_hist[j])
            atomicAdd(&hist[j], (unsigned long long)s_hist[j]);
}

// One thread, as PyTorch's update kernel: the scale lives on the GPU.  Steps [from, to),
// the state in *state.
__global__ static void scaler_kernel(vl_scaler_params p, const float *grad_max, size_t from,
                                     size_t to, float *scale, uint8_t *found_inf,
                                     vl_scaler_state *state)
{
    scaler_part(&p, grad_max, from, to, scale, found_inf, state);
}

__global__ static void sub_kernel(int f, const float *w, const float *u, size_t n, float *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = sub_one(f, w[i], u[i]);
}

// One thread per format.
__global__ static void repeat_kernel(float w, float u, uint32_t steps, vl_repeat *out)
{
    if (threadIdx.x < VL_N_FORMATS)
        repeat_one(threadIdx.x, w, u, steps, out);
}

__global__ static void accumulate_kernel(const float *a, const float *c, size_t from, size_t to,
                                         vl_accum *r)
{
    accumulate_part(a, c, from, to, r);
}

// The one-thread kernels run in launches of this many steps: well under a millisecond
// each, where a display GPU's watchdog allows about two seconds (Windows TDR's default,
// and X's on Linux).
#define PART (1u << 14)

__global__ static void noop_kernel(void) {}

// ---- the launchers -----------------------------------------------------------------------

// The architectures the build has code for (Makefile.am passes them), for the reasons.
#ifndef VL_CUDA_ARCHS
#define VL_CUDA_ARCHS "?"
#endif

int vl_cuda_open(char *device, size_t device_len, char *why, size_t why_len)
{
    int n = 0, driver = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDriverGetVersion(&driver);
    if (e == cudaErrorInsufficientDriver && driver > 0) {
        snprintf(why, why_len,
                 "CUDA driver too old: it runs CUDA %d.%d, vramlab was built with CUDA %d.%d",
                 driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        return -1;
    }
    if (e == cudaErrorInsufficientDriver) {
        void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        snprintf(why, why_len, "%s: cudaGetDeviceCount: %s",
                 lib ? "CUDA driver too old" : "no CUDA driver", cudaGetErrorString(e));
        if (lib)
            dlclose(lib);
        return -1;
    }
    if (e != cudaSuccess || n == 0) {
        snprintf(why, why_len, "no CUDA device (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return -1;
    }
    cudaDeviceProp prop;
    if (failed(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) {
        snprintf(why, why_len, "%s", vl_cuda_last_error);
        return -1;
    }
    noop_kernel<<<1, 1>>>();
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        snprintf(why, why_len, "%s: no kernel image for sm_%d%d (built for %s)", prop.name,
                 prop.major, prop.minor, VL_CUDA_ARCHS);
        return -1;
    }
    if (e == cudaErrorUnsupportedPtxVersion || e == cudaErrorJitCompilerNotFound) {
        snprintf(why, why_len, "%s: CUDA driver too old to compile the kernels' PTX (%s)",
                 prop.name, cudaGetErrorString(e));
        return -1;
    }
    if (e != cudaSuccess) {
        snprintf(why, why_len, "%s cannot run vramlab's kernels (a test kernel: %s)", prop.name,
                 cudaGetErrorString(e));
        return -1;
    }
    snprintf(device, device_len, "%s, compute capability %d.%d", prop.name, prop.major,
             prop.minor);
    return 0;
}

int vl_cuda_encode(vl_format f, bool saturate, const float *x, size_t n, uint32_t *codes)
{
    dev<float> dx;
    dev<uint32_t> dc;
    if (!dx.upload(x, n) || !dc.alloc(n))
        return -1;
    encode_kernel<<<blocks_for(n), 256>>>(f, saturate, dx.p, n, dc.p);
    return launched("encode") && dc.download(codes, n) ? 0 : -1;
}

int vl_cuda_underflow(const float *x, size_t n, const float *scales, int n_scales, bool saturate,
                      unsigned formats, vl_cast_counts *const *out)
{
    dev<float> dx;
    dev<vl_cast_counts> dcounts;
    if (!dx.upload(x, n) || !dcounts.alloc(1))
        return -1;
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long), "64-bit counts");
    char *base = (char *)dcounts.p;
    for (int s = 0; s < n_scales; s++) {
        if (failed(cudaMemset(dcounts.p, 0, sizeof(vl_cast_counts)), "cudaMemset"))
            return -1;
        underflow_kernel<<<blocks_for(n), 256>>>(
            dx.p, n, scales[s], saturate, formats,
            (unsigned long long *)(base + offsetof(vl_cast_counts, cls)),
            (unsigned long long *)(base + offsetof(vl_cast_counts, hist)));
        if (!launched("underflow") || !dcounts.download(out[s], 1))
            return -1;
    }
    return 0;
}

int vl_cuda_scaler(const vl_scaler_params *p, const float *grad_max, size_t steps, float *scale,
                   uint8_t *found_inf, vl_scaler_state *final)
{
    dev<float> dg, dscale;
    dev<uint8_t> dfound;
    dev<vl_scaler_state> dfinal;
    if (!dg.upload(grad_max, steps) || !dscale.alloc(steps) || !dfound.alloc(steps) ||
        !dfinal.alloc(1))
        return -1;
    vl_scaler_state s0 = {p->init_scale, 0};
    if (failed(cudaMemcpy(dfinal.p, &s0, sizeof s0, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return -1;
    for (size_t from = 0; from < steps; from += PART) {
        size_t to = steps - from < PART ? steps : from + PART;
        scaler_kernel<<<1, 1>>>(*p, dg.p, from, to, dscale.p, dfound.p, dfinal.p);
        if (!launched("scaler"))
            return -1;
    }
    return dscale.download(scale, steps) &&
                   dfound.download(found_inf, steps) && dfinal.download(final, 1)
               ? 0
               : -1;
}

int vl_cuda_sub(vl_format f, const float *w, const float *u, size_t n, float *out)
{
    dev<float> dw, du, dout;
    if (!dw.upload(w, n) || !du.upload(u, n) || !dout.alloc(n))
        return -1;
    sub_kernel<<<blocks_for(n), 256>>>(f, dw.p, du.p, n, dout.p);
    return launched("update") && dout.download(out, n) ? 0 : -1;
}

int vl_cuda_repeat(float w, float u, uint32_t steps, vl_repeat *out)
{
    dev<vl_repeat> dout;
    if (!dout.alloc(1))
        return -1;
    repeat_kernel<<<1, 32>>>(w, u, steps, dout.p);
    return launched("repeat") && dout.download(out, 1) ? 0 : -1;
}

int vl_cuda_accumulate(const float *a, const float *c, size_t n, vl_accum *out)
{
    dev<float> da, dc;
    dev<vl_accum> dout;
    if (!da.upload(a, n) || !dc.upload(c, n) || !dout.alloc(1))
        return -1;
    if (failed(cudaMemset(dout.p, 0, sizeof *out), "cudaMemset"))
        return -1;
    for (size_t from = 0; from < n; from += PART) {
        size_t to = n - from < PART ? n : from + PART;
        accumulate_kernel<<<1, 1>>>(da.p, dc.p, from, to, dout.p);
        if (!launched("accumulate"))
            return -1;
    }
    return dout.download(out, 1) ? 0 : -1;
}
