/* draw.c: one full frame of the explorer from its state; nothing here changes state. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/explain.h"
#include "core/units.h"
#include "tui.h"

const char *const panel_names[N_PANELS] = {"Memory", "Probe", "Formats"};

static const char *const key_hints[N_PANELS] = {
    " Up/Down select  Left/Right change  PgUp/PgDn coarse  Enter type  Tab formula  p presets"
    "  g GPU  S save  e export  1 2 3 panels  ? help  q quit",
    " Left/Right loss scale x2 or /2  PgUp/PgDn x16  1 2 3 panels  t theme  ? help  q quit",
    " Enter type a value  1 2 3 panels  t theme  ? help  q quit",
};

/* How many bytes of the UTF-8 (or ASCII) string s fit in `cols` screen columns. */
static int fit_bytes(const char *s, int cols)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int bytes = 0;
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
    return bytes;
}

/* s at (y, x), cut to w columns. */
static void put(int y, int x, int w, ui_color c, const char *s)
{
    if (w <= 0)
        return;
    attrset(theme_attr(c));
    mvaddnstr(y, x, s, fit_bytes(s, w));
    attrset(theme_attr(C_NORMAL));
}

static void fill(int y, int x, int w, ui_color c)
{
    attrset(theme_attr(c));
    mvhline(y, x, ' ', w);
    attrset(theme_attr(C_NORMAL));
}

static void draw_title(const ui *u)
{
    const explorer *e = &u->ex;
    char t[256], c[32];
    rect r = u->lay.title;
    fill(r.y, r.x, r.w, C_TITLE);
    if (e->detached)
        snprintf(t, sizeof t, " vramlab %s GPT-3-like %s (shape derived) %s %s, per GPU",
                 u->g->sep, vl_fmt_count(e->model.free_params, c, sizeof c), u->g->sep,
                 e->s.mode == VL_MODE_INFER ? "inference" : "training");
    else
        snprintf(t, sizeof t, " vramlab %s %s (%s) %s %s, per GPU", u->g->sep, e->model.display,
                 e->model.name, u->g->sep, e->s.mode == VL_MODE_INFER ? "inference" : "training");
    put(r.y, r.x, r.w, C_TITLE, t);
    /* the panels' tabs at the right, the current one highlighted */
    int x = r.w;
    for (int p = N_PANELS - 1; p >= 0; p--) {
        char tab[32];
        snprintf(tab, sizeof tab, " %d %s ", p + 1, panel_names[p]);
        x -= (int)strlen(tab);
        if (x > (int)strlen(t))
            put(r.y, x, (int)strlen(tab), (int)p == (int)u->panel ? C_SELECTED : C_TITLE, tab);
    }
}

static void draw_sliders(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.sliders;
    const int track = 11;
    slider_id ids[EX_MAX_VISIBLE];
    int n = explorer_sliders(e, ids), sel_i = 0, rows = r.h - 1;
    while (sel_i < n && ids[sel_i] != e->selected)
        sel_i++;
    int first = layout_slider_first(&u->lay, n, sel_i < n ? sel_i : 0);
    char head[48] = " settings";
    if (n > rows)
        snprintf(head, sizeof head, " settings %d-%d of %d", first + 1, first + rows, n);
    put(r.y, r.x, r.w, C_HEADING, head);
    for (int i = first; i < n && i < first + rows; i++) {
        slider_id id = ids[i];
        int y = r.y + 1 + i - first;
        bool sel = e->selected == id && u->mode != MODE_PICK_MODEL;
        char v[64];
        if (sel)
            fill(y, r.x, r.w, C_SELECTED);
        ui_color c = sel ? C_SELECTED : C_NORMAL;
        put(y, r.x, 2, c, sel ? u->g->select : " ");
        put(y, r.x + 2, 15, c, slider_label(e, id));
        int knob = (int)(explorer_fraction(e, id) * (track - 1) + 0.5);
        attrset(theme_attr(sel ? C_SELECTED : C_DIM));
        for (int k = 0; k < track; k++)
            mvaddstr(y, r.x + 17 + k, k == knob ? u->g->knob : u->g->track);
        explorer_value(e, id, v, sizeof v);
        put(y, r.x + 29, r.w - 29, c, v);
    }
}

