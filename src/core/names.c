/* names.c: name tables and "did you mean". */
#include "names.h"

#include <stdio.h>
#include <string.h>

int vl_lookup(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* Optimal-string-alignment distance (edits and adjacent transpositions), capped at 9. */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 9;
    unsigned d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            unsigned cost = a[i - 1] != b[j - 1];
            unsigned v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m] > 9 ? 9 : d[n][m];
}

const char *vl_did_you_mean(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    unsigned limit = strlen(s) >= 5 ? 3 : 2; /* accept distances below this */
    for (size_t i = 0; i < n; i++) {
        unsigned d = edit_distance(s, names[i]);
        if (d < limit) {
            limit = d;
            best = names[i];
        }
    }
    return best;
}

const char *vl_hint(const char *s, const char *const *names, size_t n, char *buf, size_t len)
{
    const char *near = vl_did_you_mean(s, names, n);
    if (near)
        snprintf(buf, len, "; did you mean '%s'?", near);
    else
        buf[0] = '\0';
    return buf;
}

const char *vl_join(const char *const *names, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                              names[i]);
    return buf;
}

int vl_strcmp_ptrs(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
