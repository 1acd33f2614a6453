// cuda_common.cuh: what the CUDA launchers share (probe_kernels.cu, train_kernels.cu):
// errors into vl_cuda_error(), device arrays freed with their scope, launch checks.
#ifndef VL_CUDA_COMMON_CUH
#define VL_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdio.h>

// The last error, for vl_cuda_error() (probe_kernels.h).
extern char vl_cuda_last_error[256];

static inline bool failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return false;
    snprintf(vl_cuda_last_error, sizeof vl_cuda_last_error, "%s: %s", what,
             cudaGetErrorString(e));
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

// The launch just made was accepted and the kernel ran to the end: waiting for it here
// makes a fault inside it the kernel's error, not the next cudaMemcpy's.
static inline bool launched(const char *kernel)
{
    char what[96];
    snprintf(what, sizeof what, "the %s kernel", kernel);
    return !failed(cudaGetLastError(), what) && !failed(cudaDeviceSynchronize(), what);
}

static inline unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return b < 1 ? 1 : b > 4096 ? 4096 : (unsigned)b;
}

#endif
