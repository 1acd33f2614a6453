/* options.c: the options `estimate` and the explorer share (HACKING §2). */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "core/hfconfig.h"
#include "core/lora.h"
#include "core/units.h"

int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("vramlab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

enum {
    OPT_PRESET = 256, OPT_PRESET_FILE, OPT_HF_CONFIG, OPT_PARAMS, OPT_MODE, OPT_PRECISION, OPT_OPTIMIZER,
    OPT_FP32_GRADS, OPT_FP32_GRAD_COPY, OPT_NO_FP32_GRAD_COPY, OPT_ZERO, OPT_GPUS, OPT_BATCH,
    OPT_SEQ, OPT_GEN, OPT_RECOMPUTE, OPT_FLASH, OPT_NO_FLASH, OPT_WEIGHT_DTYPE, OPT_KV_DTYPE,
    OPT_GPU, OPT_OVERHEAD, OPT_FORMAT, OPT_UNITS, OPT_CHECK_FIT, OPT_EXPLAIN, OPT_HELP,
    OPT_NO_MOUSE, OPT_NO_COLOR, OPT_ASCII, OPT_THEME, OPT_GROUP_SIZE, OPT_SOLVE,
    OPT_LORA_RANK, OPT_LORA_TARGETS, OPT_QLORA, OPT_OFFLOAD, OPT_GPUS_PER_NODE,
    OPT_TP, OPT_PP, OPT_SP, OPT_GRAD_ACCUM,
};
#define GIVEN(code) (1ULL << ((code) - OPT_PRESET))

/* The setting each option sets, for laying the flags over a scenario (-1: none). */
static int setting_of(int code)
{
    switch (code) {
    case OPT_MODE: return VL_SET_MODE;
    case OPT_PRECISION: return VL_SET_PRECISION;
    case OPT_OPTIMIZER: return VL_SET_OPTIMIZER;
    case OPT_FP32_GRADS: return VL_SET_FP32_GRADS;
    case OPT_FP32_GRAD_COPY:
    case OPT_NO_FP32_GRAD_COPY: return VL_SET_FP32_GRAD_COPY;
    case OPT_ZERO: return VL_SET_ZERO;
    case OPT_GPUS: return VL_SET_GPUS;
    case OPT_BATCH: return VL_SET_BATCH;
    case OPT_SEQ: return VL_SET_SEQ;
    case OPT_GEN: return VL_SET_GEN;
    case OPT_RECOMPUTE: return VL_SET_RECOMPUTE;
    case OPT_FLASH:
    case OPT_NO_FLASH: return VL_SET_FLASH_ATTN;
    case OPT_WEIGHT_DTYPE: return VL_SET_WEIGHT_DTYPE;
    case OPT_KV_DTYPE: return VL_SET_KV_DTYPE;
    case OPT_GROUP_SIZE: return VL_SET_GROUP_SIZE;
    case OPT_OVERHEAD: return VL_SET_OVERHEAD;
    case OPT_LORA_RANK: return VL_SET_LORA_RANK;
    case OPT_LORA_TARGETS: return VL_SET_LORA_TARGETS;
    case OPT_QLORA: return VL_SET_QLORA;
    case OPT_OFFLOAD: return VL_SET_OFFLOAD;
    case OPT_GPUS_PER_NODE: return VL_SET_GPUS_PER_NODE;
    case OPT_TP: return VL_SET_TP;
    case OPT_PP: return VL_SET_PP;
    case OPT_SP: return VL_SET_SP;
    case OPT_GRAD_ACCUM: return VL_SET_GRAD_ACCUM;
    default: return -1;
    }
}

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
    {"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"theme", required_argument, NULL, OPT_THEME},
    {"group-size", required_argument, NULL, OPT_GROUP_SIZE},
    {"solve", required_argument, NULL, OPT_SOLVE},
    {"lora-rank", required_argument, NULL, OPT_LORA_RANK},
    {"lora-targets", required_argument, NULL, OPT_LORA_TARGETS},
    {"qlora", no_argument, NULL, OPT_QLORA},
    {"offload", required_argument, NULL, OPT_OFFLOAD},
    {"gpus-per-node", required_argument, NULL, OPT_GPUS_PER_NODE},
    {"tp", required_argument, NULL, OPT_TP},
    {"pp", required_argument, NULL, OPT_PP},
    {"sp", no_argument, NULL, OPT_SP},
    {"grad-accum", required_argument, NULL, OPT_GRAD_ACCUM},
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
    vl_settings *set = &o->flags.values;

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
        rc = parse_enum(code, arg, vl_mode_names, VL_N_MODES, &e);
        set->mode = (vl_mode)e;
        break;
    case OPT_PRECISION:
        rc = parse_enum(code, arg, vl_precision_names, VL_N_PRECISIONS, &e);
        set->precision = (vl_precision)e;
        break;
    case OPT_OPTIMIZER:
        rc = parse_enum(code, arg, vl_optimizer_names, VL_N_OPTIMIZERS, &e);
        set->optimizer = (vl_optimizer)e;
        break;
    case OPT_RECOMPUTE:
        rc = parse_enum(code, arg, vl_recompute_names, VL_N_RECOMPUTES, &e);
        set->recompute = (vl_recompute)e;
        break;
    case OPT_WEIGHT_DTYPE:
    case OPT_KV_DTYPE:
        rc = parse_enum(code, arg, vl_dtype_names, VL_N_DTYPES, &e);
        *(code == OPT_WEIGHT_DTYPE ? &set->weight_dtype : &set->kv_dtype) = (vl_dtype)e;
        break;
    case OPT_GROUP_SIZE: rc = parse_count(code, arg, &set->group_size); break;
    case OPT_SOLVE:
        rc = parse_enum(code, arg, vl_solve_names, VL_N_SOLVES, &e);
        o->solve = (vl_solve)e;
        o->solving = true;
        break;
    case OPT_FORMAT:
        rc = parse_enum(code, arg, report_format_names, N_FORMATS, &e);
        o->format = (report_format)e;
        break;
    case OPT_UNITS:
        rc = parse_enum(code, arg, units_names, 2, &e);
        o->units = (vl_units)e;
        break;
    case OPT_FP32_GRADS: set->fp32_grads = true; break;
    case OPT_FP32_GRAD_COPY: set->fp32_grad_copy = true; break;
    case OPT_NO_FP32_GRAD_COPY: set->fp32_grad_copy = false; break;
    case OPT_FLASH: set->flash_attn = true; break;
    case OPT_NO_FLASH: set->flash_attn = false; break;
    case OPT_CHECK_FIT: o->check_fit = true; break;
    case OPT_EXPLAIN: o->explain = true; break;
    case OPT_HELP: o->help = true; break;
    case OPT_ZERO:
        rc = parse_count(code, arg, &v);
        if (rc == EXIT_OK && v > 3)
            rc = usage_error("--zero: '%s' is not a ZeRO stage (0, 1, 2 or 3)", arg);
        set->zero = (unsigned)v;
        break;
    case OPT_GPUS: rc = parse_count(code, arg, &set->gpus); break;
    case OPT_BATCH: rc = parse_count(code, arg, &set->batch); break;
    case OPT_SEQ: rc = parse_count(code, arg, &set->seq); break;
    case OPT_GEN: rc = parse_count(code, arg, &set->gen); break;
    case OPT_GPU: o->gpu = arg; break;
    case OPT_LORA_RANK:
        rc = parse_count(code, arg, &set->lora_rank);
        if (rc == EXIT_OK && (set->lora_rank < 1 || set->lora_rank > VL_MAX_LORA_RANK))
            rc = usage_error("--lora-rank: '%s' is not a rank between 1 and 65536 (leave the "
                             "flag out for full fine-tuning)", arg);
        break;
    case OPT_LORA_TARGETS:
        why = vl_lora_parse_targets(arg, &set->lora_targets);
        if (why)
            rc = usage_error("--lora-targets: %s", why);
        break;
    case OPT_QLORA: set->qlora = true; break;
    case OPT_OFFLOAD:
        rc = parse_enum(code, arg, vl_offload_names, VL_N_OFFLOADS, &e);
        set->offload = (vl_offload)e;
        break;
    case OPT_TP:
    case OPT_PP:
    case OPT_GRAD_ACCUM:
        rc = parse_count(code, arg, code == OPT_TP ? &set->tp : code == OPT_PP ? &set->pp
                                                                           : &set->grad_accum);
        if (rc == EXIT_OK && (code == OPT_TP ? set->tp : code == OPT_PP ? set->pp
                                                                       : set->grad_accum) < 1)
            rc = usage_error("--%s: must be at least 1", option_name(code));
        break;
    case OPT_SP: set->sp = true; break;
    case OPT_GPUS_PER_NODE:
        rc = parse_count(code, arg, &set->gpus_per_node);
        if (rc == EXIT_OK && set->gpus_per_node < 1)
            rc = usage_error("--gpus-per-node: must be at least 1");
        break;
    case OPT_NO_MOUSE: o->no_mouse = o->tui_only_given = true; break;
    case OPT_NO_COLOR: o->no_color = o->tui_only_given = true; break;
    case OPT_ASCII: o->ascii = o->tui_only_given = true; break;
    case OPT_THEME:
        rc = parse_enum(code, arg, theme_names, N_THEMES, &e);
        o->theme = (ui_theme)e;
        o->tui_only_given = true;
        break;
    case OPT_OVERHEAD:
        if (!vl_parse_size(arg, &set->overhead, &why))
            rc = usage_error("--overhead: '%s' is not a size (e.g. 0, 1GiB, 800MB): %s", arg, why);
        break;
    }
    return rc;
}

