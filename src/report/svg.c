/* svg.c: the stacked memory bars as an SVG picture, for slides and handouts: the run, then
 * the same run at ZeRO 0-3 (training) or its two phases (inference), then, with a timeline,
 * the step as a stacked area by component against the capacity, the peak marked. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "report.h"

/* One colour per component, in vl_component order; readable on white and on projectors. */
static const char *const palette[VL_N_COMPONENTS] = {"#3b6fd4", "#27a8c4", "#b04fc4", "#e0a526",
                                                     "#3fa34d", "#d6453d", "#8a8f98"};

/* The timeline's bands (report_tl_columns): the components above where they are vl_estimate's,
 * a lighter shade of the nearest for the others, then the allocator's rounding, the context
 * (the overhead's grey), paged optimizer states (a shade of the optimizer's), the
 * communicators' buffers (a darker grey) and the allocator's cache, lightest. */
static const char *const tl_palette[REPORT_TL_BANDS] = {
    [VL_TL_WEIGHTS] = "#3b6fd4", [VL_TL_GRADIENTS] = "#27a8c4", [VL_TL_OPTIMIZER] = "#b04fc4",
    [VL_TL_ACTIVATIONS] = "#e0a526", [VL_TL_KV_CACHE] = "#3fa34d", [VL_TL_GATHERED] = "#d6453d",
    [VL_TL_TRANSIENT] = "#f0d27a", [VL_TL_OPTIM_TEMP] = "#dba6e6", [VL_TL_BUCKETS] = "#93d6e3",
    [VL_TL_RUNTIME] = "#5c6068", [REPORT_TL_ROUNDING] = "#b8bcc4",
    [REPORT_TL_CONTEXT] = "#8a8f98", [REPORT_TL_MANAGED] = "#c98ad6",
    [REPORT_TL_COMM] = "#767b84", [REPORT_TL_CACHED] = "#e3e5e9"};

#define W 800
#define LEFT 20
#define BAR_W (W - 2 * LEFT)
#define ROWS_TOP 330 /* the comparison rows under the legend */
#define TL_COLUMNS 190 /* the timeline's columns, 4 px each */
#define TL_H 180       /* its plot's height */
#define TL_HEIGHT 340  /* the whole section: heading, plot, axis, legend */

/* <text ...>s</text>, s escaped (a file's text may hold anything). */
static void text(FILE *out, const char *attrs, const char *s)
{
    fprintf(out, "<text %s>", attrs);
    text_write(out, s, TEXT_XML);
    fputs("</text>\n", out);
}

static double scale(uint64_t bytes, uint64_t full, double width)
{
    return full ? (double)bytes * width / (double)full : 0;
}

/* A stacked bar at (x, y) of height h, `full` bytes filling `width`. */
static void bar(FILE *out, const vl_breakdown *b, uint64_t full, double x, double y, double width,
                double h)
{
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        double w = scale(b->bytes[c], full, width);
        if (w > 0)
            fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    x, y, w, h, palette[c]);
        x += w;
    }
}

static void marker(FILE *out, uint64_t capacity, uint64_t full, double x0, double width, double y,
                   double h)
{
    double x = x0 + scale(capacity, full, width);
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#c00\" "
                 "stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\n",
            x, y - 4, x, y + h + 4);
}

/* The rows of small bars on one scale under the legend: the ZeRO stages or the phases. */
typedef struct comparison {
    const char *heading;
    const char *const *labels;
    vl_breakdown bars[REPORT_ZERO_STAGES];
    int n;
} comparison;

static void comparison_of(const report *r, comparison *c)
{
    static const char *const stages[REPORT_ZERO_STAGES] = {"ZeRO-0", "ZeRO-1", "ZeRO-2",
                                                           "ZeRO-3"};
    c->n = 0;
    if (r->settings->mode == VL_MODE_INFER) {
        c->heading = "The two phases of inference, each with its own peak";
        c->labels = report_phase_names;
        c->n = report_phases(r->breakdown, r->settings, c->bars);
    } else if (r->zero) {
        c->heading = "The same run at ZeRO 0-3 (ZeRO paper, Fig. 1)";
        c->labels = stages;
        for (c->n = 0; c->n < REPORT_ZERO_STAGES; c->n++)
            c->bars[c->n] = r->zero[c->n];
    }
}

