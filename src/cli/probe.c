/* probe.c: `vramlab probe [EXPERIMENT] [OPTIONS]`: the mixed-precision experiments of
 * core/probe.h on the CPU or CUDA backend, and `probe selftest`, which compares the two. */
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/names.h"
#include "core/npy.h"
#include "core/units.h"
#include "app/options.h"
#include "probe-report.h"

enum { EXP_UNDERFLOW, EXP_SCALER, EXP_UPDATE, EXP_ACCUMULATE, EXP_TRAIN, EXP_SELFTEST, N_EXPS };
static const char *const exp_names[N_EXPS] = {"underflow", "scaler", "update", "accumulate",
                                              "train", "selftest"};
#define ONLY(e) (1u << (e))
#define FOUR (ONLY(EXP_UNDERFLOW) | ONLY(EXP_SCALER) | ONLY(EXP_UPDATE) | ONLY(EXP_ACCUMULATE))
#define TRAIN ONLY(EXP_TRAIN)

enum {
    OPT_FORMAT = 256, OPT_BACKEND, OPT_SEED, OPT_COUNT, OPT_STEPS, OPT_SCALE, OPT_INPUT,
    OPT_SATURATE, OPT_INIT_SCALE, OPT_GROWTH_FACTOR, OPT_BACKOFF_FACTOR, OPT_GROWTH_INTERVAL,
    OPT_GRAD_MAX, OPT_OVERFLOW_PROB, OPT_OVERFLOW_AT, OPT_WEIGHT, OPT_UPDATE, OPT_VALUE,
    OPT_LR, OPT_REGIMES, OPT_ACCUM, OPT_HELP, OPT_END
};

static const struct option long_options[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"seed", required_argument, NULL, OPT_SEED},
    {"count", required_argument, NULL, OPT_COUNT},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"input", required_argument, NULL, OPT_INPUT},
    {"saturate", no_argument, NULL, OPT_SATURATE},
    {"init-scale", required_argument, NULL, OPT_INIT_SCALE},
    {"growth-factor", required_argument, NULL, OPT_GROWTH_FACTOR},
    {"backoff-factor", required_argument, NULL, OPT_BACKOFF_FACTOR},
    {"growth-interval", required_argument, NULL, OPT_GROWTH_INTERVAL},
    {"grad-max", required_argument, NULL, OPT_GRAD_MAX},
    {"overflow-prob", required_argument, NULL, OPT_OVERFLOW_PROB},
    {"overflow-at", required_argument, NULL, OPT_OVERFLOW_AT},
    {"weight", required_argument, NULL, OPT_WEIGHT},
    {"update", required_argument, NULL, OPT_UPDATE},
    {"value", required_argument, NULL, OPT_VALUE},
    {"lr", required_argument, NULL, OPT_LR},
    {"regimes", required_argument, NULL, OPT_REGIMES},
    {"accumulate-in", required_argument, NULL, OPT_ACCUM},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* The experiments each option is for. */
static const unsigned applies[OPT_END - OPT_FORMAT] = {
    [OPT_FORMAT - OPT_FORMAT] = FOUR | TRAIN | ONLY(EXP_SELFTEST),
    [OPT_BACKEND - OPT_FORMAT] = FOUR | TRAIN,
    [OPT_SEED - OPT_FORMAT] = FOUR | TRAIN,
    [OPT_COUNT - OPT_FORMAT] = ONLY(EXP_UNDERFLOW) | ONLY(EXP_UPDATE) | ONLY(EXP_ACCUMULATE),
    [OPT_STEPS - OPT_FORMAT] = ONLY(EXP_SCALER) | ONLY(EXP_UPDATE) | TRAIN,
    [OPT_SCALE - OPT_FORMAT] = ONLY(EXP_UNDERFLOW) | TRAIN,
    [OPT_INPUT - OPT_FORMAT] = ONLY(EXP_UNDERFLOW) | TRAIN,
    [OPT_SATURATE - OPT_FORMAT] = ONLY(EXP_UNDERFLOW),
    [OPT_INIT_SCALE - OPT_FORMAT] = ONLY(EXP_SCALER) | TRAIN,
    [OPT_GROWTH_FACTOR - OPT_FORMAT] = ONLY(EXP_SCALER) | TRAIN,
    [OPT_BACKOFF_FACTOR - OPT_FORMAT] = ONLY(EXP_SCALER) | TRAIN,
    [OPT_GROWTH_INTERVAL - OPT_FORMAT] = ONLY(EXP_SCALER) | TRAIN,
    [OPT_GRAD_MAX - OPT_FORMAT] = ONLY(EXP_SCALER),
    [OPT_OVERFLOW_PROB - OPT_FORMAT] = ONLY(EXP_SCALER),
    [OPT_OVERFLOW_AT - OPT_FORMAT] = ONLY(EXP_SCALER),
    [OPT_WEIGHT - OPT_FORMAT] = ONLY(EXP_UPDATE),
    [OPT_UPDATE - OPT_FORMAT] = ONLY(EXP_UPDATE),
    [OPT_VALUE - OPT_FORMAT] = ONLY(EXP_ACCUMULATE),
    [OPT_LR - OPT_FORMAT] = TRAIN,
    [OPT_REGIMES - OPT_FORMAT] = TRAIN,
    [OPT_ACCUM - OPT_FORMAT] = TRAIN,
    [OPT_HELP - OPT_FORMAT] = FOUR | TRAIN | ONLY(EXP_SELFTEST),
};

