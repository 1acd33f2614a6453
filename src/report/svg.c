/* svg.c: the stacked memory bars as an SVG picture, for slides and handouts. */
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

static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
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

void svg_write(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    const vl_settings *s = r->settings;
    const vl_gpu *g = r->gpu;
    const double zero_top = 330;
    const int height = r->zero ? 470 : 320;
    char v[32], line[512];

    uint64_t full = b->total > g->memory ? b->total : g->memory;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"14\">\n",
            W, height, W, height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(out, "<text x=\"%d\" y=\"26\" font-size=\"18\" font-weight=\"bold\">", LEFT);
    xml_text(out, r->model->display);
    fprintf(out, ": training memory per GPU</text>\n<text x=\"%d\" y=\"46\" fill=\"#555\">", LEFT);
    snprintf(line, sizeof line,
             "%s, %s, ZeRO-%u, %" PRIu64 " GPU%s, micro-batch %" PRIu64 ", sequence %" PRIu64
             ", recompute %s%s",
             vl_precision_names[s->precision], vl_optimizer_names[s->optimizer], s->zero, s->gpus,
             s->gpus == 1 ? "" : "s", s->batch, s->seq, vl_recompute_names[s->recompute],
             s->flash_attn ? ", flash attention" : "");
    xml_text(out, line);
    fprintf(out, "</text>\n");

    bar(out, b, full, LEFT, 62, BAR_W, 44);
    marker(out, g->memory, full, LEFT, BAR_W, 62, 44);
    fprintf(out, "<text x=\"%.2f\" y=\"128\" fill=\"#c00\" text-anchor=\"end\">",
            LEFT + scale(g->memory, full, BAR_W));
    snprintf(line, sizeof line, "%s: %s", g->display, vl_fmt_bytes(g->memory, r->units, v, sizeof v));
    xml_text(out, line);
    fprintf(out, "</text>\n");

    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        double y = 146 + 20 * c;
        fprintf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", LEFT,
                y, palette[c]);
        fprintf(out, "<text x=\"%d\" y=\"%.0f\">%s: %s (%.1f%%)</text>\n", LEFT + 22, y + 12,
                vl_component_labels[c], vl_fmt_bytes(b->bytes[c], r->units, v, sizeof v),
                b->total ? 100.0 * (double)b->bytes[c] / (double)b->total : 0.0);
    }
    bool fits = report_fits(r);
    char d[32];
    snprintf(line, sizeof line, "total %s per GPU: %s %s", vl_fmt_bytes(b->total, r->units, v, sizeof v),
             fits ? "fits, with" : "does not fit: over by",
             vl_fmt_bytes(fits ? g->memory - b->total : b->total - g->memory, r->units, d, sizeof d));
    fprintf(out, "<text x=\"%d\" y=\"300\" font-weight=\"bold\" fill=\"%s\">%s%s</text>\n", LEFT,
            fits ? "#2a7a2a" : "#c00", line, fits ? " to spare" : "");

    if (r->zero) {
        uint64_t zfull = g->memory;
        for (int z = 0; z < 4; z++)
            if (r->zero[z].total > zfull)
                zfull = r->zero[z].total;
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">The same run at ZeRO 0-3 "
                     "(ZeRO paper, Fig. 1)</text>\n",
                LEFT, zero_top);
        for (int z = 0; z < 4; z++) {
            double y = zero_top + 12 + 30 * z;
            fprintf(out, "<text x=\"%d\" y=\"%.0f\">ZeRO-%d</text>\n", LEFT, y + 16, z);
            bar(out, &r->zero[z], zfull, LEFT + 70, y, BAR_W - 190, 22);
            marker(out, g->memory, zfull, LEFT + 70, BAR_W - 190, y, 22);
            fprintf(out, "<text x=\"%d\" y=\"%.0f\">%s</text>\n", W - LEFT - 110, y + 16,
                    vl_fmt_bytes(r->zero[z].total, r->units, v, sizeof v));
        }
    }
    fprintf(out, "</svg>\n");
}
