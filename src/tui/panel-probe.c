/* panel-probe.c: the Probe panel (HACKING §5): what fp16, bf16 and fp8 make of a gradient
 * sample at a loss scale, GradScaler's trace, lost updates and long sums: the numbers
 * `vramlab probe` prints for the same options. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "core/units.h"
#include "panel.h"

/* The colour of what format f makes of values in [2^b, 2^(b+1)): flushed to zero,
 * subnormal, normal, or overflowing; and a monochrome glyph for it. */
typedef enum { FATE_FLUSH, FATE_SUB, FATE_NORMAL, FATE_OVER } fate;

static fate fate_of(vl_format f, int b)
{
    const vl_format_info *t = &vl_formats[f];
    double lo = ldexp(1.0, b), hi = ldexp(1.0, b + 1);
    if (hi <= t->min_subnormal / 2) /* the whole octave rounds to zero */
        return FATE_FLUSH;
    if (lo >= t->max * 2)
        return FATE_OVER;
    return lo < t->min_normal ? FATE_SUB : FATE_NORMAL;
}

static ui_color fate_color(fate x)
{
    static const ui_color c[] = {C_BAD, C_KEY, C_OK, (ui_color)(C_SEGMENT + VL_C_OPTIMIZER)};
    return c[x];
}

static const char *fate_glyph(const ui *u, fate x)
{
    static const char *const utf8[] = {"\u00b7", "\u2592", "\u2588", "\u2591"};
    static const char *const ascii[] = {".", "+", "#", "^"};
    return (u->g == theme_glyphs(true) ? utf8 : ascii)[x];
}

static const vl_format shown[] = {VL_FMT_F16, VL_FMT_BF16, VL_FMT_E4M3, VL_FMT_E5M2};
#define N_SHOWN 4

static double pct(uint64_t part, uint64_t all)
{
    return all ? 100.0 * (double)part / (double)all : 0;
}

/* The Probe panel's rows in a region `h` rows high.  Always the heading, the loss scale's
 * line and the counts (its heading and a row a format), and the histogram's axis under its
 * bars; the rest goes, the most important first, to 3 rows of bars, the two results lines,
 * the formats' fate rows, 4 rows more of bars, then the GradScaler trace (3 rows and its
 * line), and what is left to more bars: so a short region gives up the trace first, then
 * bars down to 7 rows, the fate rows, the results, and bars down to 3. */
typedef struct probe_rows {
    int bars;
    bool results, fates, scaler;
} probe_rows;

#define MIN_BARS 3
#define MORE_BARS 4
#define SCALER_H 4
#define RESULTS_H 2

static probe_rows probe_rows_of(int h)
{
    probe_rows p = {.bars = MIN_BARS};
    int left = h - (1 + 1 + 1 + N_SHOWN) - 1 - MIN_BARS;
    if ((p.results = left >= RESULTS_H))
        left -= RESULTS_H;
    if ((p.fates = left >= N_SHOWN))
        left -= N_SHOWN;
    int more = left < MORE_BARS ? left : MORE_BARS;
    p.bars += more;
    left -= more;
    if ((p.scaler = left >= SCALER_H))
        left -= SCALER_H;
    p.bars += left > 0 ? left : 0;
    return p;
}

static void draw_histogram(const ui *u, int top, int h, bool fates, int x0, int w, int lo)
{
    const vl_underflow *un = &u->lab.under;
    const uint64_t *hist = un->runs[1].counts.hist;
    char line[64];
    uint64_t col[256] = {0}, most = 1;
    int n = w < 256 ? w : 256;
    /* column i is the octave lo + i; the first also takes everything below */
    for (int b = 0; b < VL_HIST_BINS; b++) {
        int i = b + VL_HIST_MIN - lo;
        i = i < 0 ? 0 : i;
        if (i < n)
            col[i] += hist[b];
    }
    for (int i = 0; i < n; i++)
        if (col[i] > most)
            most = col[i];
    for (int i = 0; i < n; i++) {
        int bar = (int)((double)col[i] * h / (double)most + 0.999);
        fate x = fate_of(VL_FMT_F16, lo + i);
        attrset(theme_attr(fate_color(x)));
        /* without colour the fate's own glyph carries it */
        for (int r = 0; r < bar && r < h; r++)
            mvaddstr(top + h - 1 - r, x0 + i,
                     theme_color() ? u->g->segment[VL_C_WEIGHTS] : fate_glyph(u, x));
    }
    attrset(theme_attr(C_NORMAL));
    /* the axis: a tick every 8 octaves */
    for (int i = 0; i < n; i++) {
        int b = lo + i;
        if (b % 8 == 0 && i + 6 < n) {
            snprintf(line, sizeof line, "2^%d", b);
            draw_text(top + h, x0 + i, (int)strlen(line), C_DIM, line);
        }
    }
    /* each format's fate per octave */
    for (int k = 0; fates && k < N_SHOWN; k++) {
        int y = top + h + 1 + k;
        draw_text(y, 1, x0 - 1, C_NORMAL, vl_format_names[shown[k]]);
        for (int i = 0; i < n; i++) {
            fate x = fate_of(shown[k], lo + i);
            attrset(theme_attr(fate_color(x)));
            mvaddstr(y, x0 + i, fate_glyph(u, x));
        }
    }
    attrset(theme_attr(C_NORMAL));
}

