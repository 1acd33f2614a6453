/* panel-timeline.c: the Timeline panel: the memory on the GPU across one step (a training step
 * or a serving run) as stacked columns by component against the GPU's capacity, the peak
 * marked and named, and a cursor over the events that shows what is alive after each.
 * Columns are time (the events, compressed by timeline-view.c so the peak is never lost),
 * rows are bytes; each component has its own pattern, so it reads without colour. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "core/units.h"
#include "panel.h"
#include "report/report.h"

/* The colour of each band: the Memory panel's for the components it has, the nearest of
 * them for the others (the patterns tell those apart). */
static const ui_color band_color[REPORT_TL_BANDS] = {
    [VL_TL_WEIGHTS] = C_SEGMENT + VL_C_WEIGHTS,
    [VL_TL_GRADIENTS] = C_SEGMENT + VL_C_GRADIENTS,
    [VL_TL_OPTIMIZER] = C_SEGMENT + VL_C_OPTIMIZER,
    [VL_TL_ACTIVATIONS] = C_SEGMENT + VL_C_ACTIVATIONS,
    [VL_TL_KV_CACHE] = C_SEGMENT + VL_C_KV_CACHE,
    [VL_TL_GATHERED] = C_SEGMENT + VL_C_ZERO3_LIVE,
    [VL_TL_TRANSIENT] = C_SEGMENT + VL_C_ACTIVATIONS,
    [VL_TL_OPTIM_TEMP] = C_SEGMENT + VL_C_OPTIMIZER,
    [VL_TL_BUCKETS] = C_SEGMENT + VL_C_GRADIENTS,
    [VL_TL_RUNTIME] = C_SEGMENT + VL_C_OVERHEAD,
    [REPORT_TL_ROUNDING] = C_DIM,
    [REPORT_TL_CONTEXT] = C_SEGMENT + VL_C_OVERHEAD,
    [REPORT_TL_MANAGED] = C_SEGMENT + VL_C_OPTIMIZER,
    [REPORT_TL_COMM] = C_SEGMENT + VL_C_OVERHEAD,
    [REPORT_TL_CACHED] = C_DIM,
};

static const char *band_glyph(const glyphs *g, int b)
{
    if (b < VL_N_TL_COMPONENTS)
        return g->timeline[b];
    if (b == REPORT_TL_CONTEXT)
        return g->segment[VL_C_OVERHEAD];
    if (b == REPORT_TL_MANAGED)
        return g->segment[VL_C_OPTIMIZER];
    if (b == REPORT_TL_COMM) /* the context's colour, the cache's pattern */
        return g->cached;
    return b == REPORT_TL_ROUNDING ? g->rounding : g->cached;
}

/* The chart's place on the screen: y-axis labels, then the columns, then the legend. */
#define AXIS_W 8
#define LEGEND_NARROW 28
#define LEGEND_WIDE 40
#define LEGEND_WIDE_FROM 120 /* columns */

typedef struct chart {
    int top, h;         /* rows top .. top+h-1; the time axis under them */
    int x, w;           /* the columns */
    int legend_x, legend_w;
    bool wide;
} chart;

/* In the panel's region: the heading, the chart, its time axis and the three lines of text
 * below, which stay whole; a short region takes its rows from the chart, and the legend, as
 * high as the chart and its axis, gives up its last bands and the total on the GPU. */
static chart chart_of(const ui *u)
{
    rect r = u->lay.panel;
    chart c;
    c.wide = r.w >= LEGEND_WIDE_FROM;
    c.legend_w = c.wide ? LEGEND_WIDE : LEGEND_NARROW;
    c.legend_x = r.w - c.legend_w;
    c.x = AXIS_W;
    c.w = c.legend_x - 1 - c.x;
    if (c.w > TLV_MAX_COLUMNS)
        c.w = TLV_MAX_COLUMNS;
    c.top = r.y + 1;                     /* under the heading */
    c.h = r.y + r.h - 1 - 3 - c.top;     /* the axis and three lines of text below */
    return c;
}

