/* options.c: the options `estimate` and the explorer share (HACKING §2).
 *
 * The settings' options come from the settings table (core/settings.h): their flags, values,
 * ranges, modes and help.  The rest (the model, the GPU, the output) are the rows of
 * app_options below. */
#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "core/hfcache.h"
#include "core/hfconfig.h"
#include "core/units.h"

/* A message stays one line of reasonable length: past MSG_MAX bytes (a 128 KiB bad value
 * echoed in it) it keeps its start and its end, where the reason is, around "...".  The
 * core's messages (VL_ERR_LEN, 1024 bytes) are never cut. */
#define MSG_MAX 1200
#define MSG_TAIL 300

int usage_error(const char *fmt, ...)
{
    char msg[MSG_MAX + 1], *big = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *text = msg;
    if (n > MSG_MAX && (big = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        size_t head = MSG_MAX - MSG_TAIL - 3, tail = (size_t)n - MSG_TAIL;
        while (head > 0 && (big[head] & 0xC0) == 0x80) /* whole UTF-8 characters */
            head--;
        while ((big[tail] & 0xC0) == 0x80)
            tail++;
        memcpy(big + head, "...", 3);
        memmove(big + head + 3, big + tail, (size_t)n - tail + 1);
        text = big;
    }
    fprintf(stderr, "vramlab: %s\n", n < 0 ? fmt : text);
    free(big);
    return EXIT_USAGE;
}

static const char *const units_names[] = {"gib", "gb"};
const char *const theme_names[N_THEMES] = {"default", "high-contrast"};

/* ---- the options that are not settings ----------------------------------------------- */

typedef enum {
    OPT_PRESET, OPT_PRESET_FILE, OPT_HF_CONFIG, OPT_MODEL, OPT_PARAMS, OPT_GPU, OPT_FORMAT,
    OPT_UNITS, OPT_EXPLAIN, OPT_TIMELINE, OPT_CHECK_FIT, OPT_SOLVE, OPT_NO_MOUSE, OPT_NO_COLOR,
    OPT_ASCII, OPT_THEME, OPT_LESSON, OPT_LANG,
    OPT_HELP, N_APP_OPTIONS
} app_option;

typedef enum { GROUP_MODEL, GROUP_OUTPUT, GROUP_TUI, GROUP_NONE } opt_group;

static const struct app_opt {
    const char *name, *arg, *help;
    opt_group group;
    bool optional; /* the value may be left out (then it is the next argument, if any) */
} app_options[N_APP_OPTIONS] = {
    [OPT_PRESET] = {"preset", "NAME", "a model or scenario from the catalog (default "
                    DEFAULT_MODEL ")", GROUP_MODEL},
    [OPT_PRESET_FILE] = {"preset-file", "PATH", "a YAML model or scenario preset (see "
                         "vramlab-presets(5))", GROUP_MODEL},
    [OPT_HF_CONFIG] = {"hf-config", "PATH", "a Hugging Face config.json", GROUP_MODEL},
    [OPT_MODEL] = {"model", "ORG/NAME", "a model in the local Hugging Face cache, offline: its "
                   "config.json, and the exact count from its safetensors headers", GROUP_MODEL},
    [OPT_PARAMS] = {"params", "N", "a free count (7B, 350M, 1.5T, 7e9): GPT-3-like shape "
                    "derived", GROUP_MODEL},
    [OPT_GPU] = {"gpu", "NAME", "GPU to fit on (default " DEFAULT_GPU ")", GROUP_OUTPUT},
    [OPT_FORMAT] = {"format", "F", "table, json, csv, markdown, svg (default table)",
                    GROUP_OUTPUT},
    [OPT_UNITS] = {"units", "U", "gib (2^30 bytes) or gb (10^9 bytes) (default gib)",
                   GROUP_OUTPUT},
    [OPT_EXPLAIN] = {"explain", NULL, "list every activation tensor saved for backward",
                     GROUP_OUTPUT},
    [OPT_TIMELINE] = {"timeline", NULL, "list the step's tensors as they are allocated and "
                      "freed, with the memory after each", GROUP_OUTPUT},
    [OPT_CHECK_FIT] = {"check-fit", NULL, "exit 1 when the run does not fit the GPU at its "
                       "peak, or a serving engine's KV cache does not hold the batch",
                       GROUP_OUTPUT},
    [OPT_SOLVE] = {"solve", "S", "max-batch, max-context or min-gpus: the exact largest "
                   "(smallest) value that fits the GPU, and the breakdown there; "
                   "max-concurrency: the sequences a serving engine's KV cache holds at once",
                   GROUP_OUTPUT},
    [OPT_NO_MOUSE] = {"no-mouse", NULL, "ignore the mouse", GROUP_TUI},
    [OPT_NO_COLOR] = {"no-color", NULL, "monochrome (also when NO_COLOR is set)", GROUP_TUI},
    [OPT_ASCII] = {"ascii", NULL, "ASCII glyphs only (also in non-UTF-8 locales)", GROUP_TUI},
    [OPT_THEME] = {"theme", "T", "default or high-contrast (for projectors)", GROUP_TUI},
    [OPT_LESSON] = {"lesson", "[NAME:]N", "a guided lesson from step N (1 when left out): n and N "
                    "step, L lists the steps (default NAME " DEFAULT_LESSON ")", GROUP_TUI, true},
    [OPT_LANG] = {"lang", "L", "the explorer's language, its lesson's too: en or zh (default: "
                  "the locale's)", GROUP_TUI},
    [OPT_HELP] = {"help", NULL, "this help", GROUP_NONE},
};

/* Old flags that name a setting's value (vl_setting_alias). */
static const char *const alias_flags[] = {"flash-attn", "no-flash-attn"};
#define N_ALIASES (sizeof alias_flags / sizeof *alias_flags)

/* getopt_long's codes: the settings' flags, their --no- flags, the aliases, then the rest. */
#define CODE_SETTING 256
#define CODE_NO_SETTING (CODE_SETTING + VL_N_SETTINGS)
#define CODE_ALIAS (CODE_NO_SETTING + VL_N_SETTINGS)
#define CODE_APP (CODE_ALIAS + (int)N_ALIASES)

static void build_long_options(struct option *opts)
{
    size_t n = 0;
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        bool sw = d->type == VL_ST_BOOL;
        opts[n++] = (struct option){d->flag, sw ? no_argument : required_argument, NULL,
                                    CODE_SETTING + k};
        if (d->old_flag) /* the name an earlier release gave it */
            opts[n++] = (struct option){d->old_flag, sw ? no_argument : required_argument, NULL,
                                        CODE_SETTING + k};
        if (d->no_flag)
            opts[n++] = (struct option){d->no_flag, no_argument, NULL, CODE_NO_SETTING + k};
    }
    for (size_t i = 0; i < N_ALIASES; i++)
        opts[n++] = (struct option){alias_flags[i], no_argument, NULL, CODE_ALIAS + (int)i};
    for (int i = 0; i < N_APP_OPTIONS; i++)
        opts[n++] = (struct option){app_options[i].name,
                                    app_options[i].optional ? optional_argument
                                    : app_options[i].arg    ? required_argument
                                                            : no_argument,
                                    NULL, CODE_APP + i};
    opts[n] = (struct option){NULL, 0, NULL, 0};
}
#define N_LONG_OPTIONS (3 * VL_N_SETTINGS + N_ALIASES + N_APP_OPTIONS + 1)

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

