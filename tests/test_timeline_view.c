/* test_timeline_view.c: the Timeline panel's state: the chart's columns keep the peak at every
 * width, a column is the largest moment among its events, the cursor steps one event, a
 * phase and to the ends, what is shown alive at the cursor is vl_timeline_alive's, and a
 * phase's label is shown with its numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "tui/timeline-view.h"
#include "helpers.h"


/* The view's timeline is the one vramlab estimate computes for the explorer's settings. */
static void built(timeline_view *v, const explorer *e)
{
    memset(v, 0, sizeof *v);
    assert_true(timeline_view_build(v, e));
    vl_settings s = explorer_settings(e);
    const vl_runtime rt = explorer_runtime(e);
    vl_timeline t;
    char err[256];
    assert_true(vl_timeline_for(&e->model, &s, &rt, &t, err, sizeof err));
    assert_int_equal(v->t.n_events, t.n_events);
    assert_int_equal(v->t.peak.device, t.peak.device);
    assert_int_equal(v->t.peak.device, e->peak.device);
    vl_timeline_free(&t);
    assert_int_equal(v->cursor, v->t.peak.event); /* a fresh view starts at the peak */
}

/* Every width, from one column to more columns than events: the columns cover the events in
 * order, each column's event is the first largest allocated among its own events (checked
 * against every one of them), its bands add up to reserved + context there, and the peak's
 * column shows the peak itself. */
static void check_columns(const timeline_view *v)
{
    const vl_timeline *t = &v->t;
    const int widths[] = {1, 2, 7, 44, 80, 151, 200, TLV_MAX_COLUMNS};
    report_tl_column cols[TLV_MAX_COLUMNS];
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        int w = widths[k];
        assert_int_equal(timeline_view_columns(v, w, cols), w);
        assert_int_equal(cols[0].first, 0);
        assert_int_equal(cols[w - 1].last, t->n_events - 1);
        uint64_t highest = 0;
        for (int c = 0; c < w; c++) {
            const report_tl_column *col = &cols[c];
            if (c > 0) /* contiguous, or (fewer events than columns) one event repeated */
                assert_true(col->first == cols[c - 1].last + 1 ||
                            (col->first == cols[c - 1].first && col->first == col->last));
            assert_true(col->first <= col->event && col->event <= col->last);
            for (size_t i = col->first; i <= col->last; i++) {
                assert_true(t->events[i].allocated <= t->events[col->event].allocated);
                if (i < col->event)
                    assert_true(t->events[i].allocated < t->events[col->event].allocated);
            }
            uint64_t alive[VL_N_TL_COMPONENTS], sum = 0;
            vl_timeline_alive(t, col->event, alive);
            for (int b = 0; b < VL_N_TL_COMPONENTS; b++) {
                assert_int_equal(col->band[b], alive[b]);
                sum += col->band[b];
            }
            const vl_event *ev = &t->events[col->event];
            assert_int_equal(sum, ev->tensors);
            assert_int_equal(sum + col->band[REPORT_TL_ROUNDING], ev->allocated);
            assert_int_equal(col->band[REPORT_TL_CONTEXT], t->peak.context);
            sum += col->band[REPORT_TL_ROUNDING] + col->band[REPORT_TL_CONTEXT] +
                   col->band[REPORT_TL_CACHED];
            assert_int_equal(sum, ev->reserved + t->peak.context);
            assert_int_equal(col->top, sum);
            if (t->events[col->event].allocated > highest)
                highest = t->events[col->event].allocated;
        }
        assert_int_equal(highest, t->peak.allocated);
        int pc = timeline_view_column_of(v, w, t->peak.event);
        assert_int_equal(cols[pc].event, t->peak.event);
        for (int b = 0; b < VL_N_TL_COMPONENTS; b++)
            assert_int_equal(cols[pc].band[b], t->peak.alive[b]);
    }
}

