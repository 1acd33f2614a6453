/* numerics.c: software fp32/fp16/bf16/fp8 codecs (HACKING §5).
 *
 * Every narrow format's normal range lies inside fp32's, so encoding works on the fp32 bit
 * pattern alone: rebias the exponent in place and round the mantissa off, or, below the
 * target's smallest normal, shift the significand into its subnormal position and round
 * that.  No floating-point arithmetic, so the result cannot depend on the FPU's rounding
 * mode or on flush-to-zero, and no branches on the value, so that loops over arrays of
 * values vectorise (simd.h). */
#include "numerics.h"
#include "i18n.h"

#include <math.h>
#include <string.h>

#include "simd.h"

const char *const vl_format_names[VL_N_FORMATS] = {"fp32", "fp16", "bf16", "fp8-e4m3",
                                                   "fp8-e5m2"};

const char *const vl_class_names[VL_N_CLASSES] = {N_("zero"), N_("flushed"), N_("subnormal"),
                                                  N_("normal"), N_("inf"), N_("saturated"),
                                                  N_("nan")};

/* bits, exp_bits, man_bits, bias, max, min_normal, min_subnormal, epsilon, digits, has_inf,
 * max_code, nan_code.  The NaNs are those CUDA produces: fp32's canonical 0x7FFFFFFF,
 * 0x7FFF (fp16, bf16) and 0x7F (both fp8). */
const vl_format_info vl_formats[VL_N_FORMATS] = {
    [VL_FMT_F32] = {32, 8, 23, 127, 0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-23, 7.2247, true,
                    0x7F7FFFFF, 0x7FFFFFFF},
    [VL_FMT_F16] = {16, 5, 10, 15, 65504.0, 0x1p-14, 0x1p-24, 0x1p-10, 3.3113, true, 0x7BFF,
                    0x7FFF},
    [VL_FMT_BF16] = {16, 8, 7, 127, 0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7, 2.4082, true, 0x7F7F,
                     0x7FFF},
    [VL_FMT_E4M3] = {8, 4, 3, 7, 448.0, 0x1p-6, 0x1p-9, 0x1p-3, 1.2041, false, 0x7E, 0x7F},
    [VL_FMT_E5M2] = {8, 5, 2, 15, 57344.0, 0x1p-14, 0x1p-16, 0x1p-2, 0.9031, true, 0x7B, 0x7F},
};

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* cond ? a : b, with masks: compilers turn ternaries on data back into branches, and the
 * classes of a gradient sample come in no predictable order. */
static inline uint32_t sel(bool cond, uint32_t a, uint32_t b)
{
    return b ^ ((a ^ b) & -(uint32_t)cond);
}

/* v / 2^s rounded to nearest, ties to even, for 0 <= s <= 25 (0: v). */
static inline uint32_t shift_round(uint32_t v, unsigned s)
{
    uint32_t q = v >> s, rest = v & ((1u << s) - 1), half = (1u << s) >> 1;
    return q + ((rest > half) & (s != 0)) + ((rest == half) & (s != 0) & q & 1);
}

/* The magnitude code of an fp32 magnitude (not NaN) in f, rounded to nearest even: past
 * max_code when it overflows.  Every narrow format's normal range lies inside fp32's, so
 * this rebiases the exponent in place and rounds the mantissa off, or, below the target's
 * smallest normal, shifts the significand into its subnormal position and rounds that.
 * Both are computed and one is picked, without branches.  Inlined with a constant f, the
 * table's fields become constants. */