static int parse_setting(run_opts *o, vl_setting k, bool negated, const char *arg)
{
    const vl_setting_desc *d = &vl_setting_table[k];
    char why[512];
    if (d->type == VL_ST_FRAMEWORK) { /* any of the catalog's: options_resolve looks it up */
        o->framework = arg;
        return EXIT_OK;
    }
    if (d->type == VL_ST_BOOL)
        vl_setting_put(k, &o->flags.values, !negated);
    else if (!vl_setting_parse(k, arg, &o->flags.values, why, sizeof why))
        return usage_error("--%s%s%s", d->flag, strncmp(why, "must", 4) == 0 ? " " : ": ", why);
    vl_patch_mark(&o->flags, k);
    return EXIT_OK;
}

static int parse_app(run_opts *o, app_option i, const char *arg)
{
    int e = 0, rc = EXIT_OK;
    switch (i) {
    case OPT_PRESET: o->preset = arg; break;
    case OPT_PRESET_FILE: o->preset_file = arg; break;
    case OPT_HF_CONFIG: o->hf_config = arg; break;
    case OPT_MODEL: o->model_repo = arg; break;
    case OPT_PARAMS: {
        const char *why;
        if (!vl_parse_count(arg, &o->params, &why))
            return usage_error("--params: '%s' is not a whole number: %s", arg, why);
        if (o->params < 1000000 || o->params > 100000000000000ULL)
            return usage_error("--params: '%s' is outside 1M..100T", arg);
        o->params_arg = arg;
        break;
    }
    case OPT_GPU: o->gpu = arg; break;
    case OPT_FORMAT:
        rc = option_choice("format", arg, report_format_names, N_FORMATS, &e);
        o->format = (report_format)e;
        break;
    case OPT_UNITS:
        rc = option_choice("units", arg, units_names, 2, &e);
        o->units = (vl_units)e;
        break;
    case OPT_EXPLAIN: o->explain = true; break;
    case OPT_TIMELINE: o->timeline = true; break;
    case OPT_CHECK_FIT: o->check_fit = true; break;
    case OPT_SOLVE:
        rc = option_choice("solve", arg, vl_solve_names, VL_N_SOLVES, &e);
        o->solve = (vl_solve)e;
        o->solving = true;
        break;
    case OPT_NO_MOUSE: o->no_mouse = o->tui_only_given = true; break;
    case OPT_NO_COLOR: o->no_color = o->tui_only_given = true; break;
    case OPT_ASCII: o->ascii = o->tui_only_given = true; break;
    case OPT_THEME:
        rc = option_choice("theme", arg, theme_names, N_THEMES, &e);
        o->theme = (ui_theme)e;
        o->tui_only_given = true;
        break;
    case OPT_LESSON: {
        const char *colon = arg ? strrchr(arg, ':') : NULL, *n = colon ? colon + 1 : arg;
        char *end;
        o->lesson = DEFAULT_LESSON;
        o->lesson_step = 1;
        o->tui_only_given = true;
        if (!arg)
            break;
        if (colon || strspn(arg, "0123456789") == strlen(arg)) {
            unsigned long step = strtoul(n, &end, 10);
            if (*n < '0' || *n > '9' || *end || step < 1 || step > VL_LESSON_STEPS)
                return usage_error("--lesson: '%s' is not a step from 1 to %d (NAME:N, N or "
                                   "NAME)", arg, VL_LESSON_STEPS);
            o->lesson_step = (size_t)step;
        }
        if (!colon && strspn(arg, "0123456789") == strlen(arg))
            break;
        size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
        if (len == 0 || len >= sizeof o->lesson_name)
            return usage_error("--lesson: '%s' names no lesson (NAME:N, N or NAME)", arg);
        memcpy(o->lesson_name, arg, len);
        o->lesson_name[len] = '\0';
        o->lesson = o->lesson_name;
        break;
    }
    case OPT_LANG:
        rc = option_choice("lang", arg, vl_lang_names, VL_N_LANGS, &e);
        o->lang = arg;
        o->tui_only_given = true;
        break;
    case OPT_HELP: o->help = true; break;
    case N_APP_OPTIONS: break;
    }
    return rc;
}

