/* draw.c: one full frame of the explorer from its state: the title and the tabs, the current
 * panel (panel.h), the status line with the footer, and the overlays (help, pickers).
 * Nothing here changes state. */
#include <curses.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/i18n.h"
#include "core/units.h"
#include "keys.h"
#include "panel.h"
#include "report/report.h"

/* How many bytes of the UTF-8 (or ASCII) string s fit in `cols` screen columns; the columns
 * they take in *used. */
static int fit(const char *s, int cols, int *used)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int bytes = 0, start = cols;
    while (s[bytes] && cols > 0) {
        wchar_t wc;
        size_t n = mbrtowc(&wc, s + bytes, MB_CUR_MAX, &st);
        if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
            break;
        int w = wcwidth(wc);
        if (w > cols)
            break;
        cols -= w > 0 ? w : 0;
        bytes += (int)n;
    }
    if (used)
        *used = start - cols;
    return bytes;
}

static int fit_bytes(const char *s, int cols)
{
    return fit(s, cols, NULL);
}

int draw_width(const char *s)
{
    int used;
    fit(s, INT_MAX, &used);
    return used;
}

char *draw_pad(char *buf, size_t len, const char *s, int cols)
{
    int w = cols < 0 ? -cols : cols, used, n = fit(s, w, &used);
    snprintf(buf, len, "%*s%.*s%*s", cols > 0 ? w - used : 0, "", n, s, cols < 0 ? w - used : 0,
             "");
    return buf;
}

/* The frame's ellipsis (its glyph table's), for whatever is cut. */
static const char *ellipsis = "...";

static void put_text(int y, int x, int w, ui_color c, const char *s)
{
    attrset(theme_attr(c));
    mvaddnstr(y, x, s, fit_bytes(s, w));
    attrset(theme_attr(C_NORMAL));
}

/* s in w columns, ending in the ellipsis where it had to be cut. */
void draw_text(int y, int x, int w, ui_color c, const char *s)
{
    if (x + w > COLS) /* curses would wrap the rest onto the next row */
        w = COLS - x;
    if (w <= 0)
        return;
    int cols, ell;
    fit(ellipsis, w, &ell);
    if (s[fit_bytes(s, w)] == '\0' || w <= ell) {
        put_text(y, x, w, c, s);
        return;
    }
    int n = fit(s, w - ell, &cols);
    attrset(theme_attr(c));
    mvaddnstr(y, x, s, n);
    mvaddstr(y, x + cols, ellipsis);
    attrset(theme_attr(C_NORMAL));
}

void draw_fill(int y, int x, int w, ui_color c)
{
    attrset(theme_attr(c));
    mvhline(y, x, ' ', w);
    attrset(theme_attr(C_NORMAL));
}

/* The title keeps at least this many columns: where the tabs " 1 Memory " would take more,
 * the panels not shown are their digits alone (" 2"), the one shown keeps its name. */
#define TITLE_MIN_W 56

static bool tabs_compact(const ui *u)
{
    int full = 0;
    for (size_t q = 0; q < N_PANELS; q++)
        full += draw_width(_(ui_panels[q]->name)) + 4;
    return u->lay.title.w - full < TITLE_MIN_W;
}

static int tab_w(const ui *u, size_t p, bool compact)
{
    return compact && p != u->panel ? 2 : draw_width(_(ui_panels[p]->name)) + 4;
}

/* Where tab p starts: the tabs end at the title's right edge. */
static int tab_x(const ui *u, size_t p)
{
    bool compact = tabs_compact(u);
    int x = u->lay.title.x + u->lay.title.w;
    for (size_t q = N_PANELS; q-- > p;)
        x -= tab_w(u, q, compact);
    return x;
}

int draw_tab_at(const ui *u, int y, int x)
{
    if (y != u->lay.title.y)
        return -1;
    bool compact = tabs_compact(u);
    for (size_t p = 0; p < N_PANELS; p++)
        if (x >= tab_x(u, p) && x < tab_x(u, p) + tab_w(u, p, compact))
            return (int)p;
    return -1;
}

