/* theme.c: one colour table with a monochrome column (after ncdu), two themes. */
#include "theme.h"

typedef struct style {
    short fg, bg;     /* colour theme */
    short hc_fg, hc_bg; /* high contrast: bright on black */
    attr_t attr, hc_attr, mono;
} style;

static const style styles[N_COLORS] = {
    [C_NORMAL] = {-1, -1, COLOR_WHITE, COLOR_BLACK, 0, A_BOLD, 0},
    [C_TITLE] = {COLOR_BLACK, COLOR_CYAN, COLOR_BLACK, COLOR_YELLOW, 0, A_BOLD, A_REVERSE},
    [C_HEADING] = {COLOR_CYAN, -1, COLOR_YELLOW, COLOR_BLACK, A_BOLD, A_BOLD, A_BOLD},
    [C_SELECTED] = {COLOR_BLACK, COLOR_WHITE, COLOR_BLACK, COLOR_WHITE, 0, A_BOLD, A_REVERSE},
    /* light grey, not dark blue: legible on a projector (body text: formulas, footer) */
    [C_DIM] = {COLOR_WHITE, -1, COLOR_WHITE, COLOR_BLACK, 0, 0, A_DIM},
    [C_OK] = {COLOR_GREEN, -1, COLOR_GREEN, COLOR_BLACK, A_BOLD, A_BOLD, A_BOLD},
    [C_BAD] = {COLOR_RED, -1, COLOR_RED, COLOR_BLACK, A_BOLD, A_BOLD, A_BOLD | A_UNDERLINE},
    [C_MARKER] = {COLOR_RED, -1, COLOR_WHITE, COLOR_BLACK, A_BOLD, A_BOLD, A_BOLD},
    [C_KEY] = {COLOR_YELLOW, -1, COLOR_YELLOW, COLOR_BLACK, A_BOLD, A_BOLD, A_BOLD},
    [C_OVERLAY] = {COLOR_WHITE, COLOR_BLUE, COLOR_WHITE, COLOR_BLACK, 0, A_BOLD, A_REVERSE},
    /* monochrome: not reversed inside the reversed bar or box, bold and underlined */
    [C_PICKED] = {COLOR_BLACK, COLOR_WHITE, COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_BOLD,
                  A_BOLD | A_UNDERLINE},
    [C_SEGMENT + VL_C_WEIGHTS] = {COLOR_BLUE, -1, COLOR_BLUE, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_GRADIENTS] = {COLOR_CYAN, -1, COLOR_CYAN, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_OPTIMIZER] = {COLOR_MAGENTA, -1, COLOR_MAGENTA, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_ACTIVATIONS] = {COLOR_YELLOW, -1, COLOR_YELLOW, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_KV_CACHE] = {COLOR_GREEN, -1, COLOR_GREEN, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_ZERO3_LIVE] = {COLOR_RED, -1, COLOR_RED, COLOR_BLACK, 0, A_BOLD, 0},
    [C_SEGMENT + VL_C_OVERHEAD] = {COLOR_WHITE, -1, COLOR_WHITE, COLOR_BLACK, 0, A_BOLD, 0},
};

static bool use_color;
static ui_theme current;

void theme_init(bool color, ui_theme theme)
{
    use_color = color;
    current = theme;
    if (!color)
        return;
    start_color();
    use_default_colors();
    for (int c = 1; c < N_COLORS; c++) {
        const style *s = &styles[c];
        if (theme == THEME_HIGH_CONTRAST)
            init_pair((short)c, s->hc_fg, s->hc_bg);
        else
            init_pair((short)c, s->fg, s->bg);
    }
    if (theme == THEME_HIGH_CONTRAST) {
        init_pair(N_COLORS, COLOR_WHITE, COLOR_BLACK);
        bkgd(COLOR_PAIR(N_COLORS) | A_BOLD);
    } else {
        bkgd(0);
    }
}

bool theme_color(void)
{
    return use_color;
}

attr_t theme_attr(ui_color c)
{
    const style *s = &styles[c];
    if (!use_color)
        return s->mono;
    return (c ? COLOR_PAIR(c) : 0) | (current == THEME_HIGH_CONTRAST ? s->hc_attr : s->attr);
}

const char *theme_segment_fill(const glyphs *g, vl_component c)
{
    return use_color ? " " : g->segment[c];
}

static const glyphs utf8 = {
    .track = "\u2500", .knob = "\u25cf", .left = "\u25c2", .right = "\u25b8", .select = "\u25b6",
    .marker = "\u2503", .sep = "\u2502", .times = "\u00d7", .ellipsis = "\u2026",
    .segment = {"\u2588", "\u2593", "\u2592", "\u2591", "\u259a", "\u259e", "\u00b7"},
    .timeline = {"\u2588", "\u2593", "\u2592", "\u2591", "\u259a", "\u259e", "\u2599", "\u259b",
                 "\u259c", "\u259f"},
    .rounding = "\u254d", .cached = "\u254c", .cursor = "\u25b2", .peak = "\u25c6",
};
static const glyphs ascii = {
    .track = "-", .knob = "O", .left = "<", .right = ">", .select = ">", .marker = "|",
    .sep = "|", .times = "x", .ellipsis = "...",
    .segment = {"#", "=", "%", "@", "~", "+", ":"},
    .timeline = {"#", "=", "%", "@", "~", "+", "x", "o", "&", "$"},
    .rounding = ",", .cached = ".", .cursor = "^", .peak = "*",
};

const glyphs *theme_glyphs(bool is_utf8)
{
    return is_utf8 ? &utf8 : &ascii;
}
