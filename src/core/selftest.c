/* selftest.c: the CUDA kernels against the CPU emulation (selftest.h). */
#include "selftest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "train.h"

/* The inputs where casts go wrong if they go wrong anywhere: for every narrow format, each
 * code's value, the point halfway to the next code and the floats either side of it, up to
 * halfway past the largest finite value, both signs; fp32's extremes; infinities, NaNs;
 * and every 4099th fp32 bit pattern. */
float *vl_selftest_inputs(size_t *n)
{
    size_t cap = 1u << 22, k = 0;
    float *v = malloc(cap * sizeof *v);
    static const uint32_t specials[] = {0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                                        0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x3F800000};
    if (!v)
        return NULL;
    for (vl_format f = VL_FMT_F16; f < VL_N_FORMATS; f++) {
        const vl_format_info *t = &vl_formats[f];
        for (uint32_t c = 0; c <= t->max_code; c++) {
            double lo = vl_decode(f, c),
                   hi = c < t->max_code ? vl_decode(f, c + 1) : 2 * t->max - vl_decode(f, c - 1);
            float mid = (float)((lo + hi) / 2),
                  pts[4] = {(float)lo, nextafterf(mid, 0), mid, nextafterf(mid, INFINITY)};
            for (int i = 0; i < 4; i++) {
                v[k++] = pts[i];
                v[k++] = -pts[i];
            }
        }
    }
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        float x;
        memcpy(&x, &specials[i], sizeof x);
        v[k++] = x;
        v[k++] = -x;
    }
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        uint32_t bits = (uint32_t)u;
        memcpy(&v[k++], &bits, sizeof bits);
    }
    *n = k; /* about 1.8 million: under cap */
    return v;
}

