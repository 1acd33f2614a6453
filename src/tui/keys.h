/* keys.h: key bindings as data (after htop's Action.c).  One row per action: its keys, what
 * the footer and the help screen call it, and the handler.  The dispatcher, the footer and
 * the `?` screen all read these rows, so they cannot disagree. */
#ifndef VL_KEYS_H
#define VL_KEYS_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "tui.h"

#define KEYS_MAX_CODES 10
#define KEY_CTRL(c) ((c) & 0x1f)
#define KEYS_ENTER {'\n'}, {'\r'}, {KEY_ENTER} /* what terminals send for Enter */

typedef struct key_code {
    int code; /* a character or a curses KEY_* */
    int arg;  /* handed to the action: a direction, a step */
} key_code;

typedef struct binding {
    const char *keys;  /* the footer's name for the keys, e.g. "Left/Right": each name is
                        * one of the codes' keys_name() (tests/test_layout.c checks) */
    const char *brief; /* the footer's word for the action, N_(); NULL: help only */
    const char *help;  /* the help screen's line, N_() */
    int (*action)(ui *u, int arg); /* returns UI_* flags, never draws */
    bool anywhere;     /* also while the terminal is too small to draw the explorer */
    key_code on[KEYS_MAX_CODES];   /* ends at code 0 */
} binding;

/* The keys of every panel (help, quit, redraw, theme, the panels); the first KEYS_FIRST come
 * first in the footer, which drops the rest as the terminal narrows. */
extern const binding keys_global[];
extern const size_t keys_n_global;
#define KEYS_FIRST 2
/* The lesson's keys (n, N, L), only while a lesson is shown, and before all others. */
extern const binding keys_lesson[];
extern const size_t keys_n_lesson;

/* The row of `table` bound to `code` (its arg in *arg), or NULL. */
const binding *keys_find(const binding *table, size_t n, int code, int *arg);
/* The keys of a prompt as "Enter apply  Esc cancel". */
void keys_hint(const binding *table, size_t n, char *buf, size_t len);
/* A key's name as the help screen shows it ("Left", "PgUp", "F1", "Ctrl-L", "q"). */
const char *keys_name(int code, char *buf, size_t len);
/* Every key of b, named and joined with '/': "Left/Right/h/l". */
void keys_list(const binding *b, char *buf, size_t len);
/* The footer for `width` columns: " ? help  q quit", then the panel's keys, then the
 * others, as long as they fit whole. */
void keys_footer(const binding *panel_keys, size_t n_panel, int width, char *buf, size_t len);
/* The mouse wheel as the key it stands for (Right up, Left down), or ERR. */
int keys_wheel(const MEVENT *ev);

#endif