/* ---- --help -------------------------------------------------------------------------- */

/* "  --flag ARG              help", the help wrapped at 80 columns under itself. */
static void help_line(FILE *out, const char *left, const char *help)
{
    if (strlen(left) > 22) {
        fprintf(out, "  %s\n", left);
        left = "";
    }
    fprintf(out, "  %-22s", left);
    int col = 24;
    for (bool first = true; *help; first = false) {
        size_t w = strcspn(help, " ");
        if (!first && col + 1 + (int)w > 80) {
            fprintf(out, "\n  %-22s", "");
            col = 24;
            first = true;
        }
        fprintf(out, "%s%.*s", first ? "  " : " ", (int)w, help);
        col += (int)w + (first ? 2 : 1);
        help += w;
        help += strspn(help, " ");
    }
    fputc('\n', out);
}

static void help_option(FILE *out, const char *flag, const char *no_flag, const char *arg,
                        const char *help)
{
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s%s%s", flag, arg ? " " : "", arg ? arg : "",
             no_flag ? ", --" : "", no_flag ? no_flag : "");
    help_line(out, left, help);
}

static void help_settings(FILE *out, unsigned modes)
{
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        if (d->modes != modes)
            continue;
        help_option(out, d->flag, d->no_flag, d->arg, d->help);
        if (d->type == VL_ST_ENUM || d->type == VL_ST_FRAMEWORK) { /* the built-ins */
            char list[256], line[320];
            snprintf(line, sizeof line, "%s: %s", d->arg,
                     vl_join(d->names, (size_t)d->n_names, list, sizeof list));
            help_line(out, "", line);
        }
    }
}

static void help_group(FILE *out, opt_group g)
{
    for (int i = 0; i < N_APP_OPTIONS; i++)
        if (app_options[i].group == g)
            help_option(out, app_options[i].name, NULL, app_options[i].arg, app_options[i].help);
}

