/* test_probe.c: the experiments on the CPU backend against numbers worked out by hand or
 * computed here another way: magnitude thresholds instead of casts, frexp instead of bit
 * fields, traces of GradScaler written out step by step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/probe.h"

static vl_backend cpu;

static int setup(void **state)
{
    (void)state;
    return vl_backend_open(&cpu, VL_BACKEND_CPU) ? 0 : -1;
}

/* ---- the sample --------------------------------------------------------------------------- */

static void test_sample_calibration(void **state)
{
    (void)state;
    size_t n = 1u << 20, zeros = 0, bin34 = 0, bin24 = 0, below24 = 0, nonzero = 0;
    float *g = malloc(n * sizeof *g), *h = malloc(n * sizeof *h);
    assert_non_null(g);
    assert_non_null(h);
    vl_sample_fill(g, n, VL_PROBE_SEED);
    for (size_t i = 0; i < n; i++) {
        double a = fabs(g[i]);
        assert_true(isfinite(g[i]) && a < 0x1p13);
        if (a == 0) {
            zeros++;
            continue;
        }
        nonzero++;
        bin34 += a >= ldexp(1, -34) && a < ldexp(1, -32);
        bin24 += a >= ldexp(1, -24) && a < ldexp(1, -23);
        below24 += a < ldexp(1, -24);
    }
    /* Micikevicius et al. 2017, Fig. 3: 67% zeros, 2% of all values in [2^-34, 2^-32) and
     * 2% in [2^-24, 2^-23); the binomial noise of 2^20 draws is about 0.05% */
    assert_true(fabs((double)zeros / n - 0.67) < 0.003);
    assert_true(fabs((double)bin34 / n - 0.02) < 0.002);
    assert_true(fabs((double)bin24 / n - 0.02) < 0.002);
    /* most nonzero values below fp16's smallest subnormal: 58.4% for N(-25.34, 6.30) */
    assert_true(fabs((double)below24 / nonzero - 0.584) < 0.01);

    vl_sample_fill(h, n, VL_PROBE_SEED); /* deterministic */
    assert_memory_equal(g, h, n * sizeof *g);
    vl_sample_fill(h, n, VL_PROBE_SEED + 1);
    assert_memory_not_equal(g, h, n * sizeof *g);
    free(g);
    free(h);
}

/* ---- underflow ---------------------------------------------------------------------------- */

/* Where a cast changes class, on |y|, from each format's definition: below half the
 * smallest subnormal a value rounds to 0 (the half itself ties to the even 0); from half a
 * subnormal step under the smallest normal it rounds up to it (a tie goes to the even
 * normal); from max plus half the top spacing it overflows, the tie going to inf when max
 * has an odd mantissa (fp16 65504, bf16, E5M2 57344) and to max when it is even (E4M3's
 * 448 = 1.110b x 2^8, so 464 still rounds to 448). */
typedef struct thresholds {
    double flush;    /* |y| <= flush: 0 */
    double normal;   /* |y| >= normal: a normal number */
    double overflow; /* |y| >= overflow (> when !overflow_tie): inf, or NaN in E4M3 */
    bool overflow_tie;
} thresholds;

static thresholds threshold_of(vl_format f)
{
    switch (f) {
    case VL_FMT_F16: return (thresholds){0x1p-25, 0x1p-14 - 0x1p-25, 65520, true};
    case VL_FMT_BF16: return (thresholds){0x1p-134, 0x1p-126 - 0x1p-134, 0x1p128 - 0x1p119, true};
    case VL_FMT_E4M3: return (thresholds){0x1p-10, 0x1p-6 - 0x1p-10, 464, false};
    case VL_FMT_E5M2: return (thresholds){0x1p-17, 0x1p-14 - 0x1p-17, 61440, true};
    default: return (thresholds){0, 0x1p-126, INFINITY, true}; /* fp32: y itself */
    }
}

static vl_class expected_class(vl_format f, float x, float y, bool saturate)
{
    thresholds t = threshold_of(f);
    double a = fabs((double)y);

    if (isnan(y))
        return VL_CLS_NAN;
    if (x == 0)
        return VL_CLS_ZERO;
    if (a == 0 || (f != VL_FMT_F32 && a <= t.flush))
        return VL_CLS_FLUSHED;
    if (isinf(y) || a > t.overflow || (t.overflow_tie && a == t.overflow))
        return saturate ? VL_CLS_SATURATED : VL_CLS_INF;
    return a < t.normal ? VL_CLS_SUBNORMAL : VL_CLS_NORMAL;
}

