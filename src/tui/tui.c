/* tui.c: the explorer's loop (after nvtop/htop): one loop owns time; key handlers (keys.h)
 * return flags and never draw; the frame is redrawn once per loop when something changed. */
#include "tui.h"

#include <ctype.h>
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "core/i18n.h"
#include "core/names.h"
#include "export.h"
#include "keys.h"
#include "panel.h"
#include "terminal.h"

/* ---- key handling ------------------------------------------------------------------- */

void ui_say(ui *u, bool bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->message, sizeof u->message, fmt, ap);
    va_end(ap);
    u->message_bad = bad;
}

static bool matches(const char *filter, const char *name, const char *display)
{
    if (!*filter)
        return true;
    char f[128], h[320];
    size_t i;
    for (i = 0; filter[i] && i + 1 < sizeof f; i++)
        f[i] = (char)tolower((unsigned char)filter[i]);
    f[i] = '\0';
    snprintf(h, sizeof h, "%s %s", name, display);
    for (i = 0; h[i]; i++)
        h[i] = (char)tolower((unsigned char)h[i]);
    return strstr(h, f) != NULL;
}

/* Picker entry i: a GPU, or a model and then the scenarios after the models. */
static void pick_names(const ui *u, size_t i, const char **name, const char **display)
{
    const vl_catalog *c = u->cat;
    if (u->mode == MODE_PICK_GPU) {
        *name = c->gpus[i].name;
        *display = c->gpus[i].display;
    } else if (i < c->n_models) {
        *name = c->models[i].name;
        *display = c->models[i].display;
    } else {
        *name = c->scenarios[i - c->n_models].name;
        *display = c->scenarios[i - c->n_models].display;
    }
}

/* Picker entry i's size: a model's parameter count, the memory a run can use of a GPU; the
 * scenarios after the models. */
static uint64_t pick_size(const ui *u, size_t i)
{
    const vl_catalog *c = u->cat;
    if (u->mode == MODE_PICK_GPU)
        return vl_gpu_capacity(&c->gpus[i]);
    if (i >= c->n_models)
        return UINT64_MAX;
    vl_params p;
    vl_count_params(&c->models[i].arch, &p);
    return vl_model_params(&c->models[i], &p);
}

void ui_filter(ui *u)
{
    bool models = u->mode == MODE_PICK_MODEL;
    size_t n = models ? u->cat->n_models + u->cat->n_scenarios : u->cat->n_gpus;
    uint64_t size[PICK_MAX];
    u->n_pick = 0;
    for (size_t i = 0; i < n && u->n_pick < PICK_MAX; i++) {
        const char *name, *display;
        pick_names(u, i, &name, &display);
        if (!matches(u->input, name, display))
            continue;
        /* by size, smallest first (insertion: a few hundred entries at most); a tie keeps
         * the catalog's order */
        uint64_t z = pick_size(u, i);
        int k = u->n_pick++;
        for (; k > 0 && size[k - 1] > z; k--) {
            u->pick[k] = u->pick[k - 1];
            size[k] = size[k - 1];
        }
        u->pick[k] = (int)i;
        size[k] = z;
    }
    /* the entry named exactly as typed goes first, so "gpt2" Enter loads gpt2 */
    for (int k = 0; k < u->n_pick; k++) {
        const char *name, *display;
        pick_names(u, (size_t)u->pick[k], &name, &display);
        if (strcmp(name, u->input) == 0) {
            int hit = u->pick[k];
            memmove(u->pick + 1, u->pick, (size_t)k * sizeof *u->pick);
            u->pick[0] = hit;
            break;
        }
    }
    if (u->pick_sel >= u->n_pick)
        u->pick_sel = u->n_pick ? u->n_pick - 1 : 0;
    /* the GPUs: whether the run on screen fits each, judged on its own runtime */
    for (int k = 0; !models && k < u->n_pick; k++) {
        vl_fit f;
        char why[8];
        u->pick_fit[k] = u->ex.error ? -1
                         : explorer_fit_on(&u->ex, (size_t)u->pick[k], &f, why, sizeof why)
                             ? f.fits
                             : -1;
    }
}