void options_help(FILE *out, bool tui)
{
    if (tui)
        fprintf(out, "usage: vramlab [tui] [OPTIONS]\n"
                     "The explorer: sliders for every setting, stacked memory bars per GPU, "
                     "the ZeRO\n0-3 comparison and the formula behind each number.  It starts "
                     "from these options.\n");
    else
        fprintf(out, "usage: vramlab estimate [OPTIONS]\n"
                     "Print the per-GPU memory needed to train or serve a transformer, and how "
                     "each part is\ncomputed.\n");
    fprintf(out, "\nmodel (one of; a scenario's settings apply first, then the flags):\n");
    help_group(out, GROUP_MODEL);
    fprintf(out, "training and inference:\n");
    help_settings(out, VL_IN_BOTH);
    fprintf(out, "training (--mode train, the default):\n");
    help_settings(out, VL_IN_TRAIN);
    fprintf(out, "inference (--mode infer):\n");
    help_settings(out, VL_IN_INFER);
    if (tui) {
        fprintf(out, "the explorer:\n");
        help_group(out, GROUP_TUI);
        fprintf(out, "  --gpu NAME              the GPU shown first (default " DEFAULT_GPU ")\n"
                     "\nPress ? in the explorer for its keys.\n");
        return;
    }
    fprintf(out, "output:\n");
    help_group(out, GROUP_OUTPUT);
    fprintf(out, "\nexit status: 0 ok, 1 does not fit (with --check-fit), 2 bad usage or input.\n"
                 "See vramlab(1) for the formulas and their sources.\n");
}

/* ---- the option loop ------------------------------------------------------------------ */

void options_start(void)
{
    opterr = 0;
    optind = 1;
}

int options_next(int argc, char **argv, const struct option *opts, const char *command, int *code)
{
    *code = getopt_long(argc, argv, ":", opts, NULL);
    if (*code == '?' && optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0) {
        /* getopt_long takes a unique prefix: more than one match is ambiguous, so say which */
        const char *name = argv[optind - 1] + 2;
        size_t len = strcspn(name, "="), at = 0, n = 0;
        char list[512] = "";
        for (const struct option *o = opts; len && o->name; o++)
            if (strncmp(o->name, name, len) == 0 && at < sizeof list)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s--%s", n++ ? ", " : "",
                                       o->name);
        if (n > 1)
            return usage_error("ambiguous option '%s' (it could be %s)", argv[optind - 1],
                               list);
    }
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

    struct option opts[N_LONG_OPTIONS];
    build_long_options(opts);
    int code, rc;
    options_start();
    while ((rc = options_next(argc, argv, opts, command, &code)) == EXIT_OK && code != -1) {
        vl_setting k;
        const char *value;
        if (code >= CODE_APP && app_options[code - CODE_APP].optional && !optarg &&
            optind < argc && argv[optind][0] != '-')
            optarg = argv[optind++]; /* --lesson 3: the value as the next argument */
        if (code >= CODE_APP)
            rc = parse_app(o, (app_option)(code - CODE_APP), optarg);
        else if (code >= CODE_ALIAS && vl_setting_alias(alias_flags[code - CODE_ALIAS], NULL, &k,
                                                        &value))
            rc = parse_setting(o, k, false, value);
        else if (code >= CODE_NO_SETTING)
            rc = parse_setting(o, (vl_setting)(code - CODE_NO_SETTING), true, optarg);
        else
            rc = parse_setting(o, (vl_setting)(code - CODE_SETTING), false, optarg);
        if (rc != EXIT_OK)
            return rc;
    }
    if (rc != EXIT_OK)
        return rc;
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see vramlab %s --help)", argv[optind],
                           command);
    return EXIT_OK;
}

/* ---- resolving the model, the GPU and the settings ----------------------------------- */

/* The framework named so in the catalog, into the patch; what says who named it. */
static int use_framework(const vl_catalog *cat, const char *name, const char *what,
                         vl_settings_patch *patch)
{
    const vl_framework *f = vl_catalog_framework(cat, name);
    if (!f) {
        char hint[96];
        return usage_error("%s: no framework named '%s' (vramlab presets lists them)%s", what,
                           name, vl_catalog_hint(cat, VL_KIND_FRAMEWORK, name, hint, sizeof hint));
    }
    patch->values.framework = f;
    vl_patch_mark(patch, VL_SET_FRAMEWORK);
    return EXIT_OK;
}

