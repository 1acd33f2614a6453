// test_cuda_host.cu: what the CUDA kernels' threads compute (cuda/kernel_work.cuh), run on
// the host with the reference code CUDA's headers carry, against the CPU kernels: the
// casts on the selftest's 1.6 million boundary inputs in every format, saturating or not;
// the underflow classes and bins; GradScaler traces at the defaults and at fp32's ends;
// updates; running sums.  It tests the kernels' own logic on any machine with nvcc; the
// GPU's instructions themselves are for `vramlab probe selftest` on a machine with a GPU.
#include <stdio.h>
#include <stdlib.h>

#include "core/cpu-kernels.h"
#include "core/probe.h"
#include "core/selftest.h"
#include "cuda/kernel_work.cuh"
#include "cuda/train_work.cuh"

static size_t checked, differ;

static void same(bool ok, const char *what, double x, double got, double want)
{
    checked++;
    if (!ok && differ++ < 10)
        printf("%s (input %a): kernel %a, CPU %a\n", what, x, got, want);
}

static bool same_float(float a, float b)
{
    return (isnan(a) && isnan(b)) || vl_f32_bits(a) == vl_f32_bits(b);
}

static void casts(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (int f = 0; f < VL_N_FORMATS; f++) {
            for (int sat = 0; sat < 2; sat++) {
                same(cast_code(f, x[i], sat) == vl_encode((vl_format)f, x[i], sat), "code", x[i],
                     cast_code(f, x[i], sat), vl_encode((vl_format)f, x[i], sat));
                same(cast_class(f, x[i], sat) == (int)vl_classify_cast((vl_format)f, x[i], sat),
                     "class", x[i], cast_class(f, x[i], sat),
                     vl_classify_cast((vl_format)f, x[i], sat));
            }
            same(same_float(round_to(f, x[i]), vl_round((vl_format)f, x[i], false)), "value", x[i],
                 round_to(f, x[i]), vl_round((vl_format)f, x[i], false));
        }
    }
}

static void underflow(const float *x, size_t n, float scale, bool saturate)
{
    static vl_cast_counts gpu, cpu;
    memset(&gpu, 0, sizeof gpu);
    for (size_t i = 0; i < n; i++) {
        float y = mul_rn(x[i], scale);
        int b = vl_log2_bin(vl_f32_bits(y));
        if (b >= 0)
            gpu.hist[b]++;
        for (int f = 0; f < VL_N_FORMATS; f++)
            gpu.cls[f][underflow_class(f, x[i], y, saturate)]++;
    }
    vl_cpu_underflow(x, n, scale, saturate, VL_ALL_FORMATS, &cpu);
    for (int f = 0; f < VL_N_FORMATS; f++)
        for (int c = 0; c < VL_N_CLASSES; c++)
            same(gpu.cls[f][c] == cpu.cls[f][c], "underflow count", scale, (double)gpu.cls[f][c],
                 (double)cpu.cls[f][c]);
    for (int b = 0; b < VL_HIST_BINS; b++)
        same(gpu.hist[b] == cpu.hist[b], "underflow bin", b, (double)gpu.hist[b],
             (double)cpu.hist[b]);
}

static void scaler(vl_scaler_params p, float grad_max, size_t steps, size_t inject_every)
{
    float *g = (float *)malloc(steps * sizeof *g), *s1 = (float *)malloc(steps * sizeof *s1);
    float *s2 = (float *)malloc(steps * sizeof *s2);
    uint8_t *f1 = (uint8_t *)malloc(steps), *f2 = (uint8_t *)malloc(steps);
    vl_scaler_state e1, e2;
    for (size_t i = 0; i < steps; i++)
        g[i] = inject_every && i % inject_every == 0 ? INFINITY : grad_max;
    scaler_run(&p, g, steps, s1, f1, &e1);
    vl_cpu_scaler(&p, g, steps, s2, f2, &e2);
    for (size_t i = 0; i < steps; i++) {
        same(same_float(s1[i], s2[i]), "scaler scale", (double)i, s1[i], s2[i]);
        same(f1[i] == f2[i], "scaler overflow", (double)i, f1[i], f2[i]);
    }
    same(same_float(e1.scale, e2.scale) && e1.growth_tracker == e2.growth_tracker, "scaler final",
         0, e1.scale, e2.scale);
    free(g);
    free(s1);
    free(s2);
    free(f1);
    free(f2);
}