static void test_columns_keep_the_peak(void **state)
{
    (void)state;
    const struct {
        const char *model;
        vl_mode mode;
    } runs[] = {{"llama-2-7b", VL_MODE_TRAIN}, {"gpt2", VL_MODE_TRAIN},
                {"llama-2-7b", VL_MODE_INFER}};
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        explorer e;
        timeline_view v;
        start(&e, runs[r].model, runs[r].mode);
        built(&v, &e);
        check_columns(&v);
        timeline_view_free(&v);
    }
}

/* A timeline shorter than the chart is wide: every event has a column, in order. */
static void test_fewer_events_than_columns(void **state)
{
    (void)state;
    explorer e;
    timeline_view v;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    built(&v, &e);
    size_t n = v.t.n_events;
    v.t.n_events = 100; /* the step cut short after 100 events */
    report_tl_column cols[TLV_MAX_COLUMNS];
    assert_int_equal(timeline_view_columns(&v, 150, cols), 150);
    size_t seen = 0;
    for (int c = 0; c < 150; c++) {
        assert_int_equal(cols[c].first, cols[c].last);
        assert_true(cols[c].first == seen || cols[c].first + 1 == seen);
        if (cols[c].first == seen)
            seen++;
        assert_int_equal(timeline_view_column_of(&v, 150, cols[c].first) <= c, 1);
    }
    assert_int_equal(seen, 100);
    v.t.n_events = n;
    timeline_view_free(&v);
}

static void test_cursor(void **state)
{
    (void)state;
    explorer e;
    timeline_view v;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    built(&v, &e);
    const vl_timeline *t = &v.t;
    size_t n = t->n_events;

    assert_true(timeline_view_jump(&v, false));
    assert_int_equal(v.cursor, 0);
    assert_false(timeline_view_step(&v, -1)); /* nothing before the first event */
    assert_int_equal(v.cursor, 0);
    assert_true(timeline_view_step(&v, 1));
    assert_int_equal(v.cursor, 1);
    assert_true(timeline_view_jump(&v, true));
    assert_int_equal(v.cursor, n - 1);
    assert_false(timeline_view_step(&v, 1));
    assert_true(timeline_view_step(&v, -1));
    assert_int_equal(v.cursor, n - 2);

    /* PgDn from the start visits the first event of every phase, in order, and then, in the
     * last phase, its last event */
    timeline_view_jump(&v, false);
    size_t starts = 1;
    while (timeline_view_phase(&v, 1)) {
        if (t->events[v.cursor].phase == t->events[v.cursor - 1].phase) {
            assert_int_equal(v.cursor, n - 1);
            break;
        }
        starts++;
    }
    assert_int_equal(v.cursor, n - 1);
    assert_false(timeline_view_phase(&v, 1));
    size_t want = 1;
    for (size_t i = 1; i < n; i++)
        want += t->events[i].phase != t->events[i - 1].phase;
    assert_int_equal(starts, want);
    assert_true(want > 2 * 32); /* forward and backward of each of Llama 2 7B's 32 layers */

    /* PgUp from inside a phase goes to its first event, and again to the phase before */
    timeline_view_jump(&v, true);
    size_t last_start = n - 1;
    while (last_start > 0 && t->events[last_start - 1].phase == t->events[n - 1].phase)
        last_start--;
    assert_true(timeline_view_phase(&v, -1));
    if (last_start < n - 1) {
        assert_int_equal(v.cursor, last_start);
        assert_true(timeline_view_phase(&v, -1));
    }
    assert_true(v.cursor < last_start);
    assert_int_equal(t->events[v.cursor].phase, t->events[last_start - 1].phase);
    assert_true(v.cursor == 0 || t->events[v.cursor - 1].phase != t->events[v.cursor].phase);
    timeline_view_jump(&v, false);
    assert_false(timeline_view_phase(&v, -1));

    assert_true(timeline_view_peak(&v));
    assert_int_equal(v.cursor, t->peak.event);
    assert_false(timeline_view_peak(&v));
    timeline_view_free(&v);
}

/* What the legend shows alive at the cursor is vl_timeline_alive's, at every event, and at
 * the peak it is the peak's "alive"; the allocator's bands are the event's own figures. */
