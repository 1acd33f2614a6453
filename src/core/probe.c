/* probe.c: the mixed-precision experiments (probe.h). */
#include "probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* +-(1 + m/128) * 2^e, e a normal fp32 exponent: 8 significant bits. */
static float value8(bool negative, uint32_t m, int e)
{
    return vl_f32_from_bits((uint32_t)negative << 31 | (uint32_t)(e + 127) << 23 | m << 16);
}

/* ---- the gradient sample ---------------------------------------------------------------- */

void vl_sample_fill(float *g, size_t n, uint64_t seed)
{
    uint64_t s = seed;

    for (size_t i = 0; i < n; i++) {
        if (vl_uniform(&s) < VL_SAMPLE_ZEROS) {
            g[i] = 0;
            continue;
        }
        double z = -6;
        for (int k = 0; k < 12; k++)
            z += vl_uniform(&s);
        /* |z| <= 6, so e lies in [-63, 12]: a normal fp32 exponent */
        int e = (int)floor(VL_SAMPLE_LOG2_MEAN + VL_SAMPLE_LOG2_SIGMA * z);
        uint64_t r = vl_splitmix64(&s);
        g[i] = vl_f32_from_bits((uint32_t)(r >> 63) << 31 | (uint32_t)(e + 127) << 23 |
                         (uint32_t)(r & 0x7FFFFF));
    }
}

/* ---- underflow ---------------------------------------------------------------------------- */

void vl_underflow_compute(vl_backend *b, const float *g, size_t n, const float *scales,
                          int n_scales, bool saturate, vl_underflow *out)
{
    out->n = n;
    out->saturate = saturate;
    out->n_runs = n_scales;
    vl_cast_counts *counts[VL_UNDERFLOW_MAX_SCALES];
    for (int r = 0; r < n_scales; r++) {
        out->runs[r].scale = scales[r];
        counts[r] = &out->runs[r].counts;
    }
    vl_run_underflow(b, g, n, scales, n_scales, saturate, VL_ALL_FORMATS, counts);
}

/* ---- scaler ------------------------------------------------------------------------------- */

void vl_scaler_opts_default(vl_scaler_opts *o)
{
    *o = (vl_scaler_opts){
        .params = {65536.0f, 2.0, 0.5, 2000},
        .steps = 12000,
        .grad_max = 0x1p-4f,
        .overflow_prob = 1e-4,
        .seed = VL_PROBE_SEED,
    };
}

void vl_scaler_trace_free(vl_scaler_trace *t)
{
    if (!t)
        return;
    free(t->scale);
    free(t->skipped);
    free(t->injected);
    free(t);
}

vl_scaler_trace *vl_scaler_trace_new(vl_backend *b, const vl_scaler_opts *o)
{
    size_t n = o->steps;
    vl_scaler_trace *t = calloc(1, sizeof *t);
    float *grad = malloc(n * sizeof *grad);

    if (t) {
        t->steps = n;
        t->scale = malloc(n * sizeof *t->scale);
        t->skipped = malloc(n);
        t->injected = calloc(n, 1);
    }
    if (!t || !grad || !t->scale || !t->skipped || !t->injected) {
        free(grad);
        vl_scaler_trace_free(t);
        return NULL;
    }
    uint64_t s = o->seed ^ 0x5CA1E5u;
    for (size_t i = 0; i < n; i++)
        t->injected[i] = !o->n_overflow_at && vl_uniform(&s) < o->overflow_prob;
    for (size_t i = 0; i < o->n_overflow_at; i++)
        if (o->overflow_at[i] >= 1 && o->overflow_at[i] <= n)
            t->injected[o->overflow_at[i] - 1] = 1;
    for (size_t i = 0; i < n; i++) {
        grad[i] = t->injected[i] ? INFINITY : o->grad_max;
        t->n_injected += t->injected[i];
    }
    vl_run_scaler(b, &o->params, grad, n, t->scale, t->skipped, &t->final);
    for (size_t i = 0; i < n; i++) {
        float after = i + 1 < n ? t->scale[i + 1] : t->final.scale;
        t->n_skipped += t->skipped[i];
        t->n_growths += after > t->scale[i];
    }
    free(grad);
    return t;
}

/* ---- update ------------------------------------------------------------------------------- */