/* A stacked bar of the components on rows y..y+h-1, `full` bytes filling w cells. */
static void draw_stack(const ui *u, int y, int x, int w, int h, const vl_breakdown *b,
                       uint64_t full)
{
    int cells[VL_N_COMPONENTS];
    layout_bar(b->bytes, VL_N_COMPONENTS, full, w, cells);
    for (int row = 0; row < h; row++) {
        int cx = x;
        for (int c = 0; c < VL_N_COMPONENTS; c++) {
            attrset(theme_attr((ui_color)(C_SEGMENT + c)) | (theme_color() ? A_REVERSE : 0));
            for (int k = 0; k < cells[c]; k++)
                mvaddstr(y + row, cx++, theme_segment_fill(u->g, (vl_component)c));
        }
        attrset(theme_attr(C_DIM));
        for (; cx < x + w; cx++)
            mvaddstr(y + row, cx, u->g->track);
    }
    attrset(theme_attr(C_NORMAL));
}

/* Writes s word-wrapped into rows y..last of width w, continuation lines indented;
 * returns the next free row. */
static int wrap(int y, int last, int x, int w, ui_color c, const char *s)
{
    attrset(theme_attr(c));
    for (int indent = 0; *s && y <= last; indent = 3) {
        int avail = w - indent, n = (int)strlen(s);
        if (n > avail) {
            n = avail;
            while (n > avail / 2 && s[n] != ' ')
                n--;
            if (s[n] != ' ')
                n = avail;
        }
        mvaddnstr(y++, x + indent, s, fit_bytes(s, n));
        s += n;
        while (*s == ' ')
            s++;
    }
    attrset(theme_attr(C_NORMAL));
    return y;
}

static void draw_memory(const ui *u)
{
    const explorer *e = &u->ex;
    const vl_gpu *g = explorer_gpu(e);
    const vl_breakdown *b = &e->b;
    rect r = u->lay.memory;
    char line[256], v[32], w[32], n[32];
    vl_units un = VL_UNITS_GIB;

    snprintf(line, sizeof line, " memory per GPU on %s (%s)", g->display,
             vl_fmt_bytes(g->memory, un, v, sizeof v));
    put(r.y, r.x, r.w, C_HEADING, line);
    if (e->error) {
        wrap(r.y + 2, r.y + r.h - 1, r.x + 1, r.w - 1, C_BAD, e->error);
        return;
    }
    int bw = r.w - 2, bx = r.x + 1;
    uint64_t full = b->total > g->memory ? b->total : g->memory;
    draw_stack(u, r.y + 1, bx, bw, 2, b, full);
    int m = layout_cell(g->memory, full, bw);
    int mx = bx + (m >= bw ? bw - 1 : m);
    put(r.y + 1, mx, 1, C_MARKER, u->g->marker);
    put(r.y + 2, mx, 1, C_MARKER, u->g->marker);
    /* the capacity label starts at the marker, or ends there when it would not fit */
    snprintf(line, sizeof line, "%s capacity %s", u->g->marker, v);
    int len = (int)strlen("| capacity ") + (int)strlen(v);
    if (mx + len <= bx + bw) {
        put(r.y + 3, mx, len, C_MARKER, line);
    } else {
        snprintf(line, sizeof line, "capacity %s %s", v, u->g->marker);
        put(r.y + 3, mx - len + 1 < bx ? bx : mx - len + 1, len, C_MARKER, line);
    }

    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        int y = r.y + 4 + c;
        bool focus = c == (u->ex.focus >= 0 ? u->ex.focus
                                            : (int)slider_component(e, e->selected));
        attrset(theme_attr((ui_color)(C_SEGMENT + c)) | (theme_color() ? A_REVERSE : 0));
        for (int k = 0; k < 2; k++)
            mvaddstr(y, r.x + 1 + k, theme_segment_fill(u->g, (vl_component)c));
        snprintf(line, sizeof line, " %-19s %8.2f GiB %5.1f%%", vl_component_labels[c],
                 vl_in_units(b->bytes[c], un),
                 b->total ? 100.0 * (double)b->bytes[c] / (double)b->total : 0.0);
        put(y, r.x + 3, r.w - 3, focus ? C_HEADING : C_NORMAL, line);
    }
    snprintf(line, sizeof line, "    total %.2f GiB per GPU (%s bytes)", vl_in_units(b->total, un),
             vl_fmt_int(b->total, n, sizeof n));
    put(r.y + 11, r.x, r.w, C_HEADING, line);
    if (explorer_fits(e))
        snprintf(line, sizeof line, "    fits: %s to spare",
                 vl_fmt_bytes(g->memory - b->total, un, w, sizeof w));
    else
        snprintf(line, sizeof line, "    does not fit: over by %s",
                 vl_fmt_bytes(b->total - g->memory, un, w, sizeof w));
    if (b->cpu.node_total) { /* ZeRO-Offload: what moved, per node */
        size_t used = strlen(line);
        snprintf(line + used, sizeof line - used, "; CPU per node: %s",
                 vl_fmt_bytes(b->cpu.node_total, un, w, sizeof w));
    }
    put(r.y + 12, r.x, r.w, explorer_fits(e) ? C_OK : C_BAD, line);
}

