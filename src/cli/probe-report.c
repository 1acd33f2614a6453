/* probe-report.c: the probe's output, as a table or JSON (probe-report.h). */
#include "probe-report.h"

#include <config.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "report/report.h"

const char *const out_format_names[N_OUTS] = {"table", "json"};

/* The fewest digits that read back as v exactly; whole numbers without an exponent. */
static const char *shortest(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v);
        return buf;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

void json_real(FILE *out, double v)
{
    char buf[40];
    if (isnan(v) || isinf(v))
        fprintf(out, "\"%s\"", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    else
        fputs(shortest(v, buf, sizeof buf), out);
}

void json_probe_head(FILE *out, const vl_backend *b)
{
    char note[512];
    fprintf(out,
            "{\"vramlab\": \"%s\",\n \"backend\": \"%s\",\n \"backend_note\": ", PACKAGE_VERSION,
            vl_backend_name(b));
    json_string(out, vl_backend_note(b, note, sizeof note));
}

static void backend_line(FILE *out, const vl_backend *b)
{
    char note[512];
    fprintf(out, "backend: %s (%s)\n", vl_backend_name(b), vl_backend_note(b, note, sizeof note));
}

/* "2^-12" for a power of two far from 1, else the shortest exact digits. */
static const char *real_text(double v, char *buf, size_t len)
{
    int e;
    if (v > 0 && frexp(v, &e) == 0.5 && (e - 1 < -4 || e - 1 > 16)) {
        snprintf(buf, len, "2^%d", e - 1);
        return buf;
    }
    return shortest(v, buf, len);
}

/* ---- underflow ------------------------------------------------------------------------------ */

static void hist_range(const vl_cast_counts *c, int *lo, int *hi)
{
    *lo = VL_HIST_BINS;
    *hi = -1;
    for (int b = 0; b < VL_HIST_BINS; b++) {
        if (c->hist[b]) {
            *lo = *lo < b ? *lo : b;
            *hi = b;
        }
    }
}

/* '.' flushed to 0, 's' subnormal, 'n' normal, '!' overflow: the class fp16 gives the bin's
 * midpoint 1.5 * 2^k times scale. */
static char region(int bin, float scale)
{
    float x = (float)(ldexp(1.5, bin + VL_HIST_MIN) * scale);
    switch (vl_classify_cast(VL_FMT_F16, x, false)) {
    case VL_CLS_FLUSHED: return '.';
    case VL_CLS_SUBNORMAL: return 's';
    case VL_CLS_NORMAL: return 'n';
    default: return '!';
    }
}

static void underflow_table(FILE *out, const probe_report *r)
{
    const vl_underflow *u = r->underflow;
    char n[32], buf[32], cells[VL_N_CLASSES][24];

    fprintf(out, "underflow: %s gradients ", vl_fmt_int(u->n, n, sizeof n));
    if (r->input)
        fprintf(out, "from %s, ", r->input);
    else
        fprintf(out,
                "drawn with seed %" PRIu64 " after Micikevicius et al. 2017, Fig. 3 (%.0f%% "
                "zeros,\n  log2|g| ~ N(%.2f, %.2f)), ",
                r->seed, 100 * VL_SAMPLE_ZEROS, VL_SAMPLE_LOG2_MEAN, VL_SAMPLE_LOG2_SIGMA);
    fprintf(out, "times each loss scale, cast to each format%s\n",
            u->saturate ? " (saturating)" : "");
    backend_line(out, r->backend);
    for (int i = 0; i < u->n_runs; i++) {
        const vl_cast_counts *c = &u->runs[i].counts;
        fprintf(out, "\nscale %s%s\n", real_text(u->runs[i].scale, buf, sizeof buf),
                u->runs[i].scale == 1 ? " (no loss scaling)" : "");
        fprintf(out, "  %-9s", "format");
        for (int k = 0; k < VL_N_CLASSES; k++)
            fprintf(out, " %11s", vl_class_names[k]);
        fprintf(out, "  nonzero lost\n");
        for (int f = 0; f < VL_N_FORMATS; f++) {
            const uint64_t *k = c->cls[f];
            uint64_t nonzero = u->n - k[VL_CLS_ZERO] - k[VL_CLS_NAN];
            for (int j = 0; j < VL_N_CLASSES; j++)
                vl_fmt_int(k[j], cells[j], sizeof cells[j]);
            fprintf(out, "  %-9s", vl_format_names[f]);
            for (int j = 0; j < VL_N_CLASSES; j++)
                fprintf(out, " %11s", cells[j]);
            fprintf(out, "  %11.2f%%\n", report_share(k[VL_CLS_FLUSHED] + k[VL_CLS_INF], nonzero));
        }
    }

    /* the histogram of the first run, with fp16's verdict at every scale */
    const vl_cast_counts *c = &u->runs[0].counts;
    int lo, hi;
    uint64_t top = 0;
    hist_range(c, &lo, &hi);
    if (hi < 0)
        return;
    for (int b = lo; b <= hi; b++)
        top = c->hist[b] > top ? c->hist[b] : top;
    fprintf(out,
            "\nlog2 histogram of |g| x %s, and what fp16 makes of each bin at each scale:\n"
            "  . rounds to 0   s subnormal   n normal   ! overflows\n",
            real_text(u->runs[0].scale, buf, sizeof buf));
    fprintf(out, "  %-15s %11s %7s  %-40s ", "|g| in", "count", "share", "");
    for (int i = 0; i < u->n_runs; i++)
        fprintf(out, " x%s", real_text(u->runs[i].scale / u->runs[0].scale, buf, sizeof buf));
    fputc('\n', out);
    for (int b = lo; b <= hi; b++) {
        char range[40], bar[41];
        int w = (int)(40 * c->hist[b] / top);
        memset(bar, '#', (size_t)w);
        bar[w] = 0;
        snprintf(range, sizeof range, "[2^%d, 2^%d)", b + VL_HIST_MIN, b + VL_HIST_MIN + 1);
        fprintf(out, "  %-15s %11s %6.2f%%  %-40s ", range, vl_fmt_int(c->hist[b], n, sizeof n),
                report_share(c->hist[b], u->n), bar);
        for (int i = 0; i < u->n_runs; i++) {
            int width =
                (int)strlen(real_text(u->runs[i].scale / u->runs[0].scale, buf, sizeof buf)) + 1;
            fprintf(out, " %*c", width, region(b, u->runs[i].scale));
        }
        fputc('\n', out);
    }
    fprintf(out, "  %-15s %11s %6.2f%%\n", "zero",
            vl_fmt_int(c->cls[VL_FMT_F32][VL_CLS_ZERO], n, sizeof n),
            report_share(c->cls[VL_FMT_F32][VL_CLS_ZERO], u->n));
}

static void underflow_json(FILE *out, const probe_report *r)
{
    const vl_underflow *u = r->underflow;

    fprintf(out,
            ",\n \"underflow\": {\"source\": \"%s\", \"file\": ", r->input ? "file" : "sample");
    if (r->input)
        json_string(out, r->input);
    else
        fprintf(out, "null");
    fprintf(out, ", \"count\": %zu, \"seed\": ", u->n);
    if (r->input)
        fprintf(out, "null, \"sample\": null");
    else
        fprintf(out,
                "%" PRIu64 ",\n   \"sample\": {\"zero_fraction\": %g, \"log2_mean\": %g, "
                "\"log2_sigma\": %g}",
                r->seed, VL_SAMPLE_ZEROS, VL_SAMPLE_LOG2_MEAN, VL_SAMPLE_LOG2_SIGMA);
    fprintf(out, ", \"saturate\": %s,\n   \"runs\": [", u->saturate ? "true" : "false");
    for (int i = 0; i < u->n_runs; i++) {
        const vl_cast_counts *c = &u->runs[i].counts;
        fprintf(out, "%s\n    {\"scale\": ", i ? "," : "");
        json_real(out, u->runs[i].scale);
        fprintf(out, ", \"classes\": {");
        for (int f = 0; f < VL_N_FORMATS; f++) {
            fprintf(out, "%s\n      \"%s\": {", f ? "," : "", vl_format_names[f]);
            for (int k = 0; k < VL_N_CLASSES; k++)
                fprintf(out, "%s\"%s\": %" PRIu64, k ? ", " : "", vl_class_names[k], c->cls[f][k]);
            fputc('}', out);
        }
        int lo, hi;
        hist_range(c, &lo, &hi);
        fprintf(out, "},\n     \"histogram\": {\"log2_min\": ");
        if (hi < 0)
            fprintf(out, "null");
        else
            fprintf(out, "%d", lo + VL_HIST_MIN);
        fprintf(out, ", \"counts\": [");
        for (int b = lo; b <= hi; b++)
            fprintf(out, "%s%" PRIu64, b > lo ? ", " : "", c->hist[b]);
        fprintf(out, "]}}");
    }
    fprintf(out, "]}");
}

/* ---- scaler --------------------------------------------------------------------------------- */

/* The steps flagged in flags[0..n), from 1, as a JSON list. */
static void json_steps(FILE *out, const uint8_t *flags, size_t n)
{
    bool first = true;
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (flags[i]) {
            fprintf(out, "%s%zu", first ? "" : ", ", i + 1);
            first = false;
        }
    }
    fputc(']', out);
}