// One training operation (core/train-work.h) through the kernels' items with CUDA's
// conversions and through the CPU emulation, from the same arena: every float and counter.
static void train_op(const char *what, const vl_top *op, const float *mem0, size_t n_mem)
{
    float *a = (float *)malloc(n_mem * sizeof *a), *b = (float *)malloc(n_mem * sizeof *b);
    uint32_t ca[VL_N_CLASSES + 1] = {0}, cb[VL_N_CLASSES + 1] = {0};
    memcpy(a, mem0, n_mem * sizeof *a);
    memcpy(b, mem0, n_mem * sizeof *b);
    for (uint32_t i = 0, n = vl_tw_items(op); i < n; i++)
        vl_tw_item(op, a, ca, i);
    vl_cpu_train_op(b, cb, op);
    for (size_t i = 0; i < n_mem; i++)
        same(same_float(a[i], b[i]), what, (double)i, a[i], b[i]);
    for (int c = 0; c <= VL_N_CLASSES; c++)
        same(ca[c] == cb[c], what, c, ca[c], cb[c]);
    free(a);
    free(b);
}

// Casts, products (both accumulators, transposed or not, with bias and relu), column sums,
// the loss, Adam and amax, in every format, on values from the gradient sample and the
// boundary inputs spread over many octaves.
static void train_ops(const float *g, size_t ng, const float *x, size_t nx)
{
    enum { M = 19, N = 13, K = 37, AREA = 4096 };
    float *mem = (float *)malloc(6 * AREA * sizeof *mem);
    for (size_t i = 0; i < 6 * AREA; i++) // magnitudes from about 2^-40 to 2^20
        mem[i] = g[i % ng] * 0x1p24f;
    for (int f = 0; f < VL_N_FORMATS; f++) {
        vl_top op = {};
        op.bias = VL_TOP_NONE;
        op.counts = 0;
        op.kind = VL_TOP_CAST;
        op.fmt = f;
        op.n = AREA;
        op.c = AREA;
        for (float scale : {1.0f, 0x1p10f, 0x1p-20f}) {
            op.scale = scale;
            train_op("train cast (sample)", &op, mem, 6 * AREA);
        }
        op.n = (uint32_t)(nx < AREA ? nx : AREA);
        float *bx = (float *)malloc(2 * AREA * sizeof *bx);
        for (uint32_t i = 0; i < 2 * AREA; i++)
            bx[i] = x[(i * 397u) % nx];
        op.scale = 1.0f;
        train_op("train cast (boundaries)", &op, bx, 2 * AREA);
        free(bx);
        for (int acc = 0; acc < 2; acc++)
            for (int t = 0; t < 4; t++) {
                vl_top mm = {};
                mm.kind = VL_TOP_MATMUL;
                mm.fmt = f;
                mm.acc = acc ? f : VL_FMT_F32;
                mm.relu = t & 1;
                mm.ta = t >> 1 & 1;
                mm.tb = t & 1;
                mm.m = M;
                mm.n = N;
                mm.k = K;
                mm.a = 0;
                mm.b = AREA;
                mm.c = 2 * AREA;
                mm.bias = t == 3 ? VL_TOP_NONE : 3 * AREA;
                mm.counts = 0;
                mm.alpha = 0.25f;
                train_op("train matmul", &mm, mem, 6 * AREA);
            }
        vl_top cs = {};
        cs.kind = VL_TOP_COLSUM;
        cs.fmt = f;
        cs.m = 64;
        cs.n = 32;
        cs.a = 0;
        cs.c = 2 * AREA;
        cs.alpha = 0x1p-3f;
        cs.counts = 0;
        cs.bias = VL_TOP_NONE;
        train_op("train colsum", &cs, mem, 6 * AREA);
        vl_top ad = {};
        ad.kind = VL_TOP_ADAM;
        ad.fmt = f;
        ad.n = AREA;
        ad.a = 0;
        ad.b = AREA;
        ad.c = 2 * AREA;
        ad.d = 3 * AREA;
        ad.lr = 0.02f;
        ad.b1 = 0.9f;
        ad.c1 = 1.0f - 0.9f;
        ad.b2 = 0.999f;
        ad.c2 = 1.0f - 0.999f;
        ad.eps = 1e-8f;
        ad.bc1 = 1.0f - 0.9f * 0.9f;
        ad.bc2 = 1.0f - 0.999f * 0.999f;
        ad.unscale = 0x1p-16f;
        ad.bias = VL_TOP_NONE;
        float *m2 = (float *)malloc(6 * AREA * sizeof *m2);
        memcpy(m2, mem, 6 * AREA * sizeof *m2);
        for (uint32_t i = 3 * AREA; i < 4 * AREA; i++) // second moments are not negative
            m2[i] = fabsf(m2[i]);
        train_op("train adam", &ad, m2, 6 * AREA);
        free(m2);
    }
    // the loss: logits in [-16, 16], labels 0..3
    float *lm = (float *)malloc(AREA * sizeof *lm);
    for (uint32_t i = 0; i < 1024; i++)
        lm[i] = (float)((int)(vl_f32_bits(g[i % ng]) % 4096) - 2048) * 0x1p-7f;
    for (uint32_t r = 0; r < 256; r++)
        lm[1024 + r] = (float)(r % 4);
    vl_top lo = {};
    lo.kind = VL_TOP_LOSS;
    lo.m = 256;
    lo.n = 4;
    lo.a = 0;
    lo.b = 1024;
    lo.c = 2048;
    lo.d = 3072;
    lo.scale = 0x1p-8f;
    lo.bias = VL_TOP_NONE;
    train_op("train loss", &lo, lm, AREA);
    free(lm);
    vl_top am = {};
    am.kind = VL_TOP_AMAX;
    am.n = 6 * AREA;
    am.counts = VL_N_CLASSES;
    am.bias = VL_TOP_NONE;
    train_op("train amax", &am, mem, 6 * AREA);
    vl_top rb = {};
    rb.kind = VL_TOP_RELU_BACK;
    rb.n = AREA;
    rb.a = 0;
    rb.b = AREA;
    rb.c = 2 * AREA;
    rb.bias = VL_TOP_NONE;
    train_op("train relu backward", &rb, mem, 6 * AREA);
    free(mem);
}