/* Inference: the prefill and decode peaks on one scale, and the roofline bounds. */
static void draw_phases(const ui *u)
{
    const explorer *e = &u->ex;
    const vl_inference *inf = &e->b.inf;
    const vl_gpu *g = explorer_gpu(e);
    rect r = u->lay.zero;
    char line[256], v[32];
    vl_settings s = explorer_settings(e);
    put(r.y, r.x, r.w, C_HEADING, " the two phases of inference, each with its own peak");
    uint64_t full = g->memory;
    const vl_phase *ph[2] = {&inf->prefill, &inf->decode};
    for (int i = 0; i < 2; i++)
        if (ph[i]->total > full)
            full = ph[i]->total;
    int bw = r.w - 9 - 17;
    for (int i = 0; i < 2; i++) {
        int y = r.y + 1 + i;
        bool peak = (i == 1) == inf->decode_peak;
        put(y, r.x, 9, peak ? C_HEADING : C_NORMAL, i ? " decode" : " prefill");
        if (i == 1 && s.gen == 0) {
            put(y, r.x + 9, r.w - 9, C_DIM, "none: no tokens generated (generated = 0)");
            continue;
        }
        vl_breakdown b = e->b; /* the phase's own bars */
        b.bytes[VL_C_KV_CACHE] = ph[i]->kv_cache;
        b.bytes[VL_C_ACTIVATIONS] = ph[i]->workspace;
        draw_stack(u, y, r.x + 9, bw, 1, &b, full);
        int m = layout_cell(g->memory, full, bw);
        put(y, r.x + 9 + (m >= bw ? bw - 1 : m), 1, C_MARKER, u->g->marker);
        snprintf(line, sizeof line, " %9s %s", vl_fmt_bytes(ph[i]->total, VL_UNITS_GIB, v, sizeof v),
                 ph[i]->total <= g->memory ? "fits" : "over");
        put(y, r.x + 9 + bw, r.w - 9 - bw, ph[i]->total <= g->memory ? C_OK : C_BAD, line);
    }
    vl_speed sp = vl_speed_bounds(&e->b, &s, g->bandwidth, g->bf16_flops);
    if (sp.decode_tokens_per_s > 0) {
        snprintf(line, sizeof line, " roofline: decode <= %.0f tokens/s (%.2f ms a step)",
                 sp.decode_tokens_per_s, sp.decode_step_seconds * 1e3);
        put(r.y + 3, r.x, r.w, C_NORMAL, line);
    }
    if (sp.prefill_seconds > 0) {
        snprintf(line, sizeof line, "           prefill >= %.3f s at %.0f TFLOP/s bf16",
                 sp.prefill_seconds, g->bf16_flops / 1e12);
        put(r.y + 4, r.x, r.w, C_NORMAL, line);
    }
}

static void draw_zero(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.zero;
    if (r.h == 0 || e->error)
        return;
    if (e->s.mode == VL_MODE_INFER) {
        draw_phases(u);
        return;
    }
    char line[128], v[32];
    const vl_gpu *g = explorer_gpu(e);
    snprintf(line, sizeof line, " the same run at ZeRO 0-3 on %llu GPU%s (ZeRO paper, Fig. 1)",
             (unsigned long long)e->s.gpus, e->s.gpus == 1 ? "" : "s");
    put(r.y, r.x, r.w, C_HEADING, line);
    uint64_t full = g->memory;
    for (int z = 0; z < 4; z++)
        if (e->zero[z].total > full)
            full = e->zero[z].total;
    int bw = r.w - 8 - 17; /* "ZeRO-n " + bar + " 142.82 GiB over" */
    for (int z = 0; z < 4; z++) {
        int y = r.y + 1 + z;
        const vl_breakdown *b = &e->zero[z];
        bool cur = (unsigned)z == e->s.zero;
        snprintf(line, sizeof line, "%sZeRO-%d", cur ? u->g->select : " ", z);
        put(y, r.x, 8, cur ? C_HEADING : C_NORMAL, line);
        draw_stack(u, y, r.x + 8, bw, 1, b, full);
        int m = layout_cell(g->memory, full, bw);
        put(y, r.x + 8 + (m >= bw ? bw - 1 : m), 1, C_MARKER, u->g->marker);
        snprintf(line, sizeof line, " %9s %s", vl_fmt_bytes(b->total, VL_UNITS_GIB, v, sizeof v),
                 b->total <= g->memory ? "fits" : "over");
        put(y, r.x + 8 + bw, r.w - 8 - bw, b->total <= g->memory ? C_OK : C_BAD, line);
    }
}

