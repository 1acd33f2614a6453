/* options.c: the options `estimate` and the explorer share (DESIGN §2). */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/units.h"

enum {
    OPT_PRESET = 256, OPT_PRESET_FILE, OPT_PARAMS, OPT_MODE, OPT_PRECISION, OPT_OPTIMIZER,
    OPT_FP32_GRADS, OPT_FP32_GRAD_COPY, OPT_NO_FP32_GRAD_COPY, OPT_ZERO, OPT_GPUS, OPT_BATCH,
    OPT_SEQ, OPT_GEN, OPT_RECOMPUTE, OPT_FLASH, OPT_NO_FLASH, OPT_WEIGHT_DTYPE, OPT_KV_DTYPE,
    OPT_GPU, OPT_OVERHEAD, OPT_FORMAT, OPT_UNITS, OPT_CHECK_FIT, OPT_EXPLAIN, OPT_HELP,
    OPT_NO_MOUSE, OPT_NO_COLOR, OPT_ASCII, OPT_THEME,
};

static const struct option long_options[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"preset-file", required_argument, NULL, OPT_PRESET_FILE},
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
    {"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"theme", required_argument, NULL, OPT_THEME},
    {NULL, 0, NULL, 0},
};

static const char *const units_names[] = {"gib", "gb"};
const char *const theme_names[N_THEMES] = {"default", "high-contrast"};

static const char *option_name(int code)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == code)
            return o->name;
    return "?";
}

int option_choice(const char *flag, const char *arg, const char *const *names, int n, int *out)
{
    int i = vl_lookup(names, n, arg);
    if (i >= 0) {
        *out = i;
        return EXIT_OK;
    }
    char list[256], hint[96];
    return usage_error("--%s: unknown value '%s' (expected %s)%s", flag, arg,
                       vl_join(names, (size_t)n, list, sizeof list),
                       vl_hint(arg, names, (size_t)n, hint, sizeof hint));
}

static int parse_enum(int code, const char *arg, const char *const *names, int n, int *out)
{
    return option_choice(option_name(code), arg, names, n, out);
}

static int parse_count(int code, const char *arg, uint64_t *out)
{
    const char *why;
    if (!vl_parse_count(arg, out, &why))
        return usage_error("--%s: '%s' is not a whole number: %s", option_name(code), arg, why);
    return EXIT_OK;
}

static int parse_option(run_opts *o, int code, const char *arg)
{
    int e = 0, rc = EXIT_OK;
    uint64_t v;
    const char *why;

    switch (code) {
    case OPT_PRESET: o->preset = arg; break;
    case OPT_PRESET_FILE: o->preset_file = arg; break;
    case OPT_PARAMS:
        rc = parse_count(code, arg, &o->params);
        if (rc == EXIT_OK && (o->params < 1000000 || o->params > 100000000000000ULL))
            rc = usage_error("--params: '%s' is outside 1M..100T", arg);
        o->params_arg = arg;
        break;
    case OPT_MODE:
        rc = parse_enum(code, arg, vl_mode_names, VL_N_MODES, &e);
        o->s.mode = (vl_mode)e;
        break;
    case OPT_PRECISION:
        rc = parse_enum(code, arg, vl_precision_names, VL_N_PRECISIONS, &e);
        o->s.precision = (vl_precision)e;
        break;
    case OPT_OPTIMIZER:
        rc = parse_enum(code, arg, vl_optimizer_names, VL_N_OPTIMIZERS, &e);
        o->s.optimizer = (vl_optimizer)e;
        break;
    case OPT_RECOMPUTE:
        rc = parse_enum(code, arg, vl_recompute_names, VL_N_RECOMPUTES, &e);
        o->s.recompute = (vl_recompute)e;
        break;
    case OPT_WEIGHT_DTYPE:
    case OPT_KV_DTYPE:
        rc = parse_enum(code, arg, vl_dtype_names, VL_N_DTYPES, &e);
        *(code == OPT_WEIGHT_DTYPE ? &o->s.weight_dtype : &o->s.kv_dtype) = (vl_dtype)e;
        o->infer_only_given = true;
        break;
    case OPT_FORMAT:
        rc = parse_enum(code, arg, report_format_names, N_FORMATS, &e);
        o->format = (report_format)e;
        break;
    case OPT_UNITS:
        rc = parse_enum(code, arg, units_names, 2, &e);
        o->units = (vl_units)e;
        break;
    case OPT_FP32_GRADS: o->s.fp32_grads = true; break;
    case OPT_FP32_GRAD_COPY: o->s.fp32_grad_copy = true; break;
    case OPT_NO_FP32_GRAD_COPY: o->s.fp32_grad_copy = false; break;
    case OPT_FLASH: o->s.flash_attn = true; break;
    case OPT_NO_FLASH: o->s.flash_attn = false; break;
    case OPT_CHECK_FIT: o->check_fit = true; break;
    case OPT_EXPLAIN: o->explain = true; break;
    case OPT_HELP: o->help = true; break;
    case OPT_ZERO:
        rc = parse_count(code, arg, &v);
        if (rc == EXIT_OK && v > 3)
            rc = usage_error("--zero: '%s' is not a ZeRO stage (0, 1, 2 or 3)", arg);
        o->s.zero = (unsigned)v;
        break;
    case OPT_GPUS: rc = parse_count(code, arg, &o->s.gpus); break;
    case OPT_BATCH: rc = parse_count(code, arg, &o->s.batch); break;
    case OPT_SEQ: rc = parse_count(code, arg, &o->s.seq); break;
    case OPT_GEN: rc = parse_count(code, arg, &o->s.gen); break;
    case OPT_GPU: o->gpu = arg; break;
    case OPT_NO_MOUSE: o->no_mouse = o->tui_only_given = true; break;
    case OPT_NO_COLOR: o->no_color = o->tui_only_given = true; break;
    case OPT_ASCII: o->ascii = o->tui_only_given = true; break;
    case OPT_THEME:
        rc = parse_enum(code, arg, theme_names, N_THEMES, &e);
        o->theme = (ui_theme)e;
        o->tui_only_given = true;
        break;
    case OPT_OVERHEAD:
        if (!vl_parse_size(arg, &o->s.overhead, &why))
            rc = usage_error("--overhead: '%s' is not a size (e.g. 0, 1GiB, 800MB): %s", arg, why);
        break;
    }
    return rc;
}

