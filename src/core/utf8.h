/* utf8.h: UTF-8 as RFC 3629 defines it, for text that came from a file: the escapings of
 * every report (report/text.c) and the safetensors headers (hfcache.c) decode it here. */
#ifndef VL_UTF8_H
#define VL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length of the valid UTF-8 sequence at s, among the n bytes there (no overlong forms,
 * no surrogates, nothing above U+10FFFF), its code point in *cp; 0 when s starts with a
 * bad byte or a sequence cut short. */
size_t vl_utf8_sequence(const unsigned char *s, size_t n, uint32_t *cp);

#endif
