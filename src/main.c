/* main.c: `vramlab COMMAND ...` dispatch, --help and --version. */
#include <config.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "core/catalog.h"
#include "core/i18n.h"
#include "core/names.h"
#include "core/units.h"
#include "app/options.h"
#include "tui/tui.h"

static void help(void)
{
    printf("usage: vramlab [COMMAND] [OPTIONS]\n"
           "How much GPU memory will training or serving this transformer need, per GPU, and why?\n"
           "\n"
           "commands:\n"
           "  tui [OPTIONS]        the explorer: sliders, stacked bars, formulas (the default)\n"
           "  estimate [OPTIONS]   per-GPU memory breakdown with its formulas, as text\n"
           "  presets [--format F] the models, GPUs, scenarios, frameworks and lessons found\n"
           "                       (table or json), with the file each came from\n"
           "                       (vramlab-presets(5))\n"
           "  formats              fp32, fp16, bf16 and fp8: bits, range, precision\n"
           "  inspect VALUE...     a value in every format, bit by bit\n"
           "  probe [EXPERIMENT]   mixed precision on the GPU or its CPU emulation: underflow,\n"
           "                       loss scaling, lost updates, fp16 sums (vramlab probe --help)\n"
           "\n"
           "  vramlab estimate --help   lists the options\n"
           "  vramlab --version         prints the version\n"
           "\n"
           "example: vramlab estimate --preset llama-2-7b --zero 3 --gpus 8 --format json\n"
           "See vramlab(1).\n");
}

/* One catalog entry's strings in JSON: each escaped, whatever its file held. */
static void json_entry(const char *sep, const char *kind, const char *name)
{
    printf("%s\n {\"kind\": \"%s\", \"name\": ", sep, kind);
    json_string(stdout, name);
}

static void json_origin(const char *display, const char *origin)
{
    printf(", \"display\": ");
    json_string(stdout, display);
    printf(", \"origin\": ");
    json_string(stdout, origin);
    printf("}");
}

static void presets_json(const vl_catalog *cat)
{
    const char *sep = "";
    printf("[");
    for (size_t i = 0; i < cat->n_models; i++, sep = ",") {
        const vl_model *m = &cat->models[i];
        vl_params p;
        vl_count_params(&m->arch, &p);
        json_entry(sep, "model", m->name);
        printf(", \"params\": %" PRIu64 ", \"active_params\": %" PRIu64, p.total, p.active);
        json_origin(m->display, m->origin);
    }
    for (size_t i = 0; i < cat->n_gpus; i++, sep = ",") {
        const vl_gpu *g = &cat->gpus[i];
        json_entry(sep, "gpu", g->name);
        printf(", \"memory\": %" PRIu64 ", \"capacity\": %" PRIu64, g->memory, vl_gpu_capacity(g));
        json_origin(g->display, g->origin);
    }
    for (size_t i = 0; i < cat->n_scenarios; i++, sep = ",") {
        const vl_scenario *sc = &cat->scenarios[i];
        json_entry(sep, "scenario", sc->name);
        printf(", \"model\": ");
        json_string(stdout, sc->model);
        printf(", \"params\": %" PRIu64, sc->params);
        json_origin(sc->display, sc->origin);
    }
    for (size_t i = 0; i < cat->n_frameworks; i++, sep = ",") {
        const vl_framework *f = &cat->frameworks[i];
        json_entry(sep, "framework", f->name);
        printf(", \"attention\": \"%s\"", vl_attention_names[f->attention]);
        json_origin(f->display, f->origin);
    }
    for (size_t i = 0; i < cat->n_lessons; i++, sep = ",") {
        const vl_lesson *l = &cat->lessons[i];
        json_entry(sep, "lesson", l->name);
        printf(", \"steps\": %zu", l->n_steps);
        json_origin(l->display, l->origin);
    }
    printf("\n]\n");
}

/* The folders searched after the built-in presets, later wins. */
static void search_path_line(void)
{
    char(*dirs)[VL_PATH_LEN] = malloc(VL_MAX_PRESET_DIRS * sizeof *dirs);
    size_t dropped, n = dirs ? vl_preset_dirs(dirs, VL_MAX_PRESET_DIRS, &dropped) : 0;
    printf("\nsearched, later wins: (built-in)");
    for (size_t i = 0; i < n; i++) {
        printf(", ");
        text_write(stdout, dirs[i], TEXT_TERMINAL);
    }
    printf("\n");
    free(dirs);
}

/* A table row's last two columns, display and origin, escaped for the terminal (a file's
 * text may hold escape sequences): display padded to 40 bytes, as %-40s would. */
static void table_tail(const char *display, const char *origin)
{
    size_t n = text_write(stdout, display, TEXT_TERMINAL);
    printf("%*s ", n < 40 ? (int)(40 - n) : 0, "");
    text_write(stdout, origin, TEXT_TERMINAL);
    printf("\n");
}