static void write_rows(FILE *out, const report *r, const comparison *c)
{
    char attrs[64], v[32];
    const uint64_t capacity = vl_gpu_capacity(r->gpu);
    uint64_t full = report_bar_full(capacity, c->bars, (size_t)c->n);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%d\" font-weight=\"bold\"", LEFT, ROWS_TOP);
    text(out, attrs, c->heading);
    for (int i = 0; i < c->n; i++) {
        double y = ROWS_TOP + 12 + 30 * i;
        snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\"", LEFT, y + 16);
        text(out, attrs, c->labels[i]);
        bar(out, &c->bars[i], full, LEFT + 70, y, BAR_W - 190, 22);
        marker(out, capacity, full, LEFT + 70, BAR_W - 190, y, 22);
        snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\"", W - LEFT - 110, y + 16);
        text(out, attrs, vl_fmt_bytes(c->bars[i].total, r->units, v, sizeof v));
    }
}

/* The step from y on: one stacked area a band, its top at each column's centre; the capacity
 * as a dashed line; the peak as a line down its column and a dot on its top, named. */
static void write_timeline(FILE *out, const report *r, double y)
{
    const vl_timeline *t = r->timeline;
    const vl_peak *p = &t->peak;
    report_tl_column cols[TL_COLUMNS];
    char attrs[128], line[512], v[32], a[32], rs[32], cx[32], paged[256];
    int n = report_tl_columns(t, TL_COLUMNS, cols);
    const uint64_t capacity = vl_gpu_capacity(r->gpu);
    uint64_t full = capacity > p->device ? capacity : p->device;
    double top = y + 44, bottom = top + TL_H, dx = (double)BAR_W / TL_COLUMNS;
    snprintf(line, sizeof line, "One %s, event by event (%zu events): the peak in %s",
             r->settings->mode == VL_MODE_INFER ? "serving run" : "training step", t->n_events,
             p->phase);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\" font-weight=\"bold\"", LEFT, y);
    text(out, attrs, line);
    report_peak_extras(p, r->units, paged, sizeof paged);
    snprintf(line, sizeof line, "at the peak: %s on the GPU = %s reserved + %s context%s; %s "
             "allocated", vl_fmt_bytes(p->device, r->units, v, sizeof v),
             vl_fmt_bytes(p->reserved, r->units, rs, sizeof rs),
             vl_fmt_bytes(p->context, r->units, cx, sizeof cx), paged,
             vl_fmt_bytes(p->allocated, r->units, a, sizeof a));
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\" fill=\"#555\"", LEFT, y + 18);
    text(out, attrs, line);
    bool used[REPORT_TL_BANDS] = {false};
    for (int c = 0; c < n; c++)
        for (int b = 0; b < REPORT_TL_BANDS; b++)
            used[b] |= cols[c].band[b] > 0;
    double below[TL_COLUMNS] = {0}; /* bytes under the band being drawn, per column */
    for (int b = 0; b < REPORT_TL_BANDS; b++) {
        if (!used[b])
            continue;
        fprintf(out, "<polygon fill=\"%s\" points=\"", tl_palette[b]);
        for (int c = 0; c < n; c++)
            fprintf(out, "%.0f,%.1f ", LEFT + dx * (c + 0.5),
                    bottom - scale(cols[c].band[b], full, TL_H) - below[c]);
        for (int c = n; c-- > 0;)
            fprintf(out, "%.0f,%.1f%s", LEFT + dx * (c + 0.5), bottom - below[c], c ? " " : "");
        fprintf(out, "\"><title>%s</title></polygon>\n", report_tl_band_labels[b]);
        for (int c = 0; c < n; c++)
            below[c] += scale(cols[c].band[b], full, TL_H);
    }
    double cap = bottom - scale(capacity, full, TL_H);
    fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00\" "
                 "stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\n", LEFT, cap, W - LEFT, cap);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"end\"",
             W - LEFT, cap + 16);
    snprintf(line, sizeof line, "%s: %s", r->gpu->display,
             vl_fmt_bytes(capacity, r->units, v, sizeof v));
    text(out, attrs, line);
    int pc = report_tl_column_of(t, n, p->event);
    /* the dot on what the process holds at the peak, under the allocator's cache */
    double px = LEFT + dx * (pc + 0.5);
    double py = bottom - scale(cols[pc].top - cols[pc].band[REPORT_TL_CACHED], full, TL_H);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                 "stroke-width=\"1\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#000\"/>\n",
            px, top, px, bottom, px, py);
    snprintf(attrs, sizeof attrs, "x=\"%.1f\" y=\"%.0f\" text-anchor=\"%s\"",
             px + (px > W / 2 ? -6 : 6), top - 6, px > W / 2 ? "end" : "start");
    snprintf(line, sizeof line, "peak: %s", vl_fmt_bytes(p->device, r->units, v, sizeof v));
    text(out, attrs, line);
    fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\"/>\n",
            LEFT, bottom, W - LEFT, bottom);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\" fill=\"#555\"", LEFT, bottom + 16);
    text(out, attrs, "time: the step's events in order; each column its largest moment");
    /* the legend: the bands drawn, four a row */
    int k = 0;
    for (int b = 0; b < REPORT_TL_BANDS; b++) {
        if (!used[b])
            continue;
        double lx = LEFT + 190 * (k % 4), ly = bottom + 30 + 20 * (k / 4);
        fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
                lx, ly, tl_palette[b]);
        snprintf(attrs, sizeof attrs, "x=\"%.0f\" y=\"%.0f\" font-size=\"12\"", lx + 20, ly + 12);
        text(out, attrs, report_tl_band_labels[b]);
        k++;
    }
}

