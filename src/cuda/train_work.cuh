// train_work.cuh: the training operations' items (core/train-work.h) with CUDA's
// conversions (kernel_work.cuh) and, on the GPU, atomic counters; on the host the same
// code runs with CUDA's host-side reference conversions (tests/test_cuda_host.cu).
#ifndef VL_TRAIN_WORK_CUH
#define VL_TRAIN_WORK_CUH

#include "cuda/kernel_work.cuh"

VL_HOST_DEVICE void count_add(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    atomicAdd((unsigned int *)p, (unsigned int)v);
#else
    *p += v;
#endif
}

VL_HOST_DEVICE void count_max(uint32_t *p, uint32_t v)
{
#ifdef __CUDA_ARCH__
    atomicMax((unsigned int *)p, (unsigned int)v);
#else
    *p = *p > v ? *p : v;
#endif
}

#define VL_TRAIN_ROUND(f, x) round_to((f), (x))
#define VL_TRAIN_COUNT(p, v) count_add((p), (v))
#define VL_TRAIN_MAX(p, v) count_max((p), (v))
#include "core/train-work.h"

#endif
