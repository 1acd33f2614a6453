/* probe.h: the mixed-precision experiments (HACKING §5), as pure functions from options to
 * result structs, run on a backend (backend.h).  Deterministic: every random number comes
 * from splitmix64 and the seed.  No printing: `vramlab probe` and the Probe panel render
 * the structs.
 *
 *   underflow   a gradient sample times a loss scale, cast to every format: what survives
 *   scaler      dynamic loss scaling, step by step, as torch.amp.GradScaler
 *   update      w - lr*g in 16 bits against an fp32 master copy: which updates are lost
 *   accumulate  long sums in fp16 and in fp32 */
#ifndef VL_PROBE_H
#define VL_PROBE_H

#include <stddef.h>

#include "backend.h"

#ifdef __cplusplus /* tests/test_cuda_host.cu includes this */
extern "C" {
#endif

#define VL_PROBE_SEED 1

/* splitmix64 (Steele, Lea and Flood 2014): one 64-bit state, every seed good; the
 * experiments' and probe train's (train.c) random numbers. */
static inline uint64_t vl_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), a multiple of 2^-53: exact, so sums of them are the same anywhere. */
static inline double vl_uniform(uint64_t *s)
{
    return (double)(vl_splitmix64(s) >> 11) * 0x1p-53;
}
#define VL_PROBE_MAX_VALUES (1u << 28) /* a sample, a gradient file, a sum */

/* ---- the gradient sample ---------------------------------------------------------------
 * After Micikevicius et al. 2017, "Mixed Precision Training", Fig. 3: activation gradients
 * of Multibox SSD, 67% exact zeros, the rest mostly below fp16's smallest subnormal 2^-24.
 * The caption gives two bins: 2% of all values in [2^-34, 2^-32) and 2% in [2^-24, 2^-23).
 * The nonzero magnitudes here are log-normal: log2|g| ~ N(mean, sigma), with the mean and
 * sigma that put exactly 2/33 of the nonzero values in each of those bins (the wider of the
 * two solutions; the narrower one leaves nothing within 2^-10 of fp16's normal range).
 * Then 58% of the nonzero values lie below 2^-24.  Each value: zero with probability 0.67,
 * else a sign, an exponent floor(mean + sigma*z) with z the sum of 12 uniforms minus 6
 * (Irwin-Hall: near-normal, within 6 sigma, and no libm), and 23 uniform mantissa bits. */
#define VL_SAMPLE_ZEROS 0.67
#define VL_SAMPLE_LOG2_MEAN (-25.34)
#define VL_SAMPLE_LOG2_SIGMA 6.30

/* Fills g[0..n) with the sample drawn from seed. */
void vl_sample_fill(float *g, size_t n, uint64_t seed);

/* ---- underflow ------------------------------------------------------------------------ */
#define VL_UNDERFLOW_MAX_SCALES 8

typedef struct vl_underflow {
    size_t n;
    bool saturate;
    int n_runs;
    struct vl_underflow_run {
        float scale;
        vl_cast_counts counts; /* of g[i] * scale */
    } runs[VL_UNDERFLOW_MAX_SCALES];
} vl_underflow;

/* g[0..n) at each of scales[0..n_scales) (n_scales <= VL_UNDERFLOW_MAX_SCALES). */
void vl_underflow_compute(vl_backend *b, const float *g, size_t n, const float *scales,
                          int n_scales, bool saturate, vl_underflow *out);

/* ---- scaler ------------------------------------------------------------------------------ */
#define VL_SCALER_MAX_STEPS 1000000

typedef struct vl_scaler_opts {
    vl_scaler_params params; /* GradScaler's defaults: 65536, 2, 0.5, 2000 */
    size_t steps;            /* 12000 */
    /* A clean step's largest |gradient|, unscaled: it overflows fp16 once multiplied by a
     * scale of 65520/grad_max or more.  2^-4: the scale settles between 2^19 and 2^20. */
    float grad_max;
    double overflow_prob;        /* chance per step of an injected inf gradient: 1e-4 */
    const uint64_t *overflow_at; /* or exactly these steps (from 1), when n_overflow_at */
    size_t n_overflow_at;
    uint64_t seed;
} vl_scaler_opts;