#define MAX_OVERFLOW_AT 1000

typedef struct probe_opts {
    int out, backend;
    unsigned given; /* bit (code - OPT_FORMAT) for each option given */
    uint64_t seed, count, steps, interval;
    float scales[VL_UNDERFLOW_MAX_SCALES];
    int n_scales;
    const char *input;
    float init_scale, grad_max, weight, update, value, lr;
    double growth, backoff, prob;
    unsigned regimes; /* train: bit r for regime r */
    int accum;        /* train: 0 fp32, 1 the format */
    uint64_t at[MAX_OVERFLOW_AT];
    size_t n_at;
} probe_opts;

static const char *option_name(int code)
{
    return long_options[code - OPT_FORMAT].name;
}

static void usage(void)
{
    printf(
        "usage: vramlab probe [EXPERIMENT] [OPTIONS]\n"
        "Mixed precision, shown with micro-kernels on the GPU (CUDA) or their bit-exact CPU\n"
        "emulation.  Without an EXPERIMENT, runs underflow, scaler, update and accumulate\n"
        "with their defaults.\n"
        "\n"
        "  underflow    a gradient sample times loss scales, cast to fp32, fp16, bf16 and fp8\n"
        "    --scale S[,S...]   the loss scales (default 1,8,65536; at most 8)\n"
        "    --count N          sample size (default 1048576)\n"
        "    --input FILE       real gradients: a .npy file (float32 or float64) or raw float32\n"
        "    --saturate         overflow gives +-max instead of inf\n"
        "  scaler       dynamic loss scaling step by step, as torch.amp.GradScaler\n"
        "    --steps N          steps (default 12000)\n"
        "    --init-scale S  --growth-factor F  --backoff-factor F  --growth-interval N\n"
        "                       GradScaler's arguments (default 65536, 2, 0.5, 2000)\n"
        "    --grad-max G       a clean step's largest |gradient| (default 2^-4)\n"
        "    --overflow-prob P  chance of an injected inf gradient per step (default 0.0001)\n"
        "    --overflow-at LIST inf gradients at these steps instead (e.g. 3,10,11)\n"
        "  update       w - u in fp16 and bf16 against fp32 master weights: lost updates\n"
        "    --count N          pairs per ratio bucket (default 1024)\n"
        "    --weight W  --update U  --steps N\n"
        "                       the repeated update (default 1, 2^-12, 1000 steps)\n"
        "  accumulate   a sum and a dot product in fp16 and in fp32\n"
        "    --count N          values (default 10000)\n"
        "    --value V          all values V (default: uniform in [0, 1))\n"
        "  train        a small network trained in fp32, fp16 (unscaled, static and dynamic\n"
        "               loss scale), bf16 (with and without fp32 masters) and fp8, side by side\n"
        "    --steps N          steps (default 300, at most 100000)\n"
        "    --lr R             Adam's learning rate (default 0.02)\n"
        "    --regimes LIST     some of fp32,fp16,fp16-static,fp16-dynamic,bf16,bf16-pure,fp8\n"
        "    --scale S          the loss scale of fp16-static (default 1024)\n"
        "    --init-scale S  --growth-factor F  --backoff-factor F  --growth-interval N\n"
        "                       fp16-dynamic's GradScaler (default 65536, 2, 0.5, 2000)\n"
        "    --accumulate-in F  the products' sums in fp32 (default) or in the format they\n"
        "                       write (fp16, bf16; bf16 for fp8)\n"
        "    --input FILE       the features: a .npy or raw float32 file, 16 values a row,\n"
        "                       a multiple of 64 rows (default: 512 random rows)\n"
        "  selftest     the CUDA kernels against the CPU emulation (skipped without a GPU)\n"
        "\n"
        "  --backend B          auto, cpu or cuda (default auto: CUDA when a GPU answers)\n"
        "  --seed N             the random seed (default 1)\n"
        "  --format F           table or json (default table)\n"
        "Numbers take 0.5, 1e-3, 0x1p-12 or 2^-12.  See vramlab(1), section PROBE.\n");
}

