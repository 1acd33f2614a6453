/* options.h: the options `estimate` and the explorer share (HACKING §2). */
#ifndef VL_OPTIONS_H
#define VL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>

#include "core/memory.h"
#include "core/catalog.h"
#include "core/scenario.h"
#include "core/solve.h"
#include "report/report.h"

#define DEFAULT_MODEL "llama-2-7b"
#define DEFAULT_GPU "h100-80gb"
#define DEFAULT_LESSON "mixed-precision"

typedef enum { THEME_DEFAULT, THEME_HIGH_CONTRAST, N_THEMES } ui_theme;
extern const char *const theme_names[N_THEMES];

typedef struct run_opts {
    vl_settings s;                    /* after options_resolve: defaults, scenario, flags */
    vl_settings_patch flags;          /* the settings given on the command line */
    const char *preset, *preset_file, *hf_config, *model_repo, *params_arg, *gpu;
    const char *framework;            /* --framework: a name options_resolve looks up */
    uint64_t params;
    report_format format;
    vl_units units;
    bool check_fit, explain, help;
    bool timeline;                    /* --timeline: list the step's events */
    bool overhead_given;              /* a flag or the scenario set the overhead: it replaces
                                       * the modelled CUDA context at the peak */
    bool solving;
    vl_solve solve;
    bool no_mouse, no_color, ascii;   /* the explorer only */
    ui_theme theme;
    const char *lesson;               /* --lesson: the lesson's name, or NULL */
    char lesson_name[64];
    size_t lesson_step;               /* from 1 */
    const char *lang;                 /* --lang, or NULL: the locale's */
    bool tui_only_given;
} run_opts;

/* Parses argv (argv[0] is the command) into o.  Returns EXIT_OK or, after one line on
 * stderr naming the flag, EXIT_USAGE.  command names the subcommand in messages. */
int options_parse(int argc, char **argv, run_opts *o, const char *command);

/* The options, generated from the settings table and the other options' rows: for the
 * explorer (tui) or for `vramlab estimate`. */
void options_help(FILE *out, bool tui);

/* The option loop every command shares (getopt_long, long options only): options_start,
 * then options_next until *code is -1.  EXIT_USAGE, after one line on stderr, for an
 * unknown option or one without its value; the value is in optarg. */
struct option;
void options_start(void);
int options_next(int argc, char **argv, const struct option *opts, const char *command, int *code);

/* names[i] for arg into *out, or EXIT_USAGE after "--flag: unknown value 'arg' (expected
 * a, b or c)" and a "did you mean" on stderr. */
int option_choice(const char *flag, const char *arg, const char *const *names, int n, int *out);

/* Fills cat from the preset search path (its warnings are left in cat for the caller to
 * show), picks the model (--preset model or scenario, --preset-file, --hf-config, --params
 * or the default) and the GPU, and lays the settings out in o->s: defaults, then the
 * scenario's, then the flags; o->s is then valid for the model (vl_settings_valid).
 * EXIT_OK or EXIT_USAGE (message printed). */
int options_resolve(run_opts *o, vl_catalog *cat, vl_model *m, const vl_gpu **gpu);

/* The search path's catalog for commands without a model; prints its warnings. */
int cli_load_catalog(vl_catalog *cat);

#endif
