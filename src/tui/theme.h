/* theme.h: semantic colours with a monochrome fallback, and UTF-8/ASCII glyph tables. */
#ifndef VL_THEME_H
#define VL_THEME_H

#include <curses.h>
#include <stdbool.h>

#include "app/options.h"
#include "core/memory.h"
#include "core/timeline.h"

typedef enum {
    C_NORMAL, C_TITLE, C_HEADING, C_SELECTED, C_DIM, C_OK, C_BAD, C_MARKER, C_KEY, C_OVERLAY,
    C_PICKED, /* the selection inside a reversed bar or box: the active tab, a picker's row */
    C_SEGMENT, /* C_SEGMENT + component: one per memory component */
    N_COLORS = C_SEGMENT + VL_N_COMPONENTS
} ui_color;

typedef struct glyphs {
    const char *track, *knob, *left, *right, *select, *marker, *sep, *times, *ellipsis;
    const char *segment[VL_N_COMPONENTS]; /* monochrome fill patterns */
    /* the Timeline panel: a pattern per timeline component (the first six are the segments'),
     * the allocator's rounding and cache, and the marks of the cursor and of the peak */
    const char *timeline[VL_N_TL_COMPONENTS];
    const char *rounding, *cached, *cursor, *peak;
} glyphs;

/* Sets up colour pairs when `color` (has_colors(), no NO_COLOR, no --no-color). */
void theme_init(bool color, ui_theme theme);
attr_t theme_attr(ui_color c);
bool theme_color(void);
/* Segment cells: a coloured block, or the component's pattern without colour. */
const char *theme_segment_fill(const glyphs *g, vl_component c);
const glyphs *theme_glyphs(bool utf8);

#endif