void vl_update_opts_default(vl_update_opts *o)
{
    *o = (vl_update_opts){.per_bucket = 1024,
                          .seed = VL_PROBE_SEED,
                          .weight = 1.0f,
                          .update = 0x1p-12f,
                          .steps = 1000};
}

/* Pair j of bucket k: w = +-(1 + mw/128) 2^ew, ew in -4..-1, and u = +-(1 + mu/128) 2^eu
 * with eu = ew - k when mw >= mu, so |w/u| = (128+mw)/(128+mu) 2^k is in [2^k, 2^(k+1));
 * else eu = ew - k - 1 and |w/u| is in (2^k, 2^(k+1)) too. */
static void update_pair(uint64_t *s, int k, float *w, float *u)
{
    uint64_t r = vl_splitmix64(s);
    uint32_t mw = r & 127, mu = r >> 7 & 127;
    int ew = -4 + (int)(r >> 14 & 3), eu = ew - k - (mw < mu);
    *w = value8(r >> 16 & 1, mw, ew);
    *u = value8(r >> 17 & 1, mu, eu);
}

const char *vl_update_compute(vl_backend *b, const vl_update_opts *o, vl_update *out)
{
    size_t per = o->per_bucket, n = per * VL_UPDATE_BUCKETS;
    float *w = malloc(n * sizeof *w), *u = malloc(n * sizeof *u), *res = malloc(n * sizeof *res);

    if (!w || !u || !res) {
        free(w);
        free(u);
        free(res);
        return "out of memory";
    }
    memset(out, 0, sizeof *out);
    out->per_bucket = per;
    uint64_t s = o->seed ^ 0x0BDA7Eu;
    for (size_t i = 0; i < n; i++)
        update_pair(&s, VL_UPDATE_LOG2_MIN + (int)(i / per), &w[i], &u[i]);
    for (int f = 0; f < VL_N_FORMATS; f++) {
        vl_run_sub(b, (vl_format)f, w, u, n, res);
        for (size_t i = 0; i < n; i++)
            out->lost[i / per][f] += res[i] == vl_round((vl_format)f, w[i], false);
    }
    out->weight = o->weight;
    out->update = o->update;
    out->steps = o->steps;
    vl_run_repeat(b, o->weight, o->update, o->steps, &out->repeat);
    for (int f = 0; f < VL_N_FORMATS; f++)
        out->mixed[f] = vl_round((vl_format)f, out->repeat.final[VL_FMT_F32], false);
    free(w);
    free(u);
    free(res);
    return NULL;
}

/* ---- accumulate --------------------------------------------------------------------------- */

void vl_accumulate_opts_default(vl_accumulate_opts *o)
{
    *o = (vl_accumulate_opts){.n = VL_ACCUMULATE_COUNT, .seed = VL_PROBE_SEED};
}

const char *vl_accumulate_compute(vl_backend *b, const vl_accumulate_opts *o, vl_accumulate *out)
{
    size_t n = o->n;
    float *a = malloc(n * sizeof *a), *c = malloc(n * sizeof *c);

    if (!a || !c) {
        free(a);
        free(c);
        return "out of memory";
    }
    memset(out, 0, sizeof *out);
    out->n = n;
    out->constant = o->constant;
    if (o->constant) {
        float v = vl_round(VL_FMT_F16, o->value, false);
        for (size_t i = 0; i < n; i++)
            a[i] = c[i] = v;
        out->value = v;
        out->exact_sum = (double)n * v; /* 11 bits times a count below 2^28: exact */
        out->exact_dot = (double)n * ((double)v * v);
    } else {
        /* a = ka/2048, c = kc/2048: the sums of ka and of ka*kc are exact integers */
        uint64_t s = o->seed ^ 0xACC0u, sum = 0, dot = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = vl_splitmix64(&s), ka = r >> 53, kc = r >> 42 & 2047;
            a[i] = (float)ka * 0x1p-11f;
            c[i] = (float)kc * 0x1p-11f;
            sum += ka;
            dot += ka * kc;
        }
        out->exact_sum = (double)sum * 0x1p-11;
        out->exact_dot = (double)dot * 0x1p-22;
    }
    vl_run_accumulate(b, a, c, n, &out->acc);
    free(a);
    free(c);
    return NULL;
}