void report_write_svg(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    const vl_gpu *g = r->gpu;
    const uint64_t capacity = vl_gpu_capacity(g);
    comparison rows;
    comparison_of(r, &rows);
    const int bars_h = rows.n ? ROWS_TOP + 20 + 30 * rows.n : 320;
    const int height = bars_h + (r->timeline && r->timeline->n_events ? TL_HEIGHT : 0);
    char v[32], line[512], attrs[96];

    uint64_t full = report_bar_full(capacity, b, 1);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"14\">\n",
            W, height, W, height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    snprintf(line, sizeof line, "%s: %s memory per GPU", r->model->display, report_mode(r));
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"26\" font-size=\"18\" font-weight=\"bold\"", LEFT);
    text(out, attrs, line);
    report_brief_settings(r, line, sizeof line);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"46\" fill=\"#555\"", LEFT);
    text(out, attrs, line);

    bar(out, b, full, LEFT, 62, BAR_W, 44);
    marker(out, capacity, full, LEFT, BAR_W, 62, 44);
    snprintf(attrs, sizeof attrs, "x=\"%.2f\" y=\"128\" fill=\"#c00\" text-anchor=\"end\"",
             LEFT + scale(capacity, full, BAR_W));
    snprintf(line, sizeof line, "%s: %s", g->display, vl_fmt_bytes(capacity, r->units, v, sizeof v));
    text(out, attrs, line);

    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        double y = 146 + 20 * c;
        fprintf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", LEFT,
                y, palette[c]);
        fprintf(out, "<text x=\"%d\" y=\"%.0f\">%s: %s (%.1f%%)</text>\n", LEFT + 22, y + 12,
                vl_component_labels[c], vl_fmt_bytes(b->bytes[c], r->units, v, sizeof v),
                report_share(b->bytes[c], b->total));
    }
    char verdict[256];
    report_verdict(r, verdict, sizeof verdict);
    snprintf(line, sizeof line, "total %s per GPU: %s", vl_fmt_bytes(b->total, r->units, v, sizeof v),
             verdict);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"300\" font-weight=\"bold\" fill=\"%s\"", LEFT,
             report_fits(r) ? "#2a7a2a" : "#c00");
    text(out, attrs, line);
    if (rows.n)
        write_rows(out, r, &rows);
    if (r->timeline && r->timeline->n_events)
        write_timeline(out, r, bars_h + 20);
    fprintf(out, "</svg>\n");
}