static void draw_formula(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.formula;
    if (r.h <= 0 || e->error)
        return;
    int last = r.y + r.h - 1;
    vl_component focus = u->ex.focus >= 0 ? (vl_component)u->ex.focus
                                          : slider_component(e, e->selected);
    char f[1024], line[1280];
    snprintf(line, sizeof line, " how it is computed: %s", vl_component_labels[focus]);
    put(r.y, r.x, r.w, C_HEADING, line);
    int y = r.y + 1;
    vl_settings s = explorer_settings(e);
    vl_explain(&s, &e->b, focus, VL_UNITS_GIB, f, sizeof f);
    snprintf(line, sizeof line, " %s = %s", vl_component_labels[focus], f);
    y = wrap(y, last, r.x, r.w, C_NORMAL, line);
    if (e->detached && e->selected == SL_PARAMS && y <= last) {
        const vl_arch *a = &e->model.arch;
        snprintf(line, sizeof line,
                 " shape: %llu layers, hidden %llu, %llu heads, FFN %llu, vocab %llu (GPT-3-like, "
                 "Brown et al. 2020 Table 2.1, interpolated)",
                 (unsigned long long)a->layers, (unsigned long long)a->hidden,
                 (unsigned long long)a->heads, (unsigned long long)a->ffn,
                 (unsigned long long)a->vocab);
        y = wrap(y, last, r.x, r.w, C_NORMAL, line);
    }
    snprintf(line, sizeof line, " convention: %s", vl_convention(&s));
    y = wrap(y, last, r.x, r.w, C_DIM, line);
    char notes[VL_MAX_NOTES][VL_NOTE_LEN];
    int n = vl_notes(&s, &e->model, &e->b, notes, VL_MAX_NOTES);
    for (int i = 0; i < n && y <= last; i++) {
        snprintf(line, sizeof line, " note: %s", notes[i]);
        y = wrap(y, last, r.x, r.w, C_KEY, line);
    }
    for (int c = 0; c < VL_N_COMPONENTS && y <= last; c++) {
        if (c == (int)focus)
            continue;
        vl_explain(&s, &e->b, (vl_component)c, VL_UNITS_GIB, f, sizeof f);
        snprintf(line, sizeof line, " %s = %s", vl_component_labels[c], f);
        put(y++, r.x, r.w, C_DIM, line);
    }
}

static void draw_status(const ui *u)
{
    rect r = u->lay.status;
    char line[5120];
    fill(r.y, r.x, r.w, C_NORMAL);
    switch (u->mode) {
    case MODE_EDIT:
        snprintf(line, sizeof line, " %s = %s_  %s",
                 u->panel == PANEL_FORMATS ? "value" : slider_label(&u->ex, u->ex.selected),
                 u->input, u->message[0] ? "" : "(Enter apply, Esc cancel)");
        put(r.y, r.x, r.w, C_KEY, line);
        /* a refused value: why, beside what was typed */
        put(r.y, r.x + (int)strlen(line), r.w - (int)strlen(line), C_BAD, u->message);
        break;
    case MODE_SAVE_NAME:
        snprintf(line, sizeof line, " save scenario as: %s_   (Enter save, Esc cancel)", u->input);
        put(r.y, r.x, r.w, C_KEY, line);
        break;
    case MODE_CONFIRM_OVERWRITE:
        snprintf(line, sizeof line, " %s exists: overwrite? (y/n)", u->pending);
        put(r.y, r.x, r.w, C_BAD, line);
        break;
    default:
        if (u->message[0])
            put(r.y, r.x, r.w, u->message_bad ? C_BAD : C_OK, u->message);
        else
            put(r.y, r.x, r.w, C_DIM, key_hints[u->panel]);
    }
}

static void overlay_box(int y, int x, int h, int w, const char *title)
{
    attrset(theme_attr(C_OVERLAY));
    for (int i = 0; i < h; i++)
        mvhline(y + i, x, ' ', w);
    mvaddnstr(y, x + 2, title, w - 4);
}

