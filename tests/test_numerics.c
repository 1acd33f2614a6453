/* test_numerics.c: the software codecs against references that share no code with them:
 * the compiler's _Float16, the formats' definitions evaluated in double arithmetic, and
 * cases worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/kernels.h"
#include "core/numerics.h"

/* Every exponent, both signs and many mantissas of fp32 in about a million patterns. */
#define STRIDE 4099 /* prime */

/* The formats as IEEE 754 and OCP FP8 v1.0 define them. */
typedef struct spec {
    int exp_bits, man_bits, bias;
    double max;
    bool has_inf; /* else (E4M3) only S.1111.111 is NaN */
} spec;

static const spec specs[VL_N_FORMATS] = {
    [VL_FMT_F32] = {8, 23, 127, 0x1.fffffep127, true},
    [VL_FMT_F16] = {5, 10, 15, 65504.0, true},
    [VL_FMT_BF16] = {8, 7, 127, 0x1.fep127, true},
    [VL_FMT_E4M3] = {4, 3, 7, 448.0, false},
    [VL_FMT_E5M2] = {5, 2, 15, 57344.0, true},
};

/* (-1)^s 2^(1-bias) m/2^M, or (-1)^s 2^(e-bias) (1 + m/2^M), reading every exponent
 * field as a number: code max+1 is the next value up, not inf. */
static double formula(const spec *s, uint32_t code)
{
    uint32_t e = code >> s->man_bits & ((1u << s->exp_bits) - 1);
    double m = ldexp(code & ((1u << s->man_bits) - 1), -s->man_bits);
    double v = e ? ldexp(1 + m, (int)e - s->bias) : ldexp(m, 1 - s->bias);
    return code >> (s->exp_bits + s->man_bits) & 1 ? -v : v;
}

static double spec_value(const spec *s, uint32_t code)
{
    uint32_t e_ones = (1u << s->exp_bits) - 1, m_ones = (1u << s->man_bits) - 1;
    uint32_t e = code >> s->man_bits & e_ones, m = code & m_ones;
    double v = formula(s, code);

    if (s->has_inf && e == e_ones)
        return m ? NAN : copysign(INFINITY, v);
    if (!s->has_inf && e == e_ones && m == m_ones)
        return NAN;
    return v;
}

/* x rounded to nearest even in the format, in double: x's last kept bit is man_bits
 * below its leading bit, but never below the smallest subnormal's. */
static double ref_round(const spec *s, double x, bool saturate)
{
    int e;

    if (isnan(x) || x == 0)
        return x;
    if (!isinf(x)) {
        frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
        int q = e - 1 - s->man_bits, qmin = 1 - s->bias - s->man_bits;
        if (q < qmin)
            q = qmin;
        x = ldexp(nearbyint(ldexp(x, -q)), q);
        if (fabs(x) <= s->max)
            return x;
    }
    if (saturate)
        return copysign(s->max, x);
    return s->has_inf ? copysign(INFINITY, x) : NAN;
}

static bool same(float got, double want)
{
    if (isnan(want))
        return isnan(got);
    return got == want && !signbit(got) == !signbit(want);
}

typedef void check_fn(vl_format f, float x);

/* check(f, x) for the strided fp32 patterns, then for every code c up to max, the point
 * halfway to c+1 and the floats either side of it, with both signs. */
static void for_each_point(vl_format f, check_fn *check)
{
    const spec *s = &specs[f];

    for (uint64_t u = 0; u < (1ull << 32); u += STRIDE)
        check(f, vl_f32_from_bits((uint32_t)u));
    for (uint32_t c = 0; formula(s, c) <= s->max; c++) {
        float mid = (float)((formula(s, c) + formula(s, c + 1)) / 2); /* exact */
        float pts[3] = {nextafterf(mid, 0), mid, nextafterf(mid, INFINITY)};
        for (int i = 0; i < 3; i++) {
            check(f, pts[i]);
            check(f, -pts[i]);
        }
    }
}