/* Typing into u->input: printable characters, backspace, Ctrl-U (all) and Ctrl-W (the last
 * word), as in a shell; true when it changed.  A change clears the last refusal. */
static bool type_key(ui *u, int key)
{
    size_t n = strlen(u->input), to = n;
    if ((key == KEY_BACKSPACE || key == 127 || key == 8) && n > 0)
        to = n - 1;
    else if (key == KEY_CTRL('U'))
        to = 0;
    else if (key == KEY_CTRL('W')) {
        while (to > 0 && u->input[to - 1] == ' ')
            to--;
        while (to > 0 && u->input[to - 1] != ' ')
            to--;
    }
    if (to < n) {
        u->input[to] = '\0';
        u->message[0] = '\0';
        return true;
    }
    if (key >= 32 && key < 127 && n + 1 < sizeof u->input) {
        u->input[n] = (char)key;
        u->input[n + 1] = '\0';
        u->message[0] = '\0';
        return true;
    }
    return false;
}

#define ESC 27

static void save(ui *u, bool overwrite)
{
    char dir[2048], path[4096], err[4352];
    if (!user_preset_dir(dir, sizeof dir)) {
        ui_say(u, true, _(" cannot save: neither XDG_CONFIG_HOME nor HOME is set"));
        u->mode = MODE_NORMAL;
        return;
    }
    switch (scenario_save(&u->ex, dir, u->input, overwrite, path, sizeof path, err, sizeof err)) {
    case SAVE_OK: { /* in the picker at once, as a restart would list it */
        vl_kind kind;
        size_t index;
        char why[VL_ERR_LEN];
        if (vl_catalog_add_file(u->cat, path, &kind, &index, why))
            ui_say(u, false, _(" saved scenario %s"), path);
        else
            ui_say(u, true, _(" saved scenario %s, but it does not load: %s"), path, why);
        u->mode = MODE_NORMAL;
        break;
    }
    case SAVE_EXISTS:
        snprintf(u->pending, sizeof u->pending, "%s", path);
        u->mode = MODE_CONFIRM_OVERWRITE;
        break;
    case SAVE_FAILED: /* back to the name, the reason beside it: fix it or Esc */
        ui_say(u, true, " %s", err);
        u->mode = MODE_SAVE_NAME;
        break;
    }
}

int ui_export(ui *u, int arg)
{
    (void)arg;
    char md[2048], svg[2048], err[2560];
    if (export_whatif(&u->ex, ".", md, svg, sizeof md, err, sizeof err))
        ui_say(u, false, _(" exported %s and %s"), md + 2, svg + 2);
    else
        ui_say(u, true, _(" export failed: %s"), err);
    return UI_REDRAW;
}

int ui_begin_edit(ui *u, int arg)
{
    (void)arg;
    if (!ui_current(u)->edit)
        return UI_HANDLED;
    u->input[0] = '\0';
    u->mode = MODE_EDIT;
    return UI_REDRAW;
}

int ui_open_picker(ui *u, int picker)
{
    u->mode = (ui_mode)picker;
    u->input[0] = '\0';
    u->pick_sel = 0;
    ui_filter(u);
    /* at the entry in use: the GPU, the scenario loaded, or the model */
    const vl_catalog *c = u->cat;
    for (int k = 0; k < u->n_pick; k++) {
        size_t i = (size_t)u->pick[k];
        bool here = u->mode == MODE_PICK_GPU ? i == u->ex.gpu
                    : i >= c->n_models       ? strcmp(c->scenarios[i - c->n_models].name,
                                                      u->scenario.name) == 0
                                             : !u->scenario.name[0] && !u->ex.detached &&
                                       strcmp(c->models[i].name, u->ex.model.name) == 0;
        if (here)
            u->pick_sel = k;
    }
    return UI_REDRAW;
}

int ui_begin_save(ui *u, int arg)
{
    (void)arg;
    scenario_default_name(&u->ex, u->input, sizeof u->input);
    u->mode = MODE_SAVE_NAME;
    return UI_REDRAW;
}

