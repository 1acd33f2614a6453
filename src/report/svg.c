/* svg.c: the stacked memory bars as an SVG picture, for slides and handouts: the run, then
 * the same run at ZeRO 0-3 (training) or its two phases (inference). */
#include <inttypes.h>
#include <stdio.h>

#include "core/units.h"
#include "report.h"

/* One colour per component, in vl_component order; readable on white and on projectors. */
static const char *const palette[VL_N_COMPONENTS] = {"#3b6fd4", "#27a8c4", "#b04fc4", "#e0a526",
                                                     "#3fa34d", "#d6453d", "#8a8f98"};

#define W 800
#define LEFT 20
#define BAR_W (W - 2 * LEFT)
#define ROWS_TOP 330 /* the comparison rows under the legend */

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
    uint64_t full = report_bar_full(r->gpu->memory, c->bars, (size_t)c->n);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%d\" font-weight=\"bold\"", LEFT, ROWS_TOP);
    text(out, attrs, c->heading);
    for (int i = 0; i < c->n; i++) {
        double y = ROWS_TOP + 12 + 30 * i;
        snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\"", LEFT, y + 16);
        text(out, attrs, c->labels[i]);
        bar(out, &c->bars[i], full, LEFT + 70, y, BAR_W - 190, 22);
        marker(out, r->gpu->memory, full, LEFT + 70, BAR_W - 190, y, 22);
        snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"%.0f\"", W - LEFT - 110, y + 16);
        text(out, attrs, vl_fmt_bytes(c->bars[i].total, r->units, v, sizeof v));
    }
}

void report_write_svg(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    const vl_gpu *g = r->gpu;
    comparison rows;
    comparison_of(r, &rows);
    const int height = rows.n ? ROWS_TOP + 20 + 30 * rows.n : 320;
    char v[32], line[512], attrs[96];

    uint64_t full = report_bar_full(g->memory, b, 1);
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
    marker(out, g->memory, full, LEFT, BAR_W, 62, 44);
    snprintf(attrs, sizeof attrs, "x=\"%.2f\" y=\"128\" fill=\"#c00\" text-anchor=\"end\"",
             LEFT + scale(g->memory, full, BAR_W));
    snprintf(line, sizeof line, "%s: %s", g->display, vl_fmt_bytes(g->memory, r->units, v, sizeof v));
    text(out, attrs, line);

    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        double y = 146 + 20 * c;
        fprintf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", LEFT,
                y, palette[c]);
        fprintf(out, "<text x=\"%d\" y=\"%.0f\">%s: %s (%.1f%%)</text>\n", LEFT + 22, y + 12,
                vl_component_labels[c], vl_fmt_bytes(b->bytes[c], r->units, v, sizeof v),
                report_share(b->bytes[c], b->total));
    }
    char verdict[96];
    report_verdict(r, verdict, sizeof verdict);
    snprintf(line, sizeof line, "total %s per GPU: %s", vl_fmt_bytes(b->total, r->units, v, sizeof v),
             verdict);
    snprintf(attrs, sizeof attrs, "x=\"%d\" y=\"300\" font-weight=\"bold\" fill=\"%s\"", LEFT,
             report_fits(r) ? "#2a7a2a" : "#c00");
    text(out, attrs, line);
    if (rows.n)
        write_rows(out, r, &rows);
    fprintf(out, "</svg>\n");
}