#ifdef __FLT16_MAX__
static void check_float16(vl_format f, float x)
{
    _Float16 h = (_Float16)x;
    uint16_t want;
    uint32_t got = vl_encode(f, x, false);

    memcpy(&want, &h, sizeof want);
    if (isnan(x) ? (want & 0x7FFF) > 0x7C00 && vl_classify(f, got) == VL_CLS_NAN : got == want)
        return;
    print_error("fp16(%a) = 0x%04x, _Float16 gives 0x%04x\n", (double)x, (unsigned)got,
                (unsigned)want);
    fail();
}
#endif

static void test_fp16_vs_float16(void **state)
{
    (void)state;
#ifdef __FLT16_MAX__
    for_each_point(VL_FMT_F16, check_float16);
#else
    skip();
#endif
}

static void check_reference(vl_format f, float x)
{
    for (int sat = 0; sat < 2; sat++) {
        float got = vl_round(f, x, sat);
        double want = ref_round(&specs[f], x, sat);
        if (same(got, want))
            continue;
        print_error("%s(%a, saturate=%d) = %a, want %a\n", vl_format_names[f], (double)x, sat,
                    (double)got, want);
        fail();
    }
}

static void test_round_vs_reference(void **state)
{
    (void)state;
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++)
        for_each_point(f, check_reference);
}

/* Every code of every narrow format, fp8's 256 included. */
static void test_decode_matches_spec(void **state)
{
    (void)state;
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++) {
        for (uint32_t c = 0; c < 1u << (1 + specs[f].exp_bits + specs[f].man_bits); c++) {
            float got = vl_decode(f, c);
            double want = spec_value(&specs[f], c);
            if (!same(got, want)) {
                print_error("%s 0x%x decodes to %a, want %a\n", vl_format_names[f],
                            (unsigned)c, (double)got, want);
                fail();
            }
        }
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++) {
        for (uint32_t c = 0; c < 1u << (1 + specs[f].exp_bits + specs[f].man_bits); c++) {
            float x = vl_decode(f, c);
            if (isnan(x)) {
                assert_int_equal(vl_encode(f, x, false), vl_formats[f].nan_code);
                continue;
            }
            assert_int_equal(vl_encode(f, x, false), c);
            if (!isinf(x))
                assert_int_equal(vl_encode(f, x, true), c);
        }
    }
}

