/* test_layout.c: the explorer's geometry and bar arithmetic (pure functions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tui/layout.h"

static void test_geometry(void **state)
{
    (void)state;
    layout l = layout_compute(30, 100, 12);
    assert_false(l.too_small);
    assert_int_equal(l.title.y, 0);
    assert_int_equal(l.status.y, 29);
    assert_int_equal(l.sliders.h, 13);
    assert_int_equal(l.memory.x, LAYOUT_SLIDER_W + 1);
    assert_int_equal(l.memory.w, 100 - LAYOUT_SLIDER_W - 1);
    assert_int_equal(l.zero.h, LAYOUT_ZERO_H); /* room for the ZeRO comparison */
    assert_int_equal(l.formula.y, 1 + LAYOUT_MEMORY_H + LAYOUT_ZERO_H);
    assert_int_equal(l.formula.y + l.formula.h, 29); /* down to the status line */

    l = layout_compute(LAYOUT_MIN_LINES, LAYOUT_MIN_COLS, 12); /* the minimum: no comparison */
    assert_false(l.too_small);
    assert_int_equal(l.zero.h, 0);
    assert_true(l.formula.h >= 3);

    assert_true(layout_compute(15, 60, 12).too_small);
    assert_true(layout_compute(LAYOUT_MIN_LINES - 1, 100, 12).too_small);
    assert_true(layout_compute(30, LAYOUT_MIN_COLS - 1, 12).too_small);
}

static int sum(const int *c, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += c[i];
    return s;
}

static void test_bar(void **state)
{
    (void)state;
    int cells[4];
    const uint64_t a[3] = {50, 30, 20};
    layout_bar(a, 3, 100, 10, cells);
    assert_int_equal(cells[0], 5);
    assert_int_equal(cells[1], 3);
    assert_int_equal(cells[2], 2);

    /* thirds of 10 cells: 3.33 each; the one left over goes to a single segment */
    const uint64_t b[3] = {1, 1, 1};
    layout_bar(b, 3, 3, 10, cells);
    assert_int_equal(sum(cells, 3), 10);
    assert_true(cells[0] >= 3 && cells[1] >= 3 && cells[2] >= 3);

    /* half full: 5 of 10 cells, split by largest remainder (1.25/3.75 -> 1/4) */
    const uint64_t c[2] = {25, 75};
    layout_bar(c, 2, 200, 10, cells);
    assert_int_equal(cells[0], 1);
    assert_int_equal(cells[1], 4);

    /* past the capacity the bar is scaled to the total: never more than the width */
    const uint64_t d[4] = {7, 7, 7, 7};
    layout_bar(d, 4, 28, 9, cells);
    assert_int_equal(sum(cells, 4), 9);

    const uint64_t z[2] = {0, 0};
    layout_bar(z, 2, 0, 10, cells);
    assert_int_equal(sum(cells, 2), 0);
}

static void test_cells_and_hits(void **state)
{
    (void)state;
    assert_int_equal(layout_cell(80, 160, 50), 25);
    assert_int_equal(layout_cell(160, 160, 50), 50);
    assert_int_equal(layout_cell(1, 0, 50), 0);
    layout l = layout_compute(30, 100, 12);
    assert_int_equal(layout_slider_at(&l, 2, 5, 12), 0);   /* first slider row */
    assert_int_equal(layout_slider_at(&l, 13, 5, 12), 11); /* last */
    assert_int_equal(layout_slider_at(&l, 14, 5, 12), -1); /* below */
    assert_int_equal(layout_slider_at(&l, 1, 5, 12), -1);  /* the heading */
    assert_int_equal(layout_slider_at(&l, 2, 60, 12), -1); /* the memory pane */
}

/* More sliders than rows: the list shows lines - 6 of them (the formula pane keeps 3 rows)
 * and scrolls to keep the selected one in view. */
static void test_slider_scroll(void **state)
{
    (void)state;
    layout l = layout_compute(LAYOUT_MIN_LINES, LAYOUT_MIN_COLS, 20);
    assert_int_equal(l.sliders.h, 1 + LAYOUT_MIN_LINES - 6);
    assert_true(l.formula.h >= 3);
    assert_int_equal(layout_slider_first(&l, 20, 0), 0);
    assert_int_equal(layout_slider_first(&l, 20, 15), 0);
    assert_int_equal(layout_slider_first(&l, 20, 19), 4);
    assert_int_equal(layout_slider_at(&l, 2 + 15, 5, 20), 15); /* the last row shown */
    assert_int_equal(layout_slider_at(&l, 2 + 16, 5, 20), -1);
    l = layout_compute(30, 100, 20); /* room for all */
    assert_int_equal(l.sliders.h, 21);
    assert_int_equal(layout_slider_first(&l, 20, 19), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_bar),
        cmocka_unit_test(test_cells_and_hits),
        cmocka_unit_test(test_slider_scroll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