/* The title at the left, cut to leave room for the panels' tabs at the right. */
static void draw_title(const ui *u)
{
    const explorer *e = &u->ex;
    char t[512], what[256], scenario[128] = "", c[32];
    rect r = u->lay.title;
    draw_fill(r.y, r.x, r.w, C_TITLE);
    const char *mode = e->s.mode == VL_MODE_INFER ? _("inference") : _("training");
    if (e->detached)
        snprintf(what, sizeof what, _("GPT-3-like %s (shape derived) %s %s, per GPU"),
                 vl_fmt_count(e->model.free_params, c, sizeof c), u->g->sep, mode);
    else
        snprintf(what, sizeof what, _("%s (%s) %s %s, per GPU"), e->model.display, e->model.name,
                 u->g->sep, mode);
    if (u->scenario.name[0]) { /* the scenario's name leads: what the class is looking at */
        int n = snprintf(scenario, sizeof scenario, _("scenario %.40s"), u->scenario.name);
        snprintf(scenario + n, sizeof scenario - (size_t)n, " %s", u->g->sep);
    }
    snprintf(t, sizeof t, " vramlab %s %s%s%s", u->g->sep, scenario, scenario[0] ? " " : "",
             what);
    bool compact = tabs_compact(u);
    for (size_t p = 0; p < N_PANELS; p++) {
        char tab[32];
        /* the active tab in brackets too: the cue without colour or attributes */
        const char *name = _(ui_panels[p]->name);
        if (p == u->panel)
            snprintf(tab, sizeof tab, "[%zu %s]", p + 1, name);
        else if (compact)
            snprintf(tab, sizeof tab, " %zu", p + 1);
        else
            snprintf(tab, sizeof tab, " %zu %s ", p + 1, name);
        draw_text(r.y, tab_x(u, p), draw_width(tab), p == u->panel ? C_PICKED : C_TITLE, tab);
    }
    draw_text(r.y, r.x, tab_x(u, 0) - r.x - 1, C_TITLE, t);
}

/* The bytes of s that go on a row of `avail` columns when it is word-wrapped: a cut inside
 * a word moves back to its space when one is near; a cut beside a wide character stays
 * (Chinese has no spaces); 0 when not even one character fits. */
static int wrap_row(const char *s, int avail)
{
    int n = fit_bytes(s, avail);
    bool in_word = n > 0 && s[n] && s[n] != ' ' && (unsigned char)s[n] < 0x80 &&
                   (unsigned char)s[n - 1] < 0x80;
    if (in_word) {
        int k = n;
        while (k > n / 2 && s[k] != ' ')
            k--;
        if (s[k] == ' ')
            n = k;
    }
    return n;
}

/* The rows draw_wrap takes for s in w columns. */
static int wrap_rows(const char *s, int w)
{
    int rows = 0;
    for (int indent = 0, n; *s && (n = wrap_row(s, w - indent)) > 0; indent = 3, rows++)
        for (s += n; *s == ' ';)
            s++;
    return rows;
}

int draw_wrap(int y, int last, int x, int w, ui_color c, const char *s)
{
    for (int indent = 0; *s && y <= last; indent = 3) {
        int avail = w - indent, n = wrap_row(s, avail);
        if (s[n] && y == last) { /* no row left for the rest */
            draw_text(y++, x + indent, avail, c, s);
            break;
        }
        if (n == 0)
            break;
        attrset(theme_attr(c));
        mvaddnstr(y++, x + indent, s, n);
        s += n;
        while (*s == ' ')
            s++;
    }
    attrset(theme_attr(C_NORMAL));
    return y;
}

char *ui_bytes(const ui *u, uint64_t bytes, char *buf, size_t len)
{
    double v = vl_in_units(bytes, u->units);
    const char *name = vl_units_name(u->units);
    if (v >= 1e6) { /* 7 digits: the next unit up, 2^10 (GiB) or 10^3 (GB) */
        v /= u->units == VL_UNITS_GIB ? 1024.0 : 1000.0;
        name = u->units == VL_UNITS_GIB ? "TiB" : "TB";
    }
    snprintf(buf, len, "%.2f %s", v, name);
    return buf;
}

char *ui_fit_text(const ui *u, const vl_fit *f, uint64_t batch, char *buf, size_t len)
{
    char m[32];
    ui_bytes(u, f->margin, m, sizeof m);
    const unsigned long long held = f->held, b = batch;
    if (f->by == VL_FIT_SHARE)
        snprintf(buf, len, _("the engine stops before serving, %s short"), m);
    else if (f->by == VL_FIT_KV_CACHE && f->fits)
        snprintf(buf, len,
                 P_("fits; its KV cache holds %llu sequence, spare %s",
                    "fits; its KV cache holds %llu sequences, spare %s", held), held, m);
    else if (f->by == VL_FIT_KV_CACHE)
        snprintf(buf, len,
                 P_("its KV cache holds %llu of the %llu sequence, %s short",
                    "its KV cache holds %llu of the %llu sequences, %s short", b), held, b, m);
    else
        snprintf(buf, len, f->fits ? _("fits, spare %s") : _("does not fit, over by %s"), m);
    return buf;
}

