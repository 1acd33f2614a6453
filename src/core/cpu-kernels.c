/* cpu-kernels.c: the probe's micro-kernels with the software codecs (cpu-kernels.h). */
#include "cpu-kernels.h"

#include <string.h>

#define VL_TRAIN_ROUND(f, x) vl_round((vl_format)(f), (x), false)
#define VL_TRAIN_COUNT(p, v) (*(p) += (v))
#define VL_TRAIN_MAX(p, v) (*(p) = *(p) > (v) ? *(p) : (v))
#include "train-work.h"

#include "simd.h"

void vl_cpu_encode(vl_format f, bool saturate, const float *x, size_t n, uint32_t *codes)
{
    vl_cast_n(f, x, n, saturate, codes, NULL);
}

/* Blocks small enough to stay in the L1 cache between the passes over them. */
#define BLOCK 2048

/* counts[c] += the elements of cls[0..n) equal to c: one vector pass per class. */
static void count_classes(const uint8_t *cls, size_t n, uint64_t *counts)
{
    for (int c = 0; c < VL_N_CLASSES; c++) {
        uint32_t k = 0;
        VL_SIMD_SUM(k)
        for (size_t i = 0; i < n; i++)
            k += (uint32_t)(cls[i] == (uint8_t)c);
        counts[c] += k;
    }
}

void vl_cpu_underflow(const float *x, size_t n, float scale, bool saturate, unsigned formats,
                      vl_cast_counts *out)
{
    float y[BLOCK];
    uint8_t cls[BLOCK];
    uint16_t bin[BLOCK];
    /* four interleaved tables, so that consecutive increments do not wait on each other;
     * +1: bin -1 (zero, inf, NaN) lands at 0 */
    uint32_t hist[4][VL_HIST_BINS + 1];

    memset(out, 0, sizeof *out);
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t k = n - start < BLOCK ? n - start : BLOCK;
        const float *xs = x + start;
        VL_SIMD_LOOP
        for (size_t i = 0; i < k; i++) {
            uint32_t bits;
            y[i] = xs[i] * scale;
            memcpy(&bits, &y[i], sizeof bits);
            bin[i] = (uint16_t)(vl_log2_bin(bits) + 1);
        }
        memset(hist, 0, sizeof hist);
        for (size_t i = 0; i < k; i++)
            hist[i & 3][bin[i]]++;
        for (int b = 0; b < VL_HIST_BINS; b++)
            out->hist[b] +=
                (uint64_t)hist[0][b + 1] + hist[1][b + 1] + hist[2][b + 1] + hist[3][b + 1];
        for (int f = 0; f < VL_N_FORMATS; f++) {
            if (!(formats >> f & 1))
                continue;
            vl_cast_n((vl_format)f, y, k, saturate, NULL, cls);
            /* a gradient whose product underflowed fp32: zero + 1 = flushed */
            VL_SIMD_LOOP
            for (size_t i = 0; i < k; i++)
                cls[i] = (uint8_t)(cls[i] + ((cls[i] == VL_CLS_ZERO) & (xs[i] != 0)));
            count_classes(cls, k, out->cls[f]);
        }
    }
}

void vl_cpu_scaler(const vl_scaler_params *p, const float *grad_max, size_t steps, float *scale,
                   uint8_t *found_inf, vl_scaler_state *final)
{
    vl_scaler_state s = {p->init_scale, 0};

    for (size_t i = 0; i < steps; i++) {
        vl_class c = vl_classify_cast(VL_FMT_F16, grad_max[i] * s.scale, false);
        scale[i] = s.scale;
        found_inf[i] = c == VL_CLS_INF || c == VL_CLS_NAN;
        vl_scaler_update(&s, found_inf[i], p);
    }
    *final = s;
}

void vl_cpu_sub(vl_format f, const float *w, const float *u, size_t n, float *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = vl_fmt_add(f, w[i], -u[i]);
}

void vl_cpu_repeat(float w, float u, uint32_t steps, vl_repeat *out)
{
    for (int f = 0; f < VL_N_FORMATS; f++) {
        float v = vl_round((vl_format)f, w, false);
        out->lost[f] = 0;
        for (uint32_t i = 0; i < steps; i++) {
            float next = vl_fmt_add((vl_format)f, v, -u);
            out->lost[f] += next == v;
            v = next;
        }
        out->final[f] = v;
    }
}

void vl_cpu_accumulate(const float *a, const float *c, size_t n, vl_accum *out)
{
    vl_accum r = {0};

    for (size_t i = 0; i < n; i++) {
        float x = vl_round(VL_FMT_F16, a[i], false);
        float p = x * vl_round(VL_FMT_F16, c[i], false); /* 22 bits: exact in fp32 */
        float s16 = vl_fmt_add(VL_FMT_F16, r.sum16, x);
        float d16 = vl_fmt_add(VL_FMT_F16, r.dot16, p);
        if (s16 != r.sum16)
            r.sum16_last = (uint32_t)(i + 1);
        if (d16 != r.dot16)
            r.dot16_last = (uint32_t)(i + 1);
        r.sum16 = s16;
        r.dot16 = d16;
        r.sum32 += x;
        r.dot32 += p;
    }
    *out = r;
}

void vl_cpu_train_op(float *mem, uint32_t *cnt, const vl_top *op)
{
    uint32_t n = vl_tw_items(op);
    for (uint32_t i = 0; i < n; i++)
        vl_tw_item(op, mem, cnt, i);
}