static const struct {
    vl_format f;
    float x;
    bool sat;
    uint32_t code;
} cases[] = {
    {VL_FMT_F16, 65504.0f, false, 0x7BFF},
    {VL_FMT_F16, 65519.99f, false, 0x7BFF},  /* below halfway to 65536 */
    {VL_FMT_F16, 65520.0f, false, 0x7C00},   /* halfway: ties away from odd 0x7BFF */
    {VL_FMT_F16, 65520.0f, true, 0x7BFF},
    {VL_FMT_F16, -65520.0f, false, 0xFC00},
    {VL_FMT_F16, -65520.0f, true, 0xFBFF},
    {VL_FMT_F16, INFINITY, false, 0x7C00},
    {VL_FMT_F16, INFINITY, true, 0x7BFF},
    {VL_FMT_F16, -INFINITY, false, 0xFC00},
    {VL_FMT_F16, 1.0f, false, 0x3C00},
    {VL_FMT_F16, 0x1.002p0f, false, 0x3C00}, /* 1 + half an ulp: tie to even */
    {VL_FMT_F16, 0x1.006p0f, false, 0x3C02}, /* 1 + 1.5 ulp: tie to even, up */
    {VL_FMT_F16, 0x1p-24f, false, 0x0001},   /* smallest subnormal */
    {VL_FMT_F16, 0x1p-25f, false, 0x0000},   /* half of it: tie to even zero */
    {VL_FMT_F16, -0x1p-25f, false, 0x8000},
    {VL_FMT_F16, 0x1.000002p-25f, false, 0x0001},
    {VL_FMT_F16, 0x1.8p-24f, false, 0x0002},  /* 1.5 subnormal steps: tie up to even */
    {VL_FMT_F16, 0x1.ff8p-15f, false, 0x03FF}, /* largest subnormal */
    {VL_FMT_F16, 0x1.ffcp-15f, false, 0x0400}, /* halfway to the smallest normal */
    {VL_FMT_F16, -0.0f, false, 0x8000},
    {VL_FMT_F16, NAN, false, 0x7FFF},
    {VL_FMT_F16, -NAN, true, 0x7FFF},
    {VL_FMT_BF16, 0x1.01p0f, false, 0x3F80}, /* 1 + 2^-8: tie to even 1.0 */
    {VL_FMT_BF16, 0x1.03p0f, false, 0x3F82}, /* 1 + 3*2^-8: tie to even, up */
    {VL_FMT_BF16, 0x1.fep127f, false, 0x7F7F},
    {VL_FMT_BF16, 0x1.fffffep127f, false, 0x7F80},
    {VL_FMT_BF16, 0x1.fffffep127f, true, 0x7F7F},
    {VL_FMT_BF16, 0x1p-133f, false, 0x0001},
    {VL_FMT_BF16, 0x1p-134f, false, 0x0000},
    {VL_FMT_BF16, -0.0f, false, 0x8000},
    {VL_FMT_BF16, NAN, false, 0x7FFF},
    {VL_FMT_E4M3, 448.0f, false, 0x7E},
    {VL_FMT_E4M3, 464.0f, false, 0x7E}, /* halfway to 480 (not a value): tie to even 448 */
    {VL_FMT_E4M3, 0x1.d00002p8f, false, 0x7F}, /* just above: overflow is NaN */
    {VL_FMT_E4M3, 0x1.d00002p8f, true, 0x7E},
    {VL_FMT_E4M3, -500.0f, false, 0xFF},
    {VL_FMT_E4M3, -500.0f, true, 0xFE},
    {VL_FMT_E4M3, INFINITY, false, 0x7F},
    {VL_FMT_E4M3, INFINITY, true, 0x7E},
    {VL_FMT_E4M3, 0x1p-6f, false, 0x08},
    {VL_FMT_E4M3, 0x1p-9f, false, 0x01},
    {VL_FMT_E4M3, 0x1p-10f, false, 0x00},
    {VL_FMT_E4M3, 0x1.000002p-10f, false, 0x01},
    {VL_FMT_E4M3, -0.0f, false, 0x80},
    {VL_FMT_E4M3, NAN, true, 0x7F},
    {VL_FMT_E5M2, 57344.0f, false, 0x7B},
    {VL_FMT_E5M2, 61440.0f, false, 0x7C},        /* halfway to 65536: tie to inf */
    {VL_FMT_E5M2, 0x1.dffffep15f, false, 0x7B},
    {VL_FMT_E5M2, 1e9f, true, 0x7B},
    {VL_FMT_E5M2, -INFINITY, false, 0xFC},
    {VL_FMT_E5M2, INFINITY, true, 0x7B},
    {VL_FMT_E5M2, 0x1p-16f, false, 0x01},
    {VL_FMT_E5M2, 0x1p-17f, false, 0x00},
    {VL_FMT_E5M2, NAN, false, 0x7F},
    {VL_FMT_F32, 0x1p-149f, false, 0x00000001},
    {VL_FMT_F32, -1.0f, false, 0xBF800000},
    {VL_FMT_F32, INFINITY, false, 0x7F800000},
    {VL_FMT_F32, -INFINITY, true, 0xFF7FFFFF},
    {VL_FMT_F32, -NAN, false, 0x7FFFFFFF},
};

static void test_hand_checked(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t got = vl_encode(cases[i].f, cases[i].x, cases[i].sat);
        if (got != cases[i].code) {
            print_error("%s(%a, saturate=%d) = 0x%x, want 0x%x\n", vl_format_names[cases[i].f],
                        (double)cases[i].x, cases[i].sat, (unsigned)got,
                        (unsigned)cases[i].code);
            fail();
        }
    }
}

