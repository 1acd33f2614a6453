/* cpu-kernels.c: the probe's micro-kernels with the software codecs (cpu-kernels.h). */
#include "cpu-kernels.h"

#include <string.h>

void vl_cpu_encode(vl_format f, bool saturate, const float *x, size_t n, uint32_t *codes)
{
    vl_cast_n(f, x, n, saturate, codes, NULL);
}

/* Blocks small enough to stay in the L1 cache between the passes over them. */
#define BLOCK 2048

/* Counting into four interleaved tables keeps consecutive increments of one counter from
 * waiting on each other. */
void vl_cpu_underflow(const float *x, size_t n, float scale, bool saturate, vl_cast_counts *out)
{
    float y[BLOCK];
    uint8_t cls[BLOCK];
    uint32_t bits, hist[4][VL_HIST_BINS + 1]; /* +1: bin -1 (zero, inf, NaN) lands at 0 */
    uint32_t counts[4][VL_N_CLASSES];

    memset(out, 0, sizeof *out);
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t k = n - start < BLOCK ? n - start : BLOCK;
        memset(hist, 0, sizeof hist);
        for (size_t i = 0; i < k; i++) {
            y[i] = x[start + i] * scale;
            memcpy(&bits, &y[i], sizeof bits);
            hist[i & 3][vl_log2_bin(bits) + 1]++;
        }
        for (int b = 0; b < VL_HIST_BINS; b++)
            out->hist[b] += (uint64_t)hist[0][b + 1] + hist[1][b + 1] + hist[2][b + 1] +
                            hist[3][b + 1];
        for (int f = 0; f < VL_N_FORMATS; f++) {
            vl_cast_n((vl_format)f, y, k, saturate, NULL, cls);
            memset(counts, 0, sizeof counts);
            for (size_t i = 0; i < k; i++) /* a gradient whose product underflowed fp32 */
                counts[i & 3][cls[i] == VL_CLS_ZERO && x[start + i] != 0 ? VL_CLS_FLUSHED
                                                                         : cls[i]]++;
            for (int c = 0; c < VL_N_CLASSES; c++)
                out->cls[f][c] += (uint64_t)counts[0][c] + counts[1][c] + counts[2][c] +
                                  counts[3][c];
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
