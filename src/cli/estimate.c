/* estimate.c: `vramlab estimate`: options -> settings -> breakdown -> report. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/catalog.h"
#include "core/hfconfig.h"
#include "core/memory.h"
#include "core/scenario.h"
#include "core/units.h"
#include "report.h"

#define DEFAULT_MODEL "llama-2-7b"
#define DEFAULT_GPU "h100-80gb"

enum {
    OPT_PRESET = 256, OPT_PRESET_FILE, OPT_HF_CONFIG, OPT_PARAMS, OPT_MODE, OPT_PRECISION, OPT_OPTIMIZER,
    OPT_FP32_GRADS, OPT_FP32_GRAD_COPY, OPT_NO_FP32_GRAD_COPY, OPT_ZERO, OPT_GPUS, OPT_BATCH,
    OPT_SEQ, OPT_GEN, OPT_RECOMPUTE, OPT_FLASH, OPT_NO_FLASH, OPT_WEIGHT_DTYPE, OPT_KV_DTYPE,
    OPT_GPU, OPT_OVERHEAD, OPT_FORMAT, OPT_UNITS, OPT_CHECK_FIT, OPT_EXPLAIN, OPT_HELP,
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"preset-file", required_argument, NULL, OPT_PRESET_FILE},
    {"hf-config", required_argument, NULL, OPT_HF_CONFIG},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"mode", required_argument, NULL, OPT_MODE},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"optimizer", required_argument, NULL, OPT_OPTIMIZER},
    {"fp32-grads", no_argument, NULL, OPT_FP32_GRADS},
    {"fp32-grad-copy", no_argument, NULL, OPT_FP32_GRAD_COPY},
    {"no-fp32-grad-copy", no_argument, NULL, OPT_NO_FP32_GRAD_COPY},
    {"zero", required_argument, NULL, OPT_ZERO},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"gen", required_argument, NULL, OPT_GEN},
    {"recompute", required_argument, NULL, OPT_RECOMPUTE},
    {"flash-attn", no_argument, NULL, OPT_FLASH},
    {"no-flash-attn", no_argument, NULL, OPT_NO_FLASH},
    {"weight-dtype", required_argument, NULL, OPT_WEIGHT_DTYPE},
    {"kv-dtype", required_argument, NULL, OPT_KV_DTYPE},
    {"gpu", required_argument, NULL, OPT_GPU},
    {"overhead", required_argument, NULL, OPT_OVERHEAD},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"units", required_argument, NULL, OPT_UNITS},
    {"check-fit", no_argument, NULL, OPT_CHECK_FIT},
    {"explain", no_argument, NULL, OPT_EXPLAIN},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static const char *const units_names[] = {"gib", "gb"};

static const char *option_name(int code)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == code)
            return o->name;
    return "?";
}

/* One of names[0..n) into *out, or a message naming the flag. */
static int parse_enum(int code, const char *arg, const char *const *names, int n, int *out)
{
    int i = vl_lookup(names, n, arg);
    if (i >= 0) {
        *out = i;
        return EXIT_OK;
    }
    char list[256], hint[96];
    return usage_error("--%s: unknown value '%s' (expected %s)%s", option_name(code), arg,
                       vl_join(names, (size_t)n, list, sizeof list),
                       vl_hint(arg, names, (size_t)n, hint, sizeof hint));
}

static int parse_count(int code, const char *arg, uint64_t *out)
{
    const char *why;
    if (!vl_parse_count(arg, out, &why))
        return usage_error("--%s: '%s' is not a whole number: %s", option_name(code), arg, why);
    return EXIT_OK;
}

typedef struct estimate_opts {
    vl_settings_patch flags; /* the settings given on the command line */
    const char *preset, *preset_file, *hf_config, *params_arg, *gpu;
    uint64_t params;
    report_format format;
    vl_units units;
    bool check_fit, explain, help;
} estimate_opts;

/* An enum-valued setting: the value into *field, the setting marked as given. */
static int set_enum(estimate_opts *o, int code, const char *arg, const char *const *names, int n,
                    vl_setting k, void *field)
{
    int e = 0, rc = parse_enum(code, arg, names, n, &e);
    memcpy(field, &e, sizeof e);
    vl_patch_mark(&o->flags, k);
    return rc;
}