/* Which bands the step has at all: only those are drawn in the legend. */
static void bands_used(const vl_timeline *t, bool used[REPORT_TL_BANDS])
{
    memset(used, 0, REPORT_TL_BANDS * sizeof *used);
    for (size_t i = 0; i < t->n_events; i++)
        used[t->events[i].component] = true;
    used[REPORT_TL_ROUNDING] = used[REPORT_TL_CACHED] = true;
    used[REPORT_TL_CONTEXT] = t->peak.context > 0;
    used[REPORT_TL_MANAGED] = t->peak.managed > 0;
    used[REPORT_TL_COMM] = t->peak.communicators > 0;
}

static void draw_columns(const ui *u, const chart *c, const report_tl_column *cols, uint64_t full,
                         int cursor_col, int peak_col)
{
    const uint64_t capacity = vl_gpu_capacity(explorer_gpu(&u->ex));
    int bottom = c->top + c->h - 1;
    int cap = layout_cell(capacity, full, c->h); /* cells from the bottom */
    int cap_row = bottom - (cap > 0 ? cap - 1 : 0);
    for (int x = 0; x < c->w; x++) {
        int cells[REPORT_TL_BANDS];
        layout_bar(cols[x].band, REPORT_TL_BANDS, full, c->h, cells);
        int y = bottom;
        for (int b = 0; b < REPORT_TL_BANDS; b++) {
            attrset(theme_attr(band_color[b]));
            for (int k = 0; k < cells[b] && y >= c->top; k++)
                mvaddstr(y--, c->x + x, band_glyph(u->g, b));
        }
        if (x == peak_col) /* the peak's mark sits on its column */
            draw_text(y >= c->top ? y : c->top, c->x + x, 1, C_MARKER, u->g->peak);
        else if (x == cursor_col)
            for (; y >= c->top; y--)
                draw_text(y, c->x + x, 1, C_KEY, u->g->sep);
    }
    attrset(theme_attr(C_MARKER));
    for (int x = 0; x < c->w; x++)
        if (x != peak_col || cap_row != c->top)
            mvaddstr(cap_row, c->x + x, u->g->track);
    attrset(theme_attr(C_NORMAL));

    /* the byte axis: the top of the scale, the capacity, zero */
    char v[32];
    snprintf(v, sizeof v, "%7.1f", vl_in_units(full, VL_UNITS_GIB));
    draw_text(c->top, 0, AXIS_W - 1, C_DIM, v);
    snprintf(v, sizeof v, "%7.1f", vl_in_units(capacity, VL_UNITS_GIB));
    draw_text(cap_row, 0, AXIS_W - 1, C_MARKER, v);
    if (bottom != cap_row && bottom != c->top)
        draw_text(bottom, 0, AXIS_W - 1, C_DIM, "      0");
    for (int y = c->top; y <= bottom; y++)
        draw_text(y, AXIS_W - 1, 1, C_DIM, u->g->sep);

    /* the time axis, with the cursor's and the peak's marks */
    int axis = bottom + 1;
    attrset(theme_attr(C_DIM));
    for (int x = 0; x < c->w; x++)
        mvaddstr(axis, c->x + x, u->g->track);
    draw_text(axis, c->x + peak_col, 1, C_MARKER, u->g->peak);
    draw_text(axis, c->x + cursor_col, 1, C_KEY, u->g->cursor);
}

/* What is alive after the cursor's event, band by band, and its total on the GPU. */
static void draw_legend(const ui *u, const chart *c, const bool used[REPORT_TL_BANDS])
{
    const timeline_view *v = &u->tl;
    const vl_event *ev = &v->t.events[v->cursor];
    uint64_t band[REPORT_TL_BANDS];
    timeline_view_bands(v, band);
    int x = c->legend_x, w = c->legend_w, y = c->top, last = c->top + c->h;
    int label_w = w - 4 - 9;
    char line[192], cell[128];
    draw_text(y++, x, w, C_HEADING,
              c->wide ? _(" alive at the cursor, GiB") : _(" at the cursor, GiB"));
    for (int b = 0; b < REPORT_TL_BANDS && y <= last; b++) {
        if (!used[b])
            continue;
        attrset(theme_attr(band_color[b]));
        mvaddstr(y, x + 1, band_glyph(u->g, b));
        mvaddstr(y, x + 2, band_glyph(u->g, b));
        const char *label = c->wide ? _(report_tl_band_labels[b]) : report_tl_band_keys[b];
        snprintf(line, sizeof line, " %s%9.2f", draw_pad(cell, sizeof cell, label, -label_w),
                 vl_in_units(band[b], VL_UNITS_GIB));
        draw_text(y++, x + 3, w - 3, C_NORMAL, line);
    }
    if (y <= last) {
        bool ovf = false; /* no event reserves more than the peak, which fitted */
        snprintf(line, sizeof line, "    %s%9.2f",
                 draw_pad(cell, sizeof cell, _("on the GPU"), -label_w),
                 vl_in_units(vl_peak_on_gpu(&v->t.peak, ev->reserved, &ovf), VL_UNITS_GIB));
        draw_text(y, x, w, C_HEADING, line);
    }
}

