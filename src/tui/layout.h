/* layout.h: the explorer's screen geometry and bar arithmetic, as pure functions. */
#ifndef VL_LAYOUT_H
#define VL_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_LINES 22
#define LAYOUT_SLIDER_W 42 /* the settings column */
/* The sliders the settings column shows at most, unless the formula pane (the why of every
 * number) keeps LAYOUT_FORMULA_TALL rows besides; a longer list scrolls. */
#define LAYOUT_SLIDER_ROWS 32
#define LAYOUT_FORMULA_TALL 16

typedef struct rect {
    int y, x, h, w;
} rect;

typedef struct layout {
    bool too_small;
    rect title;   /* one line */
    rect panel;   /* the rows between the title and the lesson's box (the status line without
                   * one), full width: every panel draws inside them, the Memory panel's panes
                   * below included; never fewer than LAYOUT_MEMORY_H */
    rect sliders; /* heading + one row per slider */
    rect memory;  /* heading, bar, scale, legend, total, fit */
    rect zero;    /* ZeRO 0-3 comparison; h = 0 when there is no room */
    rect aside;   /* the rows right of the settings column between the panes above and the
                   * formula pane, where the column reaches lower; h = 0 when it does not */
    rect formula; /* formula pane, full width */
    rect lesson;  /* the lesson's box above the status line; h = 0 without one */
    rect status;  /* one line */
    int bar_h;    /* rows of the memory bar: 2, and more as the terminal grows */
    int zero_bar_h; /* rows of each ZeRO (or inference phase) bar: 1, 2 on a tall one */
} layout;

/* Rows the memory pane needs: heading, 2-line bar, scale, 7 legend rows, total, fit; each
 * row more of the bar adds one. */
#define LAYOUT_MEMORY_H 13
#define LAYOUT_BAR_MAX 6
/* Rows the ZeRO comparison needs: heading and four one-row bars. */
#define LAYOUT_ZERO_H 5

/* The screen of lines x cols with n_sliders sliders and, above the status line, a lesson's
 * box that wants lesson_rows rows (0: no lesson). */
layout layout_compute(int lines, int cols, int n_sliders, int lesson_rows);

/* Splits a bar of `width` cells, where `full` bytes fill it, among values[0..n): cells[i]
 * is values[i]'s share by largest remainder, so the cells add up to the rounded total. */
void layout_bar(const uint64_t *values, int n, uint64_t full, int width, int *cells);

/* The cell at which `bytes` ends on a bar of `width` cells that `full` bytes fill. */
int layout_cell(uint64_t bytes, uint64_t full, int width);

/* The first slider shown when the list scrolls: the selected one (an index) in view. */
int layout_slider_first(const layout *l, int n_sliders, int selected);

/* Where row y, column x falls: the index of the slider row shown there (add
 * layout_slider_first for the slider's), or -1. */
int layout_slider_at(const layout *l, int y, int x, int n_sliders);

#endif