static int set_count(estimate_opts *o, int code, const char *arg, vl_setting k, uint64_t *field)
{
    vl_patch_mark(&o->flags, k);
    return parse_count(code, arg, field);
}

static void set_flag(estimate_opts *o, vl_setting k, bool *field, bool value)
{
    *field = value;
    vl_patch_mark(&o->flags, k);
}

static int parse_option(estimate_opts *o, int code, const char *arg)
{
    vl_settings *s = &o->flags.values;
    int e = 0, rc = EXIT_OK;
    uint64_t v;
    const char *why;

    switch (code) {
    case OPT_PRESET: o->preset = arg; break;
    case OPT_PRESET_FILE: o->preset_file = arg; break;
    case OPT_HF_CONFIG: o->hf_config = arg; break;
    case OPT_PARAMS:
        rc = parse_count(code, arg, &o->params);
        if (rc == EXIT_OK && (o->params < 1000000 || o->params > 100000000000000ULL))
            rc = usage_error("--params: '%s' is outside 1M..100T", arg);
        o->params_arg = arg;
        break;
    case OPT_MODE:
        return set_enum(o, code, arg, vl_mode_names, VL_N_MODES, VL_SET_MODE, &s->mode);
    case OPT_PRECISION:
        return set_enum(o, code, arg, vl_precision_names, VL_N_PRECISIONS, VL_SET_PRECISION,
                        &s->precision);
    case OPT_OPTIMIZER:
        return set_enum(o, code, arg, vl_optimizer_names, VL_N_OPTIMIZERS, VL_SET_OPTIMIZER,
                        &s->optimizer);
    case OPT_RECOMPUTE:
        return set_enum(o, code, arg, vl_recompute_names, VL_N_RECOMPUTES, VL_SET_RECOMPUTE,
                        &s->recompute);
    case OPT_WEIGHT_DTYPE:
        return set_enum(o, code, arg, vl_dtype_names, VL_N_DTYPES, VL_SET_WEIGHT_DTYPE,
                        &s->weight_dtype);
    case OPT_KV_DTYPE:
        return set_enum(o, code, arg, vl_dtype_names, VL_N_DTYPES, VL_SET_KV_DTYPE, &s->kv_dtype);
    case OPT_FORMAT:
        rc = parse_enum(code, arg, report_format_names, N_FORMATS, &e);
        o->format = (report_format)e;
        break;
    case OPT_UNITS:
        rc = parse_enum(code, arg, units_names, 2, &e);
        o->units = (vl_units)e;
        break;
    case OPT_FP32_GRADS: set_flag(o, VL_SET_FP32_GRADS, &s->fp32_grads, true); break;
    case OPT_FP32_GRAD_COPY: set_flag(o, VL_SET_FP32_GRAD_COPY, &s->fp32_grad_copy, true); break;
    case OPT_NO_FP32_GRAD_COPY: set_flag(o, VL_SET_FP32_GRAD_COPY, &s->fp32_grad_copy, false); break;
    case OPT_FLASH: set_flag(o, VL_SET_FLASH_ATTN, &s->flash_attn, true); break;
    case OPT_NO_FLASH: set_flag(o, VL_SET_FLASH_ATTN, &s->flash_attn, false); break;
    case OPT_CHECK_FIT: o->check_fit = true; break;
    case OPT_EXPLAIN: o->explain = true; break;
    case OPT_HELP: o->help = true; break;
    case OPT_ZERO:
        rc = parse_count(code, arg, &v);
        if (rc == EXIT_OK && v > 3)
            rc = usage_error("--zero: '%s' is not a ZeRO stage (0, 1, 2 or 3)", arg);
        s->zero = (unsigned)v;
        vl_patch_mark(&o->flags, VL_SET_ZERO);
        break;
    case OPT_GPUS: return set_count(o, code, arg, VL_SET_GPUS, &s->gpus);
    case OPT_BATCH: return set_count(o, code, arg, VL_SET_BATCH, &s->batch);
    case OPT_SEQ: return set_count(o, code, arg, VL_SET_SEQ, &s->seq);
    case OPT_GEN: return set_count(o, code, arg, VL_SET_GEN, &s->gen);
    case OPT_GPU: o->gpu = arg; break;
    case OPT_OVERHEAD:
        if (!vl_parse_size(arg, &s->overhead, &why))
            rc = usage_error("--overhead: '%s' is not a size (e.g. 0, 1GiB, 800MB): %s", arg, why);
        vl_patch_mark(&o->flags, VL_SET_OVERHEAD);
        break;
    }
    return rc;
}