static void presets_table(const vl_catalog *cat)
{
    char n[32], g[32];
    printf("%-8s %-34s %16s  %-40s %s\n", "kind", "name", "size", "display", "origin");
    for (size_t i = 0; i < cat->n_models; i++) {
        const vl_model *m = &cat->models[i];
        vl_params p;
        vl_count_params(&m->arch, &p);
        printf("%-8s %-34s %9s params  ", "model", m->name, vl_fmt_count(p.total, n, sizeof n));
        table_tail(m->display, m->origin);
    }
    for (size_t i = 0; i < cat->n_gpus; i++) {
        const vl_gpu *gp = &cat->gpus[i];
        printf("%-8s %-34s %16s  ", "gpu", gp->name,
               vl_fmt_bytes(gp->memory, VL_UNITS_GIB, g, sizeof g));
        table_tail(gp->display, gp->origin);
    }
    for (size_t i = 0; i < cat->n_scenarios; i++) {
        const vl_scenario *sc = &cat->scenarios[i];
        char what[64];
        snprintf(what, sizeof what, "%s", sc->params ? vl_fmt_count(sc->params, n, sizeof n)
                                                     : sc->model);
        printf("%-8s %-34s %16s  ", "scenario", sc->name, what);
        table_tail(sc->display, sc->origin);
    }
    for (size_t i = 0; i < cat->n_frameworks; i++) { /* size: its attention kernel */
        const vl_framework *f = &cat->frameworks[i];
        /* the kind is a letter wider than its column: the name's takes it back */
        printf("%-9s %-33s %16s  ", "framework", f->name, vl_attention_names[f->attention]);
        table_tail(f->display, f->origin);
    }
    for (size_t i = 0; i < cat->n_lessons; i++) { /* size: its steps */
        const vl_lesson *l = &cat->lessons[i];
        printf("%-8s %-34s %10zu steps  ", "lesson", l->name, l->n_steps);
        table_tail(l->display, l->origin);
    }
    search_path_line();
}

int cmd_presets(int argc, char **argv)
{
    static const char *const formats[] = {"table", "json"};
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            json = vl_lookup(formats, 2, argv[++i]);
            if (json < 0)
                return usage_error("presets --format: unknown value '%s' (expected table or json)",
                                   argv[i]);
        } else if (strncmp(argv[i], "--format=", 9) == 0) {
            json = vl_lookup(formats, 2, argv[i] + 9);
            if (json < 0)
                return usage_error("presets --format: unknown value '%s' (expected table or json)",
                                   argv[i] + 9);
        } else {
            return usage_error("presets: unexpected argument '%s'", argv[i]);
        }
    }
    vl_catalog cat;
    int rc = cli_load_catalog(&cat);
    if (rc == EXIT_OK) {
        if (json)
            presets_json(&cat);
        else
            presets_table(&cat);
    }
    vl_catalog_free(&cat);
    return rc;
}

static int cmd_tui(int argc, char **argv)
{
    run_opts o;
    int rc = options_parse(argc, argv, &o, "tui");
    if (rc != EXIT_OK)
        return rc;
    if (o.help) {
        options_help(stdout, true);
        return EXIT_OK;
    }
    if (o.format != FMT_TABLE || o.check_fit || o.explain)
        return usage_error("--format, --check-fit and --explain apply to vramlab estimate");
    return tui_run(&o);
}

static int dispatch(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "tui";

    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        help();
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("vramlab %s\n", PACKAGE_VERSION);
        return EXIT_OK;
    }
    if (cmd[0] == '-' || argc == 1) /* options alone: the default command */
        return cmd_tui(argc, argv);
    if (strcmp(cmd, "tui") == 0)
        return cmd_tui(argc - 1, argv + 1);
    if (strcmp(cmd, "estimate") == 0)
        return cmd_estimate(argc - 1, argv + 1);
    if (strcmp(cmd, "presets") == 0)
        return cmd_presets(argc - 1, argv + 1);
    if (strcmp(cmd, "formats") == 0)
        return cmd_formats(argc - 1, argv + 1);
    if (strcmp(cmd, "inspect") == 0)
        return cmd_inspect(argc - 1, argv + 1);
    if (strcmp(cmd, "probe") == 0)
        return cmd_probe(argc - 1, argv + 1);
    return usage_error("unknown command '%s' (see vramlab --help)", cmd);
}

/* Output that does not reach stdout (a full disk, a closed stdout) fails the command,
 * whatever it was: exit 2 with the reason.  SIGPIPE keeps its default action, so a closed
 * pipe ends vramlab quietly, as it does any filter. */
static int close_stdout(int rc)
{
    errno = 0;
    bool bad = fflush(stdout) != 0;
    int why = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        why = errno;
    }
    if (!bad)
        return rc;
    fprintf(stderr, "vramlab: cannot write the output: %s\n",
            why ? strerror(why) : "write error");
    return EXIT_USAGE;
}

/* The explorer's catalogue (po/): the messages' locale only, so that the commands' numbers
 * stay in the C locale's format; $VRAMLAB_LOCALEDIR, when set, in place of the installed
 * folder (the tests use the build's catalogue, HACKING §7).  The explorer chooses its
 * language itself (tui.c: --lang, else the locale). */
static void messages_init(void)
{
#if ENABLE_NLS
    const char *dir = getenv("VRAMLAB_LOCALEDIR");
    setlocale(LC_MESSAGES, "");
    bindtextdomain(PACKAGE, dir && *dir ? dir : LOCALEDIR);
    bind_textdomain_codeset(PACKAGE, "UTF-8"); /* what the explorer draws, whatever LC_CTYPE */
    textdomain(PACKAGE);
#endif
}

int main(int argc, char **argv)
{
    messages_init();
    return close_stdout(dispatch(argc, argv));
}