/* A scenario: its model (a preset, or a free count), settings, framework and GPU. */
static int use_scenario(const vl_catalog *cat, const vl_scenario *sc, vl_model *m,
                        vl_settings_patch *patch, const char **gpu)
{
    *patch = sc->settings;
    *gpu = sc->gpu[0] ? sc->gpu : NULL;
    if (sc->framework[0]) {
        char what[sizeof sc->name + sizeof sc->origin + 16];
        snprintf(what, sizeof what, "scenario '%s' (%s)", sc->name, sc->origin);
        int rc = use_framework(cat, sc->framework, what, patch);
        if (rc != EXIT_OK)
            return rc;
    }
    if (sc->params) {
        vl_model_from_params(m, sc->params);
        return EXIT_OK;
    }
    if (sc->has_model) { /* the model the scenario was saved with, not one of its name */
        *m = sc->model_def;
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

/* Resolves --preset (a model or a scenario), --preset-file, --hf-config, --model, --params, or the
 * default; a scenario also gives settings and a GPU. */
static int pick_model(const run_opts *o, vl_catalog *cat, vl_model *m, vl_settings_patch *patch,
                      const char **gpu)
{
    char err[VL_ERR_LEN];
    int given = !!o->preset + !!o->preset_file + !!o->hf_config + !!o->model_repo +
                !!o->params_arg;
    if (given > 1)
        return usage_error("give only one of --preset, --preset-file, --hf-config, --model and "
                           "--params");
    if (o->params_arg) {
        vl_model_from_params(m, o->params);
        return EXIT_OK;
    }
    if (o->hf_config || o->model_repo) { /* a config.json, of its own or in the HF cache */
        vl_hf_warnings w;
        const char *from = o->hf_config ? o->hf_config : o->model_repo;
        bool ok = o->hf_config ? vl_model_from_hf_file(o->hf_config, m, &w, err)
                               : vl_model_from_hf_cache(o->model_repo, m, &w, err);
        for (size_t i = 0; i < w.n; i++)
            fprintf(stderr, "vramlab: warning: %s\n", w.text[i]);
        if (w.more)
            fprintf(stderr, "vramlab: warning: %s: %zu more keys given twice\n", from, w.more);
        if (ok)
            return EXIT_OK;
        if (o->hf_config)
            return usage_error("%s", err);
        const vl_model *preset = vl_catalog_model_of_repo(cat, from);
        if (preset) { /* not here, but a preset was read from its config.json */
            fprintf(stderr, "vramlab: warning: --model: %s; the preset %s, read from its "
                    "config.json, stands for it\n", err, preset->name);
            *m = *preset;
            return EXIT_OK;
        }
        const char *like = vl_catalog_model_like_repo(cat, from);
        if (like) /* a variant of a preset's repository, perhaps */
            return usage_error("--model: %s; the preset %s may be its architecture "
                               "(--preset %s)", err, like, like);
        return usage_error("--model: %s", err);
    }
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
    if ((found = vl_catalog_model_of_repo(cat, name))) { /* a repository's id */
        *m = *found;
        return EXIT_OK;
    }
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
    if (o->framework && (rc = use_framework(cat, o->framework, "--framework", &o->flags)) != EXIT_OK)
        return rc;
    /* defaults, then the scenario, then the flags: later wins */
    vl_settings_default(&o->s);
    vl_patch_merge(&scenario, &o->flags);
    vl_settings_apply(&o->s, &scenario);
    o->overhead_given = vl_set_has(scenario.given, VL_SET_OVERHEAD);
    /* flags of the other mode would be silently ignored: say so instead */
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (vl_set_has(o->flags.given, k) && !vl_setting_applies((vl_setting)k, &o->s))
            return usage_error("--%s applies to --mode %s only", vl_setting_table[k].flag,
                               o->s.mode == VL_MODE_INFER ? "train" : "infer");
    const bool qlora = vl_set_has(o->flags.given, VL_SET_QLORA);
    if (o->s.mode == VL_MODE_TRAIN && !o->s.lora_rank &&
        (qlora || vl_set_has(o->flags.given, VL_SET_LORA_TARGETS)))
        return usage_error("--%s needs --lora-rank (the adapters' rank)",
                           qlora ? "qlora" : "lora-targets");
    if (!vl_settings_valid(&o->s, &m->arch, err, sizeof err))
        return usage_error("%s", err);
    if (o->solving && o->solve == VL_SOLVE_MAX_CONCURRENCY && o->s.mode != VL_MODE_INFER)
        return usage_error("--solve max-concurrency is for serving (--mode infer)");
    const char *name = o->gpu ? o->gpu : scenario_gpu ? scenario_gpu : DEFAULT_GPU;
    if (!(*gpu = vl_catalog_gpu(cat, name))) {
        char hint[96];
        return usage_error("--gpu: no GPU named '%s' (vramlab presets lists them)%s", name,
                           vl_catalog_hint(cat, VL_KIND_GPU, name, hint, sizeof hint));
    }
    return EXIT_OK;
}
