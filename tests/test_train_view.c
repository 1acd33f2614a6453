/* test_train_view.c: the Train panel's state (src/tui/train-view.h) against runs of
 * src/core/train.h made here in one go on the CPU emulation: after n slices every run holds
 * the same per-step numbers bit for bit, whatever the slices; pause, restart and the
 * static loss scale do what the panel says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tui/train-view.h"

/* A run of regime g for `steps` steps in one call, at the static loss scale `scale`. */
static vl_train_run *reference(vl_backend *cpu, int g, float scale, uint32_t steps)
{
    vl_train_opts o;
    vl_train_opts_default(&o);
    o.static_scale = scale;
    vl_train_run *r = vl_train_init(cpu, &o, g);
    assert_non_null(r);
    assert_int_equal(vl_train_step(r, steps), steps);
    return r;
}

/* Every per-step array of the view's run g equals the reference's, bit for bit. */
static void same_run(const vl_train_run *got, const vl_train_run *want)
{
    assert_int_equal(got->done, want->done);
    size_t n = want->done;
    assert_memory_equal(got->loss, want->loss, n * sizeof *want->loss);
    assert_memory_equal(got->flushed, want->flushed, n * sizeof *want->flushed);
    assert_memory_equal(got->subnormal, want->subnormal, n * sizeof *want->subnormal);
    assert_memory_equal(got->scale, want->scale, n * sizeof *want->scale);
    assert_memory_equal(got->skipped_at, want->skipped_at, n);
    assert_int_equal(got->skipped, want->skipped);
}

/* The CPU emulation opened and the view readied for a test. */
static void ready(train_view *t, vl_backend *cpu)
{
    char why[128];
    assert_true(vl_backend_open(cpu, VL_BACKEND_CPU));
    assert_true(train_view_ready(t, why, sizeof why));
}

/* Every regime's run in the view equals the one-go reference of `steps` steps at `scale`;
 * with `final`, its final loss and accuracy too. */
static void same_runs(const train_view *t, vl_backend *cpu, float scale, uint32_t steps,
                      bool final)
{
    for (int g = 0; g < VL_N_REGIMES; g++) {
        vl_train_run *want = reference(cpu, g, scale, steps);
        same_run(t->runs[g], want);
        if (final) {
            assert_memory_equal(&t->runs[g]->final_loss, &want->final_loss, sizeof(double));
            assert_memory_equal(&t->runs[g]->accuracy, &want->accuracy, sizeof(double));
        }
        vl_train_free(want);
    }
}

static void slices_are_steps(void **state)
{
    (void)state;
    static train_view t;
    vl_backend cpu;
    ready(&t, &cpu);
    assert_int_equal(train_view_step(&t), 0);
    assert_int_equal(t.log2_scale, 10); /* probe train's --scale 1024 */
    for (int i = 0; i < 7; i++)
        assert_true(train_view_slice(&t));
    assert_int_equal(train_view_step(&t), 7 * TRAIN_VIEW_SLICE);
    same_runs(&t, &cpu, 1024.0f, 7 * TRAIN_VIEW_SLICE, false);
    train_view_free(&t);
}

static void pause_and_restart(void **state)
{
    (void)state;
    static train_view t;
    char why[128];
    assert_true(train_view_ready(&t, why, sizeof why));
    assert_true(train_view_slice(&t));
    t.paused = true;
    assert_false(train_view_slice(&t)); /* paused: nothing runs */
    assert_int_equal(train_view_step(&t), TRAIN_VIEW_SLICE);
    assert_true(train_view_restart(&t, why, sizeof why));
    assert_int_equal(train_view_step(&t), 0);
    assert_true(t.paused); /* a restart keeps the pause */
    assert_false(train_view_slice(&t));
    t.paused = false;
    assert_true(train_view_slice(&t));
    assert_int_equal(train_view_step(&t), TRAIN_VIEW_SLICE);
    train_view_free(&t);
}

/* Left/Right: fp16-static alone starts again, at the new power of two; the range ends at
 * 2^0 and 2^40. */
static void static_scale(void **state)
{
    (void)state;
    static train_view t;
    vl_backend cpu;
    char why[128];
    ready(&t, &cpu);
    for (int i = 0; i < 3; i++)
        train_view_slice(&t);
    assert_true(train_view_scale(&t, 1, why, sizeof why));
    assert_int_equal(t.log2_scale, 11);
    assert_int_equal(t.runs[VL_REGIME_FP16_STATIC]->done, 0);
    assert_int_equal(t.runs[VL_REGIME_FP32]->done, 3 * TRAIN_VIEW_SLICE);
    assert_int_equal(t.runs[VL_REGIME_FP16_DYNAMIC]->done, 3 * TRAIN_VIEW_SLICE);
    train_view_slice(&t);
    vl_train_run *want = reference(&cpu, VL_REGIME_FP16_STATIC, 2048.0f, TRAIN_VIEW_SLICE);
    same_run(t.runs[VL_REGIME_FP16_STATIC], want);
    assert_true(want->scale[0] == 2048.0f);
    vl_train_free(want);

    assert_true(train_view_scale(&t, -100, why, sizeof why));
    assert_int_equal(t.log2_scale, TRAIN_VIEW_MIN_LOG2_SCALE);
    assert_false(train_view_scale(&t, -1, why, sizeof why));
    assert_string_equal(why, ""); /* not an error: it stays */
    assert_true(train_view_scale(&t, 100, why, sizeof why));
    assert_int_equal(t.log2_scale, TRAIN_VIEW_MAX_LOG2_SCALE);
    assert_false(train_view_scale(&t, 1, why, sizeof why));
    train_view_free(&t);
}

/* To the end: ceil(steps / slice) slices, then nothing more; the final loss and accuracy
 * are the one-go run's, and at 2^40 every step of fp16-static overflows and is skipped. */
static void to_the_end(void **state)
{
    (void)state;
    static train_view t;
    vl_backend cpu;
    char why[128];
    ready(&t, &cpu);
    assert_true(train_view_scale(&t, 30, why, sizeof why));
    unsigned slices = 0;
    while (train_view_slice(&t))
        slices++;
    assert_int_equal(slices, (VL_TRAIN_STEPS + TRAIN_VIEW_SLICE - 1) / TRAIN_VIEW_SLICE);
    assert_true(train_view_done(&t));
    same_runs(&t, &cpu, 0x1p40f, VL_TRAIN_STEPS, true);
    assert_int_equal(t.runs[VL_REGIME_FP16_STATIC]->skipped, VL_TRAIN_STEPS);
    train_view_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slices_are_steps),
        cmocka_unit_test(pause_and_restart),
        cmocka_unit_test(static_scale),
        cmocka_unit_test(to_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