#define MAX_SEGMENT_LINES 200

static void scaler_table(FILE *out, const probe_report *r)
{
    const vl_scaler_opts *o = r->scaler_opts;
    const vl_scaler_trace *t = r->scaler;
    const vl_scaler_params *p = &o->params;
    char a[32], b[32], c[32], d[32];

    fprintf(out,
            "scaler: torch.amp.GradScaler(init_scale=%s, growth_factor=%s, backoff_factor=%s, "
            "growth_interval=%" PRId32 ")\n",
            real_text(p->init_scale, a, sizeof a), real_text(p->growth_factor, b, sizeof b),
            real_text(p->backoff_factor, c, sizeof c), p->growth_interval);
    fprintf(out,
            "  %s steps; a clean step's largest gradient is %s, which overflows fp16 once "
            "times a scale of %s or more\n",
            vl_fmt_int(t->steps, a, sizeof a), real_text(o->grad_max, b, sizeof b),
            o->grad_max > 0 ? real_text(65520.0 / o->grad_max, c, sizeof c) : "inf");
    if (o->n_overflow_at)
        fprintf(out, "  inf gradients injected at the steps given (%zu)\n", t->n_injected);
    else
        fprintf(out,
                "  inf gradients injected with probability %s per step (seed %" PRIu64
                "): %zu of them\n",
                real_text(o->overflow_prob, a, sizeof a), o->seed, t->n_injected);
    backend_line(out, r->backend);
    fprintf(out, "\n  %-23s %-16s %s\n", "steps", "scale", "skipped (no optimizer step)");

    size_t lines = 0;
    for (size_t i = 0; i < t->steps;) {
        size_t j = i, shown = 0;
        while (j + 1 < t->steps && t->scale[j + 1] == t->scale[i] && !t->skipped[j])
            j++;
        if (++lines > MAX_SEGMENT_LINES) {
            fprintf(out, "  ... (--format json lists every step)\n");
            break;
        }
        snprintf(a, sizeof a, "%zu", i + 1);
        if (j > i)
            snprintf(a + strlen(a), sizeof a - strlen(a), "-%zu", j + 1);
        fprintf(out, "  %-23s %s", a, real_text(t->scale[i], b, sizeof b));
        for (size_t k = i; k <= j; k++) {
            if (t->skipped[k] && shown++ < 4)
                fprintf(out, "%*s%zu (%s)", shown == 1 ? 17 - (int)strlen(b) : 1, "", k + 1,
                        t->injected[k] ? "injected inf" : "grad_max x scale overflowed");
        }
        fputc('\n', out);
        i = j + 1;
    }
    fprintf(out,
            "\n  %s skipped (%s injected), %s growths; final scale %s, growth tracker %" PRId32
            "\n",
            vl_fmt_int(t->n_skipped, a, sizeof a), vl_fmt_int(t->n_injected, b, sizeof b),
            vl_fmt_int(t->n_growths, c, sizeof c), real_text(t->final.scale, d, sizeof d),
            t->final.growth_tracker);
}

