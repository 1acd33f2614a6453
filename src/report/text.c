/* text.c: one walk over UTF-8 for every escaping (table, Markdown, SVG, JSON). */
#include "text.h"

#include <stdint.h>
#include <string.h>

#include "core/utf8.h"

/* What an escaping writes instead of the characters it cannot carry as they are. */
typedef struct escaping {
    const char *special;              /* ASCII characters written as... */
    const char *const *replacement;   /* ...these, in the same order */
    const char *c0;                   /* a C0 control or DEL (printf of the code) */
    const char *c1;                   /* a C1 control, U+0080..U+009F */
    const char *bad;                  /* a byte that is not valid UTF-8 */
} escaping;

static const char *const xml_entities[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
static const char *const json_quoted[] = {"\\\"", "\\\\"};

/* XML 1.0 has no way to write most control characters, even as &#x..;, so the SVG shows
 * them as the terminal does. */
static const escaping escapings[N_TEXT_ESCAPES] = {
    [TEXT_TERMINAL] = {"", NULL, "\\x%02x", "\\u%04x", "\\x%02x"},
    [TEXT_XML] = {"&<>\"", xml_entities, "\\x%02x", "\\u%04x", "\\x%02x"},
    [TEXT_JSON] = {"\"\\", json_quoted, "\\u%04x", "\\u%04x", "\\ufffd"}, /* RFC 8259 §7 */
};

size_t text_write(FILE *out, const char *s, text_escape how)
{
    const escaping *e = &escapings[how];
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    size_t written = 0;
    while (*p) {
        size_t run = 0; /* printable ASCII the escaping keeps as it is: one write */
        while (p[run] >= 0x20 && p[run] < 0x7F && !strchr(e->special, p[run]))
            run++;
        if (run) {
            written += fwrite(p, 1, run, out);
            p += run;
            continue;
        }
        uint32_t cp;
        size_t n = vl_utf8_sequence(p, (size_t)(end - p), &cp);
        const char *special = n == 1 ? strchr(e->special, *p) : NULL;
        int k;
        if (n == 0)
            k = fprintf(out, e->bad, *p);
        else if (cp < 0x20 || cp == 0x7F)
            k = fprintf(out, e->c0, (unsigned)cp);
        else if (cp >= 0x80 && cp <= 0x9F)
            k = fprintf(out, e->c1, (unsigned)cp);
        else if (special)
            k = fprintf(out, "%s", e->replacement[special - e->special]);
        else
            k = fwrite(p, 1, n, out) == n ? (int)n : -1;
        written += k > 0 ? (size_t)k : 0;
        p += n ? n : 1;
    }
    return written;
}

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    text_write(out, s, TEXT_JSON);
    fputc('"', out);
}
