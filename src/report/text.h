/* text.h: text that came from a file, made safe for where it is written. */
#ifndef VL_TEXT_H
#define VL_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Where a text goes.  Every escaping keeps valid UTF-8 and shows each control character
 * (C0, DEL, C1) and each byte that is not valid UTF-8 in a visible, harmless form. */
typedef enum {
    TEXT_TERMINAL, /* a terminal or Markdown: "\x1b", "\u009b", "\xff" */
    TEXT_XML,      /* XML character data and attributes: the terminal's, and &amp; &lt; ... */
    TEXT_JSON,     /* inside a JSON string: \" \\ \u001b, and U+FFFD for a bad byte */
    N_TEXT_ESCAPES
} text_escape;

/* s escaped for `how`, written to out; returns the bytes written. */
size_t text_write(FILE *out, const char *s, text_escape how);
/* s as a JSON string, quoted and escaped. */
void json_string(FILE *out, const char *s);

#endif