/* arg as a real for --flag: finite, and above lo (or at least lo when !open_lo) and below
 * hi (or at most hi), or EXIT_USAGE with "--flag: 'arg' must be <what>". */
static int real_option(int code, const char *arg, double lo, bool open_lo, double hi, bool open_hi,
                       const char *what, double *out)
{
    const char *why;
    if (!vl_parse_real(arg, out, &why))
        return usage_error("--%s: '%s' is not a number: %s", option_name(code), arg, why);
    double v = *out;
    if (!isfinite(v) || v < lo || (open_lo && v == lo) || v > hi || (open_hi && v == hi))
        return usage_error("--%s: '%s' must be %s", option_name(code), arg, what);
    return EXIT_OK;
}

/* A real that is positive and finite as a float too. */
static int scale_option(int code, const char *arg, float *out)
{
    double v;
    int rc = real_option(code, arg, 0, true, INFINITY, true, "a positive finite number", &v);
    if (rc == EXIT_OK && ((float)v == 0 || isinf((float)v)))
        return usage_error("--%s: '%s' must be a positive finite number (in fp32)",
                           option_name(code), arg);
    *out = (float)v;
    return rc;
}

static int float_option(int code, const char *arg, float *out)
{
    double v;
    int rc = real_option(code, arg, -INFINITY, false, INFINITY, false, "a finite number", &v);
    if (rc == EXIT_OK && isinf((float)v))
        return usage_error("--%s: '%s' must be a finite number (in fp32)", option_name(code), arg);
    *out = (float)v;
    return rc;
}

static int count_option(int code, const char *arg, uint64_t *out)
{
    const char *why;
    if (!vl_parse_count(arg, out, &why))
        return usage_error("--%s: '%s' is not a whole number: %s", option_name(code), arg, why);
    return EXIT_OK;
}

/* "a,b,c" into items, each through parse (code, item, &out[i]). */
static int list_option(int code, const char *arg, size_t max, size_t *n,
                       int (*parse)(int, const char *, void *, size_t), void *out)
{
    char item[64];
    const char *p = arg;
    *n = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (*n == max)
            return usage_error("--%s: at most %zu values", option_name(code), max);
        if (len == 0 || len >= sizeof item)
            return usage_error("--%s: '%s' is not a list of values separated by commas",
                               option_name(code), arg);
        memcpy(item, p, len);
        item[len] = 0;
        int rc = parse(code, item, out, (*n)++);
        if (rc != EXIT_OK)
            return rc;
        if (!p[len])
            return EXIT_OK;
        p += len + 1;
    }
}

static int scale_item(int code, const char *item, void *out, size_t i)
{
    return scale_option(code, item, &((float *)out)[i]);
}

static int step_item(int code, const char *item, void *out, size_t i)
{
    uint64_t *steps = out;
    int rc = count_option(code, item, &steps[i]);
    if (rc == EXIT_OK && steps[i] == 0)
        return usage_error("--%s: steps count from 1", option_name(code));
    return rc;
}

/* "fp32,fp16-dynamic" into a set of regimes. */
static int regimes_option(const char *arg, unsigned *set)
{
    char item[32], list[160], hint[96];
    const char *p = arg;
    *set = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return usage_error("--regimes: '%s' is not a list of regimes separated by commas", arg);
        memcpy(item, p, len);
        item[len] = 0;
        int r = vl_lookup(vl_train_regime_names, VL_N_REGIMES, item);
        if (r < 0)
            return usage_error("--regimes: unknown regime '%s' (expected %s)%s", item,
                               vl_join(vl_train_regime_names, VL_N_REGIMES, list, sizeof list),
                               vl_hint(item, vl_train_regime_names, VL_N_REGIMES, hint,
                                       sizeof hint));
        if (*set >> r & 1)
            return usage_error("--regimes: '%s' is given twice", item);
        *set |= 1u << r;
        if (!p[len])
            return EXIT_OK;
        p += len + 1;
    }
}

