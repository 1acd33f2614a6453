/* predict.c: vramlab's timeline against published measurements (measurements.tsv).
 *
 * Each row's flags go through `vramlab estimate`'s option parser and on to the same runtime
 * (its --gpu, --cuda) and framework profile (vl_framework_of) as estimate's, so that a row
 * pasted after `vramlab estimate` shows the figure predicted here.  It prints measured,
 * predicted and the error, then the median and the worst error.  A report, not a gate: it
 * exits 0 unless a row cannot be read. */
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
#include "core/runtime.h"
#include "core/solve.h"
#include "core/timeline.h"
#include "core/units.h"

#define MAX_ARGS 64

static bool one_row; /* --one: print the peak, not a table row */

enum { C_ID, C_KIND, C_MEASURE, C_MEASURED, C_FLAGS, C_SOURCE, N_COLS };

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
    double *mag = malloc((size_t)n * sizeof *mag);
    if (!mag) {
        fprintf(stderr, "predict: out of memory\n");
        return;
    }
    double worst = 0;
    for (int i = 0; i < n; i++) {
        mag[i] = fabs(errs[i]);
        worst = fabs(errs[i]) > fabs(worst) ? errs[i] : worst;
    }
    qsort(mag, (size_t)n, sizeof *mag, cmp_double);
    double median = n % 2 ? mag[n / 2] : (mag[n / 2 - 1] + mag[n / 2]) / 2;
    printf("  %-17s median |error| %.1f%%, worst %+.1f%%\n", what, median, worst);
    free(mag);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The figure a row's measure names; kv-cache and activations are the engine's (predict_row). */
static uint64_t predicted(const vl_timeline *t, const char *measure)
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
    /* max_memory_allocated and what nvidia-smi showed beyond max_memory_reserved */
    if (strcmp(measure, "allocated+outside") == 0)
        return p->allocated + (p->device - p->reserved);
    return t->end[VL_TL_WEIGHTS]; /* weights */
}

/* The row's figure and the steady-state sum's for the same measure, of m under o on gpu; its
 * line printed (its peak's, under --one).  false, with the reason on stderr. */
