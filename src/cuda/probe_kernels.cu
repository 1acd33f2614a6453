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

#include "cuda/kernel_work.cuh"
#include "cuda/probe_kernels.h"

static char last_error[256];

const char *vl_cuda_error(void)
{
    return last_error;
}

static bool failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return false;
    snprintf(last_error, sizeof last_error, "%s: %s", what, cudaGetErrorString(e));
    return true;
}

// n elements of T on the device, freed when it goes out of scope.
template <typename T> struct dev {
    T *p = nullptr;
    dev() = default;
    dev(const dev &) = delete;
    ~dev()
    {
        if (p)
            cudaFree(p);
    }
    bool alloc(size_t n)
    {
        return !failed(cudaMalloc((void **)&p, (n ? n : 1) * sizeof(T)), "cudaMalloc");
    }
    bool upload(const T *h, size_t n)
    {
        return alloc(n) &&
               !failed(cudaMemcpy(p, h, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    bool download(T *h, size_t n) const
    {
        return !failed(cudaMemcpy(h, p, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
};

static bool launched(const char *kernel)
{
    return !failed(cudaGetLastError(), kernel);
}

static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return b < 1 ? 1 : b > 4096 ? 4096 : (unsigned)b;
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
        int b = vl_log2_bin(bits_of(y));
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

// One thread, as PyTorch's update kernel: the scale lives on the GPU.
__global__ static void scaler_kernel(vl_scaler_params p, const float *grad_max, size_t steps,
                                     float *scale, uint8_t *found_inf, vl_scaler_state *final)
{
    scaler_run(&p, grad_max, steps, scale, found_inf, final);
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

__global__ static void accumulate_kernel(const float *a, const float *c, size_t n, vl_accum *out)
{
    accumulate_run(a, c, n, out);
}

__global__ static void noop_kernel(void) {}

// ---- the launchers -----------------------------------------------------------------------

int vl_cuda_open(char *device, size_t device_len, char *why, size_t why_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorInsufficientDriver) {
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        snprintf(why, why_len, "%s: cudaGetDeviceCount: %s",
                 driver ? "CUDA driver too old" : "CUDA driver not found", cudaGetErrorString(e));
        if (driver)
            dlclose(driver);
        return -1;
    }
    if (e != cudaSuccess || n == 0) {
        snprintf(why, why_len, "cudaGetDeviceCount: %s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return -1;
    }
    cudaDeviceProp prop;
    if (failed(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) {
        snprintf(why, why_len, "%s", last_error);
        return -1;
    }
    noop_kernel<<<1, 1>>>();
    if (!launched("a test kernel") || failed(cudaDeviceSynchronize(), "a test kernel")) {
        snprintf(why, why_len, "%s cannot run vramlab's kernels (%s)", prop.name, last_error);
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

int vl_cuda_underflow(const float *x, size_t n, float scale, bool saturate, unsigned formats,
                      vl_cast_counts *out)
{
    dev<float> dx;
    dev<vl_cast_counts> dcounts;
    if (!dx.upload(x, n) || !dcounts.alloc(1) ||
        failed(cudaMemset(dcounts.p, 0, sizeof *out), "cudaMemset"))
        return -1;
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long), "64-bit counts");
    char *base = (char *)dcounts.p;
    underflow_kernel<<<blocks_for(n), 256>>>(
        dx.p, n, scale, saturate, formats,
        (unsigned long long *)(base + offsetof(vl_cast_counts, cls)),
        (unsigned long long *)(base + offsetof(vl_cast_counts, hist)));
    return launched("underflow") && dcounts.download(out, 1) ? 0 : -1;
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
    scaler_kernel<<<1, 1>>>(*p, dg.p, steps, dscale.p, dfound.p, dfinal.p);
    return launched("scaler") && dscale.download(scale, steps) &&
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
    accumulate_kernel<<<1, 1>>>(da.p, dc.p, n, dout.p);
    return launched("accumulate") && dout.download(out, 1) ? 0 : -1;
}
