/* layout.c: the explorer's screen geometry and bar arithmetic. */
#include "layout.h"

#include <math.h>

layout layout_compute(int lines, int cols, int n_sliders)
{
    layout l = {0};
    if (lines < LAYOUT_MIN_LINES || cols < LAYOUT_MIN_COLS) {
        l.too_small = true;
        return l;
    }
    l.title = (rect){0, 0, 1, cols};
    l.status = (rect){lines - 1, 0, 1, cols};
    /* more sliders than rows (keeping the formula pane 3): the list scrolls */
    if (n_sliders > lines - 6)
        n_sliders = lines - 6;
    l.sliders = (rect){1, 0, 1 + n_sliders, LAYOUT_SLIDER_W};
    int rx = LAYOUT_SLIDER_W + 1, rw = cols - rx;
    l.memory = (rect){1, rx, LAYOUT_MEMORY_H, rw};

    int top = 1 + LAYOUT_MEMORY_H, free_rows = lines - 1 - top;
    /* the ZeRO comparison when the formula pane keeps at least 3 rows */
    if (free_rows >= LAYOUT_ZERO_H + 3) {
        l.zero = (rect){top, rx, LAYOUT_ZERO_H, rw};
        top += LAYOUT_ZERO_H;
    }
    int below_sliders = l.sliders.y + l.sliders.h;
    if (top < below_sliders)
        top = below_sliders;
    l.formula = (rect){top, 0, lines - 1 - top, cols};
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
