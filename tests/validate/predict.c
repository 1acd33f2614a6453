/* predict.c: vramlab's timeline against published measurements (measurements.tsv).
 *
 * Each row's flags go through the same option parser as `vramlab estimate`; the framework
 * profile and its overrides, the GPU generation and the CUDA version pick the runtime.  It
 * prints measured, predicted and the error, then the median and the worst error.  A report,
 * not a gate: it exits 0 unless a row cannot be read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <unistd.h>

#include "app/app.h"
#include "app/options.h"
#include "report/report.h"
#include "core/catalog.h"
#include "core/names.h"
#include "core/solve.h"
#include "core/timeline.h"
#include "core/units.h"

#define MAX_ROWS 256
#define MAX_ARGS 64

static bool one_row; /* --one: print the peak, not a table row */

enum { C_ID, C_KIND, C_MEASURE, C_MEASURED, C_FRAMEWORK, C_OVERRIDES, C_GPU, C_CUDA, C_FLAGS,
       C_SOURCE, N_COLS };

/* "14949 MiB", "14.96 GiB", "72971724288 B": bytes, rounded to the nearest. */
static bool parse_measured(const char *s, uint64_t *out)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"B", 1}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"MB", 1e6}, {"GB", 1e9}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != ' ')
        return false;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end + 1, units[i].unit) == 0) {
            *out = (uint64_t)llround(v * units[i].scale);
            return true;
        }
    return false;
}

static int cmp_double(const void *a, const void *b);