/* Under the axis: the peak, then the cursor's event. */
static void draw_text_lines(const ui *u, const chart *c)
{
    const timeline_view *v = &u->tl;
    const vl_peak *p = &v->t.peak;
    const vl_settings s = explorer_settings(&u->ex);
    const uint64_t capacity = report_capacity(&s, explorer_gpu(&u->ex));
    int y = c->top + c->h + 1;
    char line[512], dev[32], al[32], rs[32], cx[32], m[32], b[32], cap[32], ph[128], ctx[160];
    char verdict[160];
    const vl_fit fit = u->ex.fit; /* this peak's, and the engine's KV cache */
    vl_fmt_bytes(p->device, VL_UNITS_GIB, dev, sizeof dev);
    vl_fmt_bytes(p->allocated, VL_UNITS_GIB, al, sizeof al);
    vl_fmt_bytes(p->reserved, VL_UNITS_GIB, rs, sizeof rs);
    vl_fmt_bytes(p->context, VL_UNITS_GIB, cx, sizeof cx);
    vl_fmt_bytes(capacity, VL_UNITS_GIB, cap, sizeof cap);
    int n = snprintf(ctx, sizeof ctx, _("%s context"), cx);
    char x[32];
    if (p->managed && n > 0 && (size_t)n < sizeof ctx)
        n += snprintf(ctx + n, sizeof ctx - (size_t)n, _(" + %s paged optimizer states"),
                      vl_fmt_bytes(p->managed, VL_UNITS_GIB, x, sizeof x));
    if (p->communicators && n > 0 && (size_t)n < sizeof ctx)
        snprintf(ctx + n, sizeof ctx - (size_t)n, _(" + %s communicators"),
                 vl_fmt_bytes(p->communicators, VL_UNITS_GIB, x, sizeof x));
    ui_fit_text(u, &fit, s.batch, verdict, sizeof verdict);
    snprintf(line, sizeof line,
             _(" %s peak %s on the GPU after event %zu, in %s: %s allocated, %s reserved + %s; "
               "on %s, %s"),
             u->g->peak, dev, p->event, timeline_view_phase_text(p->phase, ph, sizeof ph), al, rs,
             ctx, cap, verdict);
    draw_text(y++, 0, u->lay.panel.w, fit.fits ? C_OK : C_BAD, line);

    const vl_event *ev = &v->t.events[v->cursor];
    snprintf(line, sizeof line, _(" %s event %zu of %zu, %s%s"), u->g->cursor, v->cursor,
             v->t.n_events,
             timeline_view_phase_text(vl_timeline_phase(&v->t, v->cursor), ph, sizeof ph),
             v->cursor == p->event ? _(" (the peak)") : "");
    draw_text(y++, 0, u->lay.panel.w, C_KEY, line);
    vl_fmt_bytes(ev->allocated, VL_UNITS_GIB, al, sizeof al);
    vl_fmt_bytes(ev->reserved, VL_UNITS_GIB, rs, sizeof rs);
    vl_fmt_bytes(ev->bytes, VL_UNITS_GIB, m, sizeof m);
    snprintf(line, sizeof line, _("   %s %s (%s) %s B = %s; then %s allocated, %s reserved"),
             ev->kind == VL_EV_ALLOC ? _("alloc") : _("free"), ev->what,
             vl_tl_component_keys[ev->component], vl_fmt_int(ev->bytes, b, sizeof b), m, al, rs);
    draw_text(y, 0, u->lay.panel.w, C_NORMAL, line);
}

