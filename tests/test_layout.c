/* test_layout.c: the explorer's geometry and bar arithmetic (pure functions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tui/keys.h"
#include "tui/layout.h"
#include "tui/panel.h"

static void test_geometry(void **state)
{
    (void)state;
    layout l = layout_compute(30, 100, 12, 0);
    assert_false(l.too_small);
    assert_int_equal(l.title.y, 0);
    assert_int_equal(l.status.y, 29);
    assert_int_equal(l.sliders.h, 13);
    assert_int_equal(l.memory.x, LAYOUT_SLIDER_W + 1);
    assert_int_equal(l.memory.w, 100 - LAYOUT_SLIDER_W - 1);
    assert_int_equal(l.zero.h, LAYOUT_ZERO_H); /* room for the ZeRO comparison */
    assert_int_equal(l.formula.y, 1 + LAYOUT_MEMORY_H + LAYOUT_ZERO_H);
    assert_int_equal(l.formula.y + l.formula.h, 29); /* down to the status line */
    assert_int_equal(l.aside.h, 0); /* the sliders end above the formula pane */

    assert_int_equal(l.bar_h, 2);
    assert_int_equal(l.zero_bar_h, 1);

    /* a tall terminal: the bars take the rows (6 and 2 high at 60 lines), the formula pane
     * the rest, down to the status line */
    l = layout_compute(60, 200, 20, 0);
    assert_int_equal(l.bar_h, LAYOUT_BAR_MAX);
    assert_int_equal(l.zero_bar_h, 2);
    assert_int_equal(l.memory.h, LAYOUT_MEMORY_H - 2 + LAYOUT_BAR_MAX);
    assert_int_equal(l.zero.y, 1 + l.memory.h);
    assert_int_equal(l.zero.h, 1 + 4 * 2);
    assert_int_equal(l.formula.y, l.zero.y + l.zero.h);
    assert_int_equal(l.formula.y + l.formula.h, 59);
    l = layout_compute(40, 120, 20, 0); /* between: one row more of the memory bar */
    assert_int_equal(l.bar_h, 3);
    assert_int_equal(l.zero_bar_h, 1);
    assert_int_equal(l.formula.y, 1 + 21); /* below the 21 rows of sliders */
    /* beside the sliders that reach below the ZeRO comparison: the rows between, on the
     * right (1 + 14 + 5 = 20 and 21) */
    assert_int_equal(l.aside.y, l.zero.y + l.zero.h);
    assert_int_equal(l.aside.y, 20);
    assert_int_equal(l.aside.h, l.formula.y - l.aside.y);
    assert_int_equal(l.aside.x, l.memory.x);
    assert_int_equal(l.aside.w, l.memory.w);

    l = layout_compute(LAYOUT_MIN_LINES, LAYOUT_MIN_COLS, 12, 0); /* the minimum: no comparison */
    assert_false(l.too_small);
    assert_int_equal(l.zero.h, 0);
    assert_true(l.formula.h >= 3);

    assert_true(layout_compute(15, 60, 12, 0).too_small);
    assert_true(layout_compute(LAYOUT_MIN_LINES - 1, 100, 12, 0).too_small);
    assert_true(layout_compute(30, LAYOUT_MIN_COLS - 1, 12, 0).too_small);
}

/* A lesson's box takes the rows below the memory pane it wants, no more: the panes end above
 * it, the sliders scroll in what is left, the total and the peak stay. */
static void test_lesson_box(void **state)
{
    (void)state;
    layout l = layout_compute(24, 80, 27, 8);
    assert_int_equal(l.lesson.h, 8);
    assert_int_equal(l.lesson.y + l.lesson.h, l.status.y);
    assert_true(l.memory.y + l.memory.h <= l.lesson.y);
    assert_int_equal(l.sliders.y + l.sliders.h, l.lesson.y); /* the list scrolls in the rest */
    assert_int_equal(l.zero.h, 0);
    assert_int_equal(l.formula.h, 0);
    l = layout_compute(24, 80, 27, 40); /* more than there is: the memory pane keeps its rows */
    assert_int_equal(l.lesson.y, l.memory.y + l.memory.h);
    l = layout_compute(60, 200, 27, 8); /* room for everything, and the formula pane */
    assert_int_equal(l.sliders.h, 1 + 27);
    assert_int_equal(l.zero.h, 1 + 4 * 2);
    assert_int_equal(l.formula.y + l.formula.h, l.lesson.y);
    assert_true(l.formula.h >= 3);
    assert_int_equal(layout_compute(24, 80, 27, 0).lesson.h, 0);
}

