/* panel-train.c: the Train panel (HACKING §5): the regimes of `vramlab probe train` trained
 * live, a slice of steps between frames (train-view.h): their loss curves together on a log
 * scale, the fraction of the gradient values flushed to zero under them, and a legend with a
 * glyph per regime, so the curves read without colour too. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "panel.h"

/* Each regime's mark (a mnemonic letter) and colour. */
static const char regime_glyph[VL_N_REGIMES] = {
    [VL_REGIME_FP32] = '*', [VL_REGIME_FP16] = 'x', [VL_REGIME_FP16_STATIC] = 's',
    [VL_REGIME_FP16_DYNAMIC] = 'd', [VL_REGIME_BF16] = 'b', [VL_REGIME_BF16_PURE] = 'p',
    [VL_REGIME_FP8] = '8',
};
static const ui_color regime_color[VL_N_REGIMES] = { /* the memory bar's seven colours */
    [VL_REGIME_FP32] = C_SEGMENT + VL_C_KV_CACHE,         /* green */
    [VL_REGIME_FP16] = C_SEGMENT + VL_C_ZERO3_LIVE,       /* red */
    [VL_REGIME_FP16_STATIC] = C_SEGMENT + VL_C_GRADIENTS, /* cyan */
    [VL_REGIME_FP16_DYNAMIC] = C_SEGMENT + VL_C_WEIGHTS,  /* blue */
    [VL_REGIME_BF16] = C_SEGMENT + VL_C_OPTIMIZER,        /* magenta */
    [VL_REGIME_BF16_PURE] = C_SEGMENT + VL_C_ACTIVATIONS, /* yellow */
    [VL_REGIME_FP8] = C_SEGMENT + VL_C_OVERHEAD,          /* white */
};

#define LABEL_W 8     /* the y axis' labels and the axis */
#define LEGEND_W 38   /* the legend, right of the plots */
#define PLOT_MAX_W 512
#define MARK_EVERY 8  /* a regime's glyph on its curve every 8 columns, each at its own */

static bool utf8(const ui *u)
{
    return u->g == theme_glyphs(true);
}

/* One plot: rows [y, y + h) and columns [x, x + w) of cells, every run's series over the
 * steps, a dot column (two a cell in braille, one in ASCII) the mean of its steps done. */
typedef struct plot {
    int y, x, h, w;
    const float *(*series)(const vl_train_run *r);
    bool log;         /* log2 of the values, else linear */
    double top, bottom; /* the values (log2 with log) at the first and last dot row */
} plot;

static const float *loss_of(const vl_train_run *r)
{
    return r->loss;
}

static const float *flushed_of(const vl_train_run *r)
{
    return r->flushed;
}

/* A point averages at least one pass over the rows: the micro-batches differ in loss, and
 * the curve should show the training, not which batch came last. */
#define PASS (VL_TRAIN_ROWS / VL_TRAIN_BATCH)

/* The mean of run r's series over the steps up to the end of dot column k of n (at least
 * PASS of them): false when none of the column's steps is done. */
static bool column_value(const plot *p, const vl_train_run *r, int k, int n, double *v)
{
    uint32_t a = (uint32_t)((uint64_t)k * r->steps / (uint32_t)n);
    uint32_t b = (uint32_t)((uint64_t)(k + 1) * r->steps / (uint32_t)n);
    b = b > a ? b : a + 1;
    b = b < r->done ? b : r->done;
    if (a >= b)
        return false;
    a = b - a >= PASS ? a : b > PASS ? b - PASS : 0;
    double sum = 0;
    for (uint32_t i = a; i < b; i++)
        sum += p->series(r)[i];
    *v = sum / (b - a);
    if (p->log)
        *v = log2(*v > 0 ? *v : 1e-30);
    return true;
}