static int parse_option(probe_opts *o, int code, const char *arg)
{
    size_t n;
    int rc = EXIT_OK;

    o->given |= 1u << (code - OPT_FORMAT);
    switch (code) {
    case OPT_FORMAT: return option_choice("format", arg, out_format_names, N_OUTS, &o->out);
    case OPT_BACKEND:
        return option_choice("backend", arg, vl_backend_choice_names, VL_N_BACKEND_CHOICES,
                             &o->backend);
    case OPT_SEED: return count_option(code, arg, &o->seed);
    case OPT_COUNT: return count_option(code, arg, &o->count);
    case OPT_STEPS: return count_option(code, arg, &o->steps);
    case OPT_GROWTH_INTERVAL: return count_option(code, arg, &o->interval);
    case OPT_SCALE:
        rc = list_option(code, arg, VL_UNDERFLOW_MAX_SCALES, &n, scale_item, o->scales);
        o->n_scales = (int)n;
        return rc;
    case OPT_OVERFLOW_AT:
        return list_option(code, arg, MAX_OVERFLOW_AT, &o->n_at, step_item, o->at);
    case OPT_INPUT: o->input = arg; return EXIT_OK;
    case OPT_SATURATE: return EXIT_OK;
    case OPT_INIT_SCALE: return scale_option(code, arg, &o->init_scale);
    case OPT_GROWTH_FACTOR:
        return real_option(code, arg, 1, true, INFINITY, true, "a finite number above 1",
                           &o->growth);
    case OPT_BACKOFF_FACTOR:
        return real_option(code, arg, 0, true, 1, true, "between 0 and 1, exclusive", &o->backoff);
    case OPT_GRAD_MAX: {
        double v;
        rc = real_option(code, arg, 0, false, FLT_MAX, false, "a finite number, 0 or more", &v);
        o->grad_max = (float)v;
        return rc;
    }
    case OPT_OVERFLOW_PROB:
        return real_option(code, arg, 0, false, 1, false, "a probability, 0 to 1", &o->prob);
    case OPT_WEIGHT: return float_option(code, arg, &o->weight);
    case OPT_UPDATE: return float_option(code, arg, &o->update);
    case OPT_VALUE: return float_option(code, arg, &o->value);
    case OPT_LR: {
        double v;
        rc = real_option(code, arg, 0, true, 1, false, "above 0 and at most 1", &v);
        o->lr = (float)v;
        return rc;
    }
    case OPT_REGIMES: return regimes_option(arg, &o->regimes);
    case OPT_ACCUM: {
        static const char *const accums[] = {"fp32", "format"};
        return option_choice("accumulate-in", arg, accums, 2, &o->accum);
    }
    }
    return rc;
}

static bool given(const probe_opts *o, int code)
{
    return o->given >> (code - OPT_FORMAT) & 1;
}

/* Each option given applies to what runs (one experiment, or the four). */
static int check_applies(const probe_opts *o, int exp)
{
    unsigned runs = exp < 0 ? FOUR : ONLY(exp);
    for (int code = OPT_FORMAT; code < OPT_END; code++) {
        unsigned a = applies[code - OPT_FORMAT];
        if (!given(o, code) || (a & runs) == runs)
            continue;
        const char *names[N_EXPS];
        char list[128];
        size_t n = 0;
        for (int e = 0; e < N_EXPS; e++)
            if (a & ONLY(e))
                names[n++] = exp_names[e];
        vl_join(names, n, list, sizeof list);
        if (exp < 0)
            return usage_error("probe: --%s is for probe %s: name the experiment",
                               option_name(code), list);
        return usage_error("probe %s: --%s does not apply (it is for %s)", exp_names[exp],
                           option_name(code), list);
    }
    return EXIT_OK;
}