static void test_underflow_against_thresholds(void **state)
{
    (void)state;
    static const float scales[] = {1.0f, 8.0f, 65536.0f, 0.125f, 3.0f, 0x1p100f};
    size_t ns = 4096, n = ns;
    float *x = malloc((ns + 512) * sizeof *x);
    vl_underflow *u = malloc(sizeof *u);
    assert_non_null(x);
    assert_non_null(u);
    vl_sample_fill(x, ns, 7);
    /* every threshold and the floats either side of it, both signs, as y at scale 1 */
    for (vl_format f = VL_FMT_F32; f < VL_N_FORMATS; f++) {
        thresholds t = threshold_of(f);
        double pts[3] = {t.flush, t.normal, t.overflow};
        for (int i = 0; i < 3; i++) {
            float p = (float)pts[i];
            if (!isfinite(p) || p == 0)
                continue;
            float around[3] = {nextafterf(p, 0), p, nextafterf(p, INFINITY)};
            for (int k = 0; k < 3; k++) {
                x[n++] = around[k];
                x[n++] = -around[k];
            }
        }
    }
    x[n++] = INFINITY;
    x[n++] = NAN;
    x[n++] = 0x1p-149f; /* flushed by fp32 itself at scale 1/8 */

    for (int sat = 0; sat < 2; sat++) {
        vl_underflow_compute(&cpu, x, n, scales, 6, sat, u);
        for (int s = 0; s < 6; s++) {
            uint64_t want[VL_N_FORMATS][VL_N_CLASSES] = {{0}}, hist[VL_HIST_BINS] = {0};
            for (size_t i = 0; i < n; i++) {
                float y = x[i] * scales[s];
                for (vl_format f = VL_FMT_F32; f < VL_N_FORMATS; f++)
                    want[f][expected_class(f, x[i], y, sat)]++;
                if (y != 0 && isfinite(y)) {
                    int e;
                    frexp(y, &e); /* |y| in [2^(e-1), 2^e) */
                    hist[e - 1 + 149]++;
                }
            }
            assert_int_equal(u->runs[s].scale, scales[s]);
            assert_memory_equal(u->runs[s].counts.cls, want, sizeof want);
            assert_memory_equal(u->runs[s].counts.hist, hist, sizeof hist);
        }
    }
    free(x);
    free(u);
}

/* The default sample: fp16 flushes |g| <= 2^-25 at scale 1 and |8g| <= 2^-25 at scale 8,
 * so scaling by 8 (Micikevicius et al.'s choice for SSD) rescues exactly the values in
 * (2^-28, 2^-25]; bf16 loses nothing either way. */
static void test_underflow_scaling_rescues(void **state)
{
    (void)state;
    size_t n = 1u << 16;
    float *g = malloc(n * sizeof *g), scales[2] = {1.0f, 8.0f};
    vl_underflow *u = malloc(sizeof *u);
    uint64_t band = 0;
    assert_non_null(g);
    assert_non_null(u);
    vl_sample_fill(g, n, VL_PROBE_SEED);
    for (size_t i = 0; i < n; i++) {
        double a = fabs(g[i]);
        band += a > 0x1p-28 && a <= 0x1p-25;
    }
    vl_underflow_compute(&cpu, g, n, scales, 2, false, u);
    const uint64_t *at1 = u->runs[0].counts.cls[VL_FMT_F16],
                   *at8 = u->runs[1].counts.cls[VL_FMT_F16];
    assert_true(band > n / 100);
    assert_int_equal(at1[VL_CLS_FLUSHED] - at8[VL_CLS_FLUSHED], band);
    assert_int_equal(u->runs[1].counts.cls[VL_FMT_BF16][VL_CLS_FLUSHED], 0);
    free(g);
    free(u);
}

/* ---- scaler ------------------------------------------------------------------------------- */

static vl_scaler_trace *trace(float init, int32_t interval, size_t steps, float grad_max,
                              const uint64_t *at, size_t n_at)
{
    vl_scaler_opts o;
    vl_scaler_opts_default(&o);
    o.params.init_scale = init;
    o.params.growth_interval = interval;
    o.steps = steps;
    o.grad_max = grad_max;
    o.overflow_prob = 0;
    o.overflow_at = at;
    o.n_overflow_at = n_at;
    vl_scaler_trace *t = vl_scaler_trace_new(&cpu, &o);
    assert_non_null(t);
    return t;
}

