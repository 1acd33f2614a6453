/* fileio.c: reading a user's file without blocking (fileio.h). */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Up to max + 1 bytes of fd into a buffer that starts at hint + 1 bytes and grows: false
 * with errno (ENOMEM for memory) on failure. */
static bool read_all(int fd, size_t hint, size_t max, char **out, size_t *len)
{
    size_t cap = (hint < max ? hint : max) + 1, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        if (n == cap) {
            if (cap > max)
                break; /* max + 1 bytes: too large */
            size_t ncap = cap > max / 2 ? max + 1 : 2 * cap;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int saved = errno;
            free(b);
            errno = saved;
            return false;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (!b) {
        errno = ENOMEM;
        return false;
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return true;
}

bool vl_read_file(const char *path, size_t max, char **buf, size_t *len, char *err,
                  size_t err_len)
{
    bool is_stdin = strcmp(path, "/dev/stdin") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    bool ok = false;

    *buf = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    else if (!is_stdin && !S_ISREG(st.st_mode))
        snprintf(err, err_len, "%s: not a regular file", path);
    else if (!is_stdin && (uint64_t)st.st_size > max)
        snprintf(err, err_len, "%s: too large (over %zu KiB)", path, max >> 10);
    else if (!read_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536, max, buf, len))
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
    else if (*len > max)
        snprintf(err, err_len, "%s: too large (over %zu KiB)", path, max >> 10);
    else
        ok = true;
    if (fd >= 0 && !is_stdin)
        close(fd);
    if (!ok) {
        free(*buf);
        *buf = NULL;
    }
    return ok;
}