static inline __attribute__((always_inline)) uint32_t round_mag(vl_format f, uint32_t mag)
{
    const vl_format_info *t = &vl_formats[f];
    /* the target's smallest normal exponent and its bias, as fp32 exponent fields */
    uint32_t min_normal_field = (uint32_t)(128 - t->bias), bias_field = (uint32_t)(127 - t->bias);
    unsigned drop = 23 - t->man_bits, field = mag >> 23;

    if (f == VL_FMT_F32)
        return mag;
    /* A carry out of the mantissa steps the exponent up, and past max into the code after
     * it, which the caller treats as overflow.  (Wraps, unused, below the normal range.) */
    uint32_t normal = shift_round(mag - (bias_field << 23), drop);
    /* fp32 subnormals have field 0 but scale 2^-126, like field 1.  Past 24 places sig
     * (< 2^24) is below half the smallest subnormal, and 25 places round it to 0.  (For
     * normal inputs the shift wraps or is 0: unused.) */
    uint32_t sig = (mag & 0x7FFFFF) | sel(field != 0, 0x800000, 0);
    unsigned shift = drop + min_normal_field - sel(field != 0, field, 1);
    uint32_t sub = shift_round(sig, sel(shift > 25, 25, shift));
    return sel(mag >= min_normal_field << 23, normal, sub);
}

/* The code of x (bits) in f, given its magnitude code m from round_mag. */
static inline __attribute__((always_inline)) uint32_t finish(vl_format f, uint32_t bits,
                                                             uint32_t m, bool saturate)
{
    const vl_format_info *t = &vl_formats[f];
    m = sel(m > t->max_code, saturate ? t->max_code : t->max_code + 1, m);
    return sel((bits & 0x7FFFFFFF) > 0x7F800000, t->nan_code,
               (bits >> 31) << (t->bits - 1) | m);
}

/* What casting x (bits) to f did, given its magnitude code m from round_mag. */
static inline __attribute__((always_inline)) vl_class cast_class(vl_format f, uint32_t bits,
                                                                 uint32_t m, bool saturate)
{
    const vl_format_info *t = &vl_formats[f];
    uint32_t mag = bits & 0x7FFFFFFF;
    uint32_t c = sel(m >> t->man_bits != 0, VL_CLS_NORMAL, VL_CLS_SUBNORMAL);

    /* E4M3 has no inf: its overflow is NaN, counted here */
    c = sel(m > t->max_code, saturate ? VL_CLS_SATURATED : VL_CLS_INF, c);
    c = sel(m == 0, VL_CLS_FLUSHED, c);
    c = sel(mag == 0, VL_CLS_ZERO, c);
    return (vl_class)sel(mag > 0x7F800000, VL_CLS_NAN, c);
}

uint32_t vl_encode(vl_format f, float x, bool saturate)
{
    uint32_t bits = float_bits(x);
    return finish(f, bits, round_mag(f, bits & 0x7FFFFFFF), saturate);
}

vl_class vl_classify(vl_format f, uint32_t code)
{
    const vl_format_info *t = &vl_formats[f];
    uint32_t mag = code & ~(UINT32_MAX << (t->bits - 1));

    if (mag > t->max_code)
        return t->has_inf && mag == t->max_code + 1 ? VL_CLS_INF : VL_CLS_NAN;
    if (mag == 0)
        return VL_CLS_ZERO;
    return mag >> t->man_bits ? VL_CLS_NORMAL : VL_CLS_SUBNORMAL;
}

float vl_decode(vl_format f, uint32_t code)
{
    const vl_format_info *t = &vl_formats[f];
    uint32_t sign = (code >> (t->bits - 1) & 1) << 31;
    uint32_t mag = code & ~(UINT32_MAX << (t->bits - 1)), out;

    switch (vl_classify(f, code)) {
    case VL_CLS_NAN:
        return bits_float(0x7FFFFFFF);
    case VL_CLS_INF:
        out = 0x7F800000;
        break;
    case VL_CLS_NORMAL:
        out = (mag << (23 - t->man_bits)) + ((uint32_t)(127 - t->bias) << 23);
        break;
    default: /* zero or subnormal */
        /* mag < 2^man_bits, so the product is exact in double and, being a multiple of
         * fp32's smallest subnormal, exact in float too. */
        out = float_bits((float)(mag * t->min_subnormal));
        break;
    }
    return bits_float(sign | out);
}

vl_class vl_classify_cast(vl_format f, float x, bool saturate)
{
    uint32_t bits = float_bits(x);
    return cast_class(f, bits, round_mag(f, bits & 0x7FFFFFFF), saturate);
}