static void test_alive_at_cursor(void **state)
{
    (void)state;
    explorer e;
    timeline_view v;
    start(&e, "gpt2", VL_MODE_TRAIN);
    built(&v, &e);
    uint64_t got[REPORT_TL_BANDS], want[VL_N_TL_COMPONENTS];
    timeline_view_jump(&v, false);
    do {
        const vl_event *ev = &v.t.events[v.cursor];
        timeline_view_bands(&v, got);
        vl_timeline_alive(&v.t, v.cursor, want);
        assert_memory_equal(got, want, sizeof want);
        uint64_t sum = 0;
        for (int c = 0; c < VL_N_TL_COMPONENTS; c++)
            sum += got[c];
        assert_int_equal(sum, ev->tensors);
        assert_int_equal(got[REPORT_TL_ROUNDING], ev->allocated - ev->tensors);
        assert_int_equal(got[REPORT_TL_CACHED], ev->reserved - ev->allocated);
        assert_int_equal(got[REPORT_TL_CONTEXT], v.t.peak.context);
    } while (timeline_view_step(&v, 1));
    timeline_view_peak(&v);
    timeline_view_bands(&v, got);
    assert_memory_equal(got, v.t.peak.alive, sizeof want);
    timeline_view_free(&v);
}

/* A rebuild after a change follows the explorer; the cursor stays while the step keeps its
 * events, else goes to the new peak; an explorer without a breakdown gives its reason. */
static void test_rebuild(void **state)
{
    (void)state;
    explorer e;
    timeline_view v;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    built(&v, &e);
    timeline_view_jump(&v, false);
    timeline_view_step(&v, 1);
    assert_true(timeline_view_build(&v, &e)); /* nothing changed */
    assert_int_equal(v.cursor, 1);
    size_t before = v.t.n_events;
    assert_true(explorer_move(&e, VL_SET_GPUS, 7, false) && explorer_move(&e, VL_SET_ZERO, 3,
                                                                          false));
    assert_true(timeline_view_build(&v, &e));
    assert_int_equal(v.t.peak.device, e.peak.device);
    if (v.t.n_events != before)
        assert_int_equal(v.cursor, v.t.peak.event);
    e.error = "the reason";
    assert_false(timeline_view_build(&v, &e));
    assert_false(v.built);
    assert_string_equal(v.error, "the reason");
    assert_false(timeline_view_step(&v, 1));
    report_tl_column cols[4];
    assert_int_equal(timeline_view_columns(&v, 4, cols), 0);
    timeline_view_free(&v);
}

/* The phases' labels, as the explorer shows them: under the C locale (the tests') each is
 * itself again, its micro-batch and its numbers read and written back. */
static void phases_as_they_are(const explorer *e)
{
    timeline_view v;
    built(&v, e);
    char buf[128];
    for (size_t i = 0; i < v.t.n_phases; i++)
        assert_string_equal(timeline_view_phase_text(v.t.phases[i], buf, sizeof buf),
                            v.t.phases[i]);
    timeline_view_free(&v);
}

static void test_phase_text(void **state)
{
    (void)state;
    explorer e;
    start(&e, "llama-2-7b", VL_MODE_TRAIN);
    assert_true(explorer_move(&e, VL_SET_GRAD_ACCUM, 2, false)); /* micro-batch 1, 2, 3 */
    phases_as_they_are(&e);
    start(&e, "llama-2-7b", VL_MODE_INFER);
    assert_true(explorer_move(&e, VL_SET_GEN, 3, false)); /* decode steps */
    phases_as_they_are(&e);
    char buf[64];
    assert_string_equal(timeline_view_phase_text("zero_grad", buf, sizeof buf), "zero_grad");
    assert_string_equal(timeline_view_phase_text("forward layer 3x", buf, sizeof buf),
                        "forward layer 3x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_keep_the_peak),
        cmocka_unit_test(test_fewer_events_than_columns),
        cmocka_unit_test(test_cursor),
        cmocka_unit_test(test_alive_at_cursor),
        cmocka_unit_test(test_rebuild),
        cmocka_unit_test(test_phase_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