/* --count and --steps: their ranges depend on the experiment. */
static int check_range(int code, uint64_t v, uint64_t lo, uint64_t hi)
{
    if (v < lo || v > hi)
        return usage_error("--%s must be between %llu and %llu", option_name(code),
                           (unsigned long long)lo, (unsigned long long)hi);
    return EXIT_OK;
}

/* ---- the experiments ------------------------------------------------------------------------ */

static int run_underflow(const probe_opts *o, probe_report *r, vl_underflow *u, float **g)
{
    static const float default_scales[] = {1.0f, 8.0f, 65536.0f};
    size_t n = o->count;
    char err[VL_NPY_ERR_LEN];

    if (o->input && given(o, OPT_COUNT))
        return usage_error("probe underflow: give --count or --input, not both");
    if (o->input) {
        if (!(*g = vl_values_read(o->input, VL_PROBE_MAX_VALUES, &n, err)))
            return usage_error("--input: %s", err);
        r->input = o->input;
    } else {
        if (!(*g = malloc(n * sizeof **g)))
            return usage_error("out of memory for %zu values", n);
        vl_sample_fill(*g, n, o->seed);
    }
    if (o->n_scales)
        vl_underflow_compute(r->backend, *g, n, o->scales, o->n_scales, given(o, OPT_SATURATE), u);
    else
        vl_underflow_compute(r->backend, *g, n, default_scales, 3, given(o, OPT_SATURATE), u);
    r->underflow = u;
    return EXIT_OK;
}

static int run_scaler(const probe_opts *o, probe_report *r, vl_scaler_opts *so)
{
    vl_scaler_opts_default(so);
    so->seed = o->seed;
    if (given(o, OPT_STEPS))
        so->steps = o->steps;
    if (given(o, OPT_INIT_SCALE))
        so->params.init_scale = o->init_scale;
    if (given(o, OPT_GROWTH_FACTOR))
        so->params.growth_factor = o->growth;
    if (given(o, OPT_BACKOFF_FACTOR))
        so->params.backoff_factor = o->backoff;
    if (given(o, OPT_GROWTH_INTERVAL))
        so->params.growth_interval = (int32_t)o->interval;
    if (given(o, OPT_GRAD_MAX))
        so->grad_max = o->grad_max;
    if (given(o, OPT_OVERFLOW_PROB))
        so->overflow_prob = o->prob;
    if (given(o, OPT_OVERFLOW_AT) && given(o, OPT_OVERFLOW_PROB))
        return usage_error("probe scaler: give --overflow-prob or --overflow-at, not both");
    for (size_t i = 0; i < o->n_at; i++)
        if (o->at[i] > so->steps)
            return usage_error("--overflow-at: step %llu is past the last step (%zu)",
                               (unsigned long long)o->at[i], so->steps);
    so->overflow_at = o->at;
    so->n_overflow_at = o->n_at;
    if (!(r->scaler = vl_scaler_trace_new(r->backend, so)))
        return usage_error("out of memory for %zu steps", so->steps);
    r->scaler_opts = so;
    return EXIT_OK;
}

static int run_update(const probe_opts *o, probe_report *r, vl_update *u)
{
    vl_update_opts uo;
    vl_update_opts_default(&uo);
    uo.seed = o->seed;
    if (given(o, OPT_COUNT))
        uo.per_bucket = o->count;
    if (given(o, OPT_STEPS))
        uo.steps = (uint32_t)o->steps;
    if (given(o, OPT_WEIGHT))
        uo.weight = o->weight;
    if (given(o, OPT_UPDATE))
        uo.update = o->update;
    const char *why = vl_update_compute(r->backend, &uo, u);
    if (why)
        return usage_error("probe update: %s", why);
    r->update = u;
    return EXIT_OK;
}

static int run_accumulate(const probe_opts *o, probe_report *r, vl_accumulate *a)
{
    vl_accumulate_opts ao;
    vl_accumulate_opts_default(&ao);
    ao.seed = o->seed;
    if (given(o, OPT_COUNT))
        ao.n = o->count;
    ao.constant = given(o, OPT_VALUE);
    ao.value = o->value;
    const char *why = vl_accumulate_compute(r->backend, &ao, a);
    if (why)
        return usage_error("probe accumulate: %s", why);
    r->accumulate = a;
    return EXIT_OK;
}