static void scaler_json(FILE *out, const probe_report *r)
{
    const vl_scaler_opts *o = r->scaler_opts;
    const vl_scaler_trace *t = r->scaler;

    fprintf(out, ",\n \"scaler\": {\"init_scale\": ");
    json_real(out, o->params.init_scale);
    fprintf(out, ", \"growth_factor\": ");
    json_real(out, o->params.growth_factor);
    fprintf(out, ", \"backoff_factor\": ");
    json_real(out, o->params.backoff_factor);
    fprintf(out, ", \"growth_interval\": %" PRId32 ",\n   \"steps\": %zu, \"grad_max\": ",
            o->params.growth_interval, t->steps);
    json_real(out, o->grad_max);
    fprintf(out, ", \"overflow_prob\": ");
    if (o->n_overflow_at)
        fprintf(out, "null");
    else
        json_real(out, o->overflow_prob);
    fprintf(out, ", \"seed\": %" PRIu64 ",\n   \"injected\": ", o->seed);
    json_steps(out, t->injected, t->steps);
    fprintf(out, ",\n   \"skipped\": ");
    json_steps(out, t->skipped, t->steps);
    fprintf(out, ",\n   \"growths\": %zu, \"final_scale\": ", t->n_growths);
    json_real(out, t->final.scale);
    fprintf(out, ", \"final_growth_tracker\": %" PRId32 ",\n   \"scale\": [",
            t->final.growth_tracker);
    for (size_t i = 0; i < t->steps; i++) {
        fputs(i ? ", " : "", out);
        json_real(out, t->scale[i]);
    }
    fprintf(out, "]}");
}