static void test_classify(void **state)
{
    (void)state;
    assert_int_equal(vl_classify(VL_FMT_F16, 0x0000), VL_CLS_ZERO);
    assert_int_equal(vl_classify(VL_FMT_F16, 0x8000), VL_CLS_ZERO);
    assert_int_equal(vl_classify(VL_FMT_F16, 0x0001), VL_CLS_SUBNORMAL);
    assert_int_equal(vl_classify(VL_FMT_F16, 0x83FF), VL_CLS_SUBNORMAL);
    assert_int_equal(vl_classify(VL_FMT_F16, 0x0400), VL_CLS_NORMAL);
    assert_int_equal(vl_classify(VL_FMT_F16, 0xFC00), VL_CLS_INF);
    assert_int_equal(vl_classify(VL_FMT_F16, 0x7C01), VL_CLS_NAN);
    assert_int_equal(vl_classify(VL_FMT_E4M3, 0x7E), VL_CLS_NORMAL);
    assert_int_equal(vl_classify(VL_FMT_E4M3, 0x78), VL_CLS_NORMAL); /* 256: no inf here */
    assert_int_equal(vl_classify(VL_FMT_E4M3, 0xFF), VL_CLS_NAN);
    assert_int_equal(vl_classify(VL_FMT_E5M2, 0x7C), VL_CLS_INF);
    assert_int_equal(vl_classify(VL_FMT_E5M2, 0x7D), VL_CLS_NAN);
    assert_int_equal(vl_classify(VL_FMT_E5M2, 0x03), VL_CLS_SUBNORMAL);

    assert_int_equal(vl_classify_cast(VL_FMT_F16, 0.0f, false), VL_CLS_ZERO);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, -0.0f, true), VL_CLS_ZERO);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 1e-8f, false), VL_CLS_FLUSHED);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 1e-6f, false), VL_CLS_SUBNORMAL);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 0x1.ffcp-15f, false), VL_CLS_NORMAL);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, -1.0f, false), VL_CLS_NORMAL);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 65519.0f, true), VL_CLS_NORMAL); /* rounded */
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 65520.0f, false), VL_CLS_INF);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, 65520.0f, true), VL_CLS_SATURATED);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, -INFINITY, false), VL_CLS_INF);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, INFINITY, true), VL_CLS_SATURATED);
    assert_int_equal(vl_classify_cast(VL_FMT_F16, NAN, true), VL_CLS_NAN);
    assert_int_equal(vl_classify_cast(VL_FMT_BF16, 1e-8f, false), VL_CLS_NORMAL);
    assert_int_equal(vl_classify_cast(VL_FMT_BF16, 1e-45f, false), VL_CLS_FLUSHED);
    assert_int_equal(vl_classify_cast(VL_FMT_E4M3, 500.0f, false), VL_CLS_INF);
    assert_int_equal(vl_classify_cast(VL_FMT_E4M3, -500.0f, true), VL_CLS_SATURATED);
    assert_int_equal(vl_classify_cast(VL_FMT_E4M3, 0x1p-7f, false), VL_CLS_SUBNORMAL);
    assert_int_equal(vl_classify_cast(VL_FMT_E5M2, 1e-6f, false), VL_CLS_FLUSHED);
    assert_int_equal(vl_classify_cast(VL_FMT_F32, 1e-45f, false), VL_CLS_SUBNORMAL);
}

/* The sum and product in double of two values of a narrow format, rounded once more to the
 * format, are its correctly rounded sum and product: the product is exact in double, and
 * the sum, if not exact, was rounded to 53 bits, and 53 >= 2p + 2 for p <= 11 makes that
 * double rounding innocuous (Figueroa 1995).  Every pair of fp8 codes, strided pairs of
 * the 16-bit formats. */
