/* units.h: exact integer arithmetic and the parsing/printing of counts and sizes.
 *
 * Byte counts are uint64_t everywhere.  Every multiplication and addition that can grow
 * goes through vl_mul/vl_add, which saturate and set *ovf instead of wrapping, so a
 * result is either exact or reported as too large; nothing passes through a double. */
#ifndef VL_UNITS_H
#define VL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VL_GIB 1073741824ULL /* 2^30 */
#define VL_GB  1000000000ULL /* 10^9 */

uint64_t vl_mul(uint64_t a, uint64_t b, bool *ovf);
uint64_t vl_add(uint64_t a, uint64_t b, bool *ovf);
uint64_t vl_ceil_div(uint64_t a, uint64_t b);

/* "7B", "7e9", "350M", "1.5T", "124439808", "10k": an exact non-negative integer count.
 * Returns false (and a reason in *why) for anything else, fractions of one included. */
bool vl_parse_count(const char *s, uint64_t *out, const char **why);
/* A published figure rounded to its last significant digit: "350M", "1.3B", "175e9".
 * *unit is that digit's place value (350M: 10M, 1.3B: 100M, 175B: 1B); trailing zeros are
 * not significant.  The exact count it stands for is within unit / 2 of *value. */
bool vl_parse_rounded(const char *s, uint64_t *value, uint64_t *unit, const char **why);
/* "0", "1GiB", "800MB", "512 MiB", "1e9": bytes (binary KiB..TiB, decimal kB..TB).  A size
 * in units above a byte is rounded to the nearest byte ("23.58GiB", as logs print it); a
 * number of bytes must be whole. */
bool vl_parse_size(const char *s, uint64_t *out, const char **why);

/* "0.1", "-1e-8", "0x1p-24", "inf", "nan" (strtod), or "2^-24", "-2**10" (exact powers of
 * two): a real number.  Returns false (and a reason in *why) for anything else, and for a
 * number that fp64 cannot hold, so that "1e400" is not inf nor "1e-400" 0. */
bool vl_parse_real(const char *s, double *out, const char **why);
/* A fraction from 0 to 1 ("0.4", "40%") in millionths (VL_PPM = 1); false with *why. */
#define VL_PPM 1000000ULL
bool vl_parse_fraction(const char *s, uint64_t *ppm, const char **why);
/* floor(x x ppm / 10^6), exactly, for ppm <= 10^6 and x < 2^64 / 10^6 x 10^6. */
uint64_t vl_ppm_of(uint64_t x, uint64_t ppm);

/* 1234567 -> "1,234,567". Returns buf. */
char *vl_fmt_int(uint64_t v, char *buf, size_t len);
/* 6738415616 -> "6.74e9"; short counts for formulas and headings. */
char *vl_fmt_count(uint64_t v, char *buf, size_t len);

typedef enum { VL_UNITS_GIB, VL_UNITS_GB } vl_units;
/* bytes in the chosen unit as a number (for display only) and the unit's name. */
double vl_in_units(uint64_t bytes, vl_units u);
const char *vl_units_name(vl_units u);
/* "12.55 GiB" (two decimals). Returns buf. */
char *vl_fmt_bytes(uint64_t bytes, vl_units u, char *buf, size_t len);

#endif