/* The panels' region: the rows between the title and the lesson's box (the status line
 * without one), full width, never fewer than the memory pane's; the Memory panel's panes lie
 * in it. */
static void in_region(const layout *l, rect r)
{
    if (r.h) /* a pane with no room has none */
        assert_true(r.y >= l->panel.y && r.y + r.h <= l->panel.y + l->panel.h);
}

static void test_panel_region(void **state)
{
    (void)state;
    layout l = layout_compute(30, 100, 12, 0);
    assert_int_equal(l.panel.y, 1);
    assert_int_equal(l.panel.y + l.panel.h, l.status.y);
    assert_int_equal(l.panel.x, 0);
    assert_int_equal(l.panel.w, 100);
    const int sizes[][2] = {{24, 80}, {LAYOUT_MIN_LINES, LAYOUT_MIN_COLS}, {40, 120}, {60, 200}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int box = 0; box <= 40; box += 4) {
            l = layout_compute(sizes[i][0], sizes[i][1], 27, box);
            assert_int_equal(l.panel.y, l.title.y + 1);
            assert_int_equal(l.panel.y + l.panel.h, box ? l.lesson.y : l.status.y);
            assert_int_equal(l.panel.w, sizes[i][1]);
            assert_true(l.panel.h >= LAYOUT_MEMORY_H);
            in_region(&l, l.sliders);
            in_region(&l, l.memory);
            in_region(&l, l.zero);
            in_region(&l, l.formula);
        }
    l = layout_compute(24, 80, 27, 40); /* a box that wants more: the memory pane's rows */
    assert_int_equal(l.panel.h, l.memory.h);
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
    layout l = layout_compute(30, 100, 12, 0);
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
    layout l = layout_compute(LAYOUT_MIN_LINES, LAYOUT_MIN_COLS, 20, 0);
    assert_int_equal(l.sliders.h, 1 + LAYOUT_MIN_LINES - 6);
    assert_true(l.formula.h >= 3);
    assert_int_equal(layout_slider_first(&l, 20, 0), 0);
    assert_int_equal(layout_slider_first(&l, 20, 15), 0);
    assert_int_equal(layout_slider_first(&l, 20, 19), 4);
    assert_int_equal(layout_slider_at(&l, 2 + 15, 5, 20), 15); /* the last row shown */
    assert_int_equal(layout_slider_at(&l, 2 + 16, 5, 20), -1);
    l = layout_compute(30, 100, 20, 0); /* room for all */
    assert_int_equal(l.sliders.h, 21);
    assert_int_equal(layout_slider_first(&l, 20, 19), 0);
    /* a list longer than LAYOUT_SLIDER_ROWS: 32 rows shown while the formula pane would
     * keep fewer than 16 besides (at 50 lines it keeps 49 - 2 - 32 = 15 rows), then one
     * more a line, until the list is whole at 56 lines (55 - 2 - 37 = 16) */
    const int longer = LAYOUT_SLIDER_ROWS + 5;
    const int heights[][2] = {{40, 32}, {50, 32}, {51, 32}, {52, 33}, {55, 36}, {56, 37},
                              {70, 37}};
    for (size_t i = 0; i < sizeof heights / sizeof heights[0]; i++) {
        l = layout_compute(heights[i][0], 200, longer, 0);
        assert_int_equal(l.sliders.h - 1, heights[i][1]);
        assert_true(l.formula.h >= (heights[i][1] > LAYOUT_SLIDER_ROWS ? LAYOUT_FORMULA_TALL : 3));
    }
}

/* Whether one of b's codes is named `name` (keys_name). */
static bool has_code_named(const binding *b, const char *name)
{
    for (const key_code *k = b->on; k->code; k++) {
        char buf[16];
        if (strcmp(keys_name(k->code, buf, sizeof buf), name) == 0)
            return true;
    }
    return false;
}

/* A table's rows: every name the footer shows is one of the row's keys, every row says
 * what it does and ends its codes before the array does. */