/* The keys of every panel first, then the panel's own (keys.h). */
static const binding *binding_of(const ui *u, int key, int *arg)
{
    const panel *p = ui_current(u);
    const binding *b = u->lesson.lesson ? keys_find(keys_lesson, keys_n_lesson, key, arg) : NULL;
    b = b ? b : keys_find(keys_global, keys_n_global, key, arg);
    return b ? b : keys_find(p->keys, p->n_keys, key, arg);
}

static int key_normal(ui *u, int key)
{
    int arg;
    const binding *b = binding_of(u, key, &arg);
    int flags = b ? b->action(u, arg) : UI_HANDLED;
    if (u->ex.note[0]) { /* what a move changed besides, or why it stopped */
        ui_say(u, false, " %s", u->ex.note);
        u->ex.note[0] = '\0';
        flags |= UI_REDRAW;
    }
    return flags;
}

/* ---- the prompts: their keys, and every other key types ---- */

static int prompt_close(ui *u, int arg)
{
    (void)arg;
    u->mode = MODE_NORMAL;
    u->message[0] = '\0';
    return UI_REDRAW;
}

static int edit_apply(ui *u, int arg)
{
    (void)arg;
    char why[512];
    if (ui_current(u)->edit(u, u->input, why, sizeof why)) {
        prompt_close(u, 0);
        if (u->ex.note[0]) { /* what the value changed besides, or how it was rounded */
            ui_say(u, false, " %s", u->ex.note);
            u->ex.note[0] = '\0';
        }
        return UI_REDRAW;
    }
    ui_say(u, true, " %s", why); /* stay: fix the value or Esc */
    return UI_REDRAW;
}

static int save_apply(ui *u, int arg)
{
    (void)arg;
    save(u, false);
    return UI_REDRAW;
}

/* dir: 1 an entry, PICK_PAGE a page, PICK_END to the end; negative: up */
#define PICK_PAGE 2
#define PICK_END 3
static int pick_move(ui *u, int dir)
{
    int step = dir == PICK_PAGE || dir == -PICK_PAGE ? (u->lines - 9 > 1 ? u->lines - 10 : 1)
               : dir == PICK_END || dir == -PICK_END ? u->n_pick
                                                      : 1;
    int to = u->pick_sel + (dir < 0 ? -step : step);
    u->pick_sel = to < 0 ? 0 : to >= u->n_pick ? (u->n_pick ? u->n_pick - 1 : 0) : to;
    return UI_REDRAW;
}

static int pick_load(ui *u, int arg)
{
    (void)arg;
    bool models = u->mode == MODE_PICK_MODEL;
    u->mode = MODE_NORMAL;
    if (u->n_pick == 0)
        return UI_REDRAW;
    size_t k = (size_t)u->pick[u->pick_sel];
    const char *why;
    if (models && k < u->cat->n_models) {
        explorer_load_model(&u->ex, &u->cat->models[k]);
        u->scenario.name[0] = '\0';
        ui_say(u, false, _(" loaded %s"), u->cat->models[k].name);
    } else if (models) {
        const vl_scenario *sc = &u->cat->scenarios[k - u->cat->n_models];
        if ((why = explorer_load_scenario(&u->ex, sc)))
            ui_say(u, true, " %s: %s", sc->name, why);
        else {
            ui_say(u, false, _(" loaded scenario %s: %s"), sc->name, sc->display);
            u->scenario = *sc;
        }
    } else if ((why = explorer_set(&u->ex, SL_GPU, u->cat->gpus[k].name))) {
        ui_say(u, true, " %s", why);
    } else { /* as the GPU slider: what else it says (a typed capacity staying) */
        ui_say(u, false, _(" GPU: %s%s%s"), u->cat->gpus[k].display, u->ex.note[0] ? "; " : "",
               u->ex.note);
        u->ex.note[0] = '\0';
    }
    return UI_REDRAW;
}

static void pick_typed(ui *u)
{
    u->pick_sel = 0;
    ui_filter(u);
}

