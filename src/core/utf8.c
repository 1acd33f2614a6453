/* utf8.c: UTF-8 decoding (utf8.h). */
#include "utf8.h"

size_t vl_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
    static const struct {
        unsigned char mask, lead;
        uint32_t min;
    } forms[] = {{0x80, 0x00, 0}, {0xE0, 0xC0, 0x80}, {0xF0, 0xE0, 0x800}, {0xF8, 0xF0, 0x10000}};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        if ((s[0] & forms[k].mask) != forms[k].lead)
            continue;
        if (k >= n)
            return 0;
        uint32_t c = s[0] & (uint32_t)~forms[k].mask & 0x7F;
        for (size_t i = 1; i <= k; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            c = c << 6 | (s[i] & 0x3F);
        }
        if (c < forms[k].min || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
            return 0;
        *cp = c;
        return k + 1;
    }
    return 0;
}
