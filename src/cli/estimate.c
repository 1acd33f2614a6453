/* estimate.c: `vramlab estimate`: options -> settings -> breakdown -> report. */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "core/memory.h"
#include "core/timeline.h"
#include "app/options.h"
#include "report/report.h"

/* --solve's progress on a terminal, once the search has taken more than a second (each
 * try builds the step's timeline: seconds on a model of thousands of layers). */
typedef struct solve_progress {
    const char *what;
    double start;
    bool shown;
} solve_progress;

static void show_progress(void *ctx, unsigned tried, unsigned most)
{
    solve_progress *p = ctx;
    if (cli_seconds() - p->start <= 1.0)
        return;
    fprintf(stderr, "\rvramlab: --solve %s: %u of at most %u tries   ", p->what, tried, most);
    p->shown = true;
}

/* The breakdown (and, in training, the ZeRO 0-3 comparison) at o->s, written out. */
static int estimate_and_report(run_opts *o, const vl_model *model, const vl_gpu *gpu)
{
    const vl_gpu card = report_gpu(&o->s, gpu); /* --capacity */
    gpu = &card;
    vl_breakdown b, zero[REPORT_ZERO_STAGES];
    vl_solution sol;
    char why[VL_ERR_LEN];
    const vl_runtime rt = vl_runtime_on(gpu, &o->s, o->overhead_given);
    if (o->solving) {
        solve_progress p = {vl_solve_names[o->solve], cli_seconds(), false};
        const bool tty = isatty(STDERR_FILENO);
        const char *none =
            vl_solve_fit_watched(model, &o->s, o->solve, report_capacity(&o->s, gpu), &rt, &sol,
                                 tty ? show_progress : NULL, &p);
        if (p.shown)
            fprintf(stderr, "\r%70s\r", "");
        if (none) {
            fprintf(stderr, "vramlab: --solve %s on %s: %s\n", vl_solve_names[o->solve],
                    gpu->name, none);
            return EXIT_NOFIT;
        }
    }
    const char *invalid = vl_estimate_for(model, &o->s, &rt, &b);
    if (invalid)
        return usage_error("%s", invalid);
    bool training = o->s.mode == VL_MODE_TRAIN;
    bool sweep = training && o->format == FMT_SVG; /* the SVG draws ZeRO 0-3 */
    if (sweep && !report_zero_sweep(model, &o->s, zero, why, sizeof why))
        return usage_error("%s", why);
    vl_timeline tl;
    if (!vl_timeline_for(model, &o->s, &rt, &tl, why, sizeof why)) {
        vl_timeline_free(&tl);
        return usage_error("%s", why);
    }
    report r = {model, &o->s, &b, gpu, o->units, o->explain, sweep ? zero : NULL,
                o->solving ? &sol : NULL, o->solve, &tl, o->timeline, &rt};
    report_write(stdout, o->format, &r);
    bool fits = report_fits(&r);
    vl_timeline_free(&tl);
    return o->check_fit && !fits ? EXIT_NOFIT : EXIT_OK;
}

int cmd_estimate(int argc, char **argv)
{
    run_opts o;
    int rc = options_parse(argc, argv, &o, "estimate");
    if (rc != EXIT_OK)
        return rc;
    if (o.help) {
        options_help(stdout, false);
        return EXIT_OK;
    }
    if (o.tui_only_given)
        return usage_error("--no-mouse, --no-color, --ascii, --theme, --lesson and --lang apply "
                           "to the explorer (vramlab tui) only");

    vl_catalog cat;
    vl_model model;
    const vl_gpu *gpu;
    vl_catalog_init(&cat);
    rc = options_resolve(&o, &cat, &model, &gpu);
    for (size_t i = 0; i < cat.n_warnings; i++) /* bad files on the search path */
        fprintf(stderr, "vramlab: warning: %s\n", cat.warnings[i]);
    if (rc == EXIT_OK)
        rc = estimate_and_report(&o, &model, gpu);
    vl_catalog_free(&cat);
    return rc;
}
