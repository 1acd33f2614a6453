/* test_lesson_view.c: the explorer's lesson without a terminal: the language from --lang and
 * the locale, and each step's state against the same layout worked out here from the
 * presets (defaults, the scenario's settings, the step's), with vl_estimate's total. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/catalog.h"
#include "helpers.h"
#include "tui/explorer.h"
#include "tui/lesson-view.h"

static void test_lang(void **state)
{
    (void)state;
    assert_int_equal(lesson_lang(NULL, NULL, NULL, NULL, NULL), VL_LANG_EN);
    assert_int_equal(lesson_lang(NULL, NULL, NULL, NULL, "zh_CN.UTF-8"), VL_LANG_ZH);
    assert_int_equal(lesson_lang(NULL, NULL, NULL, "zh_TW.UTF-8", "en_US.UTF-8"), VL_LANG_ZH);
    /* LC_ALL first */
    assert_int_equal(lesson_lang(NULL, NULL, "C.UTF-8", "zh_CN.UTF-8", NULL), VL_LANG_EN);
    assert_int_equal(lesson_lang(NULL, NULL, "", "", "zh_CN"), VL_LANG_ZH); /* empty is unset */
    assert_int_equal(lesson_lang("en", NULL, NULL, NULL, "zh_CN.UTF-8"), VL_LANG_EN); /* --lang */
    assert_int_equal(lesson_lang("zh", NULL, "C", NULL, NULL), VL_LANG_ZH);
    /* GNU's LANGUAGE before the POSIX variables; its first entry decides */
    assert_int_equal(lesson_lang(NULL, "zh_CN:en", "C.UTF-8", NULL, NULL), VL_LANG_ZH);
    assert_int_equal(lesson_lang(NULL, "en:zh_CN", NULL, NULL, "zh_CN.UTF-8"), VL_LANG_EN);
    assert_int_equal(lesson_lang("en", "zh_CN", NULL, NULL, NULL), VL_LANG_EN); /* --lang */
}

/* The step's settings as `vramlab estimate --preset SCENARIO FLAGS` lays them out. */
static void expected(const vl_lesson_step *st, vl_settings *s, vl_model *m, const vl_gpu **gpu)
{
    const vl_scenario *sc = st->scenario[0] ? vl_catalog_scenario(&cat, st->scenario) : NULL;
    vl_settings_default(s);
    if (sc)
        vl_settings_apply(s, &sc->settings);
    vl_settings_apply(s, &st->state.settings);
    const vl_scenario *with_model = sc ? sc : &st->state;
    if (with_model->params)
        vl_model_from_params(m, with_model->params);
    else
        *m = *vl_catalog_model(&cat, with_model->model);
    const char *g = st->state.gpu[0] ? st->state.gpu : sc && sc->gpu[0] ? sc->gpu : NULL;
    *gpu = g ? vl_catalog_gpu(&cat, g) : NULL;
}

static void test_steps(void **state)
{
    (void)state;
    static explorer e, fresh;
    vl_settings s;
    vl_settings_default(&s);
    explorer_init(&e, &cat, vl_catalog_model(&cat, "gpt2"), 0, &s);
    lesson_view v = {vl_catalog_lesson(&cat, "mixed-precision"), 0, VL_LANG_ZH};
    assert_non_null(v.lesson);
    char why[256];
    for (size_t k = v.lesson->n_steps; k-- > 0;) { /* backwards: nothing of the step after */
        const vl_lesson_step *st = &v.lesson->steps[k];
        assert_null(lesson_go(&v, &e, k, why, sizeof why));
        assert_int_equal(v.step, k);
        assert_string_equal(lesson_title(&v), st->title[VL_LANG_ZH]);
        vl_settings want;
        vl_model m;
        const vl_gpu *g;
        expected(st, &want, &m, &g);
        vl_settings got = explorer_settings(&e);
        vl_breakdown b;
        assert_null(vl_estimate(&m, &want, &b));
        assert_int_equal(e.b.total, b.total);
        assert_int_equal(got.mode, want.mode);
        assert_int_equal(got.precision, want.precision);
        assert_int_equal(got.batch, want.batch);
        assert_int_equal(got.zero, want.zero);
        assert_string_equal(e.model.name, m.name);
        if (g)
            assert_string_equal(explorer_gpu(&e)->name, g->name);
        if (st->slider[0] && vl_setting_by_key(st->slider) >= 0)
            assert_int_equal(e.selected, vl_setting_by_key(st->slider));
        /* the same step from a fresh explorer: the state does not depend on the way there */
        lesson_view w = v;
        explorer_init(&fresh, &cat, vl_catalog_model(&cat, "llama-2-7b"), e.gpu, &s);
        assert_null(lesson_go(&w, &fresh, k, why, sizeof why));
        assert_memory_equal(&fresh.s, &e.s, sizeof e.s);
        assert_int_equal(fresh.b.total, e.b.total);
    }
    e.b.total = 1; /* a step that does not exist leaves the state alone */
    assert_non_null(lesson_go(&v, &e, v.lesson->n_steps, why, sizeof why));
    assert_string_equal(why, "the lesson has 10 steps");
    assert_int_equal(e.b.total, 1);
    assert_int_equal(v.step, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lang),
        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
