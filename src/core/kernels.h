/* kernels.h: what the probe's micro-kernels compute (HACKING §5): the types both backends
 * fill and the scalar rules both run.  Plain C that nvcc also compiles as device code, so
 * the CPU emulation (cpu-kernels.c) and the CUDA kernels (cuda/probe_kernels.cu) share one
 * source for every rule that is not a cast.  The casts themselves differ on purpose: the
 * CPU uses the software codecs, the GPU its conversion instructions, and `vramlab probe
 * selftest` compares the two. */
#ifndef VL_KERNELS_H
#define VL_KERNELS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "numerics.h"

#ifdef __CUDACC__
#define VL_HD __host__ __device__
#else
#define VL_HD
#endif

/* An fp32 value's bits, and the fp32 value of bits. */
static inline VL_HD uint32_t vl_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline VL_HD float vl_f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The log2 histogram: bin i counts finite nonzero |x| in [2^(i+VL_HIST_MIN), 2^(i+1+
 * VL_HIST_MIN)), from fp32's smallest subnormal 2^-149 to its top octave 2^127. */
#define VL_HIST_MIN (-149)
#define VL_HIST_BINS 277

/* A set of formats, bit f for format f. */
#define VL_ALL_FORMATS ((1u << VL_N_FORMATS) - 1)

/* Class counts per format and the histogram of one sample cast at one loss scale. */
typedef struct vl_cast_counts {
    uint64_t cls[VL_N_FORMATS][VL_N_CLASSES];
    uint64_t hist[VL_HIST_BINS];
} vl_cast_counts;

/* torch.amp.GradScaler's constructor arguments.  The factors are doubles, as PyTorch
 * passes them to its update kernel. */
typedef struct vl_scaler_params {
    float init_scale;
    double growth_factor, backoff_factor;
    int32_t growth_interval;
} vl_scaler_params;

/* GradScaler's state: the fp32 scale and the int32 count of recent clean steps. */
typedef struct vl_scaler_state {
    float scale;
    int32_t growth_tracker;
} vl_scaler_state;

/* The same update applied again and again to one weight in every format. */
typedef struct vl_repeat {
    float final[VL_N_FORMATS];   /* the weight after the last step */
    uint32_t lost[VL_N_FORMATS]; /* steps that left the weight as it was */
} vl_repeat;

/* Running sums of a[i] and of the products a[i]*c[i], element after element. */
typedef struct vl_accum {
    float sum16, sum32;              /* sum of a: fp16 accumulator, fp32 accumulator */
    float dot16, dot32;              /* sum of the fp16 products: in fp16, in fp32 (tensor cores) */
    uint32_t sum16_last, dot16_last; /* the last step (from 1) that changed the fp16 sum */
} vl_accum;

/* The histogram bin of an fp32 value (its bits), or -1 for zero, inf and NaN.  A
 * subnormal's bin is read off the exponent of its mantissa converted to float (exact below
 * 2^24).  Masks, not branches, so that a loop over it vectorises. */
static inline VL_HD int vl_log2_bin(uint32_t bits)
{
    uint32_t mag = bits & 0x7FFFFFFF, field = mag >> 23, sub;
    float m = (float)(int32_t)(mag & 0x7FFFFF);

    memcpy(&sub, &m, sizeof sub);
    int32_t normal = (int32_t)field + 22, subnormal = (int32_t)(sub >> 23) - 127;
    int32_t b = subnormal + ((normal - subnormal) & -(int32_t)(field != 0));
    return b | -(int32_t)((mag == 0) | (field == 0xFF));
}

/* One step of GradScaler.update(), as PyTorch's _amp_update_scale_ kernels do it: on
 * overflow, scale * backoff and the tracker back to 0; else one more clean step, and after
 * growth_interval of them scale * growth, unless that is not finite (past FLT_MAX): then the
 * scale stays.  The products are computed in double and rounded to float, as there. */
static inline VL_HD void vl_scaler_update(vl_scaler_state *s, bool found_inf,
                                          const vl_scaler_params *p)
{
    if (found_inf) {
        s->scale = (float)(s->scale * p->backoff_factor);
        s->growth_tracker = 0;
        return;
    }
    int32_t successful = s->growth_tracker + 1;
    if (successful == p->growth_interval) {
        float grown = (float)(s->scale * p->growth_factor);
        if (isfinite(grown))
            s->scale = grown;
        s->growth_tracker = 0;
    } else {
        s->growth_tracker = successful;
    }
}

#endif