int main(void)
{
    size_t n, ns = 1u << 18;
    float *x = vl_selftest_inputs(&n), *g = (float *)malloc(ns * sizeof *g);
    float *out = (float *)malloc(n * sizeof *out);
    if (!x || !g || !out) {
        puts("out of memory");
        return 99;
    }
    vl_sample_fill(g, ns, VL_PROBE_SEED);

    casts(x, n);
    static const float scales[] = {1.0f, 8.0f, 65536.0f, 0x1p-10f, 3.0f, 0x1p100f};
    for (int s = 0; s < 6; s++) {
        underflow(g, ns, scales[s], s & 1);
        underflow(x, n, scales[s], !(s & 1));
    }

    scaler({65536.0f, 2.0, 0.5, 2000}, 0x1p-4f, 12000, 4567);
    scaler({0x1p126f, 2.0, 0.5, 1}, 0.0f, 8, 0);
    scaler({0x1p-147f, 2.0, 0.5, 2000}, 0.0f, 12, 1);
    scaler({65536.0f, 1.5, 0.7, 3}, 0x1p-6f, 5000, 17);

    for (int f = 0; f < VL_N_FORMATS; f++) {
        vl_cpu_sub((vl_format)f, x, x + 1, n - 1, out);
        for (size_t i = 0; i + 1 < n; i++)
            same(same_float(sub_one(f, x[i], x[i + 1]), out[i]), "update", x[i],
                 sub_one(f, x[i], x[i + 1]), out[i]);
    }
    static const float repeats[][2] = {
        {1.0f, 0x1p-12f}, {1.0f, -0x1p-11f}, {0.1f, 1e-5f}, {448.0f, -16.0f}, {65504.0f, -16.0f}};
    for (int i = 0; i < 5; i++) {
        vl_repeat a, b;
        for (int f = 0; f < VL_N_FORMATS; f++)
            repeat_one(f, repeats[i][0], repeats[i][1], 1000, &a);
        vl_cpu_repeat(repeats[i][0], repeats[i][1], 1000, &b);
        for (int f = 0; f < VL_N_FORMATS; f++)
            same(same_float(a.final[f], b.final[f]) && a.lost[f] == b.lost[f], "repeat",
                 repeats[i][0], a.final[f], b.final[f]);
    }

    for (size_t i = 0; i < ns; i++) /* values in [0, 1): the multiples of 2^-11 below 1 */
        out[i] = (float)(vl_f32_bits(g[i]) >> 21) * 0x1p-11f;
    for (int k = 0; k < 3; k++) {
        const float *a = k == 0   ? out
                         : k == 1 ? x
                                  : g,
                    *c = k == 0   ? out + 1
                         : k == 1 ? x + 1
                                  : g + 1;
        vl_accum r1, r2;
        accumulate_run(a, c, 10000, &r1);
        vl_cpu_accumulate(a, c, 10000, &r2);
        same(same_float(r1.sum16, r2.sum16) && same_float(r1.sum32, r2.sum32) &&
                 same_float(r1.dot16, r2.dot16) && same_float(r1.dot32, r2.dot32) &&
                 r1.sum16_last == r2.sum16_last && r1.dot16_last == r2.dot16_last,
             "accumulate", k, r1.sum16, r2.sum16);
    }

    train_ops(g, ns, x, n);

    printf("%zu results compared, %zu differ\n", checked, differ);
    free(x);
    free(g);
    free(out);
    return differ != 0;
}
