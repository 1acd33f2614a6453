/* i18n.h: the explorer's own text through GNU gettext (po/, HACKING §1).  N_() marks a
 * string for the catalogue where a table defines it (the settings table's labels, the
 * components' names: the core marks, it never translates); _() translates a string where
 * the explorer shows it; P_() chooses a count's form ("1 GPU", "8 GPUs").  The commands'
 * outputs (tables, JSON, CSV, Markdown, SVG) are never translated.  No curses here.
 * Without NLS (./configure --disable-nls) every string is its English self. */
#ifndef VL_I18N_H
#define VL_I18N_H

#include <config.h>

#if ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#define P_(one, many, n) ngettext(one, many, n)
#else
#define _(s) (s)
#define P_(one, many, n) ((n) == 1 ? (one) : (many))
#endif
#define N_(s) s

#endif