static const char *const help_lines[] = {
    "Up/Down, k/j        select a setting",
    "Left/Right, h/l     change it (mouse wheel too)",
    "PgUp/PgDn, Shift    change it in big steps",
    "Home/End            smallest / largest",
    "Enter               type an exact value (e.g. 7B, 4096)",
    "Tab                 formula of the next bar segment",
    "p                   load a model preset (type to filter)",
    "g                   pick the GPU",
    "S                   save this what-if as a scenario YAML",
    "e                   export Markdown and SVG of this what-if",
    "t                   switch the high-contrast theme",
    "1 2 3               the Memory, Probe and Formats panels",
    "Left/Right (Probe)  the loss scale; Enter (Formats) a value",
    "?                   this help; any key closes it",
    "q                   quit",
    "",
    "GiB = 2^30 bytes. Every number is vramlab estimate's:",
    "the formula pane shows how each one is computed.",
};

static void draw_help(const ui *u)
{
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    int h = n + 3, w = 64;
    int y = (u->lines - h) / 2, x = (u->cols - w) / 2;
    overlay_box(y, x, h, w, " keys ");
    for (int i = 0; i < n; i++)
        mvaddnstr(y + 2 + i, x + 3, help_lines[i], w - 5);
    attrset(theme_attr(C_NORMAL));
}

static void draw_picker(const ui *u)
{
    int h = u->lines - 6, w = u->cols - 10;
    int y = 3, x = 5;
    bool models = u->mode == MODE_PICK_MODEL;
    char line[512], n[32];
    overlay_box(y, x, h, w, models ? " load a model or scenario " : " pick a GPU ");
    snprintf(line, sizeof line, "filter: %s_   (type to filter, Enter load, Esc close)", u->input);
    mvaddnstr(y + 1, x + 2, line, w - 4);
    int rows = h - 3, first = u->pick_sel >= rows ? u->pick_sel - rows + 1 : 0;
    for (int i = first; i < u->n_pick && i - first < rows; i++) {
        size_t k = (size_t)u->pick[i];
        if (models && k < u->cat->n_models) {
            const vl_model *m = &u->cat->models[k];
            vl_params p;
            vl_count_params(&m->arch, &p);
            snprintf(line, sizeof line, "%-30s %8s params  %s", m->name,
                     vl_fmt_count(p.total, n, sizeof n), m->display);
        } else if (models) {
            const vl_scenario *sc = &u->cat->scenarios[k - u->cat->n_models];
            snprintf(line, sizeof line, "%-30s %15s  %s", sc->name, "scenario", sc->display);
        } else {
            const vl_gpu *g = &u->cat->gpus[k];
            snprintf(line, sizeof line, "%-20s %10s  %s", g->name,
                     vl_fmt_bytes(g->memory, VL_UNITS_GIB, n, sizeof n), g->display);
        }
        attrset(i == u->pick_sel ? theme_attr(C_SELECTED) : theme_attr(C_OVERLAY));
        mvhline(y + 2 + i - first, x + 1, ' ', w - 2);
        mvaddnstr(y + 2 + i - first, x + 2, line, w - 4);
    }
    if (u->n_pick == 0)
        mvaddnstr(y + 2, x + 2, "(nothing matches)", w - 4);
    attrset(theme_attr(C_NORMAL));
}

void draw_frame(const ui *u)
{
    erase();
    if (u->lay.too_small) {
        char line[128];
        snprintf(line, sizeof line, "terminal too small: %dx%d, vramlab needs %dx%d", u->cols,
                 u->lines, LAYOUT_MIN_COLS, LAYOUT_MIN_LINES);
        mvaddnstr(u->lines / 2, 0, line, u->cols);
        mvaddnstr(u->lines / 2 + 1, 0, "enlarge the window, or q to quit", u->cols);
        return;
    }
    draw_title(u);
    if (u->panel == PANEL_PROBE && u->lab.ready) {
        draw_probe(u);
    } else if (u->panel == PANEL_FORMATS && u->lab.ready) {
        draw_formats(u);
    } else {
        draw_sliders(u);
        draw_memory(u);
        draw_zero(u);
        draw_formula(u);
    }
    draw_status(u);
    if (u->mode == MODE_HELP)
        draw_help(u);
    else if (u->mode == MODE_PICK_MODEL || u->mode == MODE_PICK_GPU)
        draw_picker(u);
}
