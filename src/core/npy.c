/* npy.c: .npy and raw float32 gradient files (npy.h).  The .npy format: NumPy's
 * numpy/lib/format.py, "A Simple File Format for NumPy Arrays" (NEP 1). */
#include "npy.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fileio.h"

#define MAX_DIMS 32

static bool fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The reason into err; false. */
static bool fail(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, VL_NPY_ERR_LEN, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- the header dict -------------------------------------------------------------------- */

typedef struct header {
    const char *start, *p, *end;
    char descr[16];
    bool fortran_order;
    uint64_t dims[MAX_DIMS];
    int n_dims;
    unsigned seen; /* 1 descr, 2 fortran_order, 4 shape */
} header;

static void skip_spaces(header *h)
{
    while (h->p < h->end && *h->p == ' ')
        h->p++;
}

static bool eat(header *h, char c)
{
    skip_spaces(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return true;
    }
    return false;
}

static bool syntax(header *h, char *err, const char *expected)
{
    return fail(err, "malformed .npy header at character %zu: expected %s",
                (size_t)(h->p - h->start) + 1, expected);
}

/* A Python string literal without escapes or NUL bytes, into out. */
static bool string(header *h, char *out, size_t len)
{
    skip_spaces(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return false;
    char quote = *h->p++;
    const char *s = h->p;
    while (h->p < h->end && *h->p != quote && *h->p != '\\' && *h->p != '\0')
        h->p++;
    if (h->p >= h->end || *h->p != quote || (size_t)(h->p - s) >= len)
        return false;
    memcpy(out, s, (size_t)(h->p - s));
    out[h->p - s] = 0;
    h->p++;
    return true;
}

static bool word(header *h, const char *w)
{
    size_t n = strlen(w);
    skip_spaces(h);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0)
        return false;
    h->p += n;
    return true;
}

/* "(3,)", "(2, 3)", "()": whole numbers below 2^63. */
static bool shape(header *h)
{
    bool comma = false;
    if (!eat(h, '('))
        return false;
    h->n_dims = 0;
    skip_spaces(h);
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
        uint64_t v = 0;
        if (h->n_dims == MAX_DIMS)
            return false;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            if (v > (UINT64_MAX >> 1) / 10)
                return false;
            v = v * 10 + (uint64_t)(*h->p++ - '0');
        }
        h->dims[h->n_dims++] = v;
        if (!(comma = eat(h, ',')))
            break;
        skip_spaces(h);
    }
    /* Python writes a 1-tuple with its comma: "(3)" is the number 3, not a shape. */
    return eat(h, ')') && (h->n_dims != 1 || comma);
}

static bool parse_dict(header *h, char *err)
{
    static const char *const keys[] = {"descr", "fortran_order", "shape"};
    char key[32];

    if (!eat(h, '{'))
        return syntax(h, err, "'{'");
    while (!eat(h, '}')) {
        if (!string(h, key, sizeof key))
            return syntax(h, err, "a quoted key or '}'");
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0)
            k++;
        if (k == 3)
            return fail(err, "unexpected key '%s' in the .npy header", key);
        if (h->seen & 1u << k)
            return fail(err, "key '%s' twice in the .npy header", key);
        h->seen |= 1u << k;
        if (!eat(h, ':'))
            return syntax(h, err, "':'");
        if (k == 0 && !string(h, h->descr, sizeof h->descr))
            return syntax(h, err, "a quoted dtype");
        if (k == 1 && !(h->fortran_order = word(h, "True")) && !word(h, "False"))
            return syntax(h, err, "True or False");
        if (k == 2 && !shape(h))
            return syntax(h, err, "a shape tuple of whole numbers");
        if (!eat(h, ',')) {
            if (!eat(h, '}'))
                return syntax(h, err, "',' or '}'");
            break;
        }
    }
    skip_spaces(h);
    if (h->p != h->end)
        return syntax(h, err, "nothing but spaces after '}'");
    for (int k = 0; k < 3; k++)
        if (!(h->seen & 1u << k))
            return fail(err, "the .npy header has no '%s'", keys[k]);
    return true;
}