/* Resolves the model: --preset, --preset-file, --params, or the default. */
static int pick_model(const run_opts *o, vl_catalog *cat, vl_model *m)
{
    char err[VL_ERR_LEN];
    int given = !!o->preset + !!o->preset_file + !!o->params_arg;
    if (given > 1)
        return usage_error("give only one of --preset, --preset-file and --params");
    if (o->params_arg) {
        vl_model_from_params(m, o->params);
        return EXIT_OK;
    }
    if (o->preset_file) {
        vl_kind kind;
        size_t i;
        if (!vl_catalog_add_file(cat, o->preset_file, &kind, &i, err))
            return usage_error("%s", err);
        if (kind != VL_KIND_MODEL)
            return usage_error("--preset-file: %s is a '%s' preset, not a model", o->preset_file,
                               vl_kind_names[kind]);
        *m = cat->models[i];
        return EXIT_OK;
    }
    const char *name = o->preset ? o->preset : DEFAULT_MODEL;
    const vl_model *found = vl_catalog_model(cat, name);
    if (!found) {
        char hint[96];
        return usage_error("--preset: no model named '%s' (vramlab presets lists them)%s", name,
                           vl_catalog_hint(cat, VL_KIND_MODEL, name, hint, sizeof hint));
    }
    *m = *found;
    return EXIT_OK;
}

void options_start(void)
{
    opterr = 0;
    optind = 1;
}

int options_next(int argc, char **argv, const struct option *opts, const char *command, int *code)
{
    *code = getopt_long(argc, argv, ":", opts, NULL);
    if (*code == '?')
        return usage_error("unknown option '%s' (see vramlab %s --help)", argv[optind - 1],
                           command);
    if (*code == ':')
        return usage_error("%s needs a value", argv[optind - 1]);
    return EXIT_OK;
}

int options_parse(int argc, char **argv, run_opts *o, const char *command)
{
    *o = (run_opts){.format = FMT_TABLE, .units = VL_UNITS_GIB};
    vl_settings_default(&o->s);

    int code, rc;
    options_start();
    while ((rc = options_next(argc, argv, long_options, command, &code)) == EXIT_OK && code != -1)
        if ((rc = parse_option(o, code, optarg)) != EXIT_OK)
            return rc;
    if (rc != EXIT_OK)
        return rc;
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see vramlab %s --help)", argv[optind],
                           command);
    if (o->infer_only_given && o->s.mode != VL_MODE_INFER && !o->help)
        return usage_error("--weight-dtype and --kv-dtype apply to --mode infer only");
    return EXIT_OK;
}

int options_resolve(const run_opts *o, vl_catalog *cat, vl_model *m, const vl_gpu **gpu)
{
    char err[VL_ERR_LEN];
    int rc;
    if (!vl_catalog_add_builtin(cat, err))
        return usage_error("%s", err);
    if ((rc = pick_model(o, cat, m)) != EXIT_OK)
        return rc;
    const char *name = o->gpu ? o->gpu : DEFAULT_GPU;
    if (!(*gpu = vl_catalog_gpu(cat, name))) {
        char hint[96];
        return usage_error("--gpu: no GPU named '%s' (vramlab presets lists them)%s", name,
                           vl_catalog_hint(cat, VL_KIND_GPU, name, hint, sizeof hint));
    }
    return EXIT_OK;
}
