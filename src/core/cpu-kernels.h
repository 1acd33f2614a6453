/* cpu-kernels.h: the probe's micro-kernels on the CPU, with the software codecs: the CPU
 * backend itself, and what the CUDA kernels (cuda/probe_kernels.h, the same functions) are
 * checked against.  Each kernel's contract is written once, here. */
#ifndef VL_CPU_KERNELS_H
#define VL_CPU_KERNELS_H

#include <stddef.h>

#include "kernels.h"
#include "train-work.h"

#ifdef __cplusplus /* tests/test_cuda_host.cu includes this */
extern "C" {
#endif

/* codes[i] = the code of x[i] in f (vl_encode). */
void vl_cpu_encode(vl_format f, bool saturate, const float *x, size_t n, uint32_t *codes);

/* Every x[i] * scale (an fp32 product) cast to each format in the set formats: out->cls
 * counts the classes (vl_classify_cast; flushed, not zero, when x[i] is not 0 but the
 * product is), 0 for the formats not in the set; out->hist the log2 bins of the products
 * (vl_log2_bin). */
void vl_cpu_underflow(const float *x, size_t n, float scale, bool saturate, unsigned formats,
                      vl_cast_counts *out);

/* GradScaler over steps steps: step i overflows when grad_max[i] * scale (fp32) is inf or
 * NaN in fp16.  scale[i] is the scale step i ran with, found_inf[i] 1 when it overflowed
 * (the optimizer skips it); *final the state after the last update. */
void vl_cpu_scaler(const vl_scaler_params *p, const float *grad_max, size_t steps, float *scale,
                   uint8_t *found_inf, vl_scaler_state *final);

/* out[i] = w[i] - u[i] in format f (vl_fmt_add of -u[i]). */
void vl_cpu_sub(vl_format f, const float *w, const float *u, size_t n, float *out);

/* w, then w - u in every format, steps times (vl_repeat). */
void vl_cpu_repeat(float w, float u, uint32_t steps, vl_repeat *out);

/* Running sums of a[i] and of the fp16 products a[i]*c[i] (vl_accum), i = 0..n-1 in
 * order: the inputs are rounded to fp16 first. */
void vl_cpu_accumulate(const float *a, const float *c, size_t n, vl_accum *out);

/* One operation of a training step (train-work.h) on the arenas mem and cnt: its items in
 * order. */
void vl_cpu_train_op(float *mem, uint32_t *cnt, const vl_top *op);

#ifdef __cplusplus
}
#endif

#endif