static bool same_float(float a, float b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static vl_selftest_check *check(vl_selftest *t, const char *name)
{
    vl_selftest_check *c = &t->checks[t->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

static void differ(vl_selftest_check *c, uint64_t i, const char *fmt, double gpu, double cpu)
{
    if (c->differ++ == 0)
        snprintf(c->first, sizeof c->first, fmt, (unsigned long long)i, gpu, cpu);
}

static void compare_u64(vl_selftest_check *c, const uint64_t *gpu, const uint64_t *cpu, size_t n)
{
    for (size_t i = 0; i < n; i++, c->compared++)
        if (gpu[i] != cpu[i])
            differ(c, i, "counter %llu: CUDA %.0f, CPU %.0f", (double)gpu[i], (double)cpu[i]);
}

static void compare_floats(vl_selftest_check *c, const float *gpu, const float *cpu, size_t n)
{
    for (size_t i = 0; i < n; i++, c->compared++)
        if (!same_float(gpu[i], cpu[i]))
            differ(c, i, "value %llu: CUDA %a, CPU %a", gpu[i], cpu[i]);
}

static void compare_bytes(vl_selftest_check *c, const uint8_t *gpu, const uint8_t *cpu, size_t n)
{
    for (size_t i = 0; i < n; i++, c->compared++)
        if (gpu[i] != cpu[i])
            differ(c, i, "flag %llu: CUDA %.0f, CPU %.0f", gpu[i], cpu[i]);
}

static void check_encode(vl_backend *cuda, vl_backend *cpu, vl_selftest *t, const float *x,
                         size_t n, uint32_t *codes)
{
    for (vl_format f = VL_FMT_F32; f < VL_N_FORMATS && cuda->cuda; f++) {
        for (int sat = 0; sat < 2 && cuda->cuda; sat++) {
            char name[48];
            snprintf(name, sizeof name, "encode %s%s", vl_format_names[f],
                     sat ? " saturating" : "");
            vl_selftest_check *c = check(t, name);
            vl_run_encode(cuda, f, sat, x, n, codes);
            vl_run_encode(cpu, f, sat, x, n, codes + n);
            for (size_t i = 0; i < n; i++, c->compared++)
                if (codes[i] != codes[n + i] && c->differ++ == 0)
                    snprintf(c->first, sizeof c->first, "%a: CUDA 0x%x, CPU 0x%x", (double)x[i],
                             (unsigned)codes[i], (unsigned)codes[n + i]);
        }
    }
}

static void check_underflow(vl_backend *cuda, vl_backend *cpu, vl_selftest *t, const char *name,
                            const float *x, size_t n)
{
    enum { NS = 5 };
    static const float scales[NS] = {1.0f, 8.0f, 65536.0f, 0x1p-10f, 0x1p100f};
    vl_cast_counts *gpu = malloc(2 * NS * sizeof *gpu), *g[NS], *h[NS];
    vl_selftest_check *c = check(t, name);

    if (!gpu)
        return;
    for (int s = 0; s < NS; s++) {
        g[s] = gpu + s;
        h[s] = gpu + NS + s;
    }
    for (int sat = 0; sat < 2 && cuda->cuda; sat++) {
        vl_run_underflow(cuda, x, n, scales, NS, sat, VL_ALL_FORMATS, g);
        vl_run_underflow(cpu, x, n, scales, NS, sat, VL_ALL_FORMATS, h);
        for (int s = 0; s < NS; s++) {
            compare_u64(c, &g[s]->cls[0][0], &h[s]->cls[0][0], VL_N_FORMATS * VL_N_CLASSES);
            compare_u64(c, g[s]->hist, h[s]->hist, VL_HIST_BINS);
        }
    }
    free(gpu);
}

static bool check_scaler(vl_backend *cuda, vl_backend *cpu, vl_selftest *t, const char *name,
                         const vl_scaler_opts *o)
{
    vl_scaler_trace *g = vl_scaler_trace_new(cuda, o), *h = vl_scaler_trace_new(cpu, o);
    if (g && h) {
        vl_selftest_check *c = check(t, name);
        compare_floats(c, g->scale, h->scale, g->steps);
        compare_bytes(c, g->skipped, h->skipped, g->steps);
        compare_floats(c, &g->final.scale, &h->final.scale, 1);
        c->compared++;
        if (g->final.growth_tracker != h->final.growth_tracker)
            differ(c, 0, "growth tracker %llu: CUDA %.0f, CPU %.0f", g->final.growth_tracker,
                   h->final.growth_tracker);
    }
    vl_scaler_trace_free(g);
    vl_scaler_trace_free(h);
    return g && h;
}

static void check_accum(vl_selftest_check *c, const vl_accum *g, const vl_accum *h)
{
    float gv[4] = {g->sum16, g->sum32, g->dot16, g->dot32};
    float hv[4] = {h->sum16, h->sum32, h->dot16, h->dot32};
    uint64_t gl[2] = {g->sum16_last, g->dot16_last}, hl[2] = {h->sum16_last, h->dot16_last};
    compare_floats(c, gv, hv, 4);
    compare_u64(c, gl, hl, 2);
}

/* Every training regime, a few dozen steps on both backends (with sums in fp32 and in the
 * format): the per-step losses, fractions and scales, and the final loss. */
static bool check_train(vl_backend *cuda, vl_backend *cpu, vl_selftest *t, bool in_format)
{
    vl_train_opts o;
    vl_train_opts_default(&o);
    o.steps = 40;
    o.accumulate_in_format = in_format;
    o.static_scale = 0x1p20f; /* large enough to overflow now and then: skips compared too */
    for (int g = 0; g < VL_N_REGIMES && cuda->cuda; g++) {
        vl_train_run *a = vl_train_init(cuda, &o, g), *h = vl_train_init(cpu, &o, g);
        if (!a || !h) {
            vl_train_free(a);
            vl_train_free(h);
            return false;
        }
        vl_train_step(a, o.steps);
        vl_train_step(h, o.steps);
        char name[48];
        snprintf(name, sizeof name, "train %s%s", vl_train_regimes[g].name,
                 in_format ? ", sums in format" : "");
        vl_selftest_check *c = check(t, name);
        compare_floats(c, a->loss, h->loss, o.steps);
        compare_floats(c, a->flushed, h->flushed, o.steps);
        compare_floats(c, a->subnormal, h->subnormal, o.steps);
        compare_floats(c, a->scale, h->scale, o.steps);
        compare_bytes(c, a->skipped_at, h->skipped_at, o.steps);
        float fa[2] = {(float)a->final_loss, (float)a->accuracy},
              fh[2] = {(float)h->final_loss, (float)h->accuracy};
        compare_floats(c, fa, fh, 2);
        if (a->restarts)
            snprintf(c->first, sizeof c->first, "CUDA failed mid-run: %.150s", cuda->why_cpu);
        vl_train_free(a);
        vl_train_free(h);
    }
    return true;
}

const char *vl_selftest_run(vl_backend *cuda, vl_selftest *out)
{
    vl_backend cpu;
    size_t n = 0, ns = 1u << 20;
    float *x = vl_selftest_inputs(&n), *sample = malloc(ns * sizeof *sample);
    float *res = malloc(2 * n * sizeof *res);
    uint32_t *codes = malloc(2 * n * sizeof *codes);
    const char *why = NULL;

    memset(out, 0, sizeof *out);
    vl_backend_open(&cpu, VL_BACKEND_CPU);
    if (!x || !sample || !res || !codes) {
        why = "out of memory";
        goto done;
    }
    vl_sample_fill(sample, ns, VL_PROBE_SEED);

    check_encode(cuda, &cpu, out, x, n, codes);
    if (cuda->cuda)
        check_underflow(cuda, &cpu, out, "underflow, boundary values", x, n);
    if (cuda->cuda)
        check_underflow(cuda, &cpu, out, "underflow, gradient sample", sample, ns);

    /* w - u in every format, for boundary values minus their neighbours in the list */
    for (vl_format f = VL_FMT_F32; f < VL_N_FORMATS && cuda->cuda; f++) {
        char name[48];
        snprintf(name, sizeof name, "update %s", vl_format_names[f]);
        vl_selftest_check *c = check(out, name);
        vl_run_sub(cuda, f, x, x + 1, n - 1, res);
        vl_run_sub(&cpu, f, x, x + 1, n - 1, res + n);
        compare_floats(c, res, res + n, n - 1);
    }

    vl_update_opts uo;
    vl_update_opts_default(&uo);
    static const float repeats[][2] = {{1.0f, 0x1p-12f}, {1.0f, 0x1p-11f}, {1.0f, -0x1p-11f},
                                       {0.1f, 1e-5f},    {448.0f, -16.0f}, {65504.0f, -16.0f}};
    for (size_t i = 0; i < sizeof repeats / sizeof repeats[0] && cuda->cuda; i++) {
        vl_update g, h;
        char name[48];
        uo.weight = repeats[i][0];
        uo.update = repeats[i][1];
        snprintf(name, sizeof name, "update sweep, w %g u %g", (double)uo.weight,
                 (double)uo.update);
        if (vl_update_compute(cuda, &uo, &g) || vl_update_compute(&cpu, &uo, &h)) {
            why = "out of memory";
            goto done;
        }
        vl_selftest_check *c = check(out, name);
        for (int b = 0; b < VL_UPDATE_BUCKETS; b++)
            for (int f = 0; f < VL_N_FORMATS; f++, c->compared++)
                if (g.lost[b][f] != h.lost[b][f])
                    differ(c, (uint64_t)b, "bucket %llu: CUDA %.0f lost, CPU %.0f", g.lost[b][f],
                           h.lost[b][f]);
        compare_floats(c, g.repeat.final, h.repeat.final, VL_N_FORMATS);
    }

    vl_scaler_opts so;
    vl_scaler_opts_default(&so);
    static const uint64_t at[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    struct {
        const char *name;
        float init, grad_max;
        double growth, backoff, prob;
        int32_t interval;
        size_t steps, n_at;
    } scalers[] = {
        {"scaler, defaults", 65536.0f, 0x1p-4f, 2.0, 0.5, 1e-4, 2000, 12000, 0},
        {"scaler at the top of fp32", 0x1p126f, 0.0f, 2.0, 0.5, 0, 1, 8, 0},
        {"scaler at the bottom of fp32", 0x1p-147f, 0.0f, 2.0, 0.5, 0, 2000, 12, 10},
        {"scaler, factors 1.5 and 0.7", 65536.0f, 0x1p-6f, 1.5, 0.7, 0.05, 3, 5000, 0},
    };
    for (size_t i = 0; i < sizeof scalers / sizeof scalers[0] && cuda->cuda; i++) {
        so.params = (vl_scaler_params){scalers[i].init, scalers[i].growth, scalers[i].backoff,
                                       scalers[i].interval};
        so.grad_max = scalers[i].grad_max;
        so.overflow_prob = scalers[i].prob;
        so.steps = scalers[i].steps;
        so.overflow_at = at;
        so.n_overflow_at = scalers[i].n_at;
        if (!check_scaler(cuda, &cpu, out, scalers[i].name, &so)) {
            why = "out of memory";
            goto done;
        }
    }

    vl_accumulate_opts ao;
    vl_accumulate_opts_default(&ao);
    static const float constants[] = {0, 0.5f, 0.75f, 0.1f, 1e-5f};
    for (int i = -1; i < (int)(sizeof constants / sizeof constants[0]) && cuda->cuda; i++) {
        vl_accumulate g, h;
        char name[48];
        ao.constant = i >= 0;
        ao.value = i >= 0 ? constants[i] : 0;
        ao.n = i >= 0 ? VL_ACCUMULATE_COUNT : 1u << 20;
        if (ao.constant)
            snprintf(name, sizeof name, "accumulate, all %g", (double)ao.value);
        else
            snprintf(name, sizeof name, "accumulate, %zu random values", ao.n);
        if (vl_accumulate_compute(cuda, &ao, &g) || vl_accumulate_compute(&cpu, &ao, &h)) {
            why = "out of memory";
            goto done;
        }
        check_accum(check(out, name), &g.acc, &h.acc);
    }
    for (int in_format = 0; in_format < 2 && cuda->cuda; in_format++)
        if (!check_train(cuda, &cpu, out, in_format)) {
            why = "out of memory";
            goto done;
        }
    if (!cuda->cuda)
        why = cuda->why_cpu;
done:
    free(x);
    free(sample);
    free(res);
    free(codes);
    return why;
}

int vl_selftest_failures(const vl_selftest *t)
{
    int n = 0;
    for (int i = 0; i < t->n; i++)
        n += t->checks[i].differ != 0;
    return n;
}