static void check_rows(const binding *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const binding *b = &t[i];
        assert_non_null(b->help);
        assert_non_null(b->action);
        assert_int_not_equal(b->on[0].code, 0);
        assert_int_equal(b->on[KEYS_MAX_CODES - 1].code, 0);
        if (!b->keys)
            continue;
        char names[64];
        snprintf(names, sizeof names, "%s", b->keys);
        for (char *save, *tok = strtok_r(names, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
            if (!has_code_named(b, tok))
                fail_msg("'%s' (%s) has no key named '%s'", b->keys, b->help, tok);
    }
}

/* A code bound in both tables would never reach the panel's row. */
static void check_unshadowed(const binding *t, size_t n)
{
    int arg;
    for (size_t i = 0; i < n; i++)
        for (const key_code *k = t[i].on; k->code; k++)
            if (keys_find(keys_global, keys_n_global, k->code, &arg))
                fail_msg("key %d of '%s' is taken by every panel's keys", k->code, t[i].help);
}

static void test_key_tables(void **state)
{
    (void)state;
    char buf[16];
    assert_string_equal(keys_name(KEY_LEFT, buf, sizeof buf), "Left");
    assert_string_equal(keys_name(KEY_F(10), buf, sizeof buf), "F10");
    assert_string_equal(keys_name(KEY_CTRL('L'), buf, sizeof buf), "Ctrl-L");
    assert_string_equal(keys_name('q', buf, sizeof buf), "q");
    check_rows(keys_global, keys_n_global);
    check_rows(keys_lesson, keys_n_lesson);
    check_unshadowed(keys_lesson, keys_n_lesson); /* they come first: none is every panel's */
    for (size_t p = 0; p < N_PANELS; p++) {
        const panel *pn = ui_panels[p];
        assert_non_null(pn->name);
        assert_non_null(pn->draw);
        assert_true(!pn->edit == !pn->edit_label); /* both or neither */
        check_rows(pn->keys, pn->n_keys);
        check_unshadowed(pn->keys, pn->n_keys);
    }
    /* the prompts' keys: every other key types */
    static ui u;
    const ui_mode prompts[] = {MODE_EDIT, MODE_SAVE_NAME, MODE_PICK_MODEL, MODE_PICK_GPU,
                               MODE_LESSON_LIST};
    for (size_t i = 0; i < sizeof prompts / sizeof prompts[0]; i++) {
        size_t n;
        u.mode = prompts[i];
        const binding *t = ui_prompt_keys(&u, &n);
        assert_non_null(t);
        check_rows(t, n);
    }
    size_t n;
    u.mode = MODE_NORMAL;
    assert_null(ui_prompt_keys(&u, &n));
    /* the panels' keys are their rows, 1 to N_PANELS */
    int arg = -1;
    assert_non_null(keys_find(keys_global, keys_n_global, '1' + N_PANELS - 1, &arg));
    assert_int_equal(arg, N_PANELS - 1);
    assert_null(keys_find(keys_global, keys_n_global, '1' + N_PANELS, &arg));
    /* the help lists every key the dispatcher knows, once: Enter is three codes */
    const binding *enter = keys_find(panel_memory.keys, panel_memory.n_keys, '\n', &arg);
    char list[64];
    keys_list(enter, list, sizeof list);
    assert_string_equal(list, "Enter");
    keys_list(&keys_global[1], list, sizeof list);
    assert_string_equal(list, "q/F10");
}

/* The footer: help and quit first, then whole items only, as many as the width holds. */
static void test_footer(void **state)
{
    (void)state;
    char f[512], wide[512];
    const panel *m = &panel_memory;
    keys_footer(m->keys, m->n_keys, 500, wide, sizeof wide);
    for (size_t i = 0; i < m->n_keys; i++)
        if (m->keys[i].brief)
            assert_non_null(strstr(wide, m->keys[i].brief));
    for (int w = 15; w <= 200; w++) {
        keys_footer(m->keys, m->n_keys, w, f, sizeof f);
        assert_true((int)strlen(f) <= w);
        assert_memory_equal(f, " ? help  q quit", 15);
        /* every item is one of the wide footer's, whole */
        char items[512];
        snprintf(items, sizeof items, "%s", f + 1);
        for (char *it = items, *end; *it; it = end + (*end ? 2 : 0)) {
            end = strstr(it, "  ");
            end = end ? end : it + strlen(it);
            char want[128];
            snprintf(want, sizeof want, " %.*s", (int)(end - it), it);
            const char *at = strstr(wide, want);
            assert_non_null(at);
            assert_true(at[strlen(want)] == ' ' || at[strlen(want)] == '\0');
        }
    }
    keys_footer(m->keys, m->n_keys, 14, f, sizeof f);
    assert_string_equal(f, " ? help");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_lesson_box),
        cmocka_unit_test(test_panel_region),
        cmocka_unit_test(test_bar),
        cmocka_unit_test(test_cells_and_hits),
        cmocka_unit_test(test_slider_scroll),
        cmocka_unit_test(test_key_tables),
        cmocka_unit_test(test_footer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