static void estimate_help(void)
{
    printf(
        "usage: vramlab estimate [OPTIONS]\n"
        "Print the per-GPU memory needed to train a transformer, and how each part is computed.\n"
        "\n"
        "model (one of; a scenario's settings apply first, then the flags):\n"
        "  --preset NAME           a model or scenario from the catalog (default " DEFAULT_MODEL ")\n"
        "  --preset-file PATH      a YAML model or scenario preset (see vramlab-presets(5))\n"
        "  --hf-config PATH        a Hugging Face config.json\n"
        "  --params N              a free count (7B, 350M, 1.5T, 7e9): GPT-3-like shape derived\n"
        "training:\n"
        "  --precision P           fp32, fp16, bf16, fp16-mixed, bf16-mixed (default bf16-mixed)\n"
        "  --optimizer O           adamw, adam-8bit, sgd-momentum, sgd, lion (default adamw)\n"
        "  --fp32-grads            gradients in fp32 (Megatron-LM main grads)\n"
        "  --fp32-grad-copy        count an fp32 gradient copy in the optimizer states (default)\n"
        "  --no-fp32-grad-copy     do not (the ZeRO paper's K = 12)\n"
        "  --zero S                ZeRO stage 0, 1, 2 or 3 (default 0)\n"
        "  --gpus N                data-parallel GPUs (default 1)\n"
        "  --batch N               micro-batch per GPU (default 1)\n"
        "  --seq N                 sequence length in tokens (default 2048)\n"
        "  --recompute R           none, selective, full (default none)\n"
        "  --flash-attn, --no-flash-attn   attention without the s^2 matrices (default off)\n"
        "  --overhead SIZE         CUDA context and workspace: 0, 1GiB, 800MB (default 1GiB)\n"
        "  --mode train            (inference arrives in a later version)\n"
        "output:\n"
        "  --gpu NAME              GPU to fit on (default " DEFAULT_GPU ")\n"
        "  --format F              table, json, csv, markdown (default table)\n"
        "  --units U               gib (2^30 bytes) or gb (10^9 bytes) (default gib)\n"
        "  --explain               list every activation tensor saved for backward\n"
        "  --check-fit             exit 1 when the run does not fit the GPU\n"
        "\n"
        "exit status: 0 ok, 1 does not fit (with --check-fit), 2 bad usage or input.\n"
        "See vramlab(1) for the formulas and their sources.\n");
}

/* What the run is about: the model, the scenario's settings and GPU when one was picked. */
typedef struct choice {
    vl_model model;
    vl_settings_patch scenario;
    char gpu[64];
} choice;

static int use_scenario(const vl_catalog *cat, const vl_scenario *sc, choice *ch)
{
    ch->scenario = sc->settings;
    snprintf(ch->gpu, sizeof ch->gpu, "%s", sc->gpu);
    if (sc->params) {
        vl_model_from_params(&ch->model, sc->params);
        return EXIT_OK;
    }
    const vl_model *m = vl_catalog_model(cat, sc->model);
    if (!m) {
        char hint[96];
        return usage_error("scenario '%s' (%s): no model named '%s'%s", sc->name, sc->origin,
                           sc->model, vl_catalog_hint(cat, VL_KIND_MODEL, sc->model, hint,
                                                      sizeof hint));
    }
    ch->model = *m;
    return EXIT_OK;
}