static void assert_trace(const vl_scaler_trace *t, const float *scale, const uint8_t *skipped,
                         float final, int32_t tracker)
{
    for (size_t i = 0; i < t->steps; i++) {
        if (t->scale[i] != scale[i] || t->skipped[i] != skipped[i]) {
            print_error("step %zu: scale %a skipped %d, want %a %d\n", i + 1, (double)t->scale[i],
                        t->skipped[i], (double)scale[i], skipped[i]);
            fail();
        }
    }
    assert_true(t->final.scale == final);
    assert_int_equal(t->final.growth_tracker, tracker);
}

static void test_scaler_growth(void **state)
{
    (void)state;
    /* interval 2, four clean steps: the tracker counts 1, 2 -> grow and reset, 1, 2 -> grow */
    vl_scaler_trace *t = trace(65536, 2, 4, 0, NULL, 0);
    assert_trace(t, (float[]){65536, 65536, 131072, 131072}, (uint8_t[]){0, 0, 0, 0}, 262144, 0);
    assert_int_equal(t->n_growths, 2);
    assert_int_equal(t->n_skipped, 0);
    vl_scaler_trace_free(t);
}

static void test_scaler_backoff(void **state)
{
    (void)state;
    /* interval 2, inf at step 3: steps 1-2 grow the scale to 131072; step 3 overflows, is
     * skipped, halves it to 65536 and resets the tracker; steps 4-5 grow it again */
    vl_scaler_trace *t = trace(65536, 2, 5, 0, (uint64_t[]){3}, 1);
    assert_trace(t, (float[]){65536, 65536, 131072, 65536, 65536}, (uint8_t[]){0, 0, 1, 0, 0},
                 131072, 0);
    assert_int_equal(t->n_skipped, 1);
    assert_int_equal(t->n_injected, 1);
    vl_scaler_trace_free(t);

    /* interval 3, inf at step 3 after two clean steps: without the reset the tracker would
     * reach 3 at step 4; with it the scale grows only after steps 4, 5 and 6 */
    t = trace(65536, 3, 7, 0, (uint64_t[]){3}, 1);
    assert_trace(t, (float[]){65536, 65536, 65536, 32768, 32768, 32768, 65536},
                 (uint8_t[]){0, 0, 1, 0, 0, 0, 0}, 65536, 1);
    vl_scaler_trace_free(t);
}

static void test_scaler_range_ends(void **state)
{
    (void)state;
    /* the top: 2^126 grows to 2^127; 2^127 * 2 is inf in fp32, so the scale stays (PyTorch
     * checks isfinite) and the tracker resets */
    vl_scaler_trace *t = trace(0x1p126f, 1, 3, 0, NULL, 0);
    assert_trace(t, (float[]){0x1p126f, 0x1p127f, 0x1p127f}, (uint8_t[]){0, 0, 0}, 0x1p127f, 0);
    assert_int_equal(t->n_growths, 1);
    vl_scaler_trace_free(t);

    /* the bottom: 2^-148 halves to fp32's smallest subnormal 2^-149, whose half ties to the
     * even 0; from 0 the scale never recovers (0 * 2 = 0), as in PyTorch */
    t = trace(0x1p-148f, 1, 5, 0, (uint64_t[]){1, 2, 3}, 3);
    assert_trace(t, (float[]){0x1p-148f, 0x1p-149f, 0, 0, 0}, (uint8_t[]){1, 1, 1, 0, 0}, 0, 0);
    vl_scaler_trace_free(t);
}

/* The defaults without injected infs: a largest gradient of 2^-4 overflows fp16 once the
 * scale reaches 2^20 (2^-4 * 2^20 = 65536 >= 65520).  The scale grows after steps 2000,
 * 4000, 6000 and 8000, so step 8001 runs at 2^20 and is skipped; steps 8002-10001 run at
 * 2^19, step 10002 at 2^20 again and is skipped; 1998 clean steps follow. */
static void test_scaler_natural_overflow(void **state)
{
    (void)state;
    vl_scaler_trace *t = trace(65536, 2000, 12000, 0x1p-4f, NULL, 0);
    for (size_t i = 0; i < t->steps; i++)
        assert_int_equal(t->skipped[i], i + 1 == 8001 || i + 1 == 10002);
    assert_true(t->scale[7999] == 0x1p19f && t->scale[8000] == 0x1p20f);
    assert_true(t->scale[10001] == 0x1p20f && t->scale[10002] == 0x1p19f);
    assert_true(t->final.scale == 0x1p19f);
    assert_int_equal(t->final.growth_tracker, 1998);
    vl_scaler_trace_free(t);

    /* injected infs: the same seed draws the same steps, about 1e-4 * 12000 of them */
    vl_scaler_opts o;
    vl_scaler_opts_default(&o);
    o.overflow_prob = 0.01;
    vl_scaler_trace *a = vl_scaler_trace_new(&cpu, &o), *b = vl_scaler_trace_new(&cpu, &o);
    assert_memory_equal(a->injected, b->injected, a->steps);
    assert_true(a->n_injected > 80 && a->n_injected < 160);
    for (size_t i = 0; i < a->steps; i++)
        assert_true(!a->injected[i] || a->skipped[i]);
    vl_scaler_trace_free(a);
    vl_scaler_trace_free(b);
}

