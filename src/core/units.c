/* units.c: exact integer arithmetic, count/size parsing and formatting. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

uint64_t vl_mul(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

uint64_t vl_add(uint64_t a, uint64_t b, bool *ovf)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *ovf = true;
        return UINT64_MAX;
    }
    return r;
}

uint64_t vl_ppm_of(uint64_t x, uint64_t ppm)
{
    /* in parts: x / 10^6 x ppm < 2^64 and x % 10^6 x ppm < 10^12 */
    return x / VL_PPM * ppm + x % VL_PPM * ppm / VL_PPM;
}

uint64_t vl_ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Parses "<digits>[.<digits>][e[+]<digits>]" exactly: the value is mant * 10^exp10.  The
 * integer part and fraction are kept as one integer mantissa, so "1.5T" is exact, and zeros
 * after the last nonzero digit go into the exponent, so "1.000000000000000000000" fits.
 * *lost: more significant digits than 64 bits hold (the value, too large or not whole,
 * is then only known approximately). */
static bool parse_decimal(const char **sp, uint64_t *mant, int *exp10, bool *lost,
                          const char **why)
{
    const char *s = *sp;
    uint64_t m = 0;
    int e = 0, digits = 0, zeros = 0; /* zeros: not yet in m */

    *lost = false;
    for (bool frac = false;; s++) {
        if (*s == '.' && !frac) {
            frac = true;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            break;
        digits++;
        e -= frac;
        if (*s == '0') {
            zeros++;
            continue;
        }
        for (; zeros > 0 && !*lost; zeros--)
            m = vl_mul(m, 10, lost);
        zeros = 0;
        m = vl_add(vl_mul(m, 10, lost), (uint64_t)(*s - '0'), lost);
    }
    if (digits == 0) {
        *why = "expected a number";
        return false;
    }
    /* an exponent needs a digit: "4e+" and "7e+B" are not 4 and 7e9 */
    if ((*s == 'e' || *s == 'E') && s[1] == '+' && !isdigit((unsigned char)s[2])) {
        *why = "the exponent has no digits";
        return false;
    }
    if ((*s == 'e' || *s == 'E') &&
        (isdigit((unsigned char)s[1]) || (s[1] == '+' && isdigit((unsigned char)s[2])))) {
        s += 1 + (s[1] == '+');
        int x = 0;
        while (isdigit((unsigned char)*s)) {
            if (x > 100) {
                *why = "exponent too large";
                return false;
            }
            x = x * 10 + (*s++ - '0');
        }
        e += x;
    }
    *mant = m;
    *exp10 = e + zeros;
    *sp = s;
    return true;
}

/* mant * 10^exp10 * mult, exactly, or false. */
static bool scale_exact(uint64_t mant, int exp10, uint64_t mult, uint64_t *out, const char **why)
{
    bool ovf = false;
    uint64_t v = vl_mul(mant, mult, &ovf);
    for (; exp10 > 0 && v && !ovf; exp10--)
        v = vl_mul(v, 10, &ovf);
    if (ovf) {
        *why = "number too large (over 2^64)";
        return false;
    }
    for (; exp10 < 0 && v; exp10++) {
        if (v % 10 != 0) {
            *why = "not a whole number";
            return false;
        }
        v /= 10;
    }
    *out = v;
    return true;
}

struct suffix {
    const char *name;
    uint64_t mult;
};

/* "<number>[ ]<suffix>" into mantissa, power of ten and the suffix's multiplier. */
static bool parse_parts(const char *s, const struct suffix *tab, uint64_t *mant, int *e,
                        uint64_t *mult, const char **why)
{
    const char *p = s;

    while (isspace((unsigned char)*p))
        p++;
    if (*p == '-') {
        *why = "must not be negative";
        return false;
    }
    const char *number = p;
    bool lost;
    if (!parse_decimal(&p, mant, e, &lost, why))
        return false;
    while (*p == ' ')
        p++;
    *mult = 1;
    if (*p) {
        const struct suffix *t;
        for (t = tab; t->name; t++)
            if (strcasecmp(p, t->name) == 0)
                break;
        if (!t->name) {
            *why = "unknown unit suffix";
            return false;
        }
        *mult = t->mult;
    }
    if (lost) { /* its last digit is below the units (not whole) unless it is huge */
        *why = strtod(number, NULL) * (double)*mult >= 0x1p64 ? "number too large (over 2^64)"
                                                              : "not a whole number";
        return false;
    }
    return true;
}

static bool parse_with_suffix(const char *s, const struct suffix *tab, uint64_t *out,
                              const char **why)
{
    uint64_t mant, mult;
    int e;
    return parse_parts(s, tab, &mant, &e, &mult, why) && scale_exact(mant, e, mult, out, why);
}

static const struct suffix count_suffixes[] = {
    {"k", 1000ULL}, {"M", 1000000ULL}, {"B", 1000000000ULL}, {"T", 1000000000000ULL},
    {NULL, 0},
};

bool vl_parse_count(const char *s, uint64_t *out, const char **why)
{
    return parse_with_suffix(s, count_suffixes, out, why);
}

bool vl_parse_rounded(const char *s, uint64_t *value, uint64_t *unit, const char **why)
{
    uint64_t mant, mult;
    int e;
    if (!parse_parts(s, count_suffixes, &mant, &e, &mult, why))
        return false;
    if (mant == 0) {
        *why = "must be more than 0";
        return false;
    }
    for (; mant % 10 == 0; mant /= 10) /* trailing zeros are not significant */
        e++;
    if (!scale_exact(mant, e, mult, value, why))
        return false;
    if (!scale_exact(1, e, mult, unit, why)) {
        *why = "its last digit is finer than one parameter";
        return false;
    }
    return true;
}

/* mant * 10^exp10 * mult to the nearest whole number, halves up, where mult is a power of
 * two times a power of 1000: the decimal part goes into the exponent, and the binary part
 * and a power of ten up to 10^27 (5^27 < 2^64) are exact in a long double's 64-bit
 * mantissa, so the one rounding is the division's. */
static bool scale_rounded(uint64_t mant, int exp10, uint64_t mult, uint64_t *out,
                          const char **why)
{
    for (; mult % 1000 == 0; mult /= 1000)
        exp10 += 3;
    long double v = (long double)mant * (long double)mult, p10 = 1;
    for (int k = exp10 < 0 ? -exp10 : exp10; k > 0; k--)
        p10 *= 10;
    v = exp10 < 0 ? v / p10 : v * p10;
    v = floorl(v + 0.5L);
    if (v >= 0x1p64L) {
        *why = "number too large (over 2^64)";
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

bool vl_parse_size(const char *s, uint64_t *out, const char **why)
{
    static const struct suffix tab[] = {
        {"B", 1},
        {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20}, {"GiB", 1ULL << 30}, {"TiB", 1ULL << 40},
        {"kB", 1000ULL}, {"MB", 1000000ULL}, {"GB", 1000000000ULL}, {"TB", 1000000000000ULL},
        {NULL, 0},
    };
    uint64_t mant, mult;
    int e;
    if (!parse_parts(s, tab, &mant, &e, &mult, why))
        return false;
    /* a size in units above a byte may be rounded, as nvidia-smi and serving engines' logs
     * print them ("23.58GiB"): it is the nearest whole byte; bytes themselves are whole */
    return mult > 1 ? scale_rounded(mant, e, mult, out, why) : scale_exact(mant, e, 1, out, why);
}

bool vl_parse_real(const char *s, double *out, const char **why)
{
    const char *p = s + (*s == '-' || *s == '+');
    char *end;

    if (p[0] == '2' && (p[1] == '^' || (p[1] == '*' && p[2] == '*'))) {
        const char *e = p + (p[1] == '^' ? 2 : 3);
        long n = strtol(e, &end, 10);
        if (end == e || *end) {
            *why = "expected 2^N with a whole N";
            return false;
        }
        if (n < -1074 || n > 1023) { /* fp64's smallest subnormal and largest power of two */
            *why = "2^N is a number of fp64 for N from -1074 to 1023 only";
            return false;
        }
        *out = ldexp(*s == '-' ? -1.0 : 1.0, (int)n);
        return true;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || isspace((unsigned char)*s)) {
        *why = "expected a number";
        return false;
    }
    /* strtod's ERANGE: beyond fp64 it gives +-inf, below its smallest subnormal 0 */
    if (errno == ERANGE && isinf(v)) {
        *why = "it overflows fp64: above 1.8e308 it reads as inf (write inf for infinity)";
        return false;
    }
    if (errno == ERANGE && v == 0) {
        *why = "it underflows fp64: nonzero but below 2^-1074 (4.9e-324), it reads as 0";
        return false;
    }
    *out = v;
    return true;
}

bool vl_parse_fraction(const char *s, uint64_t *ppm, const char **why)
{
    char num[64];
    size_t n = strlen(s);
    bool percent = n > 1 && s[n - 1] == '%';
    if (n >= sizeof num) {
        *why = "too long";
        return false;
    }
    memcpy(num, s, n + 1);
    if (percent)
        num[n - 1] = '\0';
    double v;
    if (!vl_parse_real(num, &v, why))
        return false;
    if (percent)
        v /= 100;
    if (!(v >= 0 && v <= 1)) {
        *why = "expected a fraction from 0 to 1 (0.4 or 40%)";
        return false;
    }
    *ppm = (uint64_t)llround(v * (double)VL_PPM);
    return true;
}

char *vl_fmt_int(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < len)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

char *vl_fmt_count(uint64_t v, char *buf, size_t len)
{
    if (v < 100000)
        snprintf(buf, len, "%llu", (unsigned long long)v);
    else
        snprintf(buf, len, "%.3g", (double)v);
    /* "6.74e+09" -> "6.74e9" */
    char *e = strchr(buf, 'e');
    if (e) {
        char *d = e + 1;
        if (*d == '+')
            d++;
        while (*d == '0' && d[1])
            d++;
        memmove(e + 1, d, strlen(d) + 1);
    }
    return buf;
}

double vl_in_units(uint64_t bytes, vl_units u)
{
    return (double)bytes / (double)(u == VL_UNITS_GB ? VL_GB : VL_GIB);
}

const char *vl_units_name(vl_units u)
{
    return u == VL_UNITS_GB ? "GB" : "GiB";
}

char *vl_fmt_bytes(uint64_t bytes, vl_units u, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f %s", vl_in_units(bytes, u), vl_units_name(u));
    return buf;
}
