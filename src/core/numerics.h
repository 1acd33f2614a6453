/* numerics.h: the floating-point formats of mixed precision, encoded and decoded in software
 * (HACKING §5).
 *
 * Codes are the formats' bit patterns, right-aligned in a uint32_t.  Encoding rounds to
 * nearest, ties to even, with gradual underflow, bit for bit as CUDA's host-side
 * __float2half_rn, __float2bfloat16_rn and __nv_cvt_float_to_fp8 do (and, for fp16, as the
 * compiler's _Float16).  Pure integer code: no _Float16, no rounding-mode tricks, so every
 * platform gives the same codes. */
#ifndef VL_NUMERICS_H
#define VL_NUMERICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus /* the CUDA kernels include this */
extern "C" {
#endif

/* VL_FMT_ and not VL_BF16: memory.h's precisions already own that name. */
typedef enum {
    VL_FMT_F32,  /* IEEE binary32 */
    VL_FMT_F16,  /* IEEE binary16 */
    VL_FMT_BF16, /* bfloat16: binary32's range with 8 significant bits */
    VL_FMT_E4M3, /* OCP FP8 E4M3: no infinities, S.1111.111 is NaN, max 448 */
    VL_FMT_E5M2, /* OCP FP8 E5M2: IEEE-like, max 57344 */
    VL_N_FORMATS
} vl_format;

/* "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2": for vl_lookup() and display. */
extern const char *const vl_format_names[VL_N_FORMATS];

/* The facts `vramlab formats` shows.  Every value is exact but digits. */
typedef struct vl_format_info {
    unsigned bits, exp_bits, man_bits; /* man_bits: stored, without the implicit 1 */
    int bias;
    double max;           /* largest finite value */
    double min_normal;    /* 2^(1-bias) */
    double min_subnormal; /* 2^(1-bias-man_bits) */
    double epsilon;       /* 2^-man_bits: the gap between 1 and the next value */
    double digits;        /* (man_bits+1)·log10(2): significant decimal digits */
    bool has_inf;
    uint32_t max_code;    /* code of +max; the code after it is +inf, or E4M3's NaN */
    uint32_t nan_code;    /* the NaN that encoding produces */
} vl_format_info;

extern const vl_format_info vl_formats[VL_N_FORMATS];

/* Classes of a code (zero..nan without flushed and saturated), and of a cast (all). */
typedef enum {
    VL_CLS_ZERO,      /* the value was zero */
    VL_CLS_FLUSHED,   /* nonzero, but became zero: underflow */
    VL_CLS_SUBNORMAL,
    VL_CLS_NORMAL,
    VL_CLS_INF,       /* infinite, or overflowed to inf (to NaN in E4M3) */
    VL_CLS_SATURATED, /* overflowed and was clamped to +-max */
    VL_CLS_NAN,
    VL_N_CLASSES
} vl_class;

extern const char *const vl_class_names[VL_N_CLASSES];

/* x rounded to format f.  Overflow (and +-inf) gives +-inf, or NaN (0x7F/0xFF) in E4M3;
 * with saturate it gives +-max instead, as CUDA's __NV_SATFINITE and PTX .satfinite do.
 * Zero keeps its sign.  Any NaN gives nan_code, without sign, as CUDA does.  For fp32 the
 * code is x's bit pattern. */
uint32_t vl_encode(vl_format f, float x, bool saturate);

/* The value of a code, exactly (every value of these formats is a float).  Every NaN code
 * decodes to the NaN with bits 0x7FFFFFFF, as CUDA's fp16 and fp8 conversions do. */
float vl_decode(vl_format f, uint32_t code);

/* VL_CLS_ZERO, _SUBNORMAL, _NORMAL, _INF or _NAN. */
vl_class vl_classify(vl_format f, uint32_t code);

/* What casting x to f does to it: any class but VL_CLS_SATURATED when !saturate. */
vl_class vl_classify_cast(vl_format f, float x, bool saturate);

/* decode(encode(x)): x as the format keeps it. */
float vl_round(vl_format f, float x, bool saturate);

/* A value as format f keeps it, for people: the code and its fields, the value kept, the
 * error against the value as typed (a double: cast to fp32 first and from there to f, as
 * GPUs convert), and what the cast did (flushed, too, when fp32 itself flushed it). */
typedef struct vl_inspection {
    uint32_t code, sign, exponent, mantissa;
    float value;
    double abs_error, rel_error; /* NaN when meaningless: a NaN typed or kept */
    vl_class cls;
} vl_inspection;

void vl_inspect(vl_format f, double typed, bool saturate, vl_inspection *out);

/* vl_encode (into codes) and vl_classify_cast (into classes) of x[0..n), either pointer
 * NULL when not wanted: one loop per format, specialised at compile time and free of
 * branches that depend on the values, for the probe's large samples. */
void vl_cast_n(vl_format f, const float *x, size_t n, bool saturate, uint32_t *codes,
               uint8_t *classes);

/* The sum and product in format f of the values a and b take in f, correctly rounded,
 * overflowing to inf (NaN in E4M3), as the format's arithmetic on a GPU.  Subtract by
 * adding -b. */
float vl_fmt_add(vl_format f, float a, float b);
float vl_fmt_mul(vl_format f, float a, float b);

#ifdef __cplusplus
}
#endif

#endif