void vl_scaler_opts_default(vl_scaler_opts *o);

typedef struct vl_scaler_trace {
    size_t steps;
    float *scale;      /* scale[i]: the scale step i+1 ran with */
    uint8_t *skipped;  /* skipped[i]: step i+1 overflowed, and the optimizer skipped it */
    uint8_t *injected; /* injected[i]: step i+1 had an injected inf gradient */
    vl_scaler_state final;
    size_t n_skipped, n_injected, n_growths;
} vl_scaler_trace;

/* NULL when out of memory. */
vl_scaler_trace *vl_scaler_trace_new(vl_backend *b, const vl_scaler_opts *o);
void vl_scaler_trace_free(vl_scaler_trace *t);

/* ---- update ------------------------------------------------------------------------------
 * Buckets of |w/u| in [2^k, 2^(k+1)), k = VL_UPDATE_LOG2_MIN..VL_UPDATE_LOG2_MAX: each holds
 * per_bucket pairs of a weight w in [2^-4, 1) and an update u, both with 8 significant
 * bits (exact in fp32, bf16 and fp16), either sign, drawn so that |w/u| falls in the
 * bucket.  In a format of p significant bits (fp16 11, bf16 8, fp32 24) w - u rounds back
 * to w never when |w/u| < 2^p, always when |w/u| >= 2^(p+1) (half an ulp of w lies between
 * |w|/2^(p+1) and |w|/2^p), and for some w in between: fp16's 2048x rule, bf16's 256x. */
#define VL_UPDATE_LOG2_MIN 2
#define VL_UPDATE_LOG2_MAX 26
#define VL_UPDATE_BUCKETS (VL_UPDATE_LOG2_MAX - VL_UPDATE_LOG2_MIN + 1)
#define VL_UPDATE_MAX_PER_BUCKET 65536
#define VL_UPDATE_MAX_STEPS 1000000

typedef struct vl_update_opts {
    size_t per_bucket; /* 1024 */
    uint64_t seed;
    float weight, update; /* the repeated update: 1 and 2^-12 */
    uint32_t steps;       /* 1000 */
} vl_update_opts;

void vl_update_opts_default(vl_update_opts *o);

typedef struct vl_update {
    size_t per_bucket;
    uint32_t lost[VL_UPDATE_BUCKETS][VL_N_FORMATS]; /* pairs where w - u rounded back to w */
    float weight, update;
    uint32_t steps;
    vl_repeat repeat;          /* w - u, steps times, in each format */
    float mixed[VL_N_FORMATS]; /* mixed precision: the fp32 master after the steps, as each
                                  format's working copy (rounded from it) */
} vl_update;

/* NULL, or "out of memory". */
const char *vl_update_compute(vl_backend *b, const vl_update_opts *o, vl_update *out);

/* ---- accumulate --------------------------------------------------------------------------
 * n values a[i] and c[i], uniform on the 2048 multiples of 2^-11 in [0, 1) (exact in fp16),
 * or all equal to value.  An fp16 running sum of values below 1 stops growing once half
 * the spacing of fp16 at the sum exceeds them: from 2048 up the spacing is 2, so a sum of
 * 10,000 such values (about 5,000) ends at exactly 2048.  All 0.5 ends at 1024 instead:
 * 1024 + 0.5 is a tie, and ties go to the even 1024. */
#define VL_ACCUMULATE_COUNT 10000

typedef struct vl_accumulate_opts {
    size_t n; /* 10000 */
    uint64_t seed;
    bool constant;
    float value;
} vl_accumulate_opts;

void vl_accumulate_opts_default(vl_accumulate_opts *o);

typedef struct vl_accumulate {
    size_t n;
    bool constant;
    float value; /* as fp16 rounds it, when constant */
    vl_accum acc;
    double exact_sum, exact_dot; /* of the fp16 inputs, exactly (sums of multiples of 2^-22) */
} vl_accumulate;

/* NULL, or "out of memory". */
const char *vl_accumulate_compute(vl_backend *b, const vl_accumulate_opts *o, vl_accumulate *out);

#ifdef __cplusplus
}
#endif

#endif