/* A scenario: its model (a preset, or a free count), settings and GPU. */
static int use_scenario(const vl_catalog *cat, const vl_scenario *sc, vl_model *m,
                        vl_settings_patch *patch, const char **gpu)
{
    *patch = sc->settings;
    *gpu = sc->gpu[0] ? sc->gpu : NULL;
    if (sc->params) {
        vl_model_from_params(m, sc->params);
        return EXIT_OK;
    }
    const vl_model *found = vl_catalog_model(cat, sc->model);
    if (!found) {
        char hint[96];
        return usage_error("scenario '%s' (%s): no model named '%s'%s", sc->name, sc->origin,
                           sc->model,
                           vl_catalog_hint(cat, VL_KIND_MODEL, sc->model, hint, sizeof hint));
    }
    *m = *found;
    return EXIT_OK;
}

/* Resolves --preset (a model or a scenario), --preset-file, --hf-config, --params, or the
 * default; a scenario also gives settings and a GPU. */
static int pick_model(const run_opts *o, vl_catalog *cat, vl_model *m, vl_settings_patch *patch,
                      const char **gpu)
{
    char err[VL_ERR_LEN];
    int given = !!o->preset + !!o->preset_file + !!o->hf_config + !!o->params_arg;
    if (given > 1)
        return usage_error("give only one of --preset, --preset-file, --hf-config and --params");
    if (o->params_arg) {
        vl_model_from_params(m, o->params);
        return EXIT_OK;
    }
    if (o->hf_config)
        return vl_model_from_hf_file(o->hf_config, m, err) ? EXIT_OK : usage_error("%s", err);
    if (o->preset_file) {
        vl_kind kind;
        size_t i;
        if (!vl_catalog_add_file(cat, o->preset_file, &kind, &i, err))
            return usage_error("%s", err);
        if (kind == VL_KIND_SCENARIO)
            return use_scenario(cat, &cat->scenarios[i], m, patch, gpu);
        if (kind != VL_KIND_MODEL)
            return usage_error("--preset-file: %s is a '%s' preset, not a model or scenario",
                               o->preset_file, vl_kind_names[kind]);
        *m = cat->models[i];
        return EXIT_OK;
    }
    const char *name = o->preset ? o->preset : DEFAULT_MODEL;
    const vl_model *found = vl_catalog_model(cat, name);
    if (found) {
        *m = *found;
        return EXIT_OK;
    }
    const vl_scenario *sc = vl_catalog_scenario(cat, name);
    if (sc)
        return use_scenario(cat, sc, m, patch, gpu);
    char hint[96];
    return usage_error("--preset: no model or scenario named '%s' (vramlab presets lists them)%s",
                       name, vl_catalog_hint(cat, VL_KIND_MODEL, name, hint, sizeof hint));
}

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
    vl_settings_default(&o->flags.values);

    int code, rc;
    options_start();
    while ((rc = options_next(argc, argv, long_options, command, &code)) == EXIT_OK &&
           code != -1) {
        if ((rc = parse_option(o, code, optarg)) != EXIT_OK)
            return rc;
        o->given |= GIVEN(code);
        if (setting_of(code) >= 0)
            vl_patch_mark(&o->flags, (vl_setting)setting_of(code));
    }
    if (rc != EXIT_OK)
        return rc;
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see vramlab %s --help)", argv[optind],
                           command);
    return EXIT_OK;
}