/* The features of --input: rows of VL_TRAIN_IN finite values, whole micro-batches. */
static int train_input(const char *path, float **x, size_t *rows)
{
    char err[VL_NPY_ERR_LEN];
    size_t n;
    if (!(*x = vl_values_read(path, (size_t)VL_TRAIN_MAX_ROWS * VL_TRAIN_IN, &n, err)))
        return usage_error("--input: %s", err);
    for (size_t i = 0; i < n; i++)
        if (!isfinite((*x)[i]))
            return usage_error("--input: %s: value %zu is not finite", path, i);
    if (n % VL_TRAIN_IN || n / VL_TRAIN_IN < VL_TRAIN_BATCH ||
        n / VL_TRAIN_IN % VL_TRAIN_BATCH)
        return usage_error("--input: %s: %zu values are not rows of %d features in whole "
                           "micro-batches of %d rows",
                           path, n, VL_TRAIN_IN, VL_TRAIN_BATCH);
    *rows = n / VL_TRAIN_IN;
    return EXIT_OK;
}

static int run_train(const probe_opts *o)
{
    vl_train_opts to;
    vl_train_run *runs[VL_N_REGIMES] = {NULL};
    float *x = NULL;
    int rc, n = 0;

    vl_train_opts_default(&to);
    to.seed = o->seed;
    if (given(o, OPT_STEPS) && (rc = check_range(OPT_STEPS, o->steps, 1, VL_TRAIN_MAX_STEPS)))
        return rc;
    if (given(o, OPT_GROWTH_INTERVAL) &&
        (rc = check_range(OPT_GROWTH_INTERVAL, o->interval, 1, INT32_MAX)))
        return rc;
    if (given(o, OPT_SCALE) && o->n_scales != 1)
        return usage_error("--scale: probe train takes one loss scale (fp16-static's)");
    if (given(o, OPT_STEPS))
        to.steps = (uint32_t)o->steps;
    if (given(o, OPT_LR))
        to.lr = o->lr;
    if (given(o, OPT_SCALE))
        to.static_scale = o->scales[0];
    if (given(o, OPT_INIT_SCALE))
        to.scaler.init_scale = o->init_scale;
    if (given(o, OPT_GROWTH_FACTOR))
        to.scaler.growth_factor = o->growth;
    if (given(o, OPT_BACKOFF_FACTOR))
        to.scaler.backoff_factor = o->backoff;
    if (given(o, OPT_GROWTH_INTERVAL))
        to.scaler.growth_interval = (int32_t)o->interval;
    to.accumulate_in_format = o->accum == 1;
    if (o->input) {
        if ((rc = train_input(o->input, &x, &to.rows)) != EXIT_OK) {
            free(x);
            return rc;
        }
        to.features = x;
    }

    vl_backend b;
    if (!vl_backend_open(&b, (vl_backend_choice)o->backend)) {
        free(x);
        return usage_error("--backend cuda: %s", b.why_cpu);
    }
    unsigned set = given(o, OPT_REGIMES) ? o->regimes : (1u << VL_N_REGIMES) - 1;
    rc = EXIT_OK;
    for (int g = 0; g < VL_N_REGIMES && rc == EXIT_OK; g++)
        if (set >> g & 1 && !(runs[n++] = vl_train_init(&b, &to, g)))
            rc = usage_error("out of memory");

    /* in slices, with progress on a terminal once the run takes more than a second */
    double start = cli_seconds();
    bool tty = isatty(STDERR_FILENO), shown = false;
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        while (vl_train_step(runs[i], 25) < to.steps) {
            if (tty && cli_seconds() - start > 1.0) {
                fprintf(stderr, "\rprobe train: %s, step %" PRIu32 " of %" PRIu32 "   ",
                        runs[i]->regime->name, runs[i]->done, to.steps);
                shown = true;
            }
        }
    }
    if (shown)
        fprintf(stderr, "\r%60s\r", "");
    if (rc == EXIT_OK) {
        train_report t = {.backend = &b, .opts = &to, .input = o->input,
                          .rows = o->input ? to.rows : VL_TRAIN_ROWS, .runs = runs, .n = n};
        train_write(stdout, (out_format)o->out, &t);
    }
    for (int i = 0; i < n; i++)
        vl_train_free(runs[i]);
    free(x);
    return rc;
}

