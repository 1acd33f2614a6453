/* tui.h: the explorer's screen state, shared by the loop (tui.c), the frame (draw.c), the key
 * table (keys.c) and the panels (panel-*.c). */
#ifndef VL_TUI_H
#define VL_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include "app/options.h"
#include "explorer.h"
#include "lab.h"
#include "layout.h"
#include "lesson-view.h"
#include "theme.h"
#include "train-view.h"
#include "timeline-view.h"

typedef enum {
    MODE_NORMAL, MODE_HELP, MODE_EDIT, MODE_PICK_MODEL, MODE_PICK_GPU, MODE_SAVE_NAME,
    MODE_CONFIRM_OVERWRITE, MODE_LESSON_LIST, N_MODES
} ui_mode;

#define PICK_MAX 512
#define UI_UNDO 32

typedef struct ui {
    explorer ex;
    size_t panel;               /* index into ui_panels[] (panel.h) */
    lab lab;                    /* the Probe and Formats panels */
    train_view train;           /* the Train panel */
    timeline_view tl;           /* the Timeline panel */
    lesson_view lesson;         /* --lesson: the step shown (lesson NULL: none) */
    vl_catalog *cat;
    layout lay;
    int lines, cols;
    const glyphs *g;
    bool mouse;
    vl_scenario scenario;       /* the scenario loaded last (name "" after a model) */
    explorer origin;            /* the preset or scenario as loaded: `r` goes back to it */
    explorer undo[UI_UNDO];     /* the states before the last changes, oldest first: `u` */
    int n_undo;
    int solve;                  /* what `f` solves for next (vl_solve) */
    vl_units units;             /* --units: GiB (TiB past 6 digits) or GB (TB) */
    bool color;                 /* colour allowed: has_colors(), no NO_COLOR, no --no-color */
    ui_theme theme;
    ui_mode mode;
    char input[128];            /* the text being typed: value, filter or name */
    int pick[PICK_MAX];         /* picker: catalog indices that match the filter */
    signed char pick_fit[PICK_MAX]; /* GPU picker: the run fits pick[k] (1), not (0), or
                                     * cannot be judged there (-1) */
    int n_pick, pick_sel;
    char message[4608];
    bool message_bad;
    char pending[4096];         /* a file waiting for "overwrite? y/n" */
} ui;

/* Handler results (after htop's Panel): what the loop must do next.  Handlers never draw.
 * UI_RESIZE: the terminal's setup changed (theme, or garbage on it after Ctrl-L): set the
 * theme up again, recompute the layout and repaint every cell. */
enum { UI_HANDLED = 1, UI_REDRAW = 2, UI_RESIZE = 4, UI_QUIT = 8 };

void draw_frame(const ui *u);
/* The rows the lesson's box wants on a screen `cols` wide (0 without a lesson). */
int draw_lesson_rows(const ui *u, int cols);
/* What is under the pointer at (y, x): the tab's panel, the picker's entry (an index into
 * pick[]), or -1. */
int draw_tab_at(const ui *u, int y, int x);
int draw_pick_at(const ui *u, int y, int x);
void ui_filter(ui *u);          /* refills pick[] from input */
int ui_key(ui *u, int key);     /* one key press; returns UI_* flags */

/* The keys of the prompt open in u->mode (value, name, picker); NULL when none is. */
struct binding;
const struct binding *ui_prompt_keys(const ui *u, size_t *n);
void ui_say(ui *u, bool bad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Key actions the panels bind (keys.h): each returns UI_* flags. */
int ui_begin_edit(ui *u, int arg);   /* Enter: type a value for the panel's edit op */
int ui_open_picker(ui *u, int picker); /* MODE_PICK_MODEL or MODE_PICK_GPU */
int ui_begin_save(ui *u, int arg);
int ui_export(ui *u, int arg);
int ui_undo(ui *u, int arg);         /* back to the state before the last change */
int ui_reset(ui *u, int arg);        /* back to the preset or scenario as loaded */
/* The lesson's step `step` (from 0): its state, its panel, the box; false, and why on the
 * status line, when it cannot be shown.  ui_lesson_step moves by arg steps (n, N). */
bool ui_lesson_go(ui *u, size_t step);
int ui_lesson_step(ui *u, int arg);
int ui_lesson_list(ui *u, int arg);  /* L: the list of steps */

/* Runs the explorer until q; restores the terminal on every exit path. */
int tui_run(run_opts *o);

#endif