/* ---- update -------------------------------------------------------------------------------- */

static void test_update_by_hand(void **state)
{
    (void)state;
    vl_update *u = malloc(sizeof *u);
    vl_update_opts o;
    assert_non_null(u);
    vl_update_opts_default(&o);
    o.steps = 1;
    /* w = 1, u = 2^-12: below 1 fp16's spacing is 2^-11, so 1 - 2^-12 is halfway between
     * 1 - 2^-11 (mantissa odd) and 1 (even): it rounds to 1, the update is lost.  fp32
     * keeps 0.999755859375. */
    assert_null(vl_update_compute(&cpu, &o, u));
    assert_true(u->repeat.final[VL_FMT_F16] == 1.0f && u->repeat.lost[VL_FMT_F16] == 1);
    assert_true(u->repeat.final[VL_FMT_BF16] == 1.0f && u->repeat.lost[VL_FMT_BF16] == 1);
    assert_true(u->repeat.final[VL_FMT_F32] == 0.999755859375f);
    assert_int_equal(u->repeat.lost[VL_FMT_F32], 0);

    /* u = 2^-11: 1 - 2^-11 is an fp16 value, kept; but upwards (u = -2^-11) 1 + 2^-11 ties
     * between 1 and 1 + 2^-10, and goes to the even 1: lost at |w/u| = 2048 exactly */
    o.update = 0x1p-11f;
    assert_null(vl_update_compute(&cpu, &o, u));
    assert_true(u->repeat.final[VL_FMT_F16] == 0.99951171875f);
    o.update = -0x1p-11f;
    assert_null(vl_update_compute(&cpu, &o, u));
    assert_true(u->repeat.final[VL_FMT_F16] == 1.0f);

    /* 1000 steps of 2^-12: fp32 master 1 - 1000/4096 = 0.755859375 (= 1548/2048, an fp16
     * value too); bf16 copy: 193.5/256 ties to 194/256 = 0.7578125; fp16 and bf16 weights
     * stay at 1 */
    o.update = 0x1p-12f;
    o.steps = 1000;
    assert_null(vl_update_compute(&cpu, &o, u));
    assert_true(u->repeat.final[VL_FMT_F32] == 0.755859375f);
    assert_true(u->repeat.final[VL_FMT_F16] == 1.0f);
    assert_int_equal(u->repeat.lost[VL_FMT_F16], 1000);
    assert_true(u->mixed[VL_FMT_F16] == 0.755859375f);
    assert_true(u->mixed[VL_FMT_BF16] == 0.7578125f);
    free(u);
}

/* Buckets of |w/u| against the rule for p significant bits: never lost below 2^p, always
 * from 2^(p+1), some of each in between. */
static void test_update_rule(void **state)
{
    (void)state;
    static const struct {
        vl_format f;
        int p;
    } rules[] = {{VL_FMT_F16, 11}, {VL_FMT_BF16, 8}, {VL_FMT_F32, 24}};
    vl_update *u = malloc(sizeof *u);
    vl_update_opts o;
    assert_non_null(u);
    vl_update_opts_default(&o);
    assert_null(vl_update_compute(&cpu, &o, u));
    for (int r = 0; r < 3; r++) {
        for (int b = 0; b < VL_UPDATE_BUCKETS; b++) {
            int k = b + VL_UPDATE_LOG2_MIN;
            uint32_t lost = u->lost[b][rules[r].f];
            if (k < rules[r].p)
                assert_int_equal(lost, 0);
            else if (k > rules[r].p)
                assert_int_equal(lost, o.per_bucket);
            else
                assert_true(lost > o.per_bucket / 4 && lost < 3 * o.per_bucket / 4);
        }
    }
    free(u);
}

/* ---- accumulate ---------------------------------------------------------------------------- */