static void test_fmt_arithmetic(void **state)
{
    (void)state;
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++) {
        const spec *s = &specs[f];
        uint32_t codes = 1u << (1 + s->exp_bits + s->man_bits);
        uint32_t step_i = codes > 256 ? 61 : 1, step_j = codes > 256 ? 67 : 1;
        for (uint32_t i = 0; i < codes; i += step_i) {
            for (uint32_t j = 0; j < codes; j += step_j) {
                double a = spec_value(s, i), b = spec_value(s, j);
                float sum = vl_fmt_add(f, (float)a, (float)b), prod = vl_fmt_mul(f, (float)a, (float)b);
                if (!same(sum, ref_round(s, a + b, false)) ||
                    !same(prod, ref_round(s, a * b, false))) {
                    print_error("%s: %a + %a = %a, %a * %a = %a\n", vl_format_names[f], a, b,
                                (double)sum, a, b, (double)prod);
                    fail();
                }
            }
        }
    }
    assert_true(vl_fmt_add(VL_FMT_F16, 2048.0f, 1.0f) == 2048.0f); /* the update is lost */
    assert_true(vl_fmt_add(VL_FMT_F16, 2048.0f, 3.0f) == 2052.0f);
    assert_true(isinf(vl_fmt_add(VL_FMT_F16, 65504.0f, 16.0f))); /* 65520 overflows */
    assert_true(vl_fmt_add(VL_FMT_F16, 65504.0f, 15.99f) == 65504.0f);
    assert_true(vl_fmt_mul(VL_FMT_F16, 0x1p-12f, 0x1p-12f) == 0x1p-24f);
    assert_true(vl_fmt_mul(VL_FMT_F16, 0x1p-12f, 0x1p-13f) == 0.0f); /* 2^-25: tie to even zero */
    /* (1 + 2^-11)^2 would round to 1 + 2^-10, but each input is first rounded to 1 */
    assert_true(vl_fmt_mul(VL_FMT_F16, 0x1.002p0f, 0x1.002p0f) == 1.0f);
    assert_true(vl_fmt_add(VL_FMT_BF16, 256.0f, 1.0f) == 256.0f); /* bf16: 8 bits */
    assert_true(vl_fmt_add(VL_FMT_BF16, 256.0f, 1.5f) == 258.0f);
    assert_true(vl_fmt_add(VL_FMT_F32, 0x1p24f, 1.0f) == 0x1p24f);
    assert_true(isnan(vl_fmt_add(VL_FMT_E4M3, 448.0f, 32.0f))); /* 480: E4M3 overflows to NaN */
}

/* What a cast does, from the reference rounding in double. */
static vl_class ref_class(vl_format f, float x, bool saturate)
{
    const spec *s = &specs[f];
    double r = ref_round(s, x, false);

    if (isnan(x))
        return VL_CLS_NAN;
    if (x == 0)
        return VL_CLS_ZERO;
    if (r == 0)
        return VL_CLS_FLUSHED;
    if (isnan(r) || isinf(r))
        return saturate ? VL_CLS_SATURATED : VL_CLS_INF;
    return fabs(r) < ldexp(1, 1 - s->bias) ? VL_CLS_SUBNORMAL : VL_CLS_NORMAL;
}

/* The bulk cast against the reference, in blocks of the strided patterns and boundaries. */
static float block[4096];
static size_t in_block;

static void flush_block(vl_format f)
{
    static uint32_t codes[4096];
    static uint8_t classes[4096];
    for (int sat = 0; sat < 2; sat++) {
        vl_cast_n(f, block, in_block, sat, codes, classes);
        for (size_t i = 0; i < in_block; i++) {
            float x = block[i];
            if (same(vl_decode(f, codes[i]), ref_round(&specs[f], x, sat)) &&
                classes[i] == ref_class(f, x, sat))
                continue;
            print_error("%s: cast_n(%a, saturate=%d) = 0x%x, class %s\n", vl_format_names[f],
                        (double)x, sat, (unsigned)codes[i], vl_class_names[classes[i]]);
            fail();
        }
    }
    in_block = 0;
}