static void draw_status(const ui *u)
{
    rect r = u->lay.status;
    char line[5120], keys[120], hint[128] = "";
    size_t n;
    const binding *prompt = ui_prompt_keys(u, &n);
    if (prompt) {
        keys_hint(prompt, n, keys, sizeof keys);
        snprintf(hint, sizeof hint, "(%s)", keys);
    }
    draw_fill(r.y, r.x, r.w, C_NORMAL);
    switch (u->mode) {
    case MODE_EDIT:
    case MODE_SAVE_NAME:
        if (u->mode == MODE_EDIT)
            snprintf(line, sizeof line, " %s = %s_  %s", ui_current(u)->edit_label(u), u->input,
                     u->message[0] ? "" : hint);
        else
            snprintf(line, sizeof line, _(" save scenario as: %s_  %s"), u->input,
                     u->message[0] ? "" : hint);
        draw_text(r.y, r.x, r.w, C_KEY, line);
        /* a refusal: why, beside what was typed, while the prompt stays open */
        draw_text(r.y, r.x + draw_width(line), r.w - draw_width(line), C_BAD, u->message);
        break;
    case MODE_CONFIRM_OVERWRITE:
        snprintf(line, sizeof line, _(" %s exists: overwrite? (y/n)"), u->pending);
        draw_text(r.y, r.x, r.w, C_BAD, line);
        break;
    default:
        if (u->message[0]) {
            draw_text(r.y, r.x, r.w, u->message_bad ? C_BAD : C_OK, u->message);
        } else {
            const panel *p = ui_current(u);
            keys_footer(p->keys, p->n_keys, r.w, line, sizeof line);
            draw_text(r.y, r.x, r.w, C_DIM, line);
        }
    }
}

static void overlay_box(int y, int x, int h, int w, const char *title)
{
    attrset(theme_attr(C_OVERLAY));
    for (int i = 0; i < h; i++)
        mvhline(y + i, x, ' ', w);
    mvaddnstr(y, x + 2, title, w - 4);
}

static const char *const help_notes[] = {
    N_("GiB = 2^30 bytes, TiB = 2^40 (--units gb: GB = 10^9, TB = 10^12)."),
    N_("Every number is vramlab estimate's: the formula pane shows how each"),
    N_("one is computed."),
};
#define N_NOTES (sizeof help_notes / sizeof help_notes[0])

/* The widest key list and help line of a table. */
static void help_widths(const binding *t, size_t n, int *keys, int *help)
{
    for (size_t i = 0; i < n; i++) {
        char k[96];
        keys_list(&t[i], k, sizeof k);
        int hw = draw_width(_(t[i].help));
        *keys = (int)strlen(k) > *keys ? (int)strlen(k) : *keys;
        *help = hw > *help ? hw : *help;
    }
}

/* The rows of a table from row *y on, down to `last`. */
static void help_rows(const binding *t, size_t n, int *y, int last, int x, int keyw, int w)
{
    for (size_t i = 0; i < n && *y <= last; i++, (*y)++) {
        char k[96];
        keys_list(&t[i], k, sizeof k);
        draw_text(*y, x, keyw, C_OVERLAY, k);
        draw_text(*y, x + keyw, w - keyw, C_OVERLAY, _(t[i].help));
    }
}

/* The current panel's keys, then every panel's, from the same tables the keys run through;
 * at the bottom what may go when the screen is short. */