static bool predict_row(char **col, int line, const run_opts *o, const vl_model *m,
                        const vl_gpu *gpu, double *err_pct, double *sum_pct)
{
    uint64_t measured;
    if (!parse_measured(col[C_MEASURED], &measured)) {
        fprintf(stderr, "measurements.tsv:%d: bad measured value\n", line);
        return false;
    }
    static const char *const measures[] = {"device",      "allocated",        "reserved",
                                           "over-context", "allocated+outside", "weights",
                                           "activations", "kv-cache"};
    size_t i = 0;
    while (i < sizeof measures / sizeof *measures && strcmp(col[C_MEASURE], measures[i]) != 0)
        i++;
    if (i == sizeof measures / sizeof *measures) {
        fprintf(stderr, "measurements.tsv:%d: unknown measure '%s'\n", line, col[C_MEASURE]);
        return false;
    }
    /* the GPU as the run is judged against (--capacity's memory), its CUDA and --overhead, as
     * estimate takes them */
    const vl_gpu card = report_gpu(&o->s, gpu);
    const uint64_t capacity = report_capacity(&o->s, &card);
    const vl_runtime rt = vl_runtime_on(&card, &o->s, o->overhead_given);
    char err[256];
    vl_timeline t;
    if (!vl_timeline_for(m, &o->s, &rt, &t, err, sizeof err)) {
        fprintf(stderr, "measurements.tsv:%d: %s\n", line, err);
        vl_timeline_free(&t);
        return false;
    }
    uint64_t pred, sum;
    const bool kv = strcmp(col[C_MEASURE], "kv-cache") == 0,
               act = strcmp(col[C_MEASURE], "activations") == 0;
    if (kv || act) {
        /* the serving engine's profile run (the activation peak it logs, the JSON's
         * serving.kv_cache.profile_peak) and the cache it gives itself, beside the
         * steady-state sum's activations and what it leaves of the engine's share beside
         * everything but the cache */
        vl_framework f;
        vl_framework_of(&o->s, &rt, &f);
        vl_kv_budget k;
        const char *why = vl_kv_budget_of(m, &o->s, &f, &rt, capacity, &k);
        if (why && (kv || !k.profile_seqs)) {
            fprintf(stderr, "measurements.tsv:%d: %s\n", line, why);
            vl_timeline_free(&t);
            return false;
        }
        const uint64_t rest = t.sum.total - t.sum.bytes[VL_C_KV_CACHE];
        pred = kv ? k.available : k.profile_peak;
        sum = act ? t.sum.bytes[VL_C_ACTIVATIONS] : rest < capacity ? capacity - rest : 0;
    } else {
        pred = predicted(&t, col[C_MEASURE]);
        /* the steady-state sum beside it, for the same measure */
        sum = strcmp(col[C_MEASURE], "weights") == 0
                  ? t.sum.bytes[VL_C_WEIGHTS]
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
    *sum_pct = 100.0 * ((double)sum - (double)measured) / (double)measured;
    printf("%-34s %-11s %10.2f %10.2f %+7.1f%% %10.2f %+7.1f%%  %s\n", col[C_ID], col[C_MEASURE],
           (double)measured / VL_GIB, (double)pred / VL_GIB, *err_pct, (double)sum / VL_GIB,
           *sum_pct, t.peak.phase ? t.peak.phase : "");
    vl_timeline_free(&t);
    return true;
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
    if (options_parse(argc, argv, &o, "validate") != EXIT_OK) {
        fprintf(stderr, "measurements.tsv:%d: bad flags\n", line);
        return false;
    }
    /* the catalog owns the GPU and a framework preset: it outlives the prediction */
    vl_catalog cat;
    vl_model m;
    const vl_gpu *gpu = NULL;
    vl_catalog_init(&cat);
    bool ok = options_resolve(&o, &cat, &m, &gpu) == EXIT_OK;
    if (!ok)
        fprintf(stderr, "measurements.tsv:%d: bad flags\n", line);
    else
        ok = predict_row(col, line, &o, &m, gpu, err_pct, sum_pct);
    vl_catalog_free(&cat);
    return ok;
}

/* predict --one VRAMLAB-FLAGS...: one timeline's peak, as "tensors allocated reserved
 * phase" (make validate's CPU peaks). */
static int one(int argc, char **argv)
{
    char flags[1024] = "", *col[N_COLS] = {0};
    for (int i = 2; i < argc; i++)
        snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s%s", i > 2 ? " " : "",
                 argv[i]);
    col[C_ID] = "one";
    col[C_MEASURE] = "allocated";
    col[C_MEASURED] = "1 B";
    col[C_FLAGS] = flags;
    double e, se;
    one_row = true;
    return run_row(col, 0, &e, &se) ? 0 : 2;
}

/* predict --replay TRACE: a real step's storages (alloc-trace.c's lines) through the
 * caching allocator as vramlab models it, as "tensors allocated reserved": the peaks of the
 * step between the trace's "m START ..." and "m STOP" lines (the storages' own bytes, the
 * allocator's blocks) and what the run has reserved by the end, the steps before included
 * (make validate's reserved bytes, peak.py).  Storages made before its "m LOADED" line
 * (building the model on the CPU) are left out, and so are their frees.  So is a storage
 * freed before any other is made or freed: a CPU kernel's scratch, which a GPU's kernel
 * does not take (oneDNN's fp32 product of a 16-bit matmul, on a CPU without bf16
 * instructions, comes from PyTorch's allocator; cuBLAS writes the 16-bit product alone). */
typedef struct { unsigned long addr; uint64_t bytes; uint32_t block; } live_storage;

typedef struct {
    live_storage *live;
    size_t n, cap;
    uint64_t tensors, peak_tensors, peak_allocated;
    bool measuring;
} replayed;