/* Resolves --preset, --preset-file, --hf-config, --params, or the default. */
static int pick_model(const estimate_opts *o, vl_catalog *cat, choice *ch)
{
    char err[VL_ERR_LEN];
    int given = !!o->preset + !!o->preset_file + !!o->hf_config + !!o->params_arg;
    if (given > 1)
        return usage_error("give only one of --preset, --preset-file, --hf-config and --params");
    if (o->params_arg) {
        vl_model_from_params(&ch->model, o->params);
        return EXIT_OK;
    }
    if (o->hf_config)
        return vl_model_from_hf_file(o->hf_config, &ch->model, err) ? EXIT_OK
                                                                     : usage_error("%s", err);
    if (o->preset_file) {
        vl_kind kind;
        size_t i;
        if (!vl_catalog_add_file(cat, o->preset_file, &kind, &i, err))
            return usage_error("%s", err);
        if (kind == VL_KIND_SCENARIO)
            return use_scenario(cat, &cat->scenarios[i], ch);
        if (kind != VL_KIND_MODEL)
            return usage_error("--preset-file: %s is a '%s' preset, not a model or scenario",
                               o->preset_file, vl_kind_names[kind]);
        ch->model = cat->models[i];
        return EXIT_OK;
    }
    const char *name = o->preset ? o->preset : DEFAULT_MODEL;
    const vl_model *found = vl_catalog_model(cat, name);
    if (found) {
        ch->model = *found;
        return EXIT_OK;
    }
    const vl_scenario *sc = vl_catalog_scenario(cat, name);
    if (sc)
        return use_scenario(cat, sc, ch);
    char hint[96];
    return usage_error("--preset: no model or scenario named '%s' (vramlab presets lists them)%s",
                       name, vl_catalog_hint(cat, VL_KIND_MODEL, name, hint, sizeof hint));
}

/* The catalog of the search path; its warnings (bad files found there) go to stderr. */
int cli_load_catalog(vl_catalog *cat)
{
    char err[VL_ERR_LEN];
    vl_catalog_init(cat);
    if (!vl_catalog_load(cat, err))
        return usage_error("%s", err);
    for (size_t i = 0; i < cat->n_warnings; i++)
        fprintf(stderr, "vramlab: warning: %s\n", cat->warnings[i]);
    return EXIT_OK;
}

int cmd_estimate(int argc, char **argv)
{
    estimate_opts o = {.format = FMT_TABLE, .units = VL_UNITS_GIB};

    opterr = 0;
    optind = 1;
    int code, rc;
    while ((code = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
        if (code == '?')
            return usage_error("unknown option '%s' (see vramlab estimate --help)",
                               argv[optind - 1]);
        if (code == ':')
            return usage_error("%s needs a value", argv[optind - 1]);
        if ((rc = parse_option(&o, code, optarg)) != EXIT_OK)
            return rc;
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see vramlab estimate --help)", argv[optind]);
    if (o.help) {
        estimate_help();
        return EXIT_OK;
    }

    vl_catalog cat;
    choice ch = {0};
    vl_settings s;
    vl_breakdown b;
    if ((rc = cli_load_catalog(&cat)) != EXIT_OK)
        goto out;
    if ((rc = pick_model(&o, &cat, &ch)) != EXIT_OK)
        goto out;
    vl_settings_default(&s);
    vl_settings_apply(&s, &ch.scenario);
    vl_settings_apply(&s, &o.flags);
    const uint32_t infer_only = 1u << VL_SET_WEIGHT_DTYPE | 1u << VL_SET_KV_DTYPE;
    if ((o.flags.given & infer_only) && s.mode != VL_MODE_INFER) {
        rc = usage_error("--weight-dtype and --kv-dtype apply to --mode infer only");
        goto out;
    }
    const char *gpu_name = o.gpu ? o.gpu : ch.gpu[0] ? ch.gpu : DEFAULT_GPU;
    const vl_gpu *gpu = vl_catalog_gpu(&cat, gpu_name);
    if (!gpu) {
        char hint[96];
        rc = usage_error("--gpu: no GPU named '%s' (vramlab presets lists them)%s", gpu_name,
                         vl_catalog_hint(&cat, VL_KIND_GPU, gpu_name, hint, sizeof hint));
        goto out;
    }
    const char *why = vl_estimate(&ch.model, &s, &b);
    if (why) {
        rc = usage_error("%s", why);
        goto out;
    }
    report r = {&ch.model, &s, &b, gpu, o.units, o.explain};
    report_write(stdout, o.format, &r);
    rc = o.check_fit && !report_fits(&r) ? EXIT_NOFIT : EXIT_OK;
out:
    vl_catalog_free(&cat);
    return rc;
}