/* ---- update --------------------------------------------------------------------------------- */

static void update_table(FILE *out, const probe_report *r)
{
    const vl_update *u = r->update;
    char a[32], b[32];

    fprintf(out,
            "update: w - u in each format (pure 16-bit or 8-bit weights) and in fp32 (master "
            "weights)\n  %s pairs per bucket of |w/u|: w in [2^-4, 1) and u with 8 significant "
            "bits, either sign (seed %" PRIu64 ")\n",
            vl_fmt_int(u->per_bucket, a, sizeof a), r->seed);
    backend_line(out, r->backend);
    fprintf(out, "\n  updates lost (w - u rounded back to w)\n  %-15s", "|w/u| in");
    for (int f = 0; f < VL_N_FORMATS; f++)
        fprintf(out, " %9s", vl_format_names[f]);
    fputc('\n', out);
    for (int k = 0; k < VL_UPDATE_BUCKETS; k++) {
        snprintf(a, sizeof a, "[2^%d, 2^%d)", k + VL_UPDATE_LOG2_MIN, k + VL_UPDATE_LOG2_MIN + 1);
        fprintf(out, "  %-15s", a);
        for (int f = 0; f < VL_N_FORMATS; f++)
            fprintf(out, " %8.1f%%", report_share(u->lost[k][f], u->per_bucket));
        fputc('\n', out);
    }
    fprintf(out, "  With p significant bits an update is never lost below |w/u| = 2^p and always "
                 "from 2^(p+1) on,\n  as half an ulp of w lies between |w|/2^(p+1) and |w|/2^p: "
                 "fp32 2^24, fp16 2^11 = 2048, bf16 2^8 = 256.\n  (fp8 rounds w and u first, "
                 "which blurs its edges.)\n");

    char c[32];
    fprintf(out, "\n  the same update again and again: w = %s, u = %s, %s steps\n",
            real_text(u->weight, a, sizeof a), real_text(u->update, b, sizeof b),
            vl_fmt_int(u->steps, c, sizeof c));
    fprintf(out, "  %-9s %-22s %12s  %s\n", "format", "final w", "steps lost",
            "mixed precision: the fp32 master as this format's copy");
    for (int f = 0; f < VL_N_FORMATS; f++) {
        char v[40], m[40];
        snprintf(v, sizeof v, "%.17g", (double)u->repeat.final[f]);
        snprintf(m, sizeof m, "%.17g", (double)u->mixed[f]);
        fprintf(out, "  %-9s %-22s %12s  %s\n", vl_format_names[f], v,
                vl_fmt_int(u->repeat.lost[f], a, sizeof a), f == VL_FMT_F32 ? "(the master)" : m);
    }
}