int options_resolve(run_opts *o, vl_catalog *cat, vl_model *m, const vl_gpu **gpu)
{
    char err[VL_ERR_LEN];
    vl_settings_patch scenario = {0};
    const char *scenario_gpu = NULL;
    int rc;
    if (!vl_catalog_open(cat, err))
        return usage_error("%s", err);
    if ((rc = pick_model(o, cat, m, &scenario, &scenario_gpu)) != EXIT_OK)
        return rc;
    /* defaults, then the scenario, then the flags: later wins */
    vl_settings_default(&o->s);
    vl_settings_apply(&o->s, &scenario);
    vl_settings_apply(&o->s, &o->flags);
    /* flags of the other mode would be silently ignored: say so instead */
    static const int train_only[] = {OPT_PRECISION, OPT_OPTIMIZER, OPT_FP32_GRADS,
                                     OPT_FP32_GRAD_COPY, OPT_NO_FP32_GRAD_COPY, OPT_ZERO,
                                     OPT_RECOMPUTE, OPT_LORA_RANK, OPT_LORA_TARGETS,
                                     OPT_QLORA, OPT_OFFLOAD, OPT_GPUS_PER_NODE, OPT_TP,
                                     OPT_PP, OPT_SP, OPT_GRAD_ACCUM};
    static const int infer_only[] = {OPT_GEN, OPT_WEIGHT_DTYPE, OPT_KV_DTYPE, OPT_GROUP_SIZE};
    bool infer = o->s.mode == VL_MODE_INFER;
    const int *list = infer ? train_only : infer_only;
    size_t n = infer ? sizeof train_only / sizeof *train_only
                     : sizeof infer_only / sizeof *infer_only;
    for (size_t i = 0; i < n; i++)
        if (o->given & GIVEN(list[i]))
            return usage_error("--%s applies to --mode %s only", option_name(list[i]),
                               infer ? "train" : "infer");
    if (!infer && !o->s.lora_rank && (o->given & (GIVEN(OPT_LORA_TARGETS) | GIVEN(OPT_QLORA))))
        return usage_error("--%s needs --lora-rank (the adapters' rank)",
                           o->given & GIVEN(OPT_QLORA) ? "qlora" : "lora-targets");
    const char *name = o->gpu ? o->gpu : scenario_gpu ? scenario_gpu : DEFAULT_GPU;
    if (!(*gpu = vl_catalog_gpu(cat, name))) {
        char hint[96];
        return usage_error("--gpu: no GPU named '%s' (vramlab presets lists them)%s", name,
                           vl_catalog_hint(cat, VL_KIND_GPU, name, hint, sizeof hint));
    }
    return EXIT_OK;
}
