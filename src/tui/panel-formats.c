/* panel-formats.c: the Formats panel (HACKING §5): the number formats' bit layouts and
 * ranges, and a typed value in each: what `vramlab formats` and `vramlab inspect` print. */
#include <curses.h>
#include <stdio.h>

#include "core/i18n.h"
#include "panel.h"

/* "0 01011 1001100110": the code's sign, exponent and mantissa, each in its colour. */
static void draw_bits(int y, int x, vl_format f, uint32_t code)
{
    const vl_format_info *t = &vl_formats[f];
    int col = x;
    for (int i = (int)t->bits - 1; i >= 0; i--) {
        ui_color c = i == (int)t->bits - 1       ? C_BAD
                     : i >= (int)t->man_bits      ? (ui_color)(C_SEGMENT + VL_C_GRADIENTS)
                                                  : C_OK;
        attrset(theme_attr(c) | A_BOLD);
        mvaddch(y, col++, (code >> i) & 1 ? '1' : '0');
        if (i == (int)t->bits - 1 || i == (int)t->man_bits)
            col++;
    }
    attrset(theme_attr(C_NORMAL));
}

static void formats_draw(const ui *u)
{
    const lab *l = &u->lab;
    rect r = u->lay.panel;
    int w = r.w, y = r.y;
    char line[512], cls[64];
    /* the two headings and the two tables always; of the rows after them, the least
     * important are given up first: the blank rows after the tables, then the bf16 prose
     * line, then the fp16 one */
    int spare = r.h - 2 - 2 * VL_N_FORMATS;
    int prose = spare < 0 ? 0 : spare > 2 ? 2 : spare;
    int gaps = spare - prose;
    draw_text(y++, 0, w, C_HEADING,
              theme_color()
                  ? _(" the formats, bit by bit: sign (red) | exponent (cyan) | mantissa (green)")
                  : _(" the formats, bit by bit: sign (underlined) | exponent | mantissa"));
    for (int f = 0; f < VL_N_FORMATS; f++, y++) {
        const vl_format_info *t = &vl_formats[f];
        snprintf(line, sizeof line,
                 _("%-9s 1+%u+%-2u bias %3d  max %-8.3g min normal %-8.3g min sub %-8.3g "
                   "eps %-8.3g %.1f digits"),
                 vl_format_names[f], t->exp_bits, t->man_bits, t->bias, t->max, t->min_normal,
                 t->min_subnormal, t->epsilon, t->digits);
        draw_text(y, 1, w - 1, C_NORMAL, line);
    }
    y += gaps > 1;
    snprintf(line, sizeof line, _(" %s, in every format (Enter: type another value)"), l->typed);
    draw_text(y++, 0, w, C_HEADING, line);
    for (int f = 0; f < VL_N_FORMATS; f++, y++) {
        const vl_inspection *in = &l->insp[f];
        const vl_format_info *t = &vl_formats[f];
        snprintf(line, sizeof line, "%-9s 0x%0*x", vl_format_names[f], (int)(t->bits / 4),
                 in->code);
        draw_text(y, 1, 22, C_NORMAL, line);
        draw_bits(y, 22, (vl_format)f, in->code);
        snprintf(line, sizeof line, _("= %-14.9g %s abs %-9.3g rel %.3g"), (double)in->value,
                 draw_pad(cls, sizeof cls, _(vl_class_names[in->cls]), -9), in->abs_error,
                 in->rel_error);
        draw_text(y, 22 + (int)t->bits + 3, w - 25 - (int)t->bits, C_NORMAL, line);
    }
    y += gaps > 0;
    if (prose > 0)
        draw_text(y, 1, w - 1, C_DIM,
                  _("fp16: 10 mantissa bits but a narrow range (below 2^-24 is 0: loss scaling);"));
    if (prose > 1)
        draw_text(y + 1, 1, w - 1, C_DIM,
                  _("bf16: fp32's range with 7 mantissa bits (updates below w/256 are lost: fp32 "
                    "master weights)."));
}

static const binding formats_keys[] = {
    {.keys = "Enter", .brief = N_("type a value"),
     .help = N_("type a value to see it in every format"),
     .action = ui_begin_edit, .on = {KEYS_ENTER}},
};

static const char *formats_edit_label(const ui *u)
{
    (void)u;
    return _("value");
}

static bool formats_edit(ui *u, const char *text, char *why, size_t len)
{
    return lab_inspect(&u->lab, text, why, len);
}

UI_PANEL(formats) = {
    .name = N_("Formats"),
    PANEL_KEYS(formats_keys),
    .enter = panel_lab_enter,
    .draw = formats_draw,
    .edit_label = formats_edit_label,
    .edit = formats_edit,
};