static void shape_text(const header *h, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < h->n_dims && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%llu", i ? ", " : "",
                               (unsigned long long)h->dims[i]);
    if (at < len)
        snprintf(buf + at, len - at, "%s)", h->n_dims == 1 ? "," : "");
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool parse_npy(const unsigned char *buf, size_t len, size_t max, size_t *n, float **out,
                      char *err)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    size_t pre, hlen;

    if (memcmp(buf, magic, len < 6 ? len : 6) != 0)
        return fail(err, "not a .npy file (it does not start with \\x93NUMPY)");
    if (len < 10)
        return fail(err, "truncated .npy header: the file has %zu bytes", len);
    if (buf[6] < 1 || buf[6] > 3 || buf[7] != 0)
        return fail(err, "unsupported .npy format version %u.%u (1.0, 2.0 and 3.0 are read)",
                    buf[6], buf[7]);
    if (buf[6] == 1) {
        pre = 10;
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    } else {
        if (len < 12)
            return fail(err, "truncated .npy header: the file has %zu bytes", len);
        pre = 12;
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    }
    if (hlen > len - pre)
        return fail(err, "truncated .npy header: the file has %zu bytes, the header needs %zu", len,
                    pre + hlen);
    if (hlen == 0 || buf[pre + hlen - 1] != '\n')
        return fail(err, "the .npy header does not end with a newline");

    header h = {.start = (const char *)buf + pre};
    h.p = h.start;
    h.end = h.start + hlen - 1;
    if (!parse_dict(&h, err))
        return false;

    size_t item;
    if (strcmp(h.descr, "<f4") == 0 || strcmp(h.descr, "<f8") == 0)
        item = h.descr[2] - '0';
    else if (strcmp(h.descr, ">f4") == 0 || strcmp(h.descr, ">f8") == 0)
        return fail(err,
                    "dtype '%s' is big-endian: only little-endian float32 ('<f4') and float64 "
                    "('<f8') are read",
                    h.descr);
    else
        return fail(err, "dtype '%s' is not float32 ('<f4') or float64 ('<f8')", h.descr);
    if (h.fortran_order)
        return fail(err, "fortran_order is True: only C-order arrays are read "
                         "(save numpy.ascontiguousarray(a))");

    char sh[256];
    uint64_t count = 1, bytes;
    bool ovf = false;
    shape_text(&h, sh, sizeof sh);
    for (int i = 0; i < h.n_dims; i++)
        ovf |= __builtin_mul_overflow(count, h.dims[i], &count);
    ovf |= __builtin_mul_overflow(count, (uint64_t)item, &bytes);
    size_t data = len - pre - hlen;
    if (ovf || bytes != data)
        return fail(err, "shape %s of '%s' needs %s%llu bytes of data, the file has %zu", sh,
                    h.descr, ovf ? "over " : "",
                    ovf ? (unsigned long long)UINT64_MAX : (unsigned long long)bytes, data);
    if (count == 0)
        return fail(err, "no values: shape %s", sh);
    if (count > max)
        return fail(err, "too many values: %llu (at most %zu)", (unsigned long long)count, max);

    float *v = *out = malloc((size_t)count * sizeof *v);
    if (!v)
        return fail(err, "out of memory for %llu values", (unsigned long long)count);
    const unsigned char *d = buf + pre + hlen;
    for (size_t i = 0; i < count; i++) {
        if (item == 4) {
            memcpy(&v[i], d + 4 * i, 4); /* configure made sure the host is little-endian */
        } else {
            double x;
            memcpy(&x, d + 8 * i, 8);
            v[i] = (float)x;
        }
    }
    *n = (size_t)count;
    return true;
}

float *vl_npy_parse(const unsigned char *buf, size_t len, size_t max, size_t *n,
                    char err[VL_NPY_ERR_LEN])
{
    float *v = NULL;
    return parse_npy(buf, len, max, n, &v, err) ? v : NULL;
}

static bool npy_name(const char *path)
{
    size_t len = strlen(path);
    return len >= 4 && strcasecmp(path + len - 4, ".npy") == 0; /* grads.NPY too */
}

/* Raw little-endian float32. */
static bool parse_raw(const unsigned char *buf, size_t len, size_t max, size_t *n, float **out,
                      char *err)
{
    if (len == 0)
        return fail(err, "no values: the file is empty");
    if (len % 4)
        return fail(err,
                    "%zu bytes is not a whole number of float32 values (a name without .npy "
                    "is read as raw little-endian float32)",
                    len);
    if (len / 4 > max)
        return fail(err, "too many values: %zu (at most %zu)", len / 4, max);
    if (!(*out = malloc(len)))
        return fail(err, "out of memory for %zu values", len / 4);
    memcpy(*out, buf, len);
    *n = len / 4;
    return true;
}

float *vl_values_read(const char *path, size_t max, size_t *n, char err[VL_NPY_ERR_LEN])
{
    char why[VL_NPY_ERR_LEN], *buf;
    size_t len;
    float *v = NULL;

    /* float64 values take 8 bytes each; a header is at most 4 GiB, but 1 MiB is plenty */
    size_t max_bytes = max > (SIZE_MAX - (1u << 20)) / 8 ? SIZE_MAX - 1 : max * 8 + (1u << 20);
    if (!vl_read_file(path, max_bytes, &buf, &len, err, VL_NPY_ERR_LEN))
        return NULL;
    (npy_name(path) ? parse_npy : parse_raw)((const unsigned char *)buf, len, max, n, &v, why);
    free(buf);
    if (!v)
        snprintf(err, VL_NPY_ERR_LEN, "%s: %.400s", path, why);
    return v;
}
