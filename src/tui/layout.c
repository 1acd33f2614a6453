/* layout.c: the explorer's screen geometry and bar arithmetic. */
#include "layout.h"

#include <math.h>

layout layout_compute(int lines, int cols, int n_sliders, int lesson_rows)
{
    layout l = {0};
    if (lines < LAYOUT_MIN_LINES || cols < LAYOUT_MIN_COLS) {
        l.too_small = true;
        return l;
    }
    l.title = (rect){0, 0, 1, cols};
    l.status = (rect){lines - 1, 0, 1, cols};
    /* the bars grow with the terminal: a row of the memory bar for every 6 rows past 30
     * and two-row ZeRO bars from 45, so the pictures take the room, not blank lines */
    int grow = (lines - 30) / 6;
    l.bar_h = 2 + (grow < 0 ? 0 : grow > LAYOUT_BAR_MAX - 2 ? LAYOUT_BAR_MAX - 2 : grow);
    l.zero_bar_h = lines >= 45 ? 2 : 1;
    int memory_h = LAYOUT_MEMORY_H - 2 + l.bar_h;
    /* the lesson's box: the rows it wants of those below the memory pane, so the total and
     * the peak stay in view; the panes end above it */
    int spare = lines - 2 - memory_h;
    int box = lesson_rows < spare ? lesson_rows : spare;
    l.lesson = (rect){lines - 1 - box, 0, box, cols};
    int bottom = l.lesson.y;
    l.panel = (rect){1, 0, bottom - 1, cols};
    /* the settings column shows LAYOUT_SLIDER_ROWS sliders, more only where the formula pane
     * keeps LAYOUT_FORMULA_TALL rows besides, and fewer where it would keep less than 3
     * (unless a lesson takes them): the rest of the list scrolls */
    int keep = box ? 0 : 3, cap = bottom - 2 - LAYOUT_FORMULA_TALL;
    if (cap < LAYOUT_SLIDER_ROWS)
        cap = LAYOUT_SLIDER_ROWS;
    if (n_sliders > cap)
        n_sliders = cap;
    if (n_sliders > bottom - 2 - keep)
        n_sliders = bottom - 2 - keep;
    l.sliders = (rect){1, 0, 1 + n_sliders, LAYOUT_SLIDER_W};
    int rx = LAYOUT_SLIDER_W + 1, rw = cols - rx;
    l.memory = (rect){1, rx, memory_h, rw};

    int top = 1 + memory_h, free_rows = bottom - top;
    int zero_h = 1 + 4 * l.zero_bar_h;
    /* the ZeRO comparison when the formula pane keeps at least 3 rows */
    if (free_rows >= zero_h + 3) {
        l.zero = (rect){top, rx, zero_h, rw};
        top += zero_h;
    }
    int below_sliders = l.sliders.y + l.sliders.h;
    if (top < below_sliders) {
        l.aside = (rect){top, rx, below_sliders - top, rw};
        top = below_sliders;
    }
    l.formula = (rect){top, 0, bottom - top, cols};
    return l;
}

void layout_bar(const uint64_t *values, int n, uint64_t full, int width, int *cells)
{
    double exact[16], sum = 0;
    int used = 0;
    for (int i = 0; i < n; i++) {
        exact[i] = full ? (double)values[i] * width / (double)full : 0;
        sum += exact[i];
        cells[i] = (int)floor(exact[i]);
        used += cells[i];
    }
    int target = (int)lround(sum);
    if (target > width)
        target = width;
    /* hand the remaining cells to the largest remainders */
    while (used < target) {
        int best = -1;
        double rem = -1;
        for (int i = 0; i < n; i++)
            if (exact[i] - cells[i] > rem) {
                rem = exact[i] - cells[i];
                best = i;
            }
        cells[best]++;
        exact[best] = cells[best]; /* remainder spent */
        used++;
    }
}

int layout_cell(uint64_t bytes, uint64_t full, int width)
{
    if (!full)
        return 0;
    long c = lround((double)bytes * width / (double)full);
    return c > width ? width : (int)c;
}

int layout_slider_first(const layout *l, int n_sliders, int selected)
{
    int rows = l->sliders.h - 1;
    if (n_sliders <= rows || selected < rows)
        return 0;
    return selected - rows + 1;
}

int layout_slider_at(const layout *l, int y, int x, int n_sliders)
{
    int i = y - (l->sliders.y + 1);
    if (n_sliders > l->sliders.h - 1)
        n_sliders = l->sliders.h - 1;
    if (l->too_small || x < l->sliders.x || x >= l->sliders.x + l->sliders.w)
        return -1;
    return i >= 0 && i < n_sliders ? i : -1;
}
