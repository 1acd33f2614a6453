/* options.h: the options `estimate` and the explorer share (DESIGN §2). */
#ifndef VL_OPTIONS_H
#define VL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/memory.h"
#include "core/preset.h"
#include "report.h"

#define DEFAULT_MODEL "llama-2-7b"
#define DEFAULT_GPU "h100-80gb"

typedef enum { THEME_DEFAULT, THEME_HIGH_CONTRAST, N_THEMES } ui_theme;
extern const char *const theme_names[N_THEMES];

typedef struct run_opts {
    vl_settings s;
    const char *preset, *preset_file, *params_arg, *gpu;
    uint64_t params;
    report_format format;
    vl_units units;
    bool check_fit, explain, help;
    bool infer_only_given;            /* --weight-dtype or --kv-dtype */
    bool no_mouse, no_color, ascii;   /* the explorer only */
    ui_theme theme;
    bool tui_only_given;
} run_opts;

/* Parses argv (argv[0] is the command) into o.  Returns EXIT_OK or, after one line on
 * stderr naming the flag, EXIT_USAGE.  command names the subcommand in messages. */
int options_parse(int argc, char **argv, run_opts *o, const char *command);

/* The option loop every command shares (getopt_long, long options only): options_start,
 * then options_next until *code is -1.  EXIT_USAGE, after one line on stderr, for an
 * unknown option or one without its value; the value is in optarg. */
struct option;
void options_start(void);
int options_next(int argc, char **argv, const struct option *opts, const char *command, int *code);

/* names[i] for arg into *out, or EXIT_USAGE after "--flag: unknown value 'arg' (expected
 * a, b or c)" and a "did you mean" on stderr. */
int option_choice(const char *flag, const char *arg, const char *const *names, int n, int *out);

/* Fills cat with the built-in presets and picks the model (--preset, --preset-file,
 * --params or the default) and the GPU.  EXIT_OK or EXIT_USAGE (message printed). */
int options_resolve(const run_opts *o, vl_catalog *cat, vl_model *m, const vl_gpu **gpu);

#endif
