/* main.c: `vramlab COMMAND ...` dispatch, --help and --version. */
#include <config.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/preset.h"
#include "core/units.h"
#include "options.h"
#include "tui/tui.h"

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

static void help(void)
{
    printf("usage: vramlab [COMMAND] [OPTIONS]\n"
           "How much GPU memory will training this transformer need, per GPU, and why?\n"
           "\n"
           "commands:\n"
           "  tui [OPTIONS]        the explorer: sliders, stacked bars, formulas (the default)\n"
           "  estimate [OPTIONS]   per-GPU memory breakdown with its formulas, as text\n"
           "  presets              list the models and GPUs vramlab knows\n"
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

int cmd_presets(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return usage_error("presets: unexpected argument '%s'", argv[1]);
    vl_catalog cat;
    char err[VL_ERR_LEN], n[32], g[32];
    vl_catalog_init(&cat);
    if (!vl_catalog_add_builtin(&cat, err)) {
        vl_catalog_free(&cat);
        return usage_error("%s", err);
    }
    printf("%-6s %-16s %18s  %s\n", "kind", "name", "size", "display");
    for (size_t i = 0; i < cat.n_models; i++)
        printf("%-6s %-16s %11s params  %s\n", "model", cat.models[i].name,
               vl_fmt_count(cat.models[i].published_params, n, sizeof n), cat.models[i].display);
    for (size_t i = 0; i < cat.n_gpus; i++)
        printf("%-6s %-16s %18s  %s\n", "gpu", cat.gpus[i].name,
               vl_fmt_bytes(cat.gpus[i].memory, VL_UNITS_GIB, g, sizeof g), cat.gpus[i].display);
    vl_catalog_free(&cat);
    return EXIT_OK;
}

static int cmd_tui(int argc, char **argv)
{
    run_opts o;
    int rc = options_parse(argc, argv, &o, "tui");
    if (rc != EXIT_OK)
        return rc;
    if (o.help) {
        printf("usage: vramlab [tui] [OPTIONS]\n"
               "The explorer: sliders for every setting, stacked memory bars per GPU, the ZeRO\n"
               "0-3 comparison and the formula behind each number.  It takes the options of\n"
               "vramlab estimate (see vramlab estimate --help) as its starting point, and:\n"
               "  --no-mouse              ignore the mouse\n"
               "  --no-color              monochrome (also when NO_COLOR is set)\n"
               "  --ascii                 ASCII glyphs only (also in non-UTF-8 locales)\n"
               "  --theme T               default or high-contrast (for projectors)\n"
               "Press ? in the explorer for its keys.\n");
        return EXIT_OK;
    }
    if (o.format != FMT_TABLE || o.check_fit || o.explain)
        return usage_error("--format, --check-fit and --explain apply to vramlab estimate");
    return tui_run(&o);
}

int main(int argc, char **argv)
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