static const binding edit_keys[] = {
    {.keys = "Enter", .brief = N_("apply"), .help = N_("apply the value typed"),
     .action = edit_apply, .on = {KEYS_ENTER}},
    {.keys = "Esc", .brief = N_("cancel"), .help = N_("leave the value as it was"),
     .action = prompt_close, .on = {{ESC}}},
};
static const binding save_keys[] = {
    {.keys = "Enter", .brief = N_("save"), .help = N_("save under the name typed"),
     .action = save_apply, .on = {KEYS_ENTER}},
    {.keys = "Esc", .brief = N_("cancel"), .help = N_("save nothing"), .action = prompt_close,
     .on = {{ESC}}},
};
static const binding picker_keys[] = {
    {.keys = "Enter", .brief = N_("load"), .help = N_("load the entry selected"),
     .action = pick_load, .on = {KEYS_ENTER}},
    {.keys = "Esc", .brief = N_("close"), .help = N_("load nothing"), .action = prompt_close,
     .on = {{ESC}}},
    {.keys = "Up/Down", .brief = N_("move"), .help = N_("select an entry"), .action = pick_move,
     .on = {{KEY_UP, -1}, {KEY_DOWN, 1}}},
    {.keys = "PgUp/PgDn", .brief = N_("page"), .help = N_("a page up or down"), .action = pick_move,
     .on = {{KEY_PPAGE, -PICK_PAGE}, {KEY_NPAGE, PICK_PAGE}}},
    {.keys = "Home/End", .brief = N_("ends"), .help = N_("the first or last entry"),
     .action = pick_move, .on = {{KEY_HOME, -PICK_END}, {KEY_END, PICK_END}}},
};

static int lesson_pick(ui *u, int arg)
{
    (void)arg;
    u->mode = MODE_NORMAL;
    ui_lesson_go(u, (size_t)u->pick_sel);
    return UI_REDRAW;
}

static const binding lesson_list_keys[] = {
    {.keys = "Enter", .brief = N_("go"), .help = N_("go to the step selected"),
     .action = lesson_pick, .on = {KEYS_ENTER}},
    {.keys = "Esc", .brief = N_("close"), .help = N_("stay at this step"), .action = prompt_close,
     .on = {{ESC}, {'L'}}},
    {.keys = "Up/Down", .brief = N_("move"), .help = N_("select a step"), .action = pick_move,
     .on = {{KEY_UP, -1}, {KEY_DOWN, 1}}},
    {.keys = "Home/End", .brief = N_("ends"), .help = N_("the first or last step"),
     .action = pick_move, .on = {{KEY_HOME, -PICK_END}, {KEY_END, PICK_END}}},
};

typedef struct prompt {
    const binding *keys;
    size_t n_keys;
    void (*typed)(ui *u); /* optional: after the text changed */
} prompt;

#define PROMPT_KEYS(table) .keys = (table), .n_keys = sizeof(table) / sizeof((table)[0])
static const prompt prompts[N_MODES] = { /* the other modes are no prompts */
    [MODE_EDIT] = {PROMPT_KEYS(edit_keys)},
    [MODE_SAVE_NAME] = {PROMPT_KEYS(save_keys)},
    [MODE_PICK_MODEL] = {PROMPT_KEYS(picker_keys), .typed = pick_typed},
    [MODE_PICK_GPU] = {PROMPT_KEYS(picker_keys), .typed = pick_typed},
    [MODE_LESSON_LIST] = {PROMPT_KEYS(lesson_list_keys)},
};

const binding *ui_prompt_keys(const ui *u, size_t *n)
{
    *n = prompts[u->mode].n_keys;
    return prompts[u->mode].keys;
}

static int key_prompt(ui *u, int key, const prompt *p)
{
    int arg;
    const binding *b = keys_find(p->keys, p->n_keys, key, &arg);
    if (b)
        return b->action(u, arg);
    if (type_key(u, key) && p->typed)
        p->typed(u);
    return UI_REDRAW;
}

/* Whether a key changed what the explorer computes (the settings, the model, the GPU). */
static bool changed(const explorer *a, const explorer *b)
{
    return memcmp(&a->s, &b->s, sizeof a->s) != 0 || a->gpu != b->gpu ||
           a->overhead_given != b->overhead_given ||
           a->detached != b->detached || a->model.free_params != b->model.free_params ||
           strcmp(a->model.name, b->model.name) != 0;
}