static void update_json(FILE *out, const probe_report *r)
{
    const vl_update *u = r->update;

    fprintf(out, ",\n \"update\": {\"per_bucket\": %zu, \"seed\": %" PRIu64 ",\n   \"buckets\": [",
            u->per_bucket, r->seed);
    for (int k = 0; k < VL_UPDATE_BUCKETS; k++) {
        fprintf(out, "%s\n    {\"log2_ratio\": %d, \"lost\": {", k ? "," : "",
                k + VL_UPDATE_LOG2_MIN);
        for (int f = 0; f < VL_N_FORMATS; f++)
            fprintf(out, "%s\"%s\": %" PRIu32, f ? ", " : "", vl_format_names[f], u->lost[k][f]);
        fprintf(out, "}}");
    }
    fprintf(out, "],\n   \"significant_bits\": {");
    for (int f = 0; f < VL_N_FORMATS; f++)
        fprintf(out, "%s\"%s\": %u", f ? ", " : "", vl_format_names[f], vl_formats[f].man_bits + 1);
    fprintf(out, "},\n   \"repeat\": {\"weight\": ");
    json_real(out, u->weight);
    fprintf(out, ", \"update\": ");
    json_real(out, u->update);
    fprintf(out, ", \"steps\": %" PRIu32 ",", u->steps);
    static const char *const keys[] = {"final", "lost", "mixed"};
    for (int i = 0; i < 3; i++) {
        fprintf(out, "\n     \"%s\": {", keys[i]);
        for (int f = 0; f < VL_N_FORMATS; f++) {
            fprintf(out, "%s\"%s\": ", f ? ", " : "", vl_format_names[f]);
            if (i == 1)
                fprintf(out, "%" PRIu32, u->repeat.lost[f]);
            else
                json_real(out, i == 0 ? u->repeat.final[f] : u->mixed[f]);
        }
        fprintf(out, "}%s", i < 2 ? "," : "");
    }
    fprintf(out, "}}");
}

/* ---- accumulate ----------------------------------------------------------------------------- */

/* "fp16 last changed it at step 4,073 of 10,000; at 2048 fp16's spacing is 2" */
static void last_change(FILE *out, float sum, uint32_t last, size_t n)
{
    char a[32], b[32], c[32], d[32];
    int e;

    if (!isfinite(sum) || sum <= 0)
        return;
    frexp(sum, &e);
    fprintf(out, "      fp16 last changed it at step %s of %s; at %s fp16's spacing is %s\n",
            vl_fmt_int(last, a, sizeof a), vl_fmt_int(n, b, sizeof b), real_text(sum, c, sizeof c),
            real_text(ldexp(1, e - 11), d, sizeof d));
}

static void accumulate_table(FILE *out, const probe_report *r)
{
    const vl_accumulate *s = r->accumulate;
    const vl_accum *a = &s->acc;
    char n[32], v[32];

    fprintf(out, "accumulate: %s values ", vl_fmt_int(s->n, n, sizeof n));
    if (s->constant)
        fprintf(out, "all %s (as fp16 keeps it)", real_text(s->value, v, sizeof v));
    else
        fprintf(out, "uniform on the multiples of 2^-11 in [0, 1) (seed %" PRIu64 ")", r->seed);
    fprintf(out, ", summed in order\n");
    backend_line(out, r->backend);
    fprintf(out, "\n  %-46s %22s %16s\n", "sum of the values", "result", "error");
    fprintf(out, "    %-44s %22.17g\n", "exact", s->exact_sum);
    fprintf(out, "    %-44s %22.17g %16.6g\n", "fp32 running sum", (double)a->sum32,
            a->sum32 - s->exact_sum);
    fprintf(out, "    %-44s %22.17g %16.6g\n", "fp16 running sum", (double)a->sum16,
            a->sum16 - s->exact_sum);
    last_change(out, a->sum16, a->sum16_last, s->n);
    fprintf(out, "  dot product with as many values again\n");
    fprintf(out, "    %-44s %22.17g\n", "exact", s->exact_dot);
    fprintf(out, "    %-44s %22.17g %16.6g\n", "fp16 products, fp32 sum (as tensor cores)",
            (double)a->dot32, a->dot32 - s->exact_dot);
    fprintf(out, "    %-44s %22.17g %16.6g\n", "fp16 products, fp16 sum", (double)a->dot16,
            a->dot16 - s->exact_dot);
    last_change(out, a->dot16, a->dot16_last, s->n);
}