static void draw_counts(const ui *u, int y, int w)
{
    const vl_underflow *un = &u->lab.under;
    char line[512], f[64], sub[64], over[64], cells[4][128];
    /* of the nonzero values, unscaled -> at the scale; the exact zeros stay zeros */
    snprintf(f, sizeof f, _("flushed x1 -> x2^%d"), u->lab.log2_scale);
    snprintf(sub, sizeof sub, _("subnormal x1 -> x2^%d"), u->lab.log2_scale);
    snprintf(over, sizeof over, _("overflow x1 -> x2^%d"), u->lab.log2_scale);
    uint64_t zeros = un->runs[0].counts.cls[VL_FMT_F32][VL_CLS_ZERO];
    snprintf(line, sizeof line, _("%s %s %s %s (of the nonzero: %.0f%% of the sample is 0)"),
             draw_pad(cells[0], sizeof cells[0], _("cast to"), -9),
             draw_pad(cells[1], sizeof cells[1], f, -25),
             draw_pad(cells[2], sizeof cells[2], sub, -25),
             draw_pad(cells[3], sizeof cells[3], over, -22), pct(zeros, un->n));
    draw_text(y, 1, w, C_HEADING, line);
    for (int k = 0; k < N_SHOWN; k++) {
        const uint64_t *a = un->runs[0].counts.cls[shown[k]], *b = un->runs[1].counts.cls[shown[k]];
        uint64_t nz = un->n - a[VL_CLS_ZERO];
        snprintf(line, sizeof line, "%-9s %9.1f%% -> %6.1f%%      %9.1f%% -> %6.1f%%      "
                                    "%9.3f%% -> %6.3f%%",
                 vl_format_names[shown[k]], pct(a[VL_CLS_FLUSHED], nz), pct(b[VL_CLS_FLUSHED], nz),
                 pct(a[VL_CLS_SUBNORMAL], nz), pct(b[VL_CLS_SUBNORMAL], nz),
                 pct(a[VL_CLS_INF] + a[VL_CLS_SATURATED] + a[VL_CLS_NAN], nz),
                 pct(b[VL_CLS_INF] + b[VL_CLS_SATURATED] + b[VL_CLS_NAN], nz));
        draw_text(y + 1 + k, 1, w, C_NORMAL, line);
    }
}

/* GradScaler's scale, step by step: log2 of it on `h` rows; x marks skipped steps. */
static void draw_scaler(const ui *u, int y, int h, int w)
{
    const vl_scaler_trace *t = u->lab.trace;
    char line[256];
    float lo = t->scale[0], hi = t->scale[0];
    for (size_t i = 0; i < t->steps; i++) {
        lo = t->scale[i] < lo ? t->scale[i] : lo;
        hi = t->scale[i] > hi ? t->scale[i] : hi;
    }
    double l0 = log2(lo), span = log2(hi) - l0 > 0 ? log2(hi) - l0 : 1;
    int x0 = 12, n = w - x0 - 1;
    snprintf(line, sizeof line, "2^%.0f", log2(hi));
    draw_text(y, 1, x0 - 2, C_DIM, line);
    snprintf(line, sizeof line, "2^%.0f", l0);
    draw_text(y + h - 1, 1, x0 - 2, C_DIM, line);
    for (int c = 0; c < n; c++) {
        size_t a = t->steps * (size_t)c / (size_t)n, b = t->steps * (size_t)(c + 1) / (size_t)n;
        bool skipped = false;
        for (size_t i = a; i < b; i++)
            skipped |= t->skipped[i] != 0;
        int row = (int)lround((log2(t->scale[a]) - l0) / span * (h - 1));
        attrset(theme_attr(skipped ? C_BAD : C_OK));
        mvaddstr(y + h - 1 - row, x0 + c, skipped ? "x" : u->g->knob);
    }
    attrset(theme_attr(C_NORMAL));
    snprintf(line, sizeof line,
             _("GradScaler over %zu steps (x2 per 2000 clean, x0.5 on overflow): %zu skipped (x), "
               "%zu growths, final scale %g"),
             t->steps, t->n_skipped, t->n_growths, (double)t->final.scale);
    draw_text(y + h, 1, w - 1, C_NORMAL, line);
}