static void remember(ui *u, const explorer *before)
{
    if (u->n_undo == UI_UNDO) { /* the oldest goes */
        memmove(u->undo, u->undo + 1, (UI_UNDO - 1) * sizeof *u->undo);
        u->n_undo--;
    }
    u->undo[u->n_undo++] = *before;
}

int ui_undo(ui *u, int arg)
{
    (void)arg;
    if (u->n_undo == 0) {
        ui_say(u, true, _(" nothing to undo"));
        return UI_REDRAW;
    }
    u->ex = u->undo[--u->n_undo];
    ui_say(u, false, _(" undone (%d more to undo)"), u->n_undo);
    return UI_REDRAW;
}

int ui_reset(ui *u, int arg)
{
    (void)arg;
    if (!changed(&u->ex, &u->origin)) {
        ui_say(u, false, _(" already as loaded"));
        return UI_REDRAW;
    }
    remember(u, &u->ex);
    slider_id sel = u->ex.selected;
    u->ex = u->origin;
    u->ex.selected = sel;
    ui_say(u, false, _(" reset to %s as loaded (u undoes it)"),
           u->scenario.name[0] ? u->scenario.name : u->ex.model.name);
    return UI_REDRAW;
}

/* ---- the lesson ---- */

#define PANEL_NAME(name) #name,
static const char *const panel_names[N_PANELS] = {UI_PANELS(PANEL_NAME)};
_Static_assert((int)N_PANELS == (int)VL_N_LESSON_PANELS, "a lesson names every panel (preset.h)");

bool ui_lesson_go(ui *u, size_t step)
{
    char why[320];
    if (lesson_go(&u->lesson, &u->ex, step, why, sizeof why)) {
        ui_say(u, true, " %s", why);
        return false;
    }
    const vl_lesson_step *st = lesson_step(&u->lesson);
    int p = vl_lookup(panel_names, N_PANELS, vl_lesson_panel_names[st->panel]);
    const panel *pn = ui_panels[p];
    if (pn->enter && !pn->enter(u, why, sizeof why))
        ui_say(u, true, " %s", why);
    else
        u->panel = (size_t)p;
    u->origin = u->ex; /* r: back to the step as it began */
    memset(&u->scenario, 0, sizeof u->scenario);
    if (st->scenario[0])
        u->scenario = *vl_catalog_scenario(u->cat, st->scenario);
    return true;
}

int ui_lesson_step(ui *u, int arg)
{
    size_t at = u->lesson.step, n = u->lesson.lesson->n_steps;
    if ((arg < 0 && at == 0) || (arg > 0 && at + 1 == n)) {
        ui_say(u, false, arg < 0 ? _(" the first step") : _(" the last step: the lesson is over"));
        return UI_REDRAW;
    }
    ui_lesson_go(u, arg < 0 ? at - 1 : at + 1);
    return UI_REDRAW;
}

int ui_lesson_list(ui *u, int arg)
{
    (void)arg;
    u->mode = MODE_LESSON_LIST;
    u->n_pick = (int)u->lesson.lesson->n_steps;
    u->pick_sel = (int)u->lesson.step;
    return UI_REDRAW;
}

static int key_dispatch(ui *u, int key);

/* Every change of the explorer's state can be undone: the state before goes on the stack;
 * a load becomes the state `r` returns to. */
int ui_key(ui *u, int key)
{
    static explorer before; /* large: one key at a time */
    before = u->ex;
    int undo = u->n_undo;
    bool was_loaded = u->mode == MODE_PICK_MODEL;
    int flags = key_dispatch(u, key);
    if (u->n_undo == undo && changed(&before, &u->ex))
        remember(u, &before);
    if (was_loaded && u->mode == MODE_NORMAL && changed(&before, &u->ex))
        u->origin = u->ex;
    return flags;
}