static void accumulate_json(FILE *out, const probe_report *r)
{
    const vl_accumulate *s = r->accumulate;
    const vl_accum *a = &s->acc;

    fprintf(out, ",\n \"accumulate\": {\"count\": %zu, \"seed\": %" PRIu64 ", \"values\": ", s->n,
            r->seed);
    if (s->constant)
        json_real(out, s->value);
    else
        fprintf(out, "\"uniform\"");
    fprintf(out, ",\n   \"sum\": {\"exact\": ");
    json_real(out, s->exact_sum);
    fprintf(out, ", \"fp32\": ");
    json_real(out, a->sum32);
    fprintf(out, ", \"fp16\": ");
    json_real(out, a->sum16);
    fprintf(out, ", \"fp16_last_change\": %" PRIu32 "},\n   \"dot\": {\"exact\": ", a->sum16_last);
    json_real(out, s->exact_dot);
    fprintf(out, ", \"fp16_products_fp32_sum\": ");
    json_real(out, a->dot32);
    fprintf(out, ", \"fp16_products_fp16_sum\": ");
    json_real(out, a->dot16);
    fprintf(out, ", \"fp16_last_change\": %" PRIu32 "}}", a->dot16_last);
}

/* ---- all of them ---------------------------------------------------------------------------- */

void probe_write(FILE *out, out_format f, const probe_report *r)
{
    if (f == OUT_JSON) {
        json_probe_head(out, r->backend);
        if (r->underflow)
            underflow_json(out, r);
        if (r->scaler)
            scaler_json(out, r);
        if (r->update)
            update_json(out, r);
        if (r->accumulate)
            accumulate_json(out, r);
        fprintf(out, "}\n");
        return;
    }
    const char *sep = "";
    if (r->underflow) {
        underflow_table(out, r);
        sep = "\n";
    }
    if (r->scaler) {
        fputs(sep, out);
        scaler_table(out, r);
        sep = "\n";
    }
    if (r->update) {
        fputs(sep, out);
        update_table(out, r);
        sep = "\n";
    }
    if (r->accumulate) {
        fputs(sep, out);
        accumulate_table(out, r);
    }
}

void selftest_write(FILE *out, out_format f, const vl_backend *b, const vl_selftest *t,
                    const char *why)
{
    int failures = vl_selftest_failures(t);
    char n[32];

    if (f == OUT_JSON) {
        json_probe_head(out, b);
        fprintf(out, ",\n \"selftest\": {\"error\": ");
        if (why)
            json_string(out, why);
        else
            fprintf(out, "null");
        fprintf(out, ", \"failures\": %d, \"checks\": [", failures);
        for (int i = 0; i < t->n; i++) {
            const vl_selftest_check *c = &t->checks[i];
            fprintf(out, "%s\n   {\"name\": ", i ? "," : "");
            json_string(out, c->name);
            fprintf(out, ", \"compared\": %" PRIu64 ", \"differ\": %" PRIu64 ", \"first\": ",
                    c->compared, c->differ);
            if (c->differ)
                json_string(out, c->first);
            else
                fprintf(out, "null");
            fputc('}', out);
        }
        fprintf(out, "]}}\n");
        return;
    }
    fprintf(out, "selftest: the CUDA kernels against the CPU emulation, bit for bit\n");
    backend_line(out, b);
    for (int i = 0; i < t->n; i++) {
        const vl_selftest_check *c = &t->checks[i];
        fprintf(out, "  %-40s %12s compared  %s%s\n", c->name, vl_fmt_int(c->compared, n, sizeof n),
                c->differ ? "DIFFER: " : "identical", c->differ ? c->first : "");
    }
    if (why)
        fprintf(out, "stopped: %s\n", why);
    fprintf(out, "selftest: %d checks, %s\n", t->n,
            failures ? "SOME DIFFER"
            : why    ? "stopped early"
                     : "all identical");
}