/* Rounded outward to whole powers of two, the range of every loss shown so far. */
static void log_range(const train_view *t, plot *p, int n)
{
    double lo = INFINITY, hi = -INFINITY, v;
    for (int g = 0; g < VL_N_REGIMES; g++)
        for (int k = 0; t->runs[g] && k < n; k++)
            if (column_value(p, t->runs[g], k, n, &v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
    if (lo > hi) { /* nothing yet: ln 4, four classes at chance, is in the middle */
        lo = -4;
        hi = 1;
    }
    p->top = ceil(hi);
    p->bottom = floor(lo) < p->top ? floor(lo) : p->top - 1;
}

static int dot_row(const plot *p, double v, int rows)
{
    double f = (p->top - v) / (p->top - p->bottom);
    int y = (int)lround(f * (rows - 1));
    return y < 0 ? 0 : y >= rows ? rows - 1 : y;
}

/* The braille cell of dots `mask` (bit dy of column 0 and dy + 4 of column 1). */
static void braille(char out[4], unsigned mask)
{
    static const unsigned bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    unsigned m = 0;
    for (int dx = 0; dx < 2; dx++)
        for (int dy = 0; dy < 4; dy++)
            if (mask >> (dx * 4 + dy) & 1)
                m |= bit[dx][dy];
    unsigned c = 0x2800 + m;
    out[0] = (char)(0xe0 | c >> 12);
    out[1] = (char)(0x80 | (c >> 6 & 0x3f));
    out[2] = (char)(0x80 | (c & 0x3f));
    out[3] = '\0';
}

/* Every run's curve, fp32 last (on top).  In braille each point is joined to the one
 * before; the cell takes the colour of the last run in it, and each run's glyph marks its
 * curve every MARK_EVERY columns. */
static void draw_curves(const ui *u, const plot *p)
{
    const train_view *t = &u->train;
    int sub = utf8(u) ? 2 : 1, rows_per = utf8(u) ? 4 : 1;
    int w = p->w < PLOT_MAX_W ? p->w : PLOT_MAX_W, n = w * sub, rows = p->h * rows_per;
    unsigned char mask[PLOT_MAX_W];
    signed char owner[PLOT_MAX_W];
    int dots[VL_N_REGIMES][2 * PLOT_MAX_W];
    for (int g = 0; g < VL_N_REGIMES; g++)
        for (int k = 0; k < n; k++) {
            double v;
            dots[g][k] = t->runs[g] && column_value(p, t->runs[g], k, n, &v)
                             ? dot_row(p, v, rows) : -1;
        }
    for (int row = 0; row < p->h; row++) {
        memset(mask, 0, sizeof mask);
        memset(owner, -1, sizeof owner);
        for (int g = VL_N_REGIMES; g-- > 0;)
            for (int k = 0; k < n; k++) {
                int d = dots[g][k];
                if (d < 0)
                    continue;
                int from = d, to = d; /* down or up to the point before */
                if (sub == 2 && k > 0 && dots[g][k - 1] >= 0) {
                    int prev = dots[g][k - 1];
                    from = prev < d ? prev + 1 : d;
                    to = prev > d ? prev - 1 : d;
                }
                for (int y = from; y <= to; y++)
                    if (y / rows_per == row) {
                        mask[k / sub] |= (unsigned char)(1u << ((k % sub) * 4 + y % rows_per));
                        owner[k / sub] = (signed char)g;
                    }
            }
        for (int c = 0; c < w; c++) {
            if (owner[c] < 0)
                continue;
            int g = owner[c];
            bool mark = sub == 1; /* in ASCII every point is its run's glyph */
            char cell[4] = {regime_glyph[g], '\0'};
            /* a mark: the glyph of a run whose point is in this cell, at that run's columns */
            for (int m = 0; !mark && m < VL_N_REGIMES; m++)
                if ((c + m) % MARK_EVERY == 0 && dots[m][c * 2] >= 0 &&
                    dots[m][c * 2] / rows_per == row) {
                    g = m;
                    mark = true;
                }
            if (mark)
                cell[0] = regime_glyph[g];
            else
                braille(cell, mask[c]);
            attrset(theme_attr(regime_color[g]));
            mvaddstr(p->y + row, p->x + c, cell);
        }
    }
    attrset(theme_attr(C_NORMAL));
}

/* The y axis: a label at each whole power of two (log) or at 0, 50 and 100% (linear) that
 * has room, and the axis line. */
static void draw_axis(const ui *u, const plot *p)
{
    int rows_per = utf8(u) ? 4 : 1, rows = p->h * rows_per, last = -2;
    char label[16];
    for (int r = 0; r < p->h; r++)
        draw_text(p->y + r, p->x - 1, 1, C_DIM, u->g->sep);
    double step = p->log ? 1 : 0.5;
    for (double v = p->top; v >= p->bottom - 1e-9; v -= step) {
        int r = dot_row(p, v, rows) / rows_per;
        if (r < last + 2)
            continue;
        if (p->log)
            snprintf(label, sizeof label, "%7.3g", ldexp(1.0, (int)v));
        else
            snprintf(label, sizeof label, "%6.0f%%", 100 * v);
        draw_text(p->y + r, 0, LABEL_W - 1, C_DIM, label);
        last = r;
    }
}

/* The steps under the loss plot: 0, then every 50 or 100 as room allows. */
static void draw_steps(const ui *u, int y, int x, int w, uint32_t steps)
{
    char label[16];
    uint32_t every = w >= 60 ? 50 : 100;
    (void)u;
    draw_text(y, 1, LABEL_W - 2, C_DIM, _("step"));
    for (uint32_t s = 0; s <= steps; s += every) {
        int n = snprintf(label, sizeof label, "%u", s);
        int at = x + (int)((uint64_t)s * (uint32_t)(w - 1) / steps) - n / 2;
        at = at < x ? x : at + n > x + w ? x + w - n : at;
        draw_text(y, at, n, C_DIM, label);
    }
}

/* Regime, the last step's loss (once done, the loss over every row) and flushed fraction,
 * and the accuracy once done; then the two scaled regimes' scales. */
static void draw_legend(const ui *u, int y, int x, int last)
{
    const train_view *t = &u->train;
    char line[256], cells[4][64];
    snprintf(line, sizeof line, "  %s %s %s %s",
             draw_pad(cells[0], sizeof cells[0], _("regime"), -12),
             draw_pad(cells[1], sizeof cells[1], _("loss"), 7),
             draw_pad(cells[2], sizeof cells[2], _("flushed"), 7),
             draw_pad(cells[3], sizeof cells[3], _("acc"), 6));
    draw_text(y++, x, LEGEND_W, C_HEADING, line);
    for (int g = 0; g < VL_N_REGIMES && y <= last; g++, y++) {
        const vl_train_run *r = t->runs[g];
        char glyph[2] = {regime_glyph[g], '\0'}, loss[16] = "", flushed[16] = "", acc[16] = "";
        bool done = r->done == r->steps;
        if (r->done) {
            snprintf(loss, sizeof loss, "%.4f", done ? r->final_loss : (double)r->loss[r->done - 1]);
            snprintf(flushed, sizeof flushed, "%.1f%%", 100.0 * r->flushed[r->done - 1]);
        }
        if (done)
            snprintf(acc, sizeof acc, "%.1f%%", 100.0 * r->accuracy);
        draw_text(y, x, 1, regime_color[g], glyph);
        snprintf(line, sizeof line, "%-12s %7s %7s %6s", r->regime->name, loss, flushed, acc);
        draw_text(y, x + 2, LEGEND_W - 2, C_NORMAL, line);
    }
    const char *notes[] = {N_("loss: the last step's; once done,"), N_("over every row")};
    for (size_t i = 0; i < 2 && y <= last; i++)
        draw_text(y++, x + 2, LEGEND_W - 2, C_DIM, _(notes[i]));
    y++;
    const vl_train_run *st = t->runs[VL_REGIME_FP16_STATIC];
    const vl_train_run *dy = t->runs[VL_REGIME_FP16_DYNAMIC];
    if (y + 3 > last)
        return;
    snprintf(line, sizeof line, _("fp16-static: loss scale 2^%d"), t->log2_scale);
    draw_text(y++, x, LEGEND_W, C_KEY, line);
    snprintf(line, sizeof line, _("  step %u, %u skipped (Left/Right)"), st->done, st->skipped);
    draw_text(y++, x, LEGEND_W, C_KEY, line);
    snprintf(line, sizeof line, _("fp16-dynamic: loss scale %g"),
             dy->done ? (double)dy->scale[dy->done - 1] : (double)t->opts.scaler.init_scale);
    draw_text(y++, x, LEGEND_W, C_NORMAL, line);
    snprintf(line, sizeof line, _("  %u skipped"), dy->skipped);
    draw_text(y, x, LEGEND_W, C_NORMAL, line);
}

/* Appends " | part" to the heading when it fits whole in w columns. */
static void heading_add(char *buf, size_t len, int w, const char *part)
{
    size_t n = strlen(buf);
    if (draw_width(buf) + 3 + draw_width(part) <= w)
        snprintf(buf + n, len - n, "%s%s", n ? " | " : " ", part);
}

static void train_draw(const ui *u)
{
    const train_view *t = &u->train;
    rect r = u->lay.panel;
    int w = r.w, last = r.y + r.h - 1;
    uint32_t steps = t->opts.steps;
    char line[512], part[160], note[400];

    snprintf(line, sizeof line, _(" step %u of %u, %s"), train_view_step(t), steps,
             t->paused ? _("paused (Space)") : train_view_done(t) ? _("done") : _("running"));
    heading_add(line, sizeof line, w, _("loss over the last pass, log scale"));
    snprintf(part, sizeof part, _("%d-%d-%d ReLU network, Adam, lr %g, seed %" PRIu64),
             VL_TRAIN_IN, VL_TRAIN_HIDDEN, VL_TRAIN_CLASSES, (double)t->opts.lr, t->opts.seed);
    heading_add(line, sizeof line, w, part);
    draw_text(r.y, 0, w, C_HEADING, line);

    /* the rows under the heading: the loss plot, its steps, the flushed plot's caption and
     * the plot, two rows for the backend.  A short region takes its rows from the loss plot
     * first, the flushed plot keeping 3; the legend ends with the flushed plot, giving up the
     * loss scales' lines first, then its notes, never the regimes */
    int rest = last - r.y - 4;
    int h2 = rest / 4 < 3 ? 3 : rest / 4 > 10 ? 10 : rest / 4;
    int pw = w - LABEL_W - LEGEND_W - 1;
    plot loss = {.y = r.y + 1, .x = LABEL_W, .h = rest - h2, .w = pw, .series = loss_of, .log = true};
    log_range(t, &loss, (pw < PLOT_MAX_W ? pw : PLOT_MAX_W) * (utf8(u) ? 2 : 1));
    draw_axis(u, &loss);
    draw_curves(u, &loss);
    int y = loss.y + loss.h;
    draw_steps(u, y++, LABEL_W, pw, steps);
    draw_text(y++, 1, LABEL_W + pw, C_DIM, _("gradients flushed to zero"));
    plot flushed = {.y = y, .x = LABEL_W, .h = h2, .w = pw, .series = flushed_of, .top = 1};
    draw_axis(u, &flushed);
    draw_curves(u, &flushed);
    draw_legend(u, r.y + 1, w - LEGEND_W, flushed.y + flushed.h - 1);

    snprintf(line, sizeof line, _("backend: %s (%s)"), vl_backend_name(&t->backend),
             vl_backend_note(&t->backend, note, sizeof note));
    draw_wrap(last - 1, last, 1, w - 2, C_DIM, line);
}

static bool train_enter(ui *u, char *why, size_t len)
{
    return train_view_ready(&u->train, why, len);
}

static int train_tick(ui *u)
{
    return train_view_slice(&u->train) ? UI_REDRAW : UI_HANDLED;
}

static int act_pause(ui *u, int arg)
{
    (void)arg;
    u->train.paused = !u->train.paused;
    return UI_REDRAW;
}

static int act_restart(ui *u, int arg)
{
    (void)arg;
    char why[128];
    if (!train_view_restart(&u->train, why, sizeof why))
        ui_say(u, true, " %s", why);
    return UI_REDRAW;
}

static int act_scale(ui *u, int steps)
{
    char why[128];
    if (train_view_scale(&u->train, steps, why, sizeof why))
        return UI_REDRAW;
    if (why[0])
        ui_say(u, true, " %s", why);
    else
        ui_say(u, false, _(" fp16-static's loss scale stays at 2^%d (2^%d .. 2^%d)"),
               u->train.log2_scale, TRAIN_VIEW_MIN_LOG2_SCALE, TRAIN_VIEW_MAX_LOG2_SCALE);
    return UI_REDRAW;
}

static const binding train_keys[] = {
    {.keys = "Space", .brief = N_("pause"), .help = N_("pause or resume the training"),
     .action = act_pause, .on = {{' '}}},
    {.keys = "r", .brief = N_("restart"), .help = N_("every regime again from step 0"),
     .action = act_restart, .on = {{'r'}}},
    {.keys = "Left/Right", .brief = N_("static scale /2 or x2"),
     .help = N_("fp16-static's loss scale /2 or x2, and that run from step 0"),
     .action = act_scale, .on = {{KEY_LEFT, -1}, {KEY_RIGHT, 1}, {'h', -1}, {'l', 1}}},
};

/* The wheel moves the static loss scale. */
static int train_mouse(ui *u, const MEVENT *ev)
{
    (void)u;
    return keys_wheel(ev);
}

UI_PANEL(train) = {
    .name = N_("Train"),
    PANEL_KEYS(train_keys),
    .enter = train_enter,
    .draw = train_draw,
    .mouse = train_mouse,
    .tick = train_tick,
};
