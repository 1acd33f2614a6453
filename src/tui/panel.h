/* panel.h: what a panel of the explorer implements (after tmux's window_mode and htop's
 * PanelClass), the table of panels, and the drawing primitives panels share.
 *
 * A panel is src/tui/panel-NAME.c defining `UI_PANEL(NAME) = {...};` (a const panel) with
 * designated initializers, plus one row X(NAME) in UI_PANELS below.  Its tab key is its
 * position in the list (1, 2, 3...).  The frame (draw.c) draws the title and the tabs, the
 * status line with the footer, the lesson's box and the overlays; the panel draws the rows
 * between (layout.h's panel). */
#ifndef VL_PANEL_H
#define VL_PANEL_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "keys.h"
#include "tui.h"

typedef struct panel {
    const char *name;        /* the tab and the help screen's section: N_("Memory") */
    const binding *keys;     /* its own keys (dispatch, footer, help) */
    size_t n_keys;
    /* Before it is shown (optional): false, and why in `why`, refuses (state unchanged). */
    bool (*enter)(ui *u, char *why, size_t len);
    /* Inside u->lay.panel, the rows the layout leaves above the lesson's box and the status
     * line (short ones give up their least important rows first); reads the state,
     * changes nothing. */
    void (*draw)(const ui *u);
    /* A mouse event (optional): the key it stands for, or ERR (one input path, after htop). */
    int (*mouse)(ui *u, const MEVENT *ev);
    /* Typing a value with Enter (optional, both or neither): what the status line calls the
     * value, and applying it: false, and why in `why`, keeps the prompt open. */
    const char *(*edit_label)(const ui *u);
    bool (*edit)(ui *u, const char *text, char *why, size_t len);
    /* Work between frames (optional): called when no key came within the loop's wait, it
     * does one slice of a few milliseconds and returns UI_* flags.  While it returns
     * UI_REDRAW the loop waits only UI_TICK_MS for the next key, so the panel animates and
     * the keys never wait for the work; otherwise TERMINAL_WAIT_MS. */
    int (*tick)(ui *u);
} panel;

/* The wait between a busy panel's slices: with a slice's few milliseconds, some 25 frames
 * a second. */
#define UI_TICK_MS 30

/* .keys and .n_keys from one array. */
#define PANEL_KEYS(table) .keys = (table), .n_keys = sizeof(table) / sizeof((table)[0])

/* The panels, in tab order: one row each. */
#define UI_PANELS(X) X(memory) X(probe) X(formats) X(train) X(timeline)

#define UI_PANEL_ROW(name) UI_ROW_##name,
enum { UI_PANELS(UI_PANEL_ROW) N_PANELS };
_Static_assert(N_PANELS >= 1 && N_PANELS <= 9, "the panels are chosen with the keys 1-9");

#define UI_PANEL_DECLARE(name) extern const panel panel_##name;
UI_PANELS(UI_PANEL_DECLARE)

/* A panel's definition, `UI_PANEL(name) = {...};`: without its row in UI_PANELS it does not
 * compile, and a row without its definition does not link. */
#define UI_PANEL(name)                                                                         \
    _Static_assert(UI_ROW_##name < N_PANELS, "X(" #name ") belongs in UI_PANELS");             \
    const panel panel_##name

extern const panel *const ui_panels[N_PANELS];

static inline const panel *ui_current(const ui *u)
{
    return ui_panels[u->panel];
}

/* The enter op of the panels over the lab (Probe, Formats): computes it on first view. */
bool panel_lab_enter(ui *u, char *why, size_t len);

/* ---- drawing primitives (draw.c) ---- */

/* s at (y, x) in colour c, cut to w columns (whole characters) and to the screen's edge,
 * ending in an ellipsis where it was cut. */
void draw_text(int y, int x, int w, ui_color c, const char *s);
/* The columns s takes on the screen: its display width, not its bytes (a Chinese character
 * takes two columns and three bytes); what every measure of text for the screen uses. */
int draw_width(const char *s);
/* s as a table's cell of |cols| columns (whole characters, cut where longer), padded with
 * spaces on the right (cols < 0) or the left (cols > 0), as printf's %-*s and %*s would do
 * in bytes: a cell that lines up in any language.  Returns buf. */
char *draw_pad(char *buf, size_t len, const char *s, int cols);
void draw_fill(int y, int x, int w, ui_color c);
/* s word-wrapped into rows y..last of width w, continuation lines indented, the last row
 * ending in an ellipsis when s goes on; returns the next free row. */
int draw_wrap(int y, int last, int x, int w, ui_color c, const char *s);
/* bytes in the screen's units (--units): "146.20 GiB", and TiB (TB) where GiB (GB) would
 * need 7 digits before the point. */
char *ui_bytes(const ui *u, uint64_t bytes, char *buf, size_t len);
/* The verdict f (vl_fit_of) in words, for a run of `batch` sequences: "fits, spare 1.50
 * GiB", "does not fit, over by 3.20 GiB", or under a serving engine "fits; its KV cache
 * holds 97 sequences, spare ...", "its KV cache holds 97 of the 128 sequences, ... short",
 * "the engine stops before serving, ... short".  Returns buf. */
char *ui_fit_text(const ui *u, const vl_fit *f, uint64_t batch, char *buf, size_t len);

#endif