static int run_selftest(const probe_opts *o)
{
    vl_backend b;
    vl_selftest *t = calloc(1, sizeof *t);

    if (!t)
        return usage_error("out of memory");
    vl_backend_open(&b, VL_BACKEND_AUTO);
    if (!b.cuda) {
        if (o->out == OUT_JSON) {
            json_probe_head(stdout, &b);
            printf(",\n \"selftest\": {\"skipped\": ");
            json_string(stdout, b.why_cpu);
            printf("}}\n");
        } else {
            printf("skipped: %s\n", b.why_cpu);
        }
        free(t);
        return EXIT_OK;
    }
    const char *why = vl_selftest_run(&b, t);
    selftest_write(stdout, (out_format)o->out, &b, t, why);
    int rc = why || vl_selftest_failures(t) ? EXIT_NOFIT : EXIT_OK;
    free(t);
    return rc;
}

int cmd_probe(int argc, char **argv)
{
    probe_opts o = {.out = OUT_TABLE, .backend = VL_BACKEND_AUTO, .seed = VL_PROBE_SEED};
    int code, rc, exp = -1; /* -1: the four */

    options_start();
    while ((rc = options_next(argc, argv, long_options, "probe", &code)) == EXIT_OK && code != -1)
        if ((rc = parse_option(&o, code, optarg)) != EXIT_OK)
            return rc;
    if (rc != EXIT_OK)
        return rc;
    if (optind < argc) {
        char list[128], hint[96];
        if ((exp = vl_lookup(exp_names, N_EXPS, argv[optind])) < 0)
            return usage_error("probe: unknown experiment '%s' (expected %s)%s", argv[optind],
                               vl_join(exp_names, N_EXPS, list, sizeof list),
                               vl_hint(argv[optind], exp_names, N_EXPS, hint, sizeof hint));
        if (optind + 1 < argc)
            return usage_error("probe: unexpected argument '%s' (see vramlab probe --help)",
                               argv[optind + 1]);
    }
    if (given(&o, OPT_HELP)) {
        usage();
        return EXIT_OK;
    }
    if ((rc = check_applies(&o, exp)) != EXIT_OK)
        return rc;
    if (exp == EXP_SELFTEST)
        return run_selftest(&o);
    if (exp == EXP_TRAIN)
        return run_train(&o);

    /* by experiment; check_applies made sure that --count and --steps come with one */
    uint64_t count_max[] = {VL_PROBE_MAX_VALUES, 0, VL_UPDATE_MAX_PER_BUCKET, 1u << 24};
    uint64_t steps_max[] = {0, VL_SCALER_MAX_STEPS, VL_UPDATE_MAX_STEPS, 0};
    if (given(&o, OPT_COUNT) && (rc = check_range(OPT_COUNT, o.count, 1, count_max[exp])))
        return rc;
    if (given(&o, OPT_STEPS) && (rc = check_range(OPT_STEPS, o.steps, 1, steps_max[exp])))
        return rc;
    if (given(&o, OPT_GROWTH_INTERVAL) &&
        (rc = check_range(OPT_GROWTH_INTERVAL, o.interval, 1, INT32_MAX)))
        return rc;
    if (!given(&o, OPT_COUNT))
        o.count = 1u << 20; /* the underflow sample; the others have their own defaults */

    vl_backend b;
    if (!vl_backend_open(&b, (vl_backend_choice)o.backend))
        return usage_error("--backend cuda: %s", b.why_cpu);

    probe_report r = {.backend = &b, .seed = o.seed};
    vl_underflow *u = calloc(1, sizeof *u);
    vl_scaler_opts so;
    vl_update up;
    vl_accumulate acc;
    float *g = NULL;
    if (!u)
        return usage_error("out of memory");
    rc = EXIT_OK;
    if (exp < 0 || exp == EXP_UNDERFLOW)
        rc = run_underflow(&o, &r, u, &g);
    if (rc == EXIT_OK && (exp < 0 || exp == EXP_SCALER))
        rc = run_scaler(&o, &r, &so);
    if (rc == EXIT_OK && (exp < 0 || exp == EXP_UPDATE))
        rc = run_update(&o, &r, &up);
    if (rc == EXIT_OK && (exp < 0 || exp == EXP_ACCUMULATE))
        rc = run_accumulate(&o, &r, &acc);
    if (rc == EXIT_OK)
        probe_write(stdout, (out_format)o.out, &r);
    vl_scaler_trace_free(r.scaler);
    free(u);
    free(g);
    return rc;
}