/* A storage of `bytes` at addr made: NULL, or what went wrong. */
static const char *replay_alloc(replayed *r, vl_alloc *a, unsigned long addr, uint64_t bytes)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        live_storage *g = realloc(r->live, r->cap * sizeof *r->live);
        if (!g)
            return "out of memory";
        r->live = g;
    }
    bool ovf = false;
    r->live[r->n++] = (live_storage){addr, bytes, vl_alloc_tensor(a, bytes, &ovf)};
    r->tensors += bytes;
    if (r->measuring && r->tensors > r->peak_tensors)
        r->peak_tensors = r->tensors;
    if (r->measuring && vl_alloc_allocated(a) > r->peak_allocated)
        r->peak_allocated = vl_alloc_allocated(a);
    return NULL;
}

static int replay(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "predict: cannot open %s\n", path);
        return 2;
    }
    vl_alloc *a = vl_alloc_new(VL_ALLOC_CACHING);
    replayed r = {0};
    int line = 0;
    bool loaded = false, stopped = false, held = false; /* held: the last storage made */
    unsigned long held_addr = 0;
    uint64_t held_bytes = 0;
    const char *bad = NULL;
    char buf[256];
    while (!bad && fgets(buf, sizeof buf, fp)) {
        line++;
        unsigned long addr;
        unsigned long long bytes;
        const bool made = sscanf(buf, "a %lx %llu", &addr, &bytes) == 2;
        const bool freed = !made && sscanf(buf, "f %lx", &addr) == 1;
        if (held && freed && addr == held_addr) { /* scratch: made and freed at once */
            held = false;
            continue;
        }
        if (held) { /* the storage held outlives the line that follows it */
            held = false;
            if ((bad = replay_alloc(&r, a, held_addr, held_bytes)))
                break;
        }
        if (strncmp(buf, "m LOADED", 8) == 0) {
            loaded = true;
        } else if (strncmp(buf, "m START", 7) == 0) { /* the step measured starts from here */
            r.measuring = true;
            r.peak_tensors = r.tensors;
            r.peak_allocated = vl_alloc_allocated(a);
        } else if (strncmp(buf, "m STOP", 6) == 0) {
            r.measuring = false;
            stopped = true;
        } else if (buf[0] == 'm') {
            continue; /* a phase */
        } else if (made) {
            if (!loaded)
                continue;
            held = true;
            held_addr = addr;
            held_bytes = bytes;
        } else if (freed) {
            size_t i = r.n;
            while (i > 0 && r.live[i - 1].addr != addr)
                i--;
            if (i == 0) /* made before LOADED */
                continue;
            vl_alloc_release(a, r.live[i - 1].block);
            r.tensors -= r.live[i - 1].bytes;
            r.live[i - 1] = r.live[--r.n];
        } else {
            bad = buf[0] == 'x' ? "ends early (the tracer's table was full)" : "is unreadable";
        }
    }
    fclose(fp);
    if (!bad && held)
        bad = replay_alloc(&r, a, held_addr, held_bytes);
    if (!bad && !loaded)
        bad = "has no LOADED line";
    else if (!bad && !stopped)
        bad = "has no STOP line";
    if (bad)
        fprintf(stderr, "predict: %s:%d: the trace %s\n", path, line, bad);
    else
        printf("%llu %llu %llu\n", (unsigned long long)r.peak_tensors,
               (unsigned long long)r.peak_allocated, (unsigned long long)vl_alloc_reserved(a));
    free(r.live);
    vl_alloc_free_all(a);
    return bad ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--one") == 0)
        return one(argc, argv);
    if (argc == 3 && strcmp(argv[1], "--replay") == 0)
        return replay(argv[2]);
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
    double *errs = NULL, *sums = NULL;
    int n = 0, cap = 0, line = 0, bad = 0;
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
        if (n == cap) { /* room for the row's two errors */
            cap = cap ? 2 * cap : 256;
            double *ge = realloc(errs, (size_t)cap * sizeof *errs);
            if (ge)
                errs = ge;
            double *gs = realloc(sums, (size_t)cap * sizeof *sums);
            if (gs)
                sums = gs;
            if (!ge || !gs) {
                fprintf(stderr, "predict: out of memory\n");
                bad++;
                break;
            }
        }
        double e, se;
        if (run_row(col, line, &e, &se)) {
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
    free(errs);
    free(sums);
    return bad ? 2 : 0;
}