static int key_dispatch(ui *u, int key)
{
    if (u->lay.too_small) { /* nothing to see: only quit and redraw */
        int arg;
        const binding *b = binding_of(u, key, &arg);
        return b && b->anywhere ? b->action(u, arg) : UI_HANDLED;
    }
    if (u->mode == MODE_NORMAL && key != ERR)
        u->message[0] = '\0';
    if (prompts[u->mode].keys)
        return key_prompt(u, key, &prompts[u->mode]);
    switch (u->mode) {
    case MODE_NORMAL: return key_normal(u, key);
    case MODE_HELP: u->mode = MODE_NORMAL; return UI_REDRAW;
    case MODE_CONFIRM_OVERWRITE:
        if (key == 'y' || key == 'Y') {
            save(u, true);
        } else {
            ui_say(u, false, _(" not saved: %s is unchanged"), u->pending);
            u->mode = MODE_NORMAL;
        }
        return UI_REDRAW;
    default: return UI_HANDLED; /* the prompts, above */
    }
}

/* Mouse events become the keys they stand for: one input path (after htop).  A click on a
 * tab is its panel's key; in a picker the wheel moves and a click loads the entry under the
 * pointer; the rest is the panel's. */
static int mouse_key(ui *u)
{
    MEVENT ev;
    const panel *p = ui_current(u);
    if (getmouse(&ev) != OK || u->lay.too_small)
        return ERR;
    bool click = ev.bstate & BUTTON1_PRESSED;
    int tab = draw_tab_at(u, ev.y, ev.x);
    if (u->mode == MODE_NORMAL && click && tab >= 0)
        return '1' + tab;
    if (u->mode == MODE_PICK_MODEL || u->mode == MODE_PICK_GPU) {
        int wheel = keys_wheel(&ev), i = draw_pick_at(u, ev.y, ev.x);
        if (wheel != ERR)
            return wheel == KEY_RIGHT ? KEY_UP : KEY_DOWN;
        if (!click || i < 0)
            return ERR;
        u->pick_sel = i;
        return '\n';
    }
    if (u->mode != MODE_NORMAL || !p->mouse)
        return ERR;
    return p->mouse(u, &ev);
}

/* ---- the loop ----------------------------------------------------------------------- */