static void timeline_draw(const ui *u)
{
    const timeline_view *v = &u->tl;
    const explorer *e = &u->ex;
    const vl_gpu *g = explorer_gpu(e);
    const uint64_t capacity = vl_gpu_capacity(g);
    char line[256], cap[32];
    chart c = chart_of(u);
    snprintf(line, sizeof line,
             e->s.mode == VL_MODE_INFER ? _(" one serving run, %zu events, on %s (%s)")
                                        : _(" one training step, %zu events, on %s (%s)"),
             v->built ? v->t.n_events : 0, g->display,
             vl_fmt_bytes(capacity, VL_UNITS_GIB, cap, sizeof cap));
    rect r = u->lay.panel;
    draw_text(r.y, 0, r.w, C_HEADING, line);
    if (!v->built) {
        draw_wrap(r.y + 2, r.y + r.h - 1, 1, r.w - 2, C_BAD, v->error);
        return;
    }
    report_tl_column cols[TLV_MAX_COLUMNS];
    int n = timeline_view_columns(v, c.w, cols);
    uint64_t full = capacity > v->t.peak.device ? capacity : v->t.peak.device;
    int cursor_col = timeline_view_column_of(v, n, v->cursor);
    int peak_col = timeline_view_column_of(v, n, v->t.peak.event);
    bool used[REPORT_TL_BANDS];
    bands_used(&v->t, used);
    draw_columns(u, &c, cols, full, cursor_col, peak_col);
    draw_legend(u, &c, used);
    draw_text_lines(u, &c);
}

static bool timeline_enter(ui *u, char *why, size_t len)
{
    (void)why, (void)len;
    timeline_view_build(&u->tl, &u->ex); /* without one, the panel says why */
    return true;
}

/* ---- keys ---- */

static int act_step(ui *u, int dir)
{
    return timeline_view_step(&u->tl, dir) ? UI_REDRAW : UI_HANDLED;
}

static int act_phase(ui *u, int dir)
{
    return timeline_view_phase(&u->tl, dir) ? UI_REDRAW : UI_HANDLED;
}

static int act_jump(ui *u, int end)
{
    return timeline_view_jump(&u->tl, end) ? UI_REDRAW : UI_HANDLED;
}

static int act_peak(ui *u, int arg)
{
    (void)arg;
    return timeline_view_peak(&u->tl) ? UI_REDRAW : UI_HANDLED;
}

static const binding timeline_keys[] = {
    {.keys = "Left/Right", .brief = N_("event"), .help = N_("the cursor one event back or on"),
     .action = act_step, .on = {{KEY_LEFT, -1}, {KEY_RIGHT, 1}, {'h', -1}, {'l', 1}}},
    {.keys = "PgUp/PgDn", .brief = N_("phase"),
     .help = N_("the cursor to the previous or next phase"),
     .action = act_phase, .on = {{KEY_PPAGE, -1}, {KEY_NPAGE, 1}, {'H', -1}, {'L', 1}}},
    {.keys = "Home/End", .brief = N_("ends"), .help = N_("the cursor to the first or last event"),
     .action = act_jump, .on = {{KEY_HOME, 0}, {KEY_END, 1}}},
    {.keys = "p", .brief = N_("peak"), .help = N_("the cursor to the peak"), .action = act_peak,
     .on = {{'p'}}},
};

/* A click on the chart puts the cursor on that column's event; the wheel steps. */
static int timeline_mouse(ui *u, const MEVENT *ev)
{
    int key = keys_wheel(ev);
    if (key != ERR)
        return key;
    chart c = chart_of(u);
    if (!u->tl.built || ev->x < c.x || ev->x >= c.x + c.w || ev->y < c.top ||
        ev->y > c.top + c.h)
        return ERR;
    report_tl_column cols[TLV_MAX_COLUMNS];
    int n = timeline_view_columns(&u->tl, c.w, cols);
    u->tl.cursor = cols[ev->x - c.x < n ? ev->x - c.x : n - 1].event;
    return KEY_REFRESH;
}

UI_PANEL(timeline) = {
    .name = N_("Timeline"),
    PANEL_KEYS(timeline_keys),
    .enter = timeline_enter,
    .draw = timeline_draw,
    .mouse = timeline_mouse,
};
