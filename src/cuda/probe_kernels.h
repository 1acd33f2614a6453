/* probe_kernels.h: the CUDA kernels' launchers, callable from C (core/backend.c).
 *
 * Each vl_cuda_X does what vl_cpu_X in core/cpu-kernels.h does, on device 0, with CUDA's
 * conversion instructions (__float2half_rn, __float2bfloat16_rn, __nv_cvt_float_to_fp8)
 * in place of the software codecs, integer atomics for the counts, and no fused
 * multiply-adds.  Each returns 0, or -1 with the reason in vl_cuda_error(). */
#ifndef VL_PROBE_KERNELS_H
#define VL_PROBE_KERNELS_H

#include <stddef.h>

#include "core/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 and "NVIDIA H200, compute capability 9.0" in device when device 0 answers and runs a
 * kernel; else -1 and why not in why. */
int vl_cuda_open(char *device, size_t device_len, char *why, size_t why_len);

/* The last launcher's error: "cudaMalloc: out of memory". */
const char *vl_cuda_error(void);

int vl_cuda_encode(vl_format f, bool saturate, const float *x, size_t n, uint32_t *codes);
/* One upload of x for all the scales. */
int vl_cuda_underflow(const float *x, size_t n, const float *scales, int n_scales, bool saturate,
                      unsigned formats, vl_cast_counts *const *out);
int vl_cuda_scaler(const vl_scaler_params *p, const float *grad_max, size_t steps, float *scale,
                   uint8_t *found_inf, vl_scaler_state *final);
int vl_cuda_sub(vl_format f, const float *w, const float *u, size_t n, float *out);
int vl_cuda_repeat(float w, float u, uint32_t steps, vl_repeat *out);
int vl_cuda_accumulate(const float *a, const float *c, size_t n, vl_accum *out);

#ifdef __cplusplus
}
#endif

#endif