static void draw_help(const ui *u)
{
    const panel *p = ui_current(u);
    int keyw = 0, helpw = 0;
    help_widths(p->keys, p->n_keys, &keyw, &helpw);
    help_widths(keys_global, keys_n_global, &keyw, &helpw);
    size_t n_lesson = u->lesson.lesson ? keys_n_lesson : 0;
    help_widths(keys_lesson, n_lesson, &keyw, &helpw);
    keyw += 2;
    int textw = keyw + helpw;
    /* the glyphs, in this terminal's set: what colour and attributes also say */
    char glyph[160];
    snprintf(glyph, sizeof glyph, _("%s capacity  %s selected  (v) no effect now  [1 Tab] shown  "
                                    "%s cut"), u->g->marker, u->g->select, u->g->ellipsis);
    for (size_t i = 0; i < N_NOTES; i++)
        textw = draw_width(_(help_notes[i])) > textw ? draw_width(_(help_notes[i])) : textw;
    int n = (int)(1 + p->n_keys + 2 + keys_n_global + (n_lesson ? n_lesson + 2 : 0) + 1 + 1 +
                  N_NOTES);
    int h = n + 3 < u->lines - 2 ? n + 3 : u->lines - 2;
    int w = textw + 6 < u->cols - 4 ? textw + 6 : u->cols - 4;
    int y = (u->lines - h) / 2, x = (u->cols - w) / 2, last = y + h - 2;
    char line[64];
    overlay_box(y, x, h, w, _(" keys (any key closes) "));
    int row = y + 2, iw = w - 5;
    snprintf(line, sizeof line, _("the %s panel"), _(p->name));
    draw_text(row++, x + 3, iw, C_OVERLAY, line);
    help_rows(p->keys, p->n_keys, &row, last, x + 3, keyw, iw);
    row++;
    if (row <= last)
        draw_text(row++, x + 3, iw, C_OVERLAY, _("every panel"));
    help_rows(keys_global, keys_n_global, &row, last, x + 3, keyw, iw);
    row++;
    if (n_lesson && row <= last) {
        draw_text(row++, x + 3, iw, C_OVERLAY, _("the lesson"));
        help_rows(keys_lesson, n_lesson, &row, last, x + 3, keyw, iw);
        row++;
    }
    if (row <= last)
        draw_text(row++, x + 3, iw, C_OVERLAY, glyph);
    for (size_t i = 0; i < N_NOTES && row <= last; i++)
        draw_text(row++, x + 3, iw, C_OVERLAY, _(help_notes[i]));
}

static const char *const ask[VL_N_LANGS] = {"Question: ", "\u95ee\u9898\uff1a" /* 问题： */};

/* The step's question, after its "Question: " ("" when it has none). */
static void lesson_question_line(const lesson_view *v, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", lesson_question(v)[0] ? ask[v->lang] : "", lesson_question(v));
}

int draw_lesson_rows(const ui *u, int cols)
{
    const lesson_view *v = &u->lesson;
    if (!v->lesson)
        return 0;
    char question[640];
    lesson_question_line(v, question, sizeof question);
    return 2 + wrap_rows(lesson_text(v), cols - 4) + wrap_rows(question, cols - 4);
}

/* The lesson's step in its box above the status line (u->lay.lesson): its title, its text
 * and its question, word-wrapped (Chinese wraps at any character), and the keys. */
static void draw_lesson(const ui *u)
{
    const lesson_view *v = &u->lesson;
    rect r = u->lay.lesson;
    char title[256], question[640];
    snprintf(title, sizeof title, " %s  [%zu/%zu]  %s ", lesson_title(v), v->step + 1,
             v->lesson->n_steps, v->lesson->display);
    lesson_question_line(v, question, sizeof question);
    int w = r.w, h = r.h, y = r.y;
    overlay_box(y, 0, h, w, "");
    draw_text(y, 1, w - 2, C_OVERLAY, title);
    int last = y + h - 2;
    int row = draw_wrap(y + 1, last - (question[0] ? 1 : 0), 2, w - 4, C_OVERLAY,
                        lesson_text(v));
    if (question[0])
        draw_wrap(row, last, 2, w - 4, C_OVERLAY, question);
    draw_text(y + h - 1, 2, w - 4, C_OVERLAY, _("n next  N back  L steps  ? help"));
    attrset(theme_attr(C_NORMAL));
}

/* L: the lesson's steps, the one shown marked, the selected one reversed. */
static void draw_lesson_list(const ui *u)
{
    const lesson_view *v = &u->lesson;
    int n = (int)v->lesson->n_steps, h = n + 3 < u->lines - 4 ? n + 3 : u->lines - 4;
    int w = u->cols - 10, y = 2, x = 5;
    char line[192];
    int rows = h - 3, first = u->pick_sel >= rows ? u->pick_sel - rows + 1 : 0;
    overlay_box(y, x, h, w, _(" the lesson's steps (Enter go, Esc close) "));
    for (int i = first; i < n && i - first < rows; i++) {
        bool sel = i == u->pick_sel;
        int at = y + 2 + i - first;
        snprintf(line, sizeof line, "%s %s", (size_t)i == v->step ? "*" : " ",
                 v->lesson->steps[i].title[v->lang]);
        attrset(theme_attr(sel ? C_PICKED : C_OVERLAY));
        mvhline(at, x + 1, ' ', w - 2);
        if (sel)
            mvaddstr(at, x + 1, u->g->select);
        draw_text(at, x + 2, w - 4, sel ? C_PICKED : C_OVERLAY, line);
    }
    attrset(theme_attr(C_NORMAL));
}

