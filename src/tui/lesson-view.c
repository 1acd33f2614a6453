/* lesson-view.c: the explorer's lesson, free of curses (lesson-view.h). */
#include "lesson-view.h"

#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

vl_lang lesson_lang(const char *flag, const char *language, const char *lc_all,
                    const char *lc_messages, const char *lang)
{
    const char *locale = flag;
    const char *const order[] = {language, lc_all, lc_messages, lang};
    for (size_t i = 0; !locale && i < sizeof order / sizeof order[0]; i++)
        if (order[i] && *order[i])
            locale = order[i];
    return locale && strncmp(locale, "zh", 2) == 0 ? VL_LANG_ZH : VL_LANG_EN;
}

/* The model of a state: a free count, or a model preset. */
static const char *model_of(const vl_catalog *cat, const vl_scenario *sc, vl_model *m)
{
    if (sc->params) {
        vl_model_from_params(m, sc->params);
        return NULL;
    }
    const vl_model *found = vl_catalog_model(cat, sc->model);
    if (!found)
        return _("its model is not in the catalog");
    *m = *found;
    return NULL;
}

/* A scenario's framework name into its settings, as options_resolve does for --framework. */
static const char *take_framework(const vl_catalog *cat, vl_scenario *sc)
{
    if (!sc->framework[0])
        return NULL;
    const vl_framework *f = vl_catalog_framework(cat, sc->framework);
    if (!f)
        return _("its framework is not in the catalog");
    sc->settings.values.framework = f;
    vl_patch_mark(&sc->settings, VL_SET_FRAMEWORK);
    return NULL;
}

/* The slider a step selects: a setting by its key, params or gpu; the parameters when none
 * (or one the mode does not show). */
static slider_id slider_of(const explorer *e, const char *key)
{
    slider_id want = strcmp(key, "params") == 0 ? SL_PARAMS
                     : strcmp(key, "gpu") == 0  ? SL_GPU
                                                : vl_setting_by_key(key);
    slider_id shown[EX_MAX_SLIDERS];
    int n = explorer_sliders(e, shown);
    for (int i = 0; i < n; i++)
        if (shown[i] == want)
            return want;
    return SL_PARAMS;
}

const char *lesson_go(lesson_view *v, explorer *e, size_t step, char *why, size_t len)
{
    static explorer next; /* large: one step at a time */
    const vl_lesson *l = v->lesson;
    if (!l || step >= l->n_steps) {
        snprintf(why, len, _("the lesson has %zu steps"), l ? l->n_steps : 0);
        return why;
    }
    const vl_lesson_step *st = &l->steps[step];
    vl_scenario base, own = st->state;
    const char *bad = NULL;
    vl_model m;
    if (st->scenario[0]) {
        const vl_scenario *sc = vl_catalog_scenario(e->cat, st->scenario);
        if (!sc) {
            snprintf(why, len, _("step %zu: no scenario '%s'"), step + 1, st->scenario);
            return why;
        }
        base = *sc;
        memcpy(own.model, base.model, sizeof own.model);
        own.params = base.params;
        bad = take_framework(e->cat, &base);
    }
    bad = bad ? bad : model_of(e->cat, &own, &m);
    bad = bad ? bad : take_framework(e->cat, &own);
    if (bad) {
        snprintf(why, len, _("step %zu: %s"), step + 1, bad);
        return why;
    }
    vl_settings defaults;
    vl_settings_default(&defaults);
    explorer_init(&next, e->cat, &m, e->gpu, &defaults);
    next.overhead_given = vl_set_has(own.settings.given, VL_SET_OVERHEAD) || /* as estimate's */
                          (st->scenario[0] && vl_set_has(base.settings.given, VL_SET_OVERHEAD));
    if ((st->scenario[0] && (bad = explorer_load_scenario(&next, &base))) ||
        (bad = explorer_load_scenario(&next, &own))) {
        snprintf(why, len, _("step %zu: %s"), step + 1, bad);
        return why;
    }
    next.selected = slider_of(&next, st->slider);
    explorer_recompute(&next);
    *e = next;
    v->step = step;
    return NULL;
}

const vl_lesson_step *lesson_step(const lesson_view *v)
{
    return &v->lesson->steps[v->step];
}

const char *lesson_title(const lesson_view *v)
{
    return lesson_step(v)->title[v->lang];
}

const char *lesson_text(const lesson_view *v)
{
    return lesson_step(v)->text[v->lang];
}

const char *lesson_question(const lesson_view *v)
{
    return lesson_step(v)->question[v->lang];
}