static void check_cast_n(vl_format f, float x)
{
    block[in_block++] = x;
    if (in_block == sizeof block / sizeof block[0])
        flush_block(f);
}

static void test_cast_n(void **state)
{
    (void)state;
    for (uint64_t u = 0; u < (1ull << 32); u += STRIDE) /* fp32: the strided patterns */
        check_cast_n(VL_FMT_F32, vl_f32_from_bits((uint32_t)u));
    flush_block(VL_FMT_F32);
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++) {
        for_each_point(f, check_cast_n);
        flush_block(f);
    }
}

static void test_format_table(void **state)
{
    (void)state;
    for (vl_format f = VL_FMT_F32; f < VL_N_FORMATS; f++) {
        const spec *s = &specs[f];
        const vl_format_info *t = &vl_formats[f];
        assert_int_equal(t->bits, 1 + s->exp_bits + s->man_bits);
        assert_int_equal(t->exp_bits, s->exp_bits);
        assert_int_equal(t->man_bits, s->man_bits);
        assert_int_equal(t->bias, s->bias);
        assert_true(t->max == s->max);
        assert_true(t->min_normal == ldexp(1, 1 - s->bias));
        assert_true(t->min_subnormal == ldexp(1, 1 - s->bias - s->man_bits));
        assert_true(t->epsilon == ldexp(1, -s->man_bits));
        assert_true(fabs(t->digits - (s->man_bits + 1) * log10(2)) < 1e-4);
        assert_int_equal(t->has_inf, s->has_inf);
        assert_true(vl_decode(f, t->max_code) == s->max);
        assert_int_equal(vl_classify(f, t->max_code + 1), s->has_inf ? VL_CLS_INF : VL_CLS_NAN);
        assert_true(isnan(vl_decode(f, t->nan_code)));
    }
}

/* 0.1 = 1.6 x 2^-4 in fp16: exponent field 11, mantissa round(0.6 x 1024 = 614.4) = 614,
 * value 1638/16384 = 0.0999755859375. */
static void test_inspect(void **state)
{
    (void)state;
    vl_inspection r;

    vl_inspect(VL_FMT_F16, 0.1, false, &r);
    assert_int_equal(r.code, 0x2E66);
    assert_int_equal(r.sign, 0);
    assert_int_equal(r.exponent, 11);
    assert_int_equal(r.mantissa, 614);
    assert_true(r.value == 0.0999755859375f);
    assert_true(r.abs_error == 0.1 - 0.0999755859375);
    assert_true(fabs(r.rel_error - 2.44140625e-4) < 1e-15);
    assert_int_equal(r.cls, VL_CLS_NORMAL);

    vl_inspect(VL_FMT_E4M3, -1e6, true, &r); /* saturating: -448 = 1 1111 110 */
    assert_int_equal(r.code, 0xFE);
    assert_int_equal(r.cls, VL_CLS_SATURATED);
    vl_inspect(VL_FMT_BF16, 1e-50, false, &r); /* fp32 flushes it already */
    assert_int_equal(r.cls, VL_CLS_FLUSHED);
    assert_true(r.value == 0 && r.rel_error == 1);
    vl_inspect(VL_FMT_F16, -INFINITY, false, &r); /* inf kept: no error */
    assert_int_equal(r.code, 0xFC00);
    assert_true(r.abs_error == 0 && r.rel_error == 0);
    vl_inspect(VL_FMT_F32, NAN, false, &r);
    assert_int_equal(r.cls, VL_CLS_NAN);
    assert_true(isnan(r.abs_error));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_hand_checked),
        cmocka_unit_test(test_decode_matches_spec),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_fp16_vs_float16),
        cmocka_unit_test(test_round_vs_reference),
        cmocka_unit_test(test_fmt_arithmetic),
        cmocka_unit_test(test_cast_n),
        cmocka_unit_test(test_inspect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