static bool utf8_ctype(void)
{
    return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

static bool c_locale(int category)
{
    const char *name = setlocale(category, NULL);
    return !name || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

/* The explorer's language, for its own text (po/) and the lesson's alike: lesson_lang over
 * --lang and the locale, where LANGUAGE counts only under a messages locale other than C, as
 * in glibc's gettext.  Chinese needs a UTF-8 LC_CTYPE to be drawn, and a messages locale
 * other than C for gettext to read LANGUAGE: the C locale becomes C.UTF-8 where the system
 * has it, else the explorer is English and says why.  Then LANGUAGE names the one catalogue,
 * over the locale's.  The numbers are the C locale's in every language. */
static vl_lang choose_language(ui *u, const char *flag)
{
    static const char *const catalogue[VL_N_LANGS] = {"en", "zh_CN"};
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    const char *language = c_locale(LC_MESSAGES) ? NULL : getenv("LANGUAGE"); /* as glibc */
    vl_lang lang = lesson_lang(flag, language, getenv("LC_ALL"), getenv("LC_MESSAGES"),
                               getenv("LANG"));
    if (lang != VL_LANG_EN && !utf8_ctype() && c_locale(LC_CTYPE))
        setlocale(LC_CTYPE, "C.UTF-8");
    if (lang != VL_LANG_EN && !utf8_ctype()) {
        lang = VL_LANG_EN;
        ui_say(u, true, " English: the Chinese text needs a UTF-8 locale (LANG=C.UTF-8)");
    }
    if (lang != VL_LANG_EN && c_locale(LC_MESSAGES))
        setlocale(LC_MESSAGES, "C.UTF-8");
    setenv("LANGUAGE", catalogue[lang], 1);
    return lang;
}

int tui_run(run_opts *o)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return usage_error("the explorer needs a terminal; vramlab estimate prints the same "
                           "numbers as text");
    static ui u; /* large; one per process */
    vl_catalog cat;
    vl_model model;
    const vl_gpu *gpu;
    if (o->solving)
        return usage_error("--solve applies to vramlab estimate");
    vl_catalog_init(&cat);
    char err[VL_ERR_LEN];
    int rc = options_resolve(o, &cat, &model, &gpu);
    if (rc == EXIT_OK && !vl_catalog_load(&cat, err)) /* the pickers list every preset */
        rc = usage_error("%s", err);
    if (rc != EXIT_OK) { /* options_resolve refused settings the model does not take */
        vl_catalog_free(&cat);
        return rc;
    }

    memset(&u, 0, sizeof u);
    u.lesson.lang = choose_language(&u, o->lang);
    u.cat = &cat;
    u.theme = o->theme;
    u.units = o->units;
    explorer_init(&u.ex, &cat, &model, (size_t)(gpu - cat.gpus), &o->s);
    u.ex.overhead_given = o->overhead_given;
    explorer_recompute(&u.ex);
    u.origin = u.ex;
    if (o->lesson) {
        u.lesson.lesson = vl_catalog_lesson(&cat, o->lesson);
        if (!u.lesson.lesson) {
            char hint[96];
            rc = usage_error("--lesson: no lesson named '%s' (vramlab presets lists them)%s",
                             o->lesson, vl_catalog_hint(&cat, VL_KIND_LESSON, o->lesson, hint,
                                                        sizeof hint));
        } else if (o->lesson_step > u.lesson.lesson->n_steps) {
            rc = usage_error("--lesson: %s has %zu steps, not %zu", o->lesson,
                             u.lesson.lesson->n_steps, o->lesson_step);
        } else if (!ui_lesson_go(&u, o->lesson_step - 1)) {
            rc = usage_error("--lesson: %s:%s", o->lesson, u.message);
        }
        if (rc != EXIT_OK) {
            vl_catalog_free(&cat);
            return rc;
        }
    }
    if (cat.n_warnings) /* bad preset files: said on screen; the explorer runs on */
        ui_say(&u, true, P_(" %zu preset file skipped: %s", " %zu preset files skipped: %s",
                            cat.n_warnings), cat.n_warnings, cat.warnings[0]);

    const char *nc = getenv("NO_COLOR");
    u.g = theme_glyphs(!o->ascii && utf8_ctype());

    char term_why[320];
    SCREEN *scr = terminal_open(term_why, sizeof term_why);
    if (!scr) {
        vl_catalog_free(&cat);
        return usage_error("%s; vramlab estimate prints the same numbers as text", term_why);
    }
    u.color = !o->no_color && !(nc && *nc) && has_colors();
    theme_init(u.color, u.theme);
    u.mouse = !o->no_mouse;
    if (u.mouse)
        mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);

    bool dirty = true;
    while (!terminal_signal()) {
        if (dirty) {
            u.lines = LINES;
            u.cols = COLS;
            u.lay = layout_compute(LINES, COLS, explorer_longest(), draw_lesson_rows(&u, COLS));
            draw_frame(&u);
            refresh();
            dirty = false;
        }
        int key = getch();
        if (key == ERR) { /* no key: the shown panel's work, if it has any (panel.h) */
            int (*tick)(ui *) = ui_current(&u)->tick;
            bool busy = tick && (tick(&u) & UI_REDRAW);
            timeout(busy ? UI_TICK_MS : TERMINAL_WAIT_MS);
            dirty |= busy;
            continue;
        }
        if (key == KEY_RESIZE) {
            dirty = true;
            continue;
        }
        if (key == KEY_MOUSE && (key = mouse_key(&u)) == ERR)
            continue;
        if (key == KEY_REFRESH) {
            dirty = true;
            continue;
        }
        int flags = ui_key(&u, key);
        if (flags & UI_QUIT)
            break;
        if (flags & UI_RESIZE) {
            theme_init(u.color, u.theme);
            clearok(curscr, TRUE);
        }
        dirty |= (flags & (UI_REDRAW | UI_RESIZE)) != 0;
    }
    terminal_close(scr);
    lab_free(&u.lab);
    timeline_view_free(&u.tl);
    train_view_free(&u.train);
    vl_catalog_free(&cat);
    return terminal_signal() ? 128 + terminal_signal() : EXIT_OK;
}