static void test_accumulate(void **state)
{
    (void)state;
    vl_accumulate a;
    vl_accumulate_opts o;
    vl_accumulate_opts_default(&o);

    /* 10,000 values in [0, 1): about 5000 (sigma 29); fp16 cannot pass 2048, where its
     * spacing becomes 2 and any addend below 1 rounds back; it gets there long before the
     * end (in about 4100 steps).  fp32 is exact: multiples of 2^-11 below 2^13 need 24 bits. */
    assert_null(vl_accumulate_compute(&cpu, &o, &a));
    assert_true(fabs(a.exact_sum - 5000) < 150);
    assert_true(a.exact_sum * 2048 == floor(a.exact_sum * 2048));
    assert_true(a.acc.sum16 == 2048.0f);
    assert_true(a.acc.sum16_last > 3000 && a.acc.sum16_last < 6000);
    assert_true(a.acc.sum32 == a.exact_sum);
    /* products of fp16 values are exact in fp32; their fp32 sum errs by far less than one */
    assert_true(fabs(a.acc.dot32 - a.exact_dot) < 0.05);
    assert_true(a.acc.dot16 < a.exact_dot - 100);

    /* all 0.5: exact to 1024 (step 2048), then 1024 + 0.5 ties to the even 1024 */
    o.constant = true;
    o.value = 0.5f;
    assert_null(vl_accumulate_compute(&cpu, &o, &a));
    assert_true(a.acc.sum16 == 1024.0f);
    assert_int_equal(a.acc.sum16_last, 2048);
    assert_true(a.acc.sum32 == 5000.0f && a.exact_sum == 5000);
    /* products 0.25: exact to 512 (step 2048), where the spacing is 0.5 and 512.25 ties */
    assert_true(a.acc.dot16 == 512.0f);
    assert_true(a.acc.dot32 == 2500.0f);

    /* all 0.75: above 1024 each 0.75 rounds up to a whole 1, to 2048, and stops there */
    o.value = 0.75f;
    assert_null(vl_accumulate_compute(&cpu, &o, &a));
    assert_true(a.acc.sum16 == 2048.0f);
    assert_true(a.acc.sum32 == 7500.0f);
}

/* ---- the shared rules and the backend ---------------------------------------------------------
 */

static void test_log2_bin(void **state)
{
    (void)state;
    assert_int_equal(vl_log2_bin(vl_f32_bits(1.0f)), 149);
    assert_int_equal(vl_log2_bin(vl_f32_bits(-1.5f)), 149);
    assert_int_equal(vl_log2_bin(vl_f32_bits(0x1p-149f)), 0);
    assert_int_equal(vl_log2_bin(vl_f32_bits(0x1.8p-148f)), 1);
    assert_int_equal(vl_log2_bin(vl_f32_bits(0x1.fffffcp-127f)), 22); /* the largest subnormal */
    assert_int_equal(vl_log2_bin(vl_f32_bits(0x1p-126f)), 23);
    assert_int_equal(vl_log2_bin(vl_f32_bits(0x1.fffffep127f)), VL_HIST_BINS - 1);
    assert_int_equal(vl_log2_bin(vl_f32_bits(0.0f)), -1);
    assert_int_equal(vl_log2_bin(vl_f32_bits(-0.0f)), -1);
    assert_int_equal(vl_log2_bin(vl_f32_bits(INFINITY)), -1);
    assert_int_equal(vl_log2_bin(vl_f32_bits(NAN)), -1);
}

static void test_backend_open(void **state)
{
    (void)state;
    vl_backend b;
    char note[512];
    assert_true(vl_backend_open(&b, VL_BACKEND_CPU));
    assert_false(b.cuda);
    assert_string_equal(vl_backend_name(&b), "cpu");
    assert_string_equal(vl_backend_note(&b, note, sizeof note),
                        "the CPU backend was asked for: CPU emulation");
    assert_true(vl_backend_open(&b, VL_BACKEND_AUTO)); /* auto never fails */
    if (!b.cuda) {
        size_t len = strlen(vl_backend_note(&b, note, sizeof note));
        assert_true(len > 15 && strcmp(note + len - 15, ": CPU emulation") == 0);
        assert_false(vl_backend_open(&b, VL_BACKEND_CUDA));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_calibration),
        cmocka_unit_test(test_underflow_against_thresholds),
        cmocka_unit_test(test_underflow_scaling_rescues),
        cmocka_unit_test(test_scaler_growth),
        cmocka_unit_test(test_scaler_backoff),
        cmocka_unit_test(test_scaler_range_ends),
        cmocka_unit_test(test_scaler_natural_overflow),
        cmocka_unit_test(test_update_by_hand),
        cmocka_unit_test(test_update_rule),
        cmocka_unit_test(test_accumulate),
        cmocka_unit_test(test_log2_bin),
        cmocka_unit_test(test_backend_open),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
