/* tui.h: the explorer's screen state, shared by the loop (tui.c) and the drawing (draw.c). */
#ifndef VL_TUI_H
#define VL_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include "app/options.h"
#include "explorer.h"
#include "lab.h"
#include "layout.h"
#include "theme.h"

typedef enum {
    MODE_NORMAL, MODE_HELP, MODE_EDIT, MODE_PICK_MODEL, MODE_PICK_GPU, MODE_SAVE_NAME,
    MODE_CONFIRM_OVERWRITE
} ui_mode;

typedef enum { PANEL_MEMORY, PANEL_PROBE, PANEL_FORMATS, N_PANELS } ui_panel;
extern const char *const panel_names[N_PANELS];

#define PICK_MAX 512

typedef struct ui {
    explorer ex;
    ui_panel panel;
    lab lab;                    /* the Probe and Formats panels */
    vl_catalog *cat;
    layout lay;
    int lines, cols;
    const glyphs *g;
    bool mouse;
    ui_theme theme;
    ui_mode mode;
    char input[128];            /* the text being typed: value, filter or name */
    int pick[PICK_MAX];         /* picker: catalog indices that match the filter */
    int n_pick, pick_sel;
    char message[4608];
    bool message_bad;
    char pending[4096];         /* a file waiting for "overwrite? y/n" */
} ui;

/* Handler results (after htop's Panel): what the loop must do next. */
enum { UI_HANDLED = 1, UI_REDRAW = 2, UI_QUIT = 4 };

void draw_frame(const ui *u);
void draw_probe(const ui *u);   /* panels.c */
void draw_formats(const ui *u);
void ui_filter(ui *u);          /* refills pick[] from input */
int ui_key(ui *u, int key);     /* one key press; returns UI_* flags */

/* Runs the explorer until q; restores the terminal on every exit path. */
int tui_run(run_opts *o);

#endif