/* The picker's box, and the first entry shown (the selected one in view). */
#define PICK_Y 3
#define PICK_X 5
static int pick_first(const ui *u)
{
    int rows = u->lines - 6 - 3;
    return u->pick_sel >= rows ? u->pick_sel - rows + 1 : 0;
}

int draw_pick_at(const ui *u, int y, int x)
{
    int i = pick_first(u) + y - (PICK_Y + 2);
    if (y < PICK_Y + 2 || y >= u->lines - 4 || x <= PICK_X || x >= u->cols - PICK_X - 1)
        return -1;
    return i < u->n_pick ? i : -1;
}

static void draw_picker(const ui *u)
{
    int h = u->lines - 6, w = u->cols - 10;
    int y = PICK_Y, x = PICK_X;
    bool models = u->mode == MODE_PICK_MODEL;
    char line[512], n[32], hint[128];
    size_t n_keys;
    const binding *keys = ui_prompt_keys(u, &n_keys);
    keys_hint(keys, n_keys, hint, sizeof hint);
    overlay_box(y, x, h, w, models ? _(" load a model or scenario ") : _(" pick a GPU "));
    snprintf(line, sizeof line, _("filter: %s_   (type to filter  %s)"), u->input, hint);
    draw_text(y + 1, x + 2, w - 4, C_OVERLAY, line);
    int rows = h - 3, first = pick_first(u);
    for (int i = first; i < u->n_pick && i - first < rows; i++) {
        size_t k = (size_t)u->pick[i];
        if (models && k < u->cat->n_models) {
            const vl_model *m = &u->cat->models[k];
            vl_params p;
            vl_count_params(&m->arch, &p);
            snprintf(line, sizeof line, _("%-30s %8s params  %s"), m->name,
                     vl_fmt_count(p.total, n, sizeof n), m->display);
        } else if (models) { /* the word right-aligned in 15 columns, whatever its width */
            const vl_scenario *sc = &u->cat->scenarios[k - u->cat->n_models];
            const char *word = _("scenario");
            int pad = 15 - draw_width(word);
            snprintf(line, sizeof line, "%-30s %*s%s  %s", sc->name, pad > 0 ? pad : 0, "", word,
                     sc->display);
        } else { /* and whether this run fits on it, in 4 columns */
            const vl_gpu *g = &u->cat->gpus[k];
            const int judged = u->pick_fit[i]; /* 1 fits, 0 over, -1 not judged */
            const char *verdict = judged < 0 ? "" : judged ? _("fits") : _("over");
            int pad = 4 - draw_width(verdict);
            snprintf(line, sizeof line, "%-20s %10s  %s%*s  %s", g->name,
                     ui_bytes(u, vl_gpu_capacity(g), n, sizeof n), verdict, pad > 0 ? pad : 0, "",
                     g->display);
        }
        bool sel = i == u->pick_sel; /* a glyph and an attribute: seen in monochrome too */
        attrset(theme_attr(sel ? C_PICKED : C_OVERLAY));
        mvhline(y + 2 + i - first, x + 1, ' ', w - 2);
        if (sel)
            mvaddstr(y + 2 + i - first, x + 1, u->g->select);
        draw_text(y + 2 + i - first, x + 2, w - 4, sel ? C_PICKED : C_OVERLAY, line);
    }
    if (u->n_pick == 0)
        draw_text(y + 2, x + 2, w - 4, C_OVERLAY, _("(nothing matches)"));
    attrset(theme_attr(C_NORMAL));
}

void draw_frame(const ui *u)
{
    ellipsis = u->g->ellipsis;
    erase();
    if (u->lay.too_small) {
        char line[128];
        snprintf(line, sizeof line, _("terminal too small: %dx%d, vramlab needs %dx%d"), u->cols,
                 u->lines, LAYOUT_MIN_COLS, LAYOUT_MIN_LINES);
        draw_text(u->lines / 2, 0, u->cols, C_NORMAL, line);
        draw_text(u->lines / 2 + 1, 0, u->cols, C_NORMAL, _("enlarge the window, or q to quit"));
        return;
    }
    draw_title(u);
    ui_current(u)->draw(u);
    if (u->lesson.lesson)
        draw_lesson(u);
    draw_status(u);
    if (u->mode == MODE_LESSON_LIST)
        draw_lesson_list(u);
    else if (u->mode == MODE_HELP)
        draw_help(u);
    else if (u->mode == MODE_PICK_MODEL || u->mode == MODE_PICK_GPU)
        draw_picker(u);
}