/* The median |error| and the worst error of n. */
static void summary(const char *what, const double *errs, int n)
{
    static double mag[MAX_ROWS];
    double worst = 0;
    for (int i = 0; i < n; i++) {
        mag[i] = fabs(errs[i]);
        worst = fabs(errs[i]) > fabs(worst) ? errs[i] : worst;
    }
    qsort(mag, (size_t)n, sizeof *mag, cmp_double);
    double median = n % 2 ? mag[n / 2] : (mag[n / 2 - 1] + mag[n / 2]) / 2;
    printf("  %-17s median |error| %.1f%%, worst %+.1f%%\n", what, median, worst);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The figure a row's measure names; kv-cache is computed apart (run_row). */
static uint64_t predicted(const vl_timeline *t, const vl_runtime *rt, const char *measure)
{
    const vl_peak *p = &t->peak;
    if (strcmp(measure, "device") == 0)
        return p->device;
    if (strcmp(measure, "allocated") == 0)
        return p->allocated;
    if (strcmp(measure, "reserved") == 0)
        return p->reserved;
    /* nvidia-smi's rise over its reading once the context is made: what the caching
     * allocator reserved and the kernels loaded lazily since */
    if (strcmp(measure, "over-context") == 0)
        return p->reserved + p->lazy_kernels;
    if (strcmp(measure, "weights") == 0)
        return t->end[VL_TL_WEIGHTS];
    /* a serving engine's activation peak: what its profile run measures */
    return vl_profile_peak(t, rt);
}

static bool run_row(char **col, int line, double *err_pct, double *sum_pct)
{
    char *argv[MAX_ARGS];
    int argc = 0;
    argv[argc++] = "validate";
    char flags[1024];
    snprintf(flags, sizeof flags, "%s", col[C_FLAGS]);
    for (char *tok = strtok(flags, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;

    run_opts o;
    vl_catalog cat;
    vl_model m;
    const vl_gpu *gpu = NULL;
    if (options_parse(argc, argv, &o, "validate") != EXIT_OK) {
        fprintf(stderr, "measurements.tsv:%d: bad flags\n", line);
        return false;
    }
    vl_catalog_init(&cat);
    int rc = options_resolve(&o, &cat, &m, &gpu);
    /* the catalog owns the GPU: its SMs, its memory (--capacity's, when given) and the share
     * of it a serving engine takes */
    vl_gpu card = {0};
    if (rc == EXIT_OK)
        card = report_gpu(&o.s, gpu);
    const uint64_t capacity = rc == EXIT_OK ? report_capacity(&o.s, &card) : 0;
    vl_catalog_free(&cat);
    if (rc != EXIT_OK) {
        fprintf(stderr, "measurements.tsv:%d: bad flags\n", line);
        return false;
    }
    const vl_framework *base = vl_framework_find(col[C_FRAMEWORK]);
    if (!base) {
        fprintf(stderr, "measurements.tsv:%d: unknown framework '%s'\n", line, col[C_FRAMEWORK]);
        return false;
    }
    int arch = vl_lookup(vl_gpu_arch_names, VL_N_GPU_ARCHS, col[C_GPU]);
    uint64_t measured;
    if (arch < 0 || !parse_measured(col[C_MEASURED], &measured)) {
        fprintf(stderr, "measurements.tsv:%d: bad GPU generation or measured value\n", line);
        return false;
    }
    /* the row's generation and CUDA; the SMs, memory and links of its --gpu (vLLM V1's
     * sampler buffer, its defaults by GPU, its communicators); an --overhead among its flags
     * stands for the runtime's own allocations */
    vl_runtime rt = {(vl_gpu_arch)arch, (unsigned)strtoul(col[C_CUDA], NULL, 10),
                     o.overhead_given, card.sms, vl_gpu_capacity(&card), card.interconnect};
    vl_framework f = *base;
    vl_framework_on_gpu(&f, &rt); /* the row's overrides win over its defaults */
    vl_framework_on_length(&f, &o.s);
    char ov[512], err[256];
    snprintf(ov, sizeof ov, "%s", strcmp(col[C_OVERRIDES], "-") == 0 ? "" : col[C_OVERRIDES]);
    for (char *kv = strtok(ov, ","); kv; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            fprintf(stderr, "measurements.tsv:%d: override '%s' is not key=value\n", line, kv);
            return false;
        }
        *eq = '\0';
        if (!vl_framework_set(&f, kv, eq + 1, err, sizeof err)) {
            fprintf(stderr, "measurements.tsv:%d: %s\n", line, err);
            return false;
        }
    }
    vl_framework_serve_as(&f, &o.s);    /* the row's --prefill-chunk, --profile-seqs */
    vl_framework_on_releases(&f, &o.s); /* the row's --transformers, --bitsandbytes, --torch */
    vl_timeline t;
    if (!vl_timeline_build(&m, &o.s, &f, &rt, &t, err, sizeof err)) {
        fprintf(stderr, "measurements.tsv:%d: %s\n", line, err);
        vl_timeline_free(&t);
        return false;
    }
    uint64_t pred, sum;
    if (strcmp(col[C_MEASURE], "kv-cache") == 0) {
        /* the cache the engine gives itself, beside what the steady-state sum leaves of its
         * share beside everything but the cache */
        vl_kv_budget k;
        const char *why = vl_kv_budget_of(&m, &o.s, &f, &rt, capacity, &k);
        if (why) {
            fprintf(stderr, "measurements.tsv:%d: %s\n", line, why);
            vl_timeline_free(&t);
            return false;
        }
        pred = k.available;
        const uint64_t rest = t.sum.total - t.sum.bytes[VL_C_KV_CACHE];
        sum = rest < capacity ? capacity - rest : 0;
    } else {
        pred = predicted(&t, &rt, col[C_MEASURE]);
        /* the steady-state sum beside it, for the same measure */
        sum = strcmp(col[C_MEASURE], "weights") == 0 ? t.sum.bytes[VL_C_WEIGHTS]
              : strcmp(col[C_MEASURE], "activations") == 0
                  ? t.sum.bytes[VL_C_ACTIVATIONS]
                  : t.sum.total - t.sum.bytes[VL_C_OVERHEAD] +
                        (strcmp(col[C_MEASURE], "device") == 0 ? t.peak.context : 0);
    }
    if (one_row) {
        printf("%llu %llu %llu %s\n", (unsigned long long)t.peak.tensors,
               (unsigned long long)t.peak.allocated, (unsigned long long)t.peak.reserved,
               t.peak.phase ? t.peak.phase : "");
        vl_timeline_free(&t);
        return true;
    }
    *err_pct = 100.0 * ((double)pred - (double)measured) / (double)measured;
    double sum_err = 100.0 * ((double)sum - (double)measured) / (double)measured;
    *sum_pct = sum_err;
    printf("%-34s %-11s %10.2f %10.2f %+7.1f%% %10.2f %+7.1f%%  %s\n", col[C_ID], col[C_MEASURE],
           (double)measured / VL_GIB, (double)pred / VL_GIB, *err_pct, (double)sum / VL_GIB,
           sum_err, t.peak.phase ? t.peak.phase : "");
    vl_timeline_free(&t);
    return true;
}

/* predict --one FRAMEWORK OVERRIDES VRAMLAB-FLAGS...: one timeline's peak, as
 * "tensors allocated reserved phase" (make validate's CPU peaks). */
static int one(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: predict --one FRAMEWORK OVERRIDES FLAGS...\n");
        return 2;
    }
    char flags[1024] = "", *col[N_COLS] = {0};
    for (int i = 4; i < argc; i++)
        snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s%s", i > 4 ? " " : "",
                 argv[i]);
    col[C_ID] = "one";
    col[C_MEASURE] = "allocated";
    col[C_MEASURED] = "1 B";
    col[C_FRAMEWORK] = argv[2];
    col[C_OVERRIDES] = argv[3];
    col[C_GPU] = "hopper";
    col[C_CUDA] = "1204";
    col[C_FLAGS] = flags;
    double e, se;
    one_row = true;
    return run_row(col, 0, &e, &se) ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--one") == 0)
        return one(argc, argv);
    const char *path = argc > 1 ? argv[1] : "tests/validate/measurements.tsv";
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "predict: cannot open %s\n", path);
        return 2;
    }
    /* a row's files (--hf-config) are named relative to the table */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    if (chdir(dirname(dir)) != 0) {
        fprintf(stderr, "predict: cannot enter the folder of %s\n", path);
        fclose(fp);
        return 2;
    }
    printf("%-34s %-11s %10s %10s %8s %10s %8s  %s\n", "id", "measure", "measured", "timeline",
           "error", "sum", "error", "peak phase");
    printf("%-34s %-11s %10s %10s %8s %10s %8s\n", "", "", "GiB", "GiB", "", "GiB", "");
    static double errs[MAX_ROWS], sums[MAX_ROWS];
    int n = 0, line = 0, bad = 0;
    char buf[4096];
    bool header = true;
    while (fgets(buf, sizeof buf, fp)) {
        line++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        if (header) { /* the column names */
            header = false;
            continue;
        }
        buf[strcspn(buf, "\n")] = '\0';
        char *col[N_COLS];
        int k = 0;
        for (char *p = buf; k < N_COLS; k++) {
            col[k] = p;
            char *tab = strchr(p, '\t');
            if (!tab) {
                k++;
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        if (k != N_COLS) {
            fprintf(stderr, "%s:%d: %d columns, expected %d\n", path, line, k, N_COLS);
            bad++;
            continue;
        }
        double e, se;
        if (n < MAX_ROWS && run_row(col, line, &e, &se)) {
            errs[n] = e;
            sums[n++] = se;
        }
        else
            bad++;
    }
    fclose(fp);
    if (n) {
        printf("\n%d measurements\n", n);
        summary("timeline", errs, n);
        summary("steady-state sum", sums, n);
    }
    return bad ? 2 : 0;
}