static void draw_results(const ui *u, int y, int w)
{
    const vl_update *up = &u->lab.update;
    const vl_accumulate *ac = &u->lab.accum;
    char line[512];
    snprintf(line, sizeof line,
             _("w - u, w = %g, u = %g, %u times: fp32 %.6g, bf16 %.6g (%u lost), fp16 %.6g "
               "(%u lost), fp16 copy of an fp32 master %.6g"),
             (double)up->weight, (double)up->update, up->steps,
             (double)up->repeat.final[VL_FMT_F32], (double)up->repeat.final[VL_FMT_BF16],
             up->repeat.lost[VL_FMT_BF16], (double)up->repeat.final[VL_FMT_F16],
             up->repeat.lost[VL_FMT_F16], (double)up->mixed[VL_FMT_F16]);
    draw_text(y, 1, w - 1, C_NORMAL, line);
    snprintf(line, sizeof line,
             _("sum of %zu values in [0, 1): fp16 %g (stuck from step %u), fp32 %g, exact %.6g"),
             ac->n, (double)ac->acc.sum16, ac->acc.sum16_last, (double)ac->acc.sum32,
             ac->exact_sum);
    draw_text(y + 1, 1, w - 1, C_NORMAL, line);
}

static void probe_draw(const ui *u)
{
    rect r = u->lay.panel;
    int w = r.w, y = r.y;
    probe_rows rows = probe_rows_of(r.h);
    char line[600];
    snprintf(line, sizeof line,
             _(" gradients as Micikevicius et al. 2017 Fig. 3 (%u values) | backend: %s (%s)"),
             LAB_SAMPLE, vl_backend_name(&u->lab.backend), u->lab.backend_note);
    draw_text(y, 0, w, C_HEADING, line);
    int x0 = 10, hw = w - x0 - 1, hi = 20;
    draw_histogram(u, y + 1, rows.bars, rows.fates, x0, hw, hi - hw);
    y += 1 + rows.bars + 1 + (rows.fates ? N_SHOWN : 0);
    /* the glyphs' legend in both forms; the longer where it fits */
    char legend[128];
    snprintf(legend, sizeof legend, _("%s flushed %s subnormal %s normal %s overflow"),
             fate_glyph(u, FATE_FLUSH), fate_glyph(u, FATE_SUB), fate_glyph(u, FATE_NORMAL),
             fate_glyph(u, FATE_OVER));
    snprintf(line, sizeof line,
             _(" loss scale 2^%d = %.0f (Left/Right); bars: |g| x scale by fp16's fate: %s"),
             u->lab.log2_scale, ldexp(1.0, u->lab.log2_scale), legend);
    if (draw_width(line) > w)
        snprintf(line, sizeof line, _(" loss scale 2^%d = %.0f: %s"), u->lab.log2_scale,
                 ldexp(1.0, u->lab.log2_scale), legend);
    draw_text(y, 0, w, C_KEY, line);
    draw_counts(u, y + 1, w);
    y += 1 + 1 + N_SHOWN;
    if (rows.scaler) {
        draw_scaler(u, y, SCALER_H - 1, w);
        y += SCALER_H;
    }
    if (rows.results)
        draw_results(u, y, w);
}

bool panel_lab_enter(ui *u, char *why, size_t len)
{
    return lab_ready(&u->lab, why, len);
}

static int act_scale(ui *u, int steps)
{
    return lab_scale(&u->lab, steps) ? UI_REDRAW : UI_HANDLED;
}

static const binding probe_keys[] = {
    {.keys = "Left/Right", .brief = N_("loss scale /2 or x2"),
     .help = N_("the loss scale /2 or x2"),
     .action = act_scale, .on = {{KEY_LEFT, -1}, {KEY_RIGHT, 1}, {'h', -1}, {'l', 1}}},
    {.keys = "PgUp/PgDn", .brief = N_("x16 or /16"), .help = N_("the loss scale x16 or /16"),
     .action = act_scale, .on = {{KEY_PPAGE, 4}, {KEY_NPAGE, -4}}},
};

/* The wheel moves the loss scale. */
static int probe_mouse(ui *u, const MEVENT *ev)
{
    (void)u;
    return keys_wheel(ev);
}

UI_PANEL(probe) = {
    .name = N_("Probe"),
    PANEL_KEYS(probe_keys),
    .enter = panel_lab_enter,
    .draw = probe_draw,
    .mouse = probe_mouse,
};