void vl_inspect(vl_format f, double typed, bool saturate, vl_inspection *out)
{
    const vl_format_info *t = &vl_formats[f];
    float x = (float)typed;
    vl_inspection r;

    r.code = vl_encode(f, x, saturate);
    r.value = vl_decode(f, r.code);
    r.sign = r.code >> (t->bits - 1);
    r.exponent = r.code >> t->man_bits & ((1u << t->exp_bits) - 1);
    r.mantissa = r.code & ((1u << t->man_bits) - 1);
    r.cls = vl_classify_cast(f, x, saturate);
    if (r.cls == VL_CLS_ZERO && typed != 0)
        r.cls = VL_CLS_FLUSHED;
    r.abs_error = fabs((double)r.value - typed);
    r.rel_error = typed != 0 ? r.abs_error / fabs(typed) : r.value == 0 ? 0 : INFINITY;
    if (isinf(typed) && r.value == typed) /* inf kept as inf: no error */
        r.abs_error = r.rel_error = 0;
    *out = r;
}

/* vl_cast_n for one format known at compile time, and which outputs are wanted: a loop
 * body without control flow, which compilers can vectorise. */
static inline __attribute__((always_inline)) void cast_loop(vl_format f, const float *x,
                                                            size_t n, bool saturate,
                                                            uint32_t *codes, uint8_t *classes)
{
    VL_SIMD_LOOP
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = float_bits(x[i]), m = round_mag(f, bits & 0x7FFFFFFF);
        if (codes)
            codes[i] = finish(f, bits, m, saturate);
        if (classes)
            classes[i] = (uint8_t)cast_class(f, bits, m, saturate);
    }
}

static inline __attribute__((always_inline)) void cast_outputs(vl_format f, const float *x,
                                                               size_t n, bool saturate,
                                                               uint32_t *codes,
                                                               uint8_t *classes)
{
    if (codes && classes)
        cast_loop(f, x, n, saturate, codes, classes);
    else if (codes)
        cast_loop(f, x, n, saturate, codes, NULL);
    else if (classes)
        cast_loop(f, x, n, saturate, NULL, classes);
}

/* The clones stay inside this file: clang resolves them only for callers that see the
 * attribute. */
VL_AVX2_CLONE
static void cast_n(vl_format f, const float *x, size_t n, bool saturate, uint32_t *codes,
                   uint8_t *classes)
{
    switch (f) {
    case VL_FMT_F32: cast_outputs(VL_FMT_F32, x, n, saturate, codes, classes); break;
    case VL_FMT_F16: cast_outputs(VL_FMT_F16, x, n, saturate, codes, classes); break;
    case VL_FMT_BF16: cast_outputs(VL_FMT_BF16, x, n, saturate, codes, classes); break;
    case VL_FMT_E4M3: cast_outputs(VL_FMT_E4M3, x, n, saturate, codes, classes); break;
    case VL_FMT_E5M2: cast_outputs(VL_FMT_E5M2, x, n, saturate, codes, classes); break;
    case VL_N_FORMATS: break;
    }
}

void vl_cast_n(vl_format f, const float *x, size_t n, bool saturate, uint32_t *codes,
               uint8_t *classes)
{
    cast_n(f, x, n, saturate, codes, classes);
}

float vl_round(vl_format f, float x, bool saturate)
{
    return vl_decode(f, vl_encode(f, x, saturate));
}

/* Rounding the exact result first to float (24 bits) and then to a format of p bits gives
 * the correctly rounded result for + and *, because 24 >= 2p + 2 for every p here (11 for
 * fp16, 8 for bf16, 4 and 3 for fp8; Figueroa, "When is double rounding innocuous?",
 * 1995).  So a float operation on the format's values, then vl_round, is exactly the
 * format's arithmetic.  For fp32 it is float arithmetic itself. */
float vl_fmt_add(vl_format f, float a, float b)
{
    return vl_round(f, vl_round(f, a, false) + vl_round(f, b, false), false);
}

float vl_fmt_mul(vl_format f, float a, float b)
{
    return vl_round(f, vl_round(f, a, false) * vl_round(f, b, false), false);
}
